"""bench/results.py: the helper every bench uses to record its table in bench/RESULTS.md."""

from __future__ import annotations

from bench import results as results_module


def test_a_re_run_replaces_its_section_where_it_stands(tmp_path, monkeypatch):
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\n## A\n\nold a\n\n## B\n\nold b\n\n## C\n\nold c\n", "utf-8")
    monkeypatch.setattr(results_module, "RESULTS", results)

    results_module.append_results("B", "new b\n")
    text = results.read_text("utf-8")
    assert text == "# Benchmark results\n\n## A\n\nold a\n\n## B\n\nnew b\n\n## C\n\nold c\n"

    results_module.append_results("C", "new c")  # the last section, replaced in place too
    results_module.append_results("D", "first d")  # a new section goes at the end
    text = results.read_text("utf-8")
    assert text.count("## B\n") == 1 and "old b" not in text
    assert text.endswith("## C\n\nnew c\n\n## D\n\nfirst d\n")
    assert text.index("## A") < text.index("## B") < text.index("## C") < text.index("## D")
