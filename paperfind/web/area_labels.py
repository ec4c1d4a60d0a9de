"""Subject areas in Chinese: the areas the sources write, as a Chinese page shows them.

Areas are the venues' own labels (ICLR's and NeurIPS's primary areas, a few workshops'
sessions), in English; a Chinese page showed them so on every card, facet and area page. Each
label of the bundled corpus (51, `SELECT DISTINCT area FROM papers`) has its Chinese here, in
the terms the field uses in Chinese (those of paperfind/text/zh_en_glossary.tsv where it has
them). A label not listed (another corpus's) is shown as the source wrote it. The key is the
label folded (`paperfind.web.i18n.folded_label`); the link to an area page keeps the English.
"""

from __future__ import annotations

AREA_LABELS_ZH: dict[str, str] = {
    "applications to computer vision, audio, language, and other modalities": "计算机视觉、音频、语言等模态的应用",
    "foundation or frontier models, including llms": "基础模型与前沿模型（含大语言模型）",
    "generative models": "生成模型",
    "unsupervised, self-supervised, semi-supervised, and supervised representation learning":
        "无监督、自监督、半监督与监督表示学习",
    "alignment, fairness, safety, privacy, and societal considerations": "对齐、公平、安全、隐私与社会影响",
    "datasets and benchmarks": "数据集与基准",
    "reinforcement learning": "强化学习",
    "applications to physical sciences (physics, chemistry, biology, etc.)": "物理科学应用（物理、化学、生物等）",
    "optimization": "优化",
    "other topics in machine learning (i.e., none of the above)": "机器学习其他主题（不属于以上各类）",
    "transfer learning, meta learning, and lifelong learning": "迁移学习、元学习与终身学习",
    "interpretability and explainable ai": "可解释性与可解释人工智能",
    "learning on graphs and other geometries & topologies": "图及其他几何与拓扑结构上的学习",
    "learning theory": "学习理论",
    "representation learning for computer vision, audio, language, and other modalities":
        "计算机视觉、音频、语言等模态的表示学习",
    "applications to robotics, autonomy, planning": "机器人、自主系统与规划的应用",
    "probabilistic methods (bayesian methods, variational inference, sampling, uq, etc.)":
        "概率方法（贝叶斯方法、变分推断、采样、不确定性量化等）",
    "general machine learning (i.e., none of the above)": "通用机器学习（不属于以上各类）",
    "learning on time series and dynamical systems": "时间序列与动力系统上的学习",
    "applications to neuroscience & cognitive science": "神经科学与认知科学的应用",
    "societal considerations including fairness, safety, privacy": "社会影响（含公平、安全、隐私）",
    "neurosymbolic & hybrid ai systems (physics-informed, logic & formal reasoning, etc.)":
        "神经符号与混合人工智能系统（物理信息、逻辑与形式推理等）",
    "causal reasoning": "因果推理",
    "infrastructure, software libraries, hardware, systems, etc.": "基础设施、软件库、硬件与系统等",
    "visualization or interpretation of learned representations": "学习到的表示的可视化与解释",
    "infrastructure, software libraries, hardware, etc.": "基础设施、软件库、硬件等",
    "metric learning, kernel learning, and sparse coding": "度量学习、核学习与稀疏编码",
    "theory": "理论",
    "sequence representations": "序列表示",
    "robustness and verification": "鲁棒性与验证",
    "representation learning": "表示学习",
    "reliable rl": "可靠的强化学习",
    "probabilistic approaches": "概率方法",
    "optimisation theory": "优化理论",
    "network architectures": "网络架构",
    "natural language": "自然语言",
    "graphs and representations": "图与表示",
    "rl and planning": "强化学习与规划",
    "biology and ml": "生物学与机器学习",
    "optimisation i": "优化（一）",
    "symbols and discovery": "符号与发现",
    "signals and systems": "信号与系统",
    "rl and estimation": "强化学习与估计",
    "optimisation ii": "优化（二）",
    "multiagent systems": "多智能体系统",
    "meta-learning": "元学习",
    "feature discovery for structured data": "结构化数据的特征发现",
    "fairness, interpretabiity and deployment": "公平性、可解释性与部署",  # the source's spelling
    "continual learning and few shot learning": "持续学习与小样本学习",
    "actions and counterfactuals": "行动与反事实",
}
