"""The sample corpus states in its text what its front matter declares, so a retrieval can find every fact
that the critics can ask for (an exemption or figure only in the metadata could never be corrected)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.domain.documents import DocumentMeta
from core.domain.figures import figures
from core.engines.text import sentences, term_set
from core.retrieval.corpus_format import parse_document_meta, split_front_matter

CORPUS = sorted((Path(__file__).resolve().parents[1] / "core" / "corpus").glob("*.md"))


def load(path: Path) -> tuple[DocumentMeta, str]:
    front, body = split_front_matter(path.read_text(encoding="utf-8"), str(path))
    return parse_document_meta(front, str(path)), body


def test_the_sample_corpus_has_the_sixteen_documents_and_three_distractors() -> None:
    metas = [load(p)[0] for p in CORPUS]
    assert len(metas) == 19
    wrong = [m for m in metas if m.id.startswith("distractor-")]
    assert len(wrong) == 3 and all(m.status.value in ("erroneous", "superseded") and m.superseded_by for m in wrong)
    ids = {m.id for m in metas}
    assert all(s in ids for m in metas for s in m.superseded_by)


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_body_length_and_every_exemption_and_figure_stated_in_the_text(path: Path) -> None:
    meta, body = load(path)
    assert 150 <= len(body.split()) <= 600
    said = sentences(body)
    for ex in meta.exemptions:
        clause = re.split(r"[;:]", ex.rule, maxsplit=1)[0]
        needed = term_set(clause) - term_set(meta.title)
        best = max(len(needed & term_set(s)) / max(1, len(needed)) for s in said)
        assert best >= 0.5, f"{path.name}: exemption for {ex.entity!r} is not stated in the text"
    stated = {f.key for s in said for f in figures(s)}
    for t in meta.thresholds:
        assert (t.unit, t.value) in stated, (
            f"{path.name}: threshold {t.name} {t.value:g} {t.unit} is not stated in the text"
        )
