"""The analyst's desk in a real browser (tests/ui/test_browser.py runs it after the Q1 scenario, on the same
server): the corpus list with its provenance and a batch verification, a run that is not asked twice by accident,
a deficiency added after the run from the board's "Add deficiency" button, decisions in words on Cycles, and a
branch marked with its parent on Sessions. Screenshots go to test-artifacts/desk-*.png."""

from __future__ import annotations

from tests.ui.browser import VISITED, go, settle, shot

QUESTION = "What record-keeping periods apply to customer due diligence files in the UK and in Singapore?"
SUBJECT = "record keeping period for agents"
DESCRIPTION = "The answer does not say how long agents keep CDD records."


def choose(page: object, select: object, option: str) -> None:
    """Pick an option of a selectbox by typing it (the typed text filters the list; Enter takes the first)."""
    select.click()
    page.keyboard.type(option)
    page.keyboard.press("Enter")
    settle(page)


def desk_scenario(server: str, page: object) -> None:
    """Corpus provenance, asking again, a residual added after the run, decisions in words, a marked branch."""
    page.goto(f"{server}/corpus")
    page.wait_for_selector("h1:has-text('Corpus')", timeout=180_000)
    settle(page)
    VISITED.add("Corpus")
    main = page.get_by_test_id("stMain")
    flagged = main.get_by_test_id("stCheckbox").filter(has_text="Only flagged").locator("input")
    flagged.click(force=True)  # the grid's hover toolbar may lie over the label
    page.wait_for_selector("text=3 of 19 documents")  # the two erroneous distractors and the superseded one
    settle(page)
    shot(page, "desk-corpus-flagged")
    flagged.click(force=True)
    settle(page)
    page.get_by_role("tab", name="Search").click()
    settle(page)
    main.get_by_label("Search the corpus").fill("beneficial ownership threshold 15%")
    main.get_by_test_id("stFormSubmitButton").filter(has_text="Search").click()
    page.wait_for_selector("text=/passage\\(s\\) for/", timeout=120_000)  # the first search loads the embedder
    settle(page)
    assert main.locator("[data-testid='stMarkdownContainer'] span", has_text="erroneous").count() >= 1  # a badge
    shot(page, "desk-corpus-search")

    # a run, then the same question again at once: asked first, nothing started
    go(page, "Research")
    question = main.get_by_label("Question")
    question.fill(QUESTION)
    choose(page, main.get_by_label("Approval policy"), "Approve every correction")
    main.get_by_test_id("stFormSubmitButton").filter(has_text="Run").click()
    page.wait_for_selector("text=Why the loop stopped", timeout=120_000)
    settle(page)
    thread_id = page.url.split("session=")[1].split("&")[0]
    main.get_by_text("New research question").click()
    assert main.get_by_label("Question").input_value() == ""  # the form is cleared once the session exists
    main.get_by_label("Question").fill(QUESTION)
    choose(page, main.get_by_label("Approval policy"), "Approve every correction")
    main.get_by_test_id("stFormSubmitButton").filter(has_text="Run").click()
    page.wait_for_selector("text=You asked this question less than 60 seconds ago")
    settle(page)
    shot(page, "desk-research-asked-twice")
    page.get_by_role("button", name="Open the earlier session").click()
    settle(page)
    assert f"session={thread_id}" in page.url

    # after the run, the board's button records a residual with a reason
    go(page, "Deficiencies")
    page.get_by_role("button", name="Add deficiency").click()
    dialog = page.get_by_test_id("stPopoverBody")
    choose(page, dialog.get_by_label("Type"), "insufficient specificity")
    choose(page, dialog.get_by_label("Section"), "UK")
    dialog.get_by_label("Subject").fill(SUBJECT)
    dialog.get_by_label("Description").fill(DESCRIPTION)
    dialog.get_by_label("Correction query").fill("record retention agents")
    dialog.get_by_label("Reason").fill("found on a second read")
    shot(page, "desk-board-add")
    dialog.get_by_test_id("stFormSubmitButton").filter(has_text="Add").click()
    page.wait_for_selector("text=Recorded as a residual by analyst")
    settle(page)
    shot(page, "desk-board-residual")
    go(page, "Export")
    main.get_by_text(DESCRIPTION).first.wait_for(timeout=30_000)  # disclosed in the export (drawn once the run ends)

    go(page, "Cycles")
    text = main.inner_text()
    assert "Review decisions" in text  # the decisions in words (the grids draw on a canvas: tests/ui/test_tables.py)
    shot(page, "desk-cycles")

    go(page, "Sessions")
    choose(page, main.get_by_label("Cycle", exact=True).first, "0")  # the last cycle left nothing open to decide
    page.get_by_role("button", name="Branch from cycle 0").click()
    page.wait_for_selector("h1:has-text('Research')")
    settle(page)
    go(page, "Sessions")
    assert f"branch of {thread_id} at cycle 0" in page.get_by_label("Session", exact=True).input_value()
    shot(page, "desk-sessions")
