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
_BULLET_RE = re.compile(r"^\s*- (.*)$")


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
    its `- ` lines (the items the corpus could not answer) stay one bulleted list with each item escaped, and
    every other line's text is escaped."""
    out: list[str] = []
    block: list[str] = []  # consecutive table rows, or consecutive list items: one line break between them
    kind = ""
    for line in answer.splitlines():
        bullet = _BULLET_RE.match(line)
        line_kind = "table" if _TABLE_ROW_RE.match(line.strip()) else "list" if bullet else ""
        if block and line_kind != kind:
            out.append("\n".join(block))
            block = []
        kind = line_kind
        if line_kind == "table":
            block.append(_table_row(line.strip()))
        elif bullet:
            block.append(f"- {md_escape(bullet.group(1).strip())}")
        elif line.strip():
            heading = _HEADING_RE.match(line)
            if heading:
                level = min(6, len(heading.group(1)) + heading_shift)
                out.append(f"{'#' * level} {md_escape(heading.group(2).strip())}")
            else:
                out.append(md_escape(line.strip()))
    if block:
        out.append("\n".join(block))
    return "\n\n".join(out)


# ------------------------------------------------------------------------------------------ files for a reader
_FILE_INLINE_RE = re.compile(
    r"[`*~$|]"  # code, emphasis, strikethrough, math, table cells: always markup
    r"|\\(?=[!-/:-@\[-`{-~])"  # a backslash only where it would escape the next character
    r"|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"  # `_` opens or closes emphasis only at a word's edge
    r"|\](?=[(\[:])"  # a link, image, reference or definition needs `](`, `][` or `]:`
    r"|<(?=[A-Za-z/!?])"  # HTML and autolinks start `<` + letter, `/`, `!` or `?`
    r"|:(?=[A-Za-z][\w/+-]*[\[:])"  # Streamlit directives (`:red[`, `:material/x:`) and emoji shortcodes
)
_FILE_BLOCK_RE = re.compile(
    r"^(\s{0,3})(#{1,6}(?=\s|$)|>|[-+](?=\s|$)|\d{1,9}(?=[.)](?:\s|$))|=+\s*$|-+\s*$|_(?=(?:\s*_){2,}\s*$))"
)


def md_file_inline(text: str) -> str:
    """Untrusted text as inert Markdown for a file a person reads (the Markdown export), on one line: only what
    would render live is escaped, so `0.46`, `Sources:` and `19:44:33` stay as written. No link, image, autolink,
    HTML, directive, math, code or emphasis can form; raw URLs and e-mail addresses are broken as in `md_escape`."""
    line = _URL_RE.sub(lambda m: m.group(0) + WORD_JOINER, CONTROL_RE.sub(" ", text))
    return _FILE_INLINE_RE.sub(lambda m: "\\" + m.group(0), line)


def md_file_escape(text: str) -> str:
    """Untrusted text for a Markdown file, line breaks kept as hard breaks: `md_file_inline` on each line, and the
    first character of a line escaped only when the line would open a block (heading, quote, list, setext
    underline, thematic break)."""
    lines = []
    for line in CONTROL_RE.sub(" ", text).replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        inline = md_file_inline(line)
        block = _FILE_BLOCK_RE.match(inline)
        if block:
            at = block.end(1) + (len(block.group(2)) if block.group(2)[0].isdigit() else 0)
            inline = inline[:at] + "\\" + inline[at:]
        lines.append(inline)
    return "  \n".join(lines)
