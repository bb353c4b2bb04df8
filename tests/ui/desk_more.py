"""From an upload to the exports in a real browser (tests/ui/test_browser.py runs it after the analyst's desk, on
the same server): two regulator notes uploaded on the Corpus page, a question on them under manual approval, two
deficiencies added on the board while the loop is paused, one confirmed resolved in the next review and the other
found not resolved after the run, a claim struck, and the Word and Markdown exports read as a person would: no
internal code, no Markdown marker in the Word text, no needless backslash in the Markdown. Screenshots go to
test-artifacts/more-*.png."""

from __future__ import annotations

import io
import re

from docx import Document
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from core.domain.documents import DocStatus
from core.domain.outcome import SessionStatus
from core.domain.records import Deficiency, DeficiencyType
from core.domain.stop_reasons import REASON_CODES
from tests.ui.browser import VISITED, download, go, settle, shot
from tests.ui.desk_scenarios import choose

FINTRAC_NOTE = """---
id: ca-fintrac-msb-records
title: "FINTRAC guidance: record keeping for money services businesses"
jurisdiction: CA
status: in_force
effective: 2026-01-01
---

## Record keeping

A money services business must keep a record of every large cash transaction of CAD 10,000 or more.
Records of large cash transactions must be kept for at least five years from the date the record was created.
A money services business must keep a copy of the client identification record for five years after the last
business transaction (see s. 6(1): "records").
"""
AUSTRAC_NOTE = """---
id: au-austrac-dealer-records
title: "AUSTRAC note: transaction records of bullion dealers"
jurisdiction: AU
status: in_force
effective: 2025-07-01
---

## Transaction records

A bullion dealer must keep a record of each designated service it provides. The records must be kept for seven
years after the service was provided.
"""
QUESTION = "How long must a money services business in Canada keep records of large cash transactions?"
RESOLVED_SUBJECT = "retention start date"
REOPENED_SUBJECT = "client identification records"
STRIKE_REASON = "the note's wording is not quoted exactly"
SUBMIT_TRIES = 2
CONFIRM_NOTE = "the start date is in the FINTRAC note"
REOPEN_REASON = "the last business transaction is not dated"
INTERNAL_CODES = sorted(
    c
    for c in {
        *(t.value for t in DeficiencyType),
        *(s.value for s in DocStatus),
        *(s.value for s in SessionStatus),
        *REASON_CODES,
    }
    if "_" in c
)
"""The codes a reader would stumble over (one-word codes such as `open` read as words)."""
MARKDOWN_LINE = re.compile(r"^\s*(- |#|\|)")
NEEDLESS_ESCAPE = re.compile(r"\\[.:()\-!]")


def added_id(subject: str) -> str:
    """The id the loop gives a deficiency the analyst adds (from its type and subject)."""
    return Deficiency(deficiency_type=DeficiencyType.insufficient_specificity, subject=subject, description="-").id


def add_while_paused(page: object, subject: str, query: str) -> None:
    """Add a deficiency from the paused board's "Add deficiency" button: staged for the next resume."""
    page.get_by_role("button", name="Add deficiency").click()
    dialog = page.get_by_test_id("stPopoverBody")
    choose(page, dialog.get_by_label("Type"), "insufficient specificity")
    choose(page, dialog.get_by_label("Section"), "CA")
    dialog.get_by_label("Subject").fill(subject)
    dialog.get_by_label("Description").fill(f"The answer does not say enough about the {subject}.")
    dialog.get_by_label("Correction query").fill(query)
    dialog.get_by_test_id("stFormSubmitButton").filter(has_text="Add").click()
    page.wait_for_selector(
        f"text=Staged for the next resume: new deficiency: insufficient specificity in section CA (medium): {subject}"
    )
    settle(page)


def approve_and_submit(page: object, waiting_for: str) -> None:
    """Approve every proposed correction on the Research page's cards, submit, and wait for `waiting_for`."""
    main = page.get_by_test_id("stMain")
    page.wait_for_selector("text=/[0-9]+ of [0-9]+ cards undecided/")  # drawn after the cards
    for radio in main.get_by_test_id("stRadio").filter(has_text="Approve").all():
        radio.get_by_text("Approve").click()
        settle(page)
    page.get_by_role("button", name="Submit decisions").click()
    page.wait_for_selector(f"text={waiting_for}", timeout=120_000)
    settle(page)


def word_text(docx: bytes) -> list[str]:
    """The Word document's text as a reader sees it: each paragraph, then each table cell."""
    doc = Document(io.BytesIO(docx))
    return [p.text for p in doc.paragraphs] + [c.text for t in doc.tables for row in t.rows for c in row.cells]


