"""Desktop layout before and after a change to the portal's templates, stylesheet and script.

A phone layout must leave the desktop one as it was. This serves the same database twice, once
with the templates and static files of a git ref (`--before`, default `main`) and once with the
working tree's, opens every kind of page (tests/web/conftest.py PAGE_KINDS) in Debian's
Chromium at 1280 and 1024 px wide in both languages, and compares the boxes of the main
elements (position and size, to 1/100 px) and the pixels of a full-page screenshot of each; the
baseline, in the same run, is the ref's front end against itself (the rasteriser's own noise).
The rest of the package is the working tree's in both, so only the web layer's front end differs.

    .venv/bin/python -m bench.desktop_layout [--before main]
"""

from __future__ import annotations

import argparse
import base64
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import httpx

from bench.corpus import REPO
from bench.results import append_results
from bench.server import free_port

WIDTHS = (1280, 1024)
FRONT_END = ("paperfind/web/templates", "paperfind/web/static")
# The elements whose boxes make the layout: bars, columns, cards, panels, controls.
SELECTORS = (".topbar", ".topbar-inner", ".brand", ".top-search", ".topnav", ".lang-switch",
             ".page", ".footer", ".hero", ".search-form", "#q", ".results-layout", ".facets",
             ".facet", ".facet-value", ".clear", ".results", ".results-head", ".results-tools",
             ".results-tools a", ".author-card", ".card", ".card-title", ".card-meta", ".pager",
             ".pager .btn", ".profile-head", ".profile-grid", ".profile-papers", ".profile-side",
             ".panel", ".chart", ".table", ".table th", ".table td", ".paper", ".paper-meta",
             ".author-rows li", "#bibtex", ".year-links .tag")
MEASURE = """(selectors) => {
  const out = {};
  for (const sel of selectors) {
    out[sel] = Array.from(document.querySelectorAll(sel)).slice(0, 60).map((node) => {
      const r = node.getBoundingClientRect();
      const round = (v) => Math.round(v * 100) / 100;
      return [round(r.x + scrollX), round(r.y + scrollY), round(r.width), round(r.height),
              getComputedStyle(node).display];
    });
  }
  out["document"] = [[document.documentElement.scrollWidth, document.documentElement.scrollHeight]];
  return out;
}"""
# Pixels that differ between two PNGs, counted by the browser itself (no image library here).
PIXEL_DIFF = """async ([a, b]) => {
  const load = async (b64) =>
    createImageBitmap(await (await fetch("data:image/png;base64," + b64)).blob());
  const [x, y] = [await load(a), await load(b)];
  if (x.width !== y.width || x.height !== y.height) return [-1, ""];
  const pixels = (img) => {
    const canvas = new OffscreenCanvas(img.width, img.height);
    const ctx = canvas.getContext("2d");
    ctx.drawImage(img, 0, 0);
    return ctx.getImageData(0, 0, img.width, img.height).data;
  };
  const [p, q] = [pixels(x), pixels(y)];
  let differ = 0, x0 = x.width, y0 = x.height, x1 = -1, y1 = -1;
  for (let i = 0; i < p.length; i += 4) {
    if (p[i] !== q[i] || p[i + 1] !== q[i + 1] || p[i + 2] !== q[i + 2] || p[i + 3] !== q[i + 3]) {
      differ++;
      const px = (i / 4) % x.width, py = Math.floor(i / 4 / x.width);
      x0 = Math.min(x0, px); y0 = Math.min(y0, py); x1 = Math.max(x1, px); y1 = Math.max(y1, py);
    }
  }
  return differ ? [differ, `${x0},${y0}–${x1},${y1}`] : [0, ""];
}"""
LAUNCH = """
import sys, uvicorn
from pathlib import Path
from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.web.app import create_app
port = int(sys.argv[2])
pf = Paperfind(Settings(db_path=Path(sys.argv[1]), port=port, semantic=False))
uvicorn.run(create_app(pf), host="127.0.0.1", port=port, log_level="warning", lifespan="off")
"""


def build_db(root: Path) -> Path:
    from paperfind.core import Paperfind
    from paperfind.settings import Settings
    from tests.realdata import load_paperlist, pick, write_slice
    from tests.web.conftest import SLICES

    for venue, year, ids in SLICES:
        write_slice(root / "data", venue, year, pick(load_paperlist(venue, year), ids, extra=15))
    settings = Settings(db_path=root / "portal.db", semantic=False)
    report = Paperfind(settings).ingest([root / "data"], progress=False)
    if report.failed:
        raise SystemExit(f"the test slices did not ingest: {report.failed}")
    return settings.db_path


