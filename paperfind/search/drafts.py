"""A query's result cards, some drafted while its vector is still being made.

In the default (hybrid) mode the main thread waits for the query's vector (the query model
runs on a worker thread) once the lexical route is done: ~9 ms of a TL;DR question on the
bundled corpus. After the vector come fusion, the learned order, and then the page's cards:
each work's versions, its card and the highlights of its title and abstract, ~2 ms for 20
results. A card does not depend on the ranking but for its score, and the lexical leaders are
most of the final page (the first 20 by lexical relevance hold ~79% of the fused first page
of a TL;DR or Chinese dev query, the first 40 ~94%), so `CardDrafts` drafts theirs during the
wait and the page takes a draft when its paper has one: the same card as one made after,
with the score the ranking gave.

A drafts object belongs to one search (one query, one restriction, one marker); a card is
drafted per handle, so a paper that fusion dropped is simply never asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from paperfind.cards import version_order
from paperfind.search.backend import Restriction, SearchBackend, Version
from paperfind.search.highlight import Marker
from paperfind.search.response import scored_hit, unscored_hit


def shown_version(versions: list[Version]) -> tuple[Version, list[Version]]:
    """A work found by its first version is shown by its best version (paperfind.cards:
    accepted before under review before rejected, newest acceptance first) among those the
    filters let through; (that version, the others, folded under it)."""
    allowed = [v for i, v in enumerate(versions) if i == 0 or v.allowed]
    shown = min(allowed, key=lambda v: version_order(v.doc))
    return shown, [v for v in versions if v is not shown]


class CardDrafts:
    """The cards (without their scores) of one search's results, made on demand or ahead."""

    def __init__(self, backend: SearchBackend, restriction: Restriction, marker: Marker) -> None:
        self.backend = backend
        self.restriction = restriction
        self.marker = marker
        # handle -> (its work's versions, the card and highlights of the version shown)
        self._made: dict[int, tuple[list[Version], tuple[dict, dict]]] = {}

    def __len__(self) -> int:
        return len(self._made)

    def drafted(self, handle: int) -> bool:
        return int(handle) in self._made

    def draft(self, handles: Iterable[int], go_on: Callable[[], bool] = lambda: True,
              at_least: int = 0, batch: int = 10) -> None:
        """Make the cards of `handles` in their order, `batch` at a time (one versions request
        each: a Milvus backend's is a round trip): the first `at_least` whatever happens, then
        each batch while `go_on()` (the vector still being made: work after it ends would delay
        the answer instead of filling a wait)."""
        handles = [int(h) for h in handles]
        for start in range(0, len(handles), max(1, batch)):
            if start >= at_least and not go_on():
                return
            self._make(handles[start:start + max(1, batch)])

    def results(self, handles: list[int], scores: list[float]) -> tuple[list[dict], list[list[Version]]]:
        """The results of the page's `handles` with their `scores`, and each one's versions;
        drafted cards are taken, the others made now."""
        self._make([int(h) for h in handles])
        made = [self._made[int(h)] for h in handles]
        return ([scored_hit(card, score) for (_, card), score in zip(made, scores)],
                [versions for versions, _ in made])

    def _make(self, handles: list[int]) -> None:
        missing = [h for h in dict.fromkeys(handles) if h not in self._made]
        if not missing:
            return
        found = self.backend.work_versions(missing, self.restriction)
        shown = [shown_version(versions) for versions in found]
        # the cards' titles and abstracts searched for the query's words together
        self.marker.prepare([text for s, _ in shown for text in (s.doc["title"], s.doc["abstract"])])
        for handle, versions, (card, others) in zip(missing, found, shown):
            self._made[handle] = (versions, unscored_hit(card.doc, self.marker, [v.doc for v in others]))
