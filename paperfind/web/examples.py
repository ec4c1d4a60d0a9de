"""The example searches the home page offers a first-time visitor, in each page language.

Each shows one thing the search does: a title fragment finds its paper, a name finds a
person's papers, a Chinese question finds English papers, `venue:` and `year:` filter. A test
runs every one on the bundled corpus, so an example that stops finding papers fails there.
"""

from __future__ import annotations

# (what the example shows: an i18n key, the query)
EXAMPLES: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("example_title", "Google-Proof Q&A Benchmark"),
        ("example_author", "Sergey Levine"),
        ("example_question", "如何让大语言模型更好地推理？"),
        ("example_filter", "venue:iclr year:2024"),
        ("example_topic", "diffusion models for protein design"),
    ],
    "zh": [
        ("example_topic", "图神经网络"),
        ("example_question", "如何让大语言模型更好地推理？"),
        ("example_author", "Sergey Levine"),
        ("example_filter", "venue:iclr year:2024"),
        ("example_title", "Google-Proof Q&A Benchmark"),
    ],
}


def examples(lang: str) -> list[dict[str, str]]:
    """The examples of a page language (English for an unknown one) as label key and query."""
    return [{"label": label, "q": q} for label, q in EXAMPLES.get(lang, EXAMPLES["en"])]
