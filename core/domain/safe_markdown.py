"""Untrusted text (corpus passages, answers, critic output, analyst input, URL parameters) made inert Markdown.

One escaping function for the pages (`st.markdown` and its kin) and the Markdown export, so neither can load or
link anything: no image (`![x](url)`), link (`[x](url)`, `[x]: url`), autolink (`<http://…>`), raw URL or e-mail
address turned into a link, no HTML, no Streamlit directive (`:red[…]`, `:material/…:`), no LaTeX or code, and no
heading, list, quote or table of its own. The text reads the same once rendered; ids such as `D-2100bc79eb` stay
as they are in the raw export.
"""

from __future__ import annotations

import re

WORD_JOINER = "\u2060"
"""Invisible, and not a word character: put inside `://`, `www.` and after `@`, it stops the GFM autolink
transform, which runs on the rendered text (after backslash escapes are resolved), from making a link."""

CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""Control characters other than tab, newline and carriage return: never shown, never stored from input."""
_SPECIAL_RE = re.compile(r"([\\`*_\[\]<>|~$:])")
_URL_RE = re.compile(r"(?i)(:)(?=//)|(www)(?=\.)|(@)")
_BLOCK_START_RE = re.compile(r"^(\s*)([#>+=-])")
_ORDERED_START_RE = re.compile(r"^(\s*\d+)([.)])")
_HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*)$")


def md_escape(text: str) -> str:
    """Untrusted text as inert Markdown, line breaks kept as hard breaks.

    Backslash-escapes every character that opens inline markup (links and images need `[`, HTML and autolinks
    `<`, directives and URL schemes `:`), and the first character of a line that would open a block (heading,
    quote, list, setext underline); breaks raw URLs and e-mail addresses with an invisible word joiner.
    """
    lines = []
    for line in CONTROL_RE.sub(" ", text).replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = _URL_RE.sub(lambda m: m.group(0) + WORD_JOINER, line)
        line = _SPECIAL_RE.sub(r"\\\1", line)
        line = _BLOCK_START_RE.sub(r"\1\\\2", line)
        lines.append(_ORDERED_START_RE.sub(r"\1\\\2", line))
    return "  \n".join(lines)


_TABLE_ROW_RE = re.compile(r"^\|(.*)\|$")
_TABLE_RULE_RE = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")


def _table_row(line: str) -> str:
    """A table row of the answer's comparison with each cell escaped (cells cannot hold a `|` of their own: the
    renderer writes them without one)."""
    if _TABLE_RULE_RE.match(line):
        return line
    cells = _TABLE_ROW_RE.match(line).group(1).split("|")  # type: ignore[union-attr]
    return "| " + " | ".join(md_escape(c.strip()) for c in cells) + " |"


def answer_markdown(answer: str, *, heading_shift: int) -> str:
    """An answer as inert Markdown, one paragraph per line: the answer's own `#` headings stay headings, moved
    `heading_shift` levels down (at most level 6), its comparison table stays a table with every cell escaped,
    and every other line's text is escaped."""
    out: list[str] = []
    table: list[str] = []
    for line in answer.splitlines():
        if _TABLE_ROW_RE.match(line.strip()):
            table.append(_table_row(line.strip()))
            continue
        if table:
            out.append("\n".join(table))
            table = []
        if not line.strip():
            continue
        heading = _HEADING_RE.match(line)
        if heading:
            level = min(6, len(heading.group(1)) + heading_shift)
            out.append(f"{'#' * level} {md_escape(heading.group(2).strip())}")
        else:
            out.append(md_escape(line.strip()))
    if table:
        out.append("\n".join(table))
    return "\n\n".join(out)
