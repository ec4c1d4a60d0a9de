"""The function words of English and Chinese queries and titles, written for this project."""

from __future__ import annotations

# What the analyser drops from the index and from queries: words that carry no topic.
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each either few for from further
had has have having he her here hers him his how however i if in into is it its itself just
let may me might more most must my no nor not of off on once only or other our ours out over own
per same shall she should so some such than that the their theirs them then there these they this
those through thus to too toward towards under until up upon us very via was we were what when
where whether which while who whom whose why will with within without would yet you your yours
using use used based new towards via vs versus
""".split())
# Chinese function words jieba yields as separate tokens.
STOPWORDS_ZH = frozenset("的 了 和 与 及 在 是 中 对 于 为 以 用 一种 一个 如何 什么 怎么 怎样 哪些 基于 通过 我们 进行".split())

# The shorter list the query classifier (`search.fusion`) reads: its fusion weights were measured
# with it, and the analyser's list would turn names like "Will Smith" and keyword queries like
# "based methods" into other kinds.
CLASSIFIER_STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how in is it of on or the to what when "
    "which why with we our using via towards toward into under over".split())
