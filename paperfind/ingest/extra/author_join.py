"""Pairing two lists of papers by their author lists, for files that share no id and no title.

The Paper Copilot author files of ICML 2025 and NeurIPS 2024 carry forum ids and ordered
authors with affiliations but no titles; the early paperlists versions carry titles and
authors but only virtual-site ids. The same paper has (almost) the same authors in both,
spelled by OpenReview profile in one and by the conference site in the other. A pair is
taken only when each is the other's single best match and they share at least half of
their names, so a paper is never given another paper's title.
"""

from __future__ import annotations

from collections import defaultdict

from paperfind.text.names import initial_form, name_key

MIN_JACCARD = 0.5


def _keys(name: str) -> set[str]:
    """The forms one name is matched by: folded full name and initials + last name."""
    folded = name_key(name)
    return {k for k in (folded, "i:" + initial_form(name)) if k and k != "i:"}


def _name_keys(names: list[str]) -> list[set[str]]:
    return [keys for keys in (_keys(n) for n in names) if keys]


def _shared(a: list[set[str]], b: list[set[str]]) -> int:
    """Names of `a` that meet a distinct name of `b`."""
    used: set[int] = set()
    count = 0
    for keys in a:
        for j, other in enumerate(b):
            if j not in used and keys & other:
                used.add(j)
                count += 1
                break
    return count


def _best(i: int, mine: list[list[set[str]]], theirs: list[list[set[str]]],
          index: dict[str, set[int]]) -> tuple[float, int | None]:
    """The single best partner of paper `i` and its Jaccard score; None on a tie or no overlap."""
    candidates: set[int] = set()
    for keys in mine[i]:
        for key in keys:
            if not key.startswith("i:"):  # full names find the candidates; initials only score
                candidates |= index.get(key, set())
    scored = []
    for j in candidates:
        shared = _shared(mine[i], theirs[j])
        union = len(mine[i]) + len(theirs[j]) - shared
        scored.append((shared / union if union else 0.0, j))
    if not scored:
        return 0.0, None
    scored.sort(key=lambda s: (-s[0], s[1]))
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return scored[0][0], None
    return scored[0]


def match_author_lists(left: list[list[str]], right: list[list[str]]) -> dict[int, int]:
    """{left index: right index} for the papers whose author lists pair up unambiguously."""
    lk = [_name_keys(names) for names in left]
    rk = [_name_keys(names) for names in right]
    lindex: dict[str, set[int]] = defaultdict(set)
    rindex: dict[str, set[int]] = defaultdict(set)
    for i, paper in enumerate(lk):
        for keys in paper:
            for key in keys:
                lindex[key].add(i)
    for j, paper in enumerate(rk):
        for keys in paper:
            for key in keys:
                rindex[key].add(j)
    pairs: dict[int, int] = {}
    for i in range(len(lk)):
        score, j = _best(i, lk, rk, rindex)
        if j is None or score < MIN_JACCARD:
            continue
        _, back = _best(j, rk, lk, lindex)
        if back == i:
            pairs[i] = j
    return pairs
