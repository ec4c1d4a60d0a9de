"""Papers' names and standing (paperfind.index.paper_names; their files, paper_name_table) from
sentences of real abstracts."""

from __future__ import annotations

import re

import numpy as np

from paperfind.index.paper_name_table import PaperNameTable, save_paper_names
from paperfind.index.paper_names import (PaperNames, _endings, fold_paper_name, long_form, lookup_keys,
                                         mine_names, own_names, query_forms)

# Real titles and sentences of the bundled corpus (the keys they come from in comments)
BIGGAN = ("Large Scale GAN Training for High Fidelity Natural Image Synthesis",  # iclr2019:B1xsqj09Fm
          "We train Generative Adversarial Networks at the largest scale yet attempted. When trained on "
          "ImageNet at 128x128 resolution, our models (BigGANs) achieve an Inception Score (IS) of 166.3.")
MIXUP = ("mixup: Beyond Empirical Risk Minimization",  # iclr2018:r1Ddp1-Rb
         "In this work, we propose mixup, a simple learning principle to alleviate these issues.")
MAXOUT = ("Maxout Networks",  # icml2013:2326d0f841
          "We consider the problem of designing models to leverage a recently introduced approximate model "
          "averaging technique called dropout. We define a simple new model called maxout (so named because "
          "its output is the max of a set of inputs).")


def test_folded_names_compare_spellings_and_plurals() -> None:
    assert [fold_paper_name(n) for n in ("BigGANs", "ResNets", "Grad-CAM", "GPT-3")] == [
        "biggan", "resnet", "gradcam", "gpt3"]
    assert fold_paper_name("LORAS") == "loras"  # an acronym's own S is not a plural
    assert query_forms("biggans") == ["biggans", "biggan"]


def test_what_a_title_and_abstract_introduce() -> None:
    assert own_names(*BIGGAN) == ["BigGANs"]
    assert own_names(*MIXUP) == ["mixup"]
    assert own_names("A Simple Framework for Contrastive Learning of Visual Representations",
                     "This paper presents SimCLR: a simple framework for contrastive learning.") == ["SimCLR"]
    assert own_names("Densely Connected Convolutional Networks",
                     "In this paper, we introduce the Dense Convolutional Network (DenseNet), which connects "
                     "each layer to every other layer.") == ["DenseNet"]
    # someone else's technique ("a recently introduced technique called dropout") is not its name
    assert own_names(*MAXOUT) == ["maxout"]


def test_long_forms_are_spelt_by_the_acronym_right_to_left() -> None:
    assert long_form("we use denoising diffusion probabilistic models".split(), "DDPM") == [
        "denoising", "diffusion", "probabilistic", "models"]
    assert long_form("Adam with Decoupled Weight Decay".split(), "AdamW") == [
        "adam", "with", "decoupled", "weight", "decay"]
    assert long_form("a simple baseline".split(), "XYZ") == []


def _mine(papers: list[tuple[str, str, int, int]], authors: list[list[str]] | None = None):
    """mine_names over (title, abstract, year, citations) rows, with postings of folded words
    (and the rows' authors, for the papers' author-year citations)."""
    words = [set(re.findall(r"[a-z0-9]+", f"{t} {a}".lower())) for t, a, _, _ in papers]

    def rows_with(name: str) -> np.ndarray:
        wanted = re.findall(r"[a-z0-9]+", name.lower())
        plural = [w[:-1] for w in wanted]
        return np.asarray([r for r, ws in enumerate(words)
                           if all(w in ws or p in ws for w, p in zip(wanted, plural))], dtype=np.int64)
    return mine_names([p[0] for p in papers], [p[1] for p in papers], np.asarray([p[2] for p in papers]),
                      np.arange(len(papers)), np.asarray([p[3] for p in papers]), rows_with, authors)


