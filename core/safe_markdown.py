"""Untrusted text (corpus passages, answers, critic output, analyst input, URL parameters) made inert Markdown.

One escaping function for the pages (`st.markdown` and its kin) and the Markdown export, so neither can load or
link anything: no image (`![x](url)`), link (`[x](url)`, `[x]: url`), autolink (`<http://…>`) or raw URL
(`http://…`, `www.…`, `a@b.c`), no HTML, no Streamlit directive (`:red[…]`, `:material/…:`), no LaTeX, no
headings, lists or tables. The text still reads the same once rendered.
"""

from __future__ import annotations

import re

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MD_SPECIAL_RE = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:=@&])")
_HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*)$")


def md_escape(text: str) -> str:
    """Every Markdown, HTML, LaTeX and directive character backslash-escaped; line breaks kept as hard breaks.

    Escaping `:`, `.` and `@` also breaks the GFM autolink literals (`http://`, `www.`, e-mail addresses), which
    would otherwise become live links without any bracket.
    """
    return _MD_SPECIAL_RE.sub(r"\\\1", _CONTROL_RE.sub(" ", text)).replace("\r\n", "\n").replace("\n", "  \n")


def answer_markdown(answer: str, *, heading_shift: int) -> str:
    """An answer as inert Markdown, one paragraph per line: the answer's own `#` headings stay headings, moved
    `heading_shift` levels down (at most level 6), and every line's text is escaped."""
    out = []
    for line in answer.splitlines():
        if not line.strip():
            continue
        heading = _HEADING_RE.match(line)
        if heading:
            level = min(6, len(heading.group(1)) + heading_shift)
            out.append(f"{'#' * level} {md_escape(heading.group(2).strip())}")
        else:
            out.append(md_escape(line.strip()))
    return "\n\n".join(out)
