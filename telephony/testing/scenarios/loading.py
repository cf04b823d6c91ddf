"""Reading a scenario file (YAML, or JSON, which YAML reads too) into the model, every problem told
with its line, all at once, in the order of their lines (the types' and `file_rules`').

The file is composed into YAML nodes first, so each value keeps the line it starts on, by its path
(`steps[2].inbound_call.to`, as `bodies.read` names fields); a problem is told with the line of the
nearest part of its path the file has (a missing field: the line of its object). Scalars are read as
JSON would have them: integers, numbers, booleans and null, everything else as written (a date stays
text; a plain `+4420...` is a phone number, not an integer).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from ...domain import bodies
from ...domain.errors import Problems
from ...domain.scenario_file import Scenario
from . import file_rules

Lines = dict[str, int]
"""The line (from 1) of each value of a file, by its path."""
_TYPED = {f"tag:yaml.org,2002:{name}" for name in ("int", "float", "bool", "null")}
_PHONE = re.compile(r"^\+[0-9]")
_LAST = re.compile(r"(?:\.?[^.\[]+|\[\d+\])$")
_SCALARS = yaml.constructor.SafeConstructor()


class BadScenario(Exception):
    """A file that is not a scenario: each problem as `FILE:LINE: field: message`."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def load(path: Path) -> tuple[Scenario, Lines]:
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadScenario([f"{path}: cannot be read: {getattr(exc, 'strerror', None) or exc}"]) from None
    return parse(text, str(path))


def parse(text: str, source: str = "<scenario>") -> tuple[Scenario, Lines]:
    """The scenario a file's text describes, and the line of each of its values; BadScenario otherwise."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        line = (exc.problem_mark or exc.context_mark).line + 1 if (exc.problem_mark or exc.context_mark) else 1
        raise BadScenario([f"{source}:{line}: not YAML: {exc.problem or exc.context}"]) from None
    except yaml.YAMLError as exc:
        raise BadScenario([f"{source}: not YAML: {exc}"]) from None
    if node is None:
        raise BadScenario([f"{source}:1: the file is empty"])
    lines: Lines = {}
    found: Problems = []
    raw = _value(node, "", lines, found)
    scenario, read = bodies.read(raw, Scenario)
    found += read + file_rules.problems(raw)
    if found:
        told = sorted(((line_of(field, lines), field, message) for field, message in found), key=lambda p: p[0])
        raise BadScenario([f"{source}:{line}: {field or 'the file'}: {message}" for line, field, message in told])
    return scenario, lines


def line_of(field: str | None, lines: Lines) -> int:
    """The line of `field`, or of the nearest part of it the file has."""
    path = field or ""
    while path and path not in lines:
        path = _LAST.sub("", path)
    return lines.get(path, 1)


def _value(node: yaml.Node, path: str, lines: Lines, found: Problems) -> Any:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = str(_value(key_node, path, {}, found))
            at = f"{path}.{key}" if path else key
            if key in mapping:
                first, lines[at] = lines[at], value_node.start_mark.line + 1
                found.append((at, f"given again (first on line {first}): give each field once"))
            mapping[key] = _value(value_node, at, lines, found)
        return mapping
    if isinstance(node, yaml.SequenceNode):
        return [_value(item, f"{path}[{n}]", lines, found) for n, item in enumerate(node.value)]
    if node.tag in _TYPED and not (node.style is None and _PHONE.match(node.value)):
        return _SCALARS.construct_object(node)
    return node.value