def test_names_from_the_corpus_and_the_standing_they_give() -> None:
    found = _mine([
        BIGGAN + (2019, 2778),
        MIXUP + (2018, -1),
        ("Decoupled Weight Decay Regularization",  # iclr2019:Bkg6RiCqY7
         "We propose a simple modification to recover the original formulation of weight decay.", 2019, -1),
        ("On the Convergence of AdamW", "Loshchilov and Hutter proposed Adam with Decoupled Weight Decay "
         "(AdamW). We study it.", 2021, -1),
        ("Scheduled weight decay", "Adam with decoupled weight decay (AdamW) is the optimizer of choice; "
         "we train BigGAN with mixup.", 2022, -1),
        # a later paper that names itself with a word the field already used is not ELECTRA's owner
        ("ELECTRA: Pre-training Text Encoders as Discriminators", "We propose ELECTRA, a sample-efficient "
         "pre-training task.", 2020, 1214),
        ("Fine-tuning ELECTRA", "We fine-tune ELECTRA on small data.", 2021, -1),
        ("Distilling ELECTRA", "A smaller ELECTRA discriminator.", 2022, -1),
        ("ELECTRA for charge densities", "We present the Electronic Tensor Reconstruction Algorithm "
         "(ELECTRA), an equivariant model.", 2025, -1),
    ])
    assert found.names[0] == ["BigGANs"] and found.names[1] == ["mixup"]
    assert found.names[2] == ["AdamW"]  # two later papers write its title's words with the acronym
    assert found.table["adamw"] == [2] and found.table["biggan"] == [0]
    assert found.table["electra"] == [5] and found.names[8] == []
    assert found.mentions[2] == 2 and found.mentions[5] == 3 and found.mentions[3] == 0
    assert 0 < found.standing[2] <= 1 and found.standing[3] == 0


def test_the_name_files_round_trip_and_are_optional(tmp_path) -> None:
    found = _mine([MIXUP + (2018, -1), ("Manifold mixup", "We extend mixup to hidden states.", 2019, -1)])
    save_paper_names(found, tmp_path)
    table = PaperNameTable(tmp_path, 2)
    assert table.present and table.rows_named("Mixup") == [0] and table.rows_named("mixups") == [0]
    assert table.names_of(0) == ["mixup"] and table.names_of(1) == []
    assert int(table.mentions[0]) == 1
    empty = PaperNameTable(tmp_path / "none", 2)  # a first start's first index has no name files
    assert not empty.present and empty.rows_named("mixup") == [] and empty.standing.tolist() == [0, 0]


def test_a_few_rows_names_are_read_without_parsing_every_rows(tmp_path) -> None:
    """A CLI search names its ten cards: it finds their rows in the file by key instead of
    parsing every row's names (0.2-0.4 s of its start on the bundled corpus); a server, which
    asks for many, parses them once. Both give the same names, whatever a name holds."""
    names = [["mixup"], [], ['say "12": no'], ["12"], ['a,"3":b'], ["BigGANs", "BigGAN-deep"]] * 20
    found = PaperNames(names=names, mentions=np.zeros(len(names), np.int32),
                       standing=np.zeros(len(names), np.float32), table={"12": [3], "mixup": [0]})
    save_paper_names(found, tmp_path)
    table = PaperNameTable(tmp_path, len(names))
    assert table.rows_named("mixup") == [0]
    assert [table.names_of(r) for r in range(10)] == names[:10]
    assert table._payload is None  # ten rows, and nothing parsed but their own
    assert [table.names_of(r) for r in range(len(names))] == names
    assert table._payload is not None and table.names_of(len(names) + 5) == []


def test_a_long_form_ending_keeps_the_words_its_acronym_stands_for() -> None:
    # "graph" is the G of GCN: without it, the words are another paper's title opening
    found = _mine([
        ("Convolutional Networks on Graphs for Learning Molecular Fingerprints",  # nips2015:5954
         "We introduce a convolutional neural network that operates directly on graphs.", 2015, -1),
        ("Graph-based reasoning", "We use graph convolutional networks (GCN) on scene graphs.", 2019, -1),
        ("Robust node labels", "Semi-supervised graph convolutional networks (GCN) overfit noisy labels.",
         2020, -1),
    ])
    assert "gcn" not in found.table and found.names[0] == []
    # ... where the acronym spells the dropped words itself, the shorter ending is the title's
    assert _endings("adam with decoupled weight decay".split(), "AdamW")[-1] == "decoupled weight decay"
    assert _endings("graph convolutional networks".split(), "GCN") == ["graph convolutional networks"]


VAE_PAPERS = [
    ("Auto-Encoding Variational Bayes",  # iclr2014 (Kingma & Welling)
     "We introduce a stochastic variational inference and learning algorithm that scales to large "
     "datasets.", 2014, 45209),
    ("Variational Autoencoder for Deep Learning of Images, Labels and Captions",  # nips2016:6528
     "A novel variational autoencoder is developed to model images, as well as associated labels.",
     2016, 1096),
    ("Ladder priors", "A variational autoencoder (VAE) learns a latent code; we give it a ladder prior.",
     2018, -1),
    ("Posterior collapse", "The variational autoencoder (VAE) suffers from posterior collapse.", 2019, -1),
]


