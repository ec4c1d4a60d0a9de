"""The third expert dev set's rule (bench/experts_dev.md): its venue-years are no other set's
nor the judge's, the learned ranker never trains on them, and no paper shares a work with them."""

from __future__ import annotations

import json

from bench.experts import DEV3, DEV_SETS, JUDGE, VENUE_YEARS3, barred_for, build_dev
from paperfind.rank.train_experts import HELD_OUT


def test_the_third_sets_venue_years_are_nobody_elses_and_never_trained_on():
    others = {vy for name, _, years in DEV_SETS if name != "dev3" for vy in years} | set(JUDGE)
    assert not set(VENUE_YEARS3) & others
    assert set(VENUE_YEARS3) <= HELD_OUT
    assert {vy for _, _, years in DEV_SETS for vy in years} | set(JUDGE) <= HELD_OUT
    assert set(barred_for("dev3")) == others
    assert barred_for("dev") == () and barred_for("dev2") == ()  # drawn before the bar: kept as committed


def test_the_committed_third_set_follows_its_rule():
    items = [json.loads(line) for line in DEV3.read_text(encoding="utf-8").splitlines()]
    assert len(items) == 200
    assert [i["key"] for i in items] == sorted(i["key"] for i in items)
    assert all((i["venue"], i["year"]) in VENUE_YEARS3 and i["before"] == i["year"] for i in items)
    assert all(i["relevant"] and len(i["query"].split()) >= 50 for i in items)


def test_a_barred_venue_years_works_are_never_drawn(colt_two_years):
    db = colt_two_years.settings.db_path
    drawn = build_dev(db, (("colt", 2019),), size=500, min_earlier_works=1)
    assert drawn and all(i["year"] == 2019 and i["relevant"] for i in drawn)
    assert build_dev(db, (("colt", 2019),), barred=(("colt", 2019),), size=500, min_earlier_works=1) == []
    assert build_dev(db, (("colt", 2019),), barred=(("colt", 2018),), size=500, min_earlier_works=1) == drawn
