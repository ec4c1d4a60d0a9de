"""bench.scale_worker's memory of a process tree: the pages a forked child shares with its
parent count once (PSS summed), where the old sampler's VmRSS added counted them twice."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.scale import tables
from bench.scale_worker import OLD_SAMPLED_PEAKS, SAMPLED_PEAKS, process_tree, tree_pss_mb, tree_rss_mb


@pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists() or not hasattr(os, "fork"),
                    reason="needs Linux's /proc/PID/smaps_rollup and fork")
def test_a_childs_shared_pages_count_once():
    data = bytearray(96 * 2**20)
    data[::4096] = b"\x01" * len(range(0, len(data), 4096))  # every page resident, before the fork
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: holds the shared pages, writes none, until told to go
        os.read(read_end, 1)
        os._exit(0)
    try:
        assert pid in process_tree(os.getpid())
        pss, rss = tree_pss_mb(os.getpid()), tree_rss_mb(os.getpid())
        assert rss - pss > 80, (rss, pss)  # the 96 MB twice in the RSS added, once in the PSS
    finally:
        os.write(write_end, b".")
        os.waitpid(pid, 0)
    del data


def test_the_build_table_shows_the_pss_peak_and_marks_one_of_the_old_sampler():
    def built(peaks: dict) -> dict:
        return {"label": "1m", "size": 10**6, "tree_id": "abc", "served": None, "load": (1.0,) * 3,
                "build": {"papers": 10**6, "ingest_and_index_s": 1000.0, "timings": {"index": 600.0},
                          "disk": {"database": 0, "index": 0, "vectors": 0},
                          "peak_mb": {"after index": {"self": 1024.0}, **peaks}}}

    new = tables([built({SAMPLED_PEAKS: {"index: build_paper_name_files": 13.7 * 1024},
                         OLD_SAMPLED_PEAKS: {"index: build_paper_name_files": 16.8 * 1024}})], None, Path("."))
    old = tables([built({OLD_SAMPLED_PEAKS: {"index: build_paper_name_files": 16.8 * 1024}})], None, Path("."))
    assert "| 13.7 (build_paper_name_files) |" in new
    assert "| 16.8* (build_paper_name_files) |" in old
