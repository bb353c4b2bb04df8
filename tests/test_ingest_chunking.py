"""Ingest, chunking: passage size, overlap, headings and merging of small sections."""

from __future__ import annotations

import itertools

from core.retrieval.chunking import chunk_text


def test_chunking_respects_size_overlap_and_headings() -> None:
    para = " ".join(f"w{i}" for i in range(150))
    text = f"# Title\n\nShort intro.\n\n## Long section\n\n{para}\n\n{para}\n\n## Tail\n\nLast words here."
    passages = chunk_text(text, max_words=60, overlap_words=10)
    assert all(len(p.text.split()) <= 60 for p in passages)
    assert passages[0].heading == "Title" and passages[1].heading == "Long section"
    for prev, nxt in itertools.pairwise(passages):
        if nxt.heading == prev.heading == "Long section":
            assert nxt.text.split()[:10] == prev.text.split()[-10:]
    every_word = " ".join(p.text for p in passages).split()
    assert {f"w{i}" for i in range(150)} <= set(every_word)


def test_small_sections_are_merged() -> None:
    passages = chunk_text("# A\n\none two\n\n# B\n\nthree four\n\n# C\n\nfive", max_words=60, overlap_words=10)
    assert len(passages) == 1 and passages[0].heading == "A"
