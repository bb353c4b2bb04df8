"""YAML from files people supply (corpus front matter, questions files), loaded one safe way.

`SafeYamlLoader` is PyYAML's SafeLoader with YAML 1.2 booleans (only true and false: `NO` is Norway, not False)
and three limits: dates stay text (so a bad date is reported by the validator with its key, not as a crash),
anchors and aliases are refused (a few hundred bytes of nested aliases expand to gigabytes, and a self-reference
recurses without end), and so is nesting deeper than `MAX_YAML_DEPTH`.
Both limits are checked while composing, before any value is built.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.nodes import Node

MAX_YAML_DEPTH = 16
"""Deepest nesting of lists and mappings accepted (front-matter thresholds and exemptions use 3)."""


class YamlInputError(ValueError):
    """YAML that is malformed or breaks a limit. The message reads after a subject ("front matter ...", "the file
    ..."); `line` is 1-based in the file, or None."""

    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.line = line


class _Refused(ComposerError):
    """A limit of `SafeYamlLoader`; `problem` is the message with `{where}` for the line."""

    def __init__(self, problem: str, mark: Any):
        super().__init__(None, None, problem, mark)


class SafeYamlLoader(yaml.SafeLoader):
    """SafeLoader without timestamps, anchors or aliases, and with nesting at most `MAX_YAML_DEPTH` deep."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        """Refuse an anchor, an alias or one nesting level too many before composing the node."""
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise _Refused(
                "uses a YAML anchor or alias{where}; anchors and aliases are not allowed: write the values out",
                event.start_mark,
            )
        nested = isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent))
        self._depth += nested
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _Refused(f"is nested more than {MAX_YAML_DEPTH} levels deep{{where}}", event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= nested


BOOL_TAG = "tag:yaml.org,2002:bool"
YAML12_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
"""Booleans as YAML 1.2 reads them: PyYAML follows YAML 1.1, where yes, no, on, off, y and n are booleans too, so
`jurisdiction: NO` (Norway's ISO code) would load as False."""
SafeYamlLoader.yaml_implicit_resolvers = {
    first: [
        (tag, YAML12_BOOL if tag == BOOL_TAG else rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(text: str, first_line: int = 1) -> Any:
    """The value of one YAML document, via `SafeYamlLoader`; `first_line` is the file line `text` starts on, so
    errors name file lines. Raises YamlInputError."""
    try:
        return yaml.load(text, Loader=SafeYamlLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + first_line if mark is not None else None
        where = f" (line {line})" if line is not None else ""
        if isinstance(exc, _Refused):
            raise YamlInputError(str(exc.problem).format(where=where), line) from None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlInputError(f"is not valid YAML{where}: {problem}", line) from None