def test_an_acronym_belongs_to_the_earlier_much_cited_title_with_its_words() -> None:
    # the later title opens with "variational autoencoder", but the field's VAE is the paper whose
    # title holds the words in another order and is cited 27 times as much per year
    found = _mine(VAE_PAPERS)
    assert found.table["vae"] == [0] and "VAE" in found.names[0] and found.names[1] == []
    # an opening owner cited about as much keeps it, and so does one whose count is unknown
    for citations in (15000, -1):
        close = [VAE_PAPERS[0][:3] + (citations,)] + VAE_PAPERS[1:]
        close[1] = close[1][:3] + (citations,)
        assert _mine(close).table["vae"] == [1]


def test_names_in_words_and_their_uses_as_phrases() -> None:
    # iclr2018 (spectral normalization), nips2017 (prototypical networks): a name of several
    # lower-case words, after "called" or as an apposition of what the paper proposes
    assert "spectral normalization" in own_names(
        "Spectral Normalization for Generative Adversarial Networks",
        "In this paper, we propose a novel weight normalization technique called spectral normalization "
        "to stabilize the training of the discriminator.")
    assert own_names("Prototypical Networks for Few-shot Learning",
                     "We propose a more streamlined approach, prototypical networks, that learns a metric "
                     "space.") == ["prototypical networks"]
    # "PointNet++" keeps its pluses (it is not PointNet); "The X" is found as "X"
    assert own_names("PointNet++: Deep Hierarchical Feature Learning on Point Sets", "") == ["PointNet++"]
    assert fold_paper_name("Lottery Ticket Hypothesis") in lookup_keys("The Lottery Ticket Hypothesis")
    # a name of words is new when earlier papers do not write them together, wherever else they
    # use the words ("spectral clustering ... normalization" is no earlier use)
    found = _mine([
        ("Normalized spectral clustering", "Spectral clustering with a normalization of the graph.", 2014, -1),
        ("Graph cuts", "A spectral method; normalization of the Laplacian helps.", 2015, -1),
        ("Spectral cuts", "Normalization and spectral gaps.", 2016, -1),
        ("Spectral Normalization for Generative Adversarial Networks",
         "We propose a technique called spectral normalization to stabilize GANs.", 2018, 5867),
        ("Lipschitz GANs", "We compare with spectral normalization of the weights.", 2019, -1),
    ])
    assert found.table["spectralnormalization"] == [3] and found.mentions[3] == 1


def test_owner_lookups_answer_what_a_pass_over_every_title_answers() -> None:
    """The earliest title's owner and the most cited earlier title, each found by one look per
    writer (issue 33: the passes over every title with the words, once per writer that spells
    a long form, made name mining quadratic), against those passes on drawn years, works and
    citation rates with many ties."""
    from paperfind.index.paper_names import _BestByYear, _earliest_owner, _year_groups

    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(1, 40))
        years = rng.integers(2013, 2020, size=60)
        works = rng.integers(0, 25, size=60)
        rate = rng.choice([-1.0, 0.0, 1.0, 2.0, 5.0], size=60)
        rows = np.unique(rng.integers(0, 60, size=n))
        groups, best = _year_groups(rows.tolist(), years, works), _BestByYear(rows, rate, years, works)
        for writer in range(60):
            y, w = years[writer], works[writer]
            eligible = [r for r in rows.tolist() if years[r] <= y and works[r] != w]
            expected = None
            if eligible:
                first = min(years[r] for r in eligible)
                earliest = [r for r in eligible if years[r] == first]
                expected = min(earliest) if len({int(works[r]) for r in earliest}) == 1 else -1
            assert _earliest_owner(groups, int(y), int(w), works) == expected
            ok = rows[(years[rows] <= y) & (works[rows] != w) & (rate[rows] > 0)]
            assert best.best_until(int(y), int(w)) == (int(ok[np.argmax(rate[ok])]) if len(ok) else -1)


