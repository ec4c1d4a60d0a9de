"""The GitHub accounts papers link (paperfind.index.code_links), over CVPR 2019's real abstracts:
both forms of a link read, and the table equals a scan of every abstract by hand."""

from __future__ import annotations

import re

from paperfind.index.code_links import CodeLinks, code_accounts
from tests.realdata import load_paperlist


def test_code_accounts_read_both_forms_of_a_github_link():
    text = ("Code: https://github.com/ML-JKU/MIM-Refiner. Pages at https://tml-epfl.github.io/sharp "
            "and www.github.com/Some_User.name/x; see github.com/foo.")
    assert code_accounts(text) == {"ml-jku", "tml-epfl", "some_user.name", "foo"}
    assert code_accounts("no link here, nor in github alone") == frozenset()
    assert code_accounts("") == frozenset()


def test_the_table_is_every_abstract_linking_each_account():
    abstracts = [p.get("abstract") or "" for p in load_paperlist("cvpr", 2019)]
    by_hand: dict[str, list[int]] = {}
    for row, abstract in enumerate(abstracts):
        text = abstract.lower()
        for account in set(re.findall(r"github\.com/\s*([a-z0-9][a-z0-9_.-]*)", text)) \
                | set(re.findall(r"\b([a-z0-9][a-z0-9-]*)\.github\.io", text)):
            by_hand.setdefault(account.rstrip("."), []).append(row)
    assert len(by_hand) >= 10 and any(len(rows) > 1 for rows in by_hand.values())
    table = CodeLinks.build(reversed(range(len(abstracts))), abstracts.__getitem__)  # any order
    assert list(table.accounts) == sorted(by_hand)
    for account, rows in by_hand.items():
        assert table.rows_of([account]).tolist() == rows
    two = sorted(by_hand)[:2]
    assert table.rows_of(two).tolist() == sorted(set(by_hand[two[0]]) | set(by_hand[two[1]]))
    assert table.rows_of(["no-such-account"]).tolist() == [] and table.nbytes > 0