def upload_to_export_scenario(server: str, page: object) -> None:
    """Upload, ask, add two deficiencies while paused, confirm one in the review and the other after the run,
    strike a claim, and read the Word and Markdown exports."""
    page.goto(f"{server}/corpus")
    page.wait_for_selector("h1:has-text('Corpus')", timeout=180_000)
    settle(page)
    VISITED.add("Corpus")
    main = page.get_by_test_id("stMain")
    page.get_by_role("tab", name="Add documents").click()
    settle(page)
    main.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(
        [
            {"name": "fintrac-msb-records.md", "mimeType": "text/markdown", "buffer": FINTRAC_NOTE.encode()},
            {"name": "austrac-dealer-records.md", "mimeType": "text/markdown", "buffer": AUSTRAC_NOTE.encode()},
        ]
    )
    settle(page)
    page.get_by_role("button", name="Ingest 2 file(s)").click()
    page.wait_for_selector("text=ingested 2 documents (2 passages) from 2 files", timeout=120_000)
    settle(page)
    assert "21" in main.get_by_test_id("stMetric").first.inner_text()  # 19 sample documents and the two notes
    shot(page, "more-corpus-uploaded")

    # asked with manual approval: the notes are unverified uploads, so the critic asks for a Canadian source
    go(page, "Research")
    main.get_by_label("Question").fill(QUESTION)
    main.get_by_test_id("stFormSubmitButton").filter(has_text="Run").click()
    page.wait_for_selector("text=Paused after cycle 0", timeout=120_000)
    settle(page)
    thread_id = page.url.split("session=")[1].split("&")[0]

    # two deficiencies added on the paused board travel with the review; their corrections run
    go(page, "Deficiencies")
    add_while_paused(page, RESOLVED_SUBJECT, "records kept five years from the date")
    add_while_paused(page, REOPENED_SUBJECT, "client identification record five years")
    shot(page, "more-board-added-while-paused")
    go(page, "Research")
    staged = main.get_by_test_id("stAlert").filter(has_text="travel with this review").inner_text()
    assert RESOLVED_SUBJECT in staged and REOPENED_SUBJECT in staged
    approve_and_submit(page, "Paused after cycle 1")

    # the next review asks whether each is resolved: one is, the other is left for after the run
    assert "Deficiencies you added, whose correction ran: are they resolved?" in main.inner_text()
    card = page.locator(f".st-key-confirm-{thread_id}-1-{added_id(RESOLVED_SUBJECT)}")
    card.get_by_text("Yes, resolved").click()
    settle(page)
    page.locator(f".st-key-confirm-note-{thread_id}-1-{added_id(RESOLVED_SUBJECT)}").get_by_label("Note").fill(
        CONFIRM_NOTE
    )
    shot(page, "more-research-confirmation-cards")
    approve_and_submit(page, "Why the loop stopped")

    # after the run: the other one is found not resolved, with a reason
    main.get_by_text("Deficiencies you added: are they resolved?").wait_for()
    assert RESOLVED_SUBJECT not in main.get_by_test_id("stForm").filter(has_text="Not resolved").inner_text()
    confirm = main.get_by_test_id("stForm").filter(has_text=REOPENED_SUBJECT)
    confirm.get_by_label("Why").fill(REOPEN_REASON)
    confirm.get_by_test_id("stFormSubmitButton").filter(has_text="Not resolved").click()
    page.wait_for_selector(f"text={added_id(REOPENED_SUBJECT)} recorded as not resolved.")
    settle(page)

    # a claim is struck from the answer, with a reason
    evidence = page.locator(f".st-key-evidence-{thread_id}-0")
    evidence.locator("summary").click()
    reason = evidence.get_by_label("Why strike this claim")
    reason.fill(STRIKE_REASON)
    reason.press("Tab")  # the text is committed before the submit (under load the click carried none: no strike)
    settle(page)
    struck = "text=/Struck claim C-[0-9a-f]+ from the answer/"
    for attempt_no in range(1, SUBMIT_TRIES + 1):  # a submit the loaded app dropped (nothing shown) is repeated
        evidence.get_by_test_id("stFormSubmitButton").filter(has_text="Strike this claim").click()
        try:
            page.wait_for_selector(struck, timeout=30_000)
            break
        except PlaywrightTimeout:
            if attempt_no == SUBMIT_TRIES:
                alerts = main.get_by_test_id("stAlert").all_inner_texts()
                raise AssertionError(
                    f"no claim struck after {SUBMIT_TRIES} submits; the page's alerts: {alerts}"
                ) from None
            settle(page)
    settle(page)
    shot(page, "more-research-struck")

    # the exports read as a person would, and carry what the analyst did
    go(page, "Export")
    shot(page, "more-export")
    markdown = download(page, "Markdown").decode("utf-8")
    word = word_text(download(page, "Word (DOCX)"))
    joined = "\n".join(word)
    for text in (markdown, joined):
        assert [c for c in INTERNAL_CODES if c in text] == []
        assert STRIKE_REASON in text and CONFIRM_NOTE in text and REOPEN_REASON in text
        assert "Struck claims" in text and "confirmed resolved" in text
        assert f"added insufficient specificity: {RESOLVED_SUBJECT}" in text
    assert [line for line in joined.splitlines() if MARKDOWN_LINE.match(line)] == []
    assert "**" not in joined
    assert NEEDLESS_ESCAPE.findall(markdown) == []