def test_an_author_year_citation_names_the_paper_it_cites() -> None:
    # CLIP is in neither its title nor its abstract, and the long form later papers write is not
    # its title's words; "CLIP (Radford et al., 2021)" says which paper it is (icml2021, emnlp2021)
    papers = [
        ("Learning Transferable Visual Models From Natural Language Supervision",
         "We demonstrate that the simple pre-training task of predicting which caption goes with which "
         "image is an efficient way to learn image representations.", 2021, -1),
        ("Attention is All you Need", "We propose a novel, simple network architecture based solely on "
         "an attention mechanism.", 2017, 184033),
        ("Online learning with a namesake", "A bandit algorithm.", 2017, 40),  # another Vaswani, 2017
        ("CLIPScore", "We report the surprising empirical finding that CLIP (Radford et al., 2021), a "
         "cross-modal model, can be used for evaluation; the Transformer (Vaswani et al., 2017) helps.", 2021, -1),
        ("Interpreting CLIP", "Here CLIP (Radford et al., 2021) is studied.", 2022, -1),
        ("Clipping gradients", "Gradient clipping (CLIP) of a method (Smith et al., 2019).", 2020, -1),
    ]
    authors = [["Alec Radford", "Jong Wook Kim", "Chris Hallacy"],
               ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"],
               ["Sharan Vaswani", "Branislav Kveton", "Zheng Wen"],
               ["Jack Hessel", "Ari Holtzman", "Maxwell Forbes"], ["A B", "C D", "E F"], ["G H"]]
    found = _mine(papers, authors)
    assert found.table["clip"][0] == 0 and "CLIP" in found.names[0]
    # of two cited papers of 2017 by a Vaswani, the one cited ten times as much
    assert found.table["transformer"] == [1] and found.names[2] == []
    assert _mine(papers).names[0] == []  # without the authors, nothing says it


def test_short_forms_in_lower_case_with_a_digit_spell_their_long_forms() -> None:
    assert long_form("sequence-to-sequence".replace("-", " ").split(), "seq2seq") == ["sequence", "to", "sequence"]
    assert long_form("asynchronous advantage actor critic".split(), "A3C") == []  # a 3 stands for no word
    found = _mine([
        ("Sequence to Sequence Learning with Neural Networks",  # nips2014:4348
         "We present a general end-to-end approach to sequence learning.", 2014, 29204),
        ("Cold fusion", "Sequence-to-sequence (Seq2Seq) models with attention have excelled.", 2018, -1),
        ("Robust translation", "Neural sequence-to-sequence (seq2seq) models are brittle.", 2019, -1),
    ])
    assert found.table["seq2seq"] == [0]


def test_one_word_of_a_long_form_does_not_make_a_title_its_owner() -> None:
    # "out-of-distribution (OOD)": "distribution" alone is in the title of word2vec's paper
    found = _mine([
        ("Distributed Representations of Words and Phrases and their Compositionality",  # nips2013:4080
         "We present several improvements to the Skip-gram model.", 2013, 47769),
        ("Detecting shift", "We detect out-of-distribution (OOD) inputs.", 2019, -1),
        ("Energy scores", "Out-of-distribution (OOD) detection with energy.", 2020, -1),
    ])
    assert found.names[0] == [] and "ood" not in found.table


def test_a_title_whose_lead_is_another_acronym_does_not_own_this_one() -> None:
    # MADE's title opens its subtitle with "Masked Autoencoder": its acronym is MADE, not MAE
    found = _mine([
        ("MADE: Masked Autoencoder for Distribution Estimation",  # icml2015:e2b2e28eb9
         "We introduce a simple modification for autoencoder neural networks.", 2015, 1114),
        ("Point clouds", "Masked autoencoders (MAE) learn point clouds.", 2022, -1),
        ("Video", "Masked autoencoders (MAE) for video.", 2023, -1),
    ])
    assert "MAE" not in found.names[0]


def test_names_of_a_papers_own_code_and_of_what_it_calls_novel() -> None:
    assert own_names("Decoupled Weight Decay Regularization",  # iclr2019:Bkg6RiCqY7
                     "Source code is available at <https://github.com/loshchil/AdamW-and-SGDW>") == ["AdamW", "SGDW"]
    assert own_names("Image-To-Image Translation With Conditional Adversarial Networks",  # cvpr2017
                     "Since the release of the pix2pix software associated with this paper, hundreds of "
                     "users have posted experiments.") == ["pix2pix"]
    # someone else's library is not the paper's name
    assert own_names("Faster Training of Word Embeddings", "Due to the Word2vec library and fastText.") == []
    assert own_names("Focal Loss for Dense Object Detection",  # iccv2017:hfcd6629b47
                     "Our novel Focal Loss focuses training on a sparse set of hard examples.") == ["Focal Loss"]


