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


def test_a_long_list_split_over_passages_carries_its_lead_in() -> None:
    # a list longer than a passage was cut with a 30-word overlap: the next passage opened mid-item ("and any
    # financing from the franchisor ...") and no item of it could be quoted with what it is an item of
    lead = "The Rule does not apply, among other cases, to:"
    items = [
        f"- exemption {i}: a case described in about twenty words of plain text, ending here {i};" for i in range(9)
    ]
    text = f"# Exemptions\n\n{lead}\n\n" + "\n".join(items) + "\n\nAn exempt sale may still be subject to state law."
    passages = chunk_text(text, max_words=60, overlap_words=10)
    assert len(passages) > 2
    assert all(p.text.startswith(lead) for p in passages[1:] if "exemption" in p.text)
    said = " ".join(p.text for p in passages)
    assert all(item[2:] in said for item in items)
