"""The GitHub accounts papers link to: per account, the index rows whose abstract links it.

An abstract that says where its code lives ("github.com/OWNER/repo", or a project page at
"OWNER.github.io") names the group or person who keeps it, and a group keeps one account
across its papers. The expert finder reads the query's own accounts and lifts the people whose
earlier papers link the same one (paperfind.search.expert_links).

Derived from the index alone (the rows whose abstract holds the term "github", their stored
abstracts read), made on first use like the people's grouping and the word-pair table, so it is
rebuilt with the index and never stale against its rows: at the bundled corpus 11,534 accounts
linked by 17,147 papers, 0.34 MB, made in ~0.2 s.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

# an account: GitHub's user / organisation names (letters, digits, '-'; '.' and '_' are read too,
# as people write them) after "github.com/"; "OWNER.github.io" is the same account's pages, read
# by `_pages` (a pattern ending in ".github.io" tries every word of a text: 1.1 s for the bundled
# corpus's 17,558 abstracts holding "github", against ~0.1 s this way)
_CODE = re.compile(r"github\.com/\s*([a-z0-9][a-z0-9_.-]*)")
_PAGES = ".github.io"
_ACCOUNT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
LINK_TERM = "github"  # the analysed term every such link holds (`Analyzer().terms("github.com")`)


def code_accounts(text: str) -> frozenset[str]:
    """The GitHub accounts `text` links to, lower-cased ("github.com/ML-JKU/x" -> "ml-jku")."""
    low = (text or "").lower()
    if LINK_TERM not in low:
        return frozenset()
    found = {name.rstrip(".") for name in _CODE.findall(low)}
    found.update(_pages(low))
    found.discard("")
    found.discard("www")
    return frozenset(found)


def _pages(low: str) -> list[str]:
    """The OWNER of each "OWNER.github.io" in lower-cased `low`: the letters, digits and '-'
    before it, beginning with a letter or digit after a character that is not a word's."""
    out = []
    at = low.find(_PAGES)
    while at >= 0:
        start = at
        while start > 0 and low[start - 1] in _ACCOUNT_CHARS:
            start -= 1
        while start < at and low[start] == "-":
            start += 1
        if start < at and not (start > 0 and (low[start - 1].isalnum() or low[start - 1] == "_")):
            out.append(low[start:at])
        at = low.find(_PAGES, at + len(_PAGES))
    return out


@dataclass(frozen=True)
class CodeLinks:
    """Account i (`accounts[i]`, sorted) is linked by the rows `rows[indptr[i]:indptr[i+1]]`."""

    accounts: tuple[str, ...]
    indptr: np.ndarray  # int64, len(accounts) + 1
    rows: np.ndarray  # int64 index rows, ascending within an account

    @classmethod
    def build(cls, candidate_rows: Iterable[int], abstract_of: Callable[[int], str]) -> "CodeLinks":
        """From the rows that may link (those holding `LINK_TERM`) and their abstracts."""
        by_account: dict[str, list[int]] = {}
        for row in sorted(int(r) for r in candidate_rows):
            for account in code_accounts(abstract_of(row)):
                by_account.setdefault(account, []).append(row)
        accounts = tuple(sorted(by_account))
        counts = [len(by_account[a]) for a in accounts]
        indptr = np.zeros(len(accounts) + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        rows = np.array([r for a in accounts for r in by_account[a]], dtype=np.int64)
        return cls(accounts, indptr, rows)

    def rows_of(self, accounts: Iterable[str]) -> np.ndarray:
        """The rows linking any of `accounts` (sorted, each once)."""
        found = []
        for account in accounts:
            i = bisect_left(self.accounts, account)
            if i < len(self.accounts) and self.accounts[i] == account:
                found.append(self.rows[self.indptr[i]:self.indptr[i + 1]])
        return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)

    @property
    def nbytes(self) -> int:
        return int(self.indptr.nbytes + self.rows.nbytes + sum(len(a) for a in self.accounts))