def test_a_capitalised_word_is_new_where_earlier_papers_wrote_it_only_in_lower_case() -> None:
    earlier = [(f"Study {i}", f"The method is the best performer on task {i}.", 2015 + i % 3, -1)
               for i in range(4)]
    found = _mine(earlier + [
        ("Rethinking Attention with Performers",  # iclr2021:Ua6zuk0WRH
         "We introduce Performers, Transformer architectures which estimate softmax attention.", 2021, -1),
    ])
    assert found.names[4] == ["Performers"] and found.table["performer"] == [4]


def test_papers_sharing_a_capitalised_name_read_each_earlier_abstract_once(monkeypatch) -> None:
    from paperfind.index import paper_names

    reads: list[str] = []
    real = paper_names._writes_capitalised

    def counted(text: str, name: str) -> bool:
        reads.append(text)
        return real(text, name)

    monkeypatch.setattr(paper_names, "_writes_capitalised", counted)
    earlier = [(f"Study {i}", f"The method is the best performer on task {i}.", 2015 + i % 3, -1)
               for i in range(6)]
    owners = [("Rethinking Attention with Performers",  # iclr2021:Ua6zuk0WRH, and copies of it
               f"We introduce Performers, Transformer architectures which estimate softmax attention {i}.",
               2021, -1) for i in range(5)]
    found = _mine(earlier + owners)
    assert all(found.names[6 + i] == ["Performers"] for i in range(5))
    read_earlier = [t for t in reads if "best performer" in t]
    assert len(read_earlier) == len(set(read_earlier)) == 6  # each earlier abstract once, not once an owner
    # three earlier abstracts writing it capitalised: no owner's name, and no more read than needed
    reads.clear()
    named = [(f"Use {i}", f"We compare with Performers on task {i}.", 2016, -1) for i in range(3)]
    found = _mine(named + earlier + owners)
    assert all(found.names[9 + i] == [] for i in range(5))
    assert len([t for t in reads if "best performer" in t or "compare with" in t]) == 3  # then enough


def test_a_titles_closing_name_counts_when_the_field_took_it_up_and_no_one_had_it() -> None:
    later = [(f"Follow-up {i}", f"We compare with deep ensembles and stable diffusion on task {i}.", 2019 + i, -1)
             for i in range(5)]
    found = _mine([
        ("Simple and Scalable Predictive Uncertainty Estimation using Deep Ensembles",  # nips2017:9410
         "We propose an alternative to Bayesian NNs.", 2017, 7516),
        ("Video from sound with Stable Diffusion", "We generate video.", 2023, -1),
        ("Editing with stable diffusion", "We edit images.", 2023, -1),
        ("Inpainting with stable diffusion", "We inpaint images.", 2023, -1),
        ("Stable diffusion at scale", "We scale it.", 2022, -1),
    ] + later)
    assert found.names[0] == ["Deep Ensembles"] and found.table["deepensemble"] == [0]
    assert found.names[1] == []  # in use in its own year already: another paper's method


def test_the_paper_that_introduced_a_long_form_or_its_acronym_owns_it() -> None:
    # "Vision Transformer (ViT)": no title opens with it before the follow-up's; the paper later
    # papers cite as "Vision Transformer (Dosovitskiy et al., 2021)" introduced it
    papers = [
        ("An Image is Worth 16x16 Words: Transformers for Image Recognition at Scale",  # iclr2021
         "A pure transformer applied to image patches: Vision Transformer attains excellent results.", 2021, -1),
        ("Vision Transformers for Dense Prediction", "We introduce dense vision transformers.", 2021, -1),
        ("Token pooling", "The Vision Transformer (Dosovitskiy et al., 2021) splits images.", 2022, -1),
        ("Pruning", "Vision transformers (ViT) are costly.", 2022, -1),
        ("Distilling", "We distil vision transformers (ViTs).", 2023, -1),
        # "NeRF: ..." introduced the acronym and writes the long form; a follow-up's title opens with it
        ("NeRF: Representing Scenes as Neural Radiance Fields for View Synthesis",  # eccv2020
         "We represent a scene as a neural radiance field.", 2020, 12384),
        ("NeRF in the Wild: Neural Radiance Fields for Unconstrained Photo Collections",
         "We extend NeRF to photo collections.", 2021, -1),
        ("Fast rendering", "Neural radiance fields (NeRF) render slowly.", 2022, -1),
        ("Relighting", "Neural radiance fields (NeRF) cannot be relit.", 2023, -1),
    ]
    authors = [["Alexey Dosovitskiy", "Lucas Beyer", "Alexander Kolesnikov"], ["René Ranftl", "A B", "C D"],
               ["E F"], ["G H"], ["I J"], ["Ben Mildenhall", "K L", "M N"], ["Ricardo Martin-Brualla", "O P", "Q R"],
               ["S T"], ["U V"]]
    found = _mine(papers, authors)
    assert found.table["vit"][0] == 0 and found.table["nerf"][0] == 5