def tree_with_front_end_of(ref: str, root: Path) -> Path:
    """A copy of the working tree's package whose templates and static files are `ref`'s."""
    shutil.copytree(REPO / "paperfind", root / "paperfind",
                    ignore=shutil.ignore_patterns("__pycache__", "default-corpus*", "corpus", "corpus.vectors"))
    for part in FRONT_END:
        shutil.rmtree(root / part)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, *FRONT_END],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(root, filter="data")
    return root


def serve(tree: Path, db: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, str(db), str(port)], cwd=tree,
                            env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):  # up to 30 s
        try:
            httpx.get(url + "/stats", timeout=2)
            return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the portal from {tree} did not start")


def capture(browser, url: str, path: str, width: int, lang: str) -> tuple[dict, bytes]:
    context = browser.new_context(locale="en-US", viewport={"width": width, "height": 900})
    context.add_cookies([{"name": "lang", "value": lang, "url": url}])
    page = context.new_page()
    page.goto(url + path)
    page.wait_for_load_state("networkidle")
    boxes = page.evaluate(MEASURE, list(SELECTORS))
    # the search page's "took N ms" changes from one request to the next: painted over
    shot = page.screenshot(full_page=True, mask=[page.locator("#results-count")])
    context.close()
    return boxes, shot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="git ref of the layout to compare with")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from tests.web.conftest import BROWSER_ARGS, CHROMIUM, PAGE_KINDS

    with tempfile.TemporaryDirectory() as tmp:
        db = build_db(Path(tmp) / "db")
        before_tree = tree_with_front_end_of(args.before, Path(tmp) / "before")
        servers = [serve(before_tree, db), serve(REPO, db)]
        rows, totals = [], {"compared": 0, "moved": 0, "pixels": 0, "noise": 0}
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
                scratch = browser.new_page()

                def pixel_diff(x: bytes, y: bytes) -> tuple[int, str]:
                    if x == y:
                        return 0, ""
                    return tuple(scratch.evaluate(PIXEL_DIFF, [base64.b64encode(s).decode()
                                                               for s in (x, y)]))

                for kind, path in PAGE_KINDS.items():
                    for width in WIDTHS:
                        for lang in ("en", "zh"):
                            (b_boxes, b_shot), (a_boxes, a_shot) = (
                                capture(browser, url, path, width, lang) for _, url in servers)
                            # the baseline: the same front end twice, for the rasteriser's noise
                            _, b_again = capture(browser, servers[0][1], path, width, lang)
                            moved = [k for k in b_boxes if b_boxes[k] != a_boxes.get(k)]
                            differ, where = pixel_diff(b_shot, a_shot)
                            noise, noise_where = pixel_diff(b_shot, b_again)
                            totals["compared"] += sum(len(v) for v in b_boxes.values())
                            totals["moved"] += len(moved)
                            totals["pixels"] += max(differ, 0)
                            totals["noise"] += max(noise, 0)
                            rows.append(f"| {kind} | {width} | {lang} | "
                                        f"{sum(len(v) for v in b_boxes.values())} | "
                                        f"{', '.join(moved) or 'none'} | "
                                        f"{'size differs' if differ < 0 else differ} {where} | "
                                        f"{'size differs' if noise < 0 else noise} {noise_where} |")
                browser.close()
        finally:
            for proc, _ in servers:
                proc.terminate()
                proc.wait(timeout=10)
    head = (f"Front end of `{args.before}` (before) against the working tree's (after), same "
            "database and package, Debian's Chromium. Boxes: x, y, width, height and display of "
            "every element matched by the selectors in bench/desktop_layout.py. Pixels: of a "
            "full-page screenshot (the search page's timing line painted over), with the region "
            "x,y–x,y that holds them; the baseline is `before` captured twice.\n\n"
            "| page | width | lang | boxes compared | selectors whose boxes moved | "
            "pixels that differ, before / after | pixels that differ, before / before |\n"
            "|---|---|---|---|---|---|---|\n")
    table = head + "\n".join(rows) + (
        f"\n\n{totals['compared']} boxes compared, {totals['moved']} selectors moved; "
        f"{totals['pixels']} pixels differ before / after, {totals['noise']} before / before.\n")
    print(table)
    append_results("Desktop layout before and after the phone layout", table)


if __name__ == "__main__":
    main()