def test_a_capitalised_names_mentions_are_papers_that_write_it_capitalised() -> None:
    later = [(f"Agents {i}", f"The intention of each agent is inferred on task {i}.", 2020 + i % 3, -1)
             for i in range(4)]
    found = _mine([
        ("Communication in Multi-Agent Reinforcement Learning",
         "We introduce Intention, a protocol where agents share plans.", 2019, -1),
        ("Planning with Intention", "Agents that use Intention plan better.", 2021, -1),
    ] + later)
    assert found.names[0] == ["Intention"]
    assert found.mentions[0] == 1  # the paper that writes "Intention", not every "intention"


_SAVE_NAMES = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from test_paper_names import MIXUP, _mine
from paperfind.index.paper_name_table import save_paper_names
found = _mine([
    ("The Lottery Ticket Hypothesis: Finding Sparse, Trainable Neural Networks",  # iclr2019:rJl-b3RcF7
     "We find that a standard pruning technique uncovers subnetworks.", 2019, 2000),
    ("Stabilizing the Lottery Ticket Hypothesis", "The Lottery Ticket Hypothesis says that sparse "
     "subnetworks train well; we test The Lottery Ticket Hypothesis at scale.", 2020, -1),
    ("Lottery tickets in transformers", "Following the lottery ticket hypothesis, we prune BERT.", 2021, -1),
    MIXUP + (2018, -1), ("Manifold mixup", "We extend mixup to hidden states.", 2019, -1),
])
save_paper_names(found, Path(sys.argv[1]))
"""


def test_the_name_file_is_the_same_whatever_the_hash_seed(tmp_path) -> None:
    """A name is looked up by two folded forms (with and without its article), a set: the file
    wrote them in the set's order, which follows the process's hash seed, so two builds of one
    store differed byte for byte."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    here = Path(__file__).resolve().parent
    texts = []
    for seed in ("1", "2", "3", "4"):
        out = tmp_path / seed
        out.mkdir()
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", _SAVE_NAMES, str(out), str(here)], env=env, check=True, cwd=here)
        texts.append((out / "paper_names.json").read_text(encoding="utf-8"))
    assert '"lotterytickethypothesi"' in texts[0] and '"thelotterytickethypothesi"' in texts[0]
    assert all(t == texts[0] for t in texts[1:])


def test_the_rows_in_every_column_are_their_intersection_by_mask_or_by_search() -> None:
    """`rows_with_all` filters by a mask where the rows are many beside the other column and by
    a binary search where they are few: either way the rows in all, ascending, of the rarest's dtype."""
    from paperfind.index.paper_names import MASK_SHARE, rows_with_all

    rng = np.random.default_rng(33)
    for sizes in [(50, 60), (5, 5000), (3000, 4000, 10), (40, 7900, 900), (7000 // MASK_SHARE, 7000), (1, 1), (0, 7)]:
        columns = [np.sort(rng.choice(8000, k, replace=False)).astype(np.int64) for k in sizes]
        columns[0] = columns[0][columns[0] < 7000]  # rows past another column's last
        expected = sorted(set.intersection(*(set(c.tolist()) for c in columns)))
        found = rows_with_all(columns)
        assert found.tolist() == expected and found.dtype == np.int64
    both = np.arange(0, 100, 3, dtype=np.int64)
    assert rows_with_all([both, both[both > 50]]).tolist() == both[both > 50].tolist()
    assert rows_with_all([]).tolist() == []
