"""No module holds state: nothing at a module's top level is a container made empty to be filled as the
server runs (a registry, a cache), or a thread-local. State is passed in: a log's compression
dictionaries and a request's claimed ids travel with the connection (`eventlog/connection.py`)."""

from __future__ import annotations

import ast
from pathlib import Path

import telephony

PACKAGE = Path(telephony.__file__).parent
MADE_EMPTY = frozenset({"dict", "list", "set", "local", "defaultdict", "OrderedDict", "deque", "Counter",
                        "WeakKeyDictionary", "WeakValueDictionary", "WeakSet"})  # fmt: skip
"""Callables that, called with no argument at a module's top level, make state to be filled later."""


def made_empty(value: ast.expr) -> bool:
    """Whether `value` makes an empty container or a thread-local: `{}`, `[]`, `threading.local()`, ..."""
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, (ast.List, ast.Set)):
        return not value.elts
    if not isinstance(value, ast.Call) or value.args or value.keywords:
        return False
    called = value.func
    return (called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")) in MADE_EMPTY


def module_state(tree: ast.Module) -> list[str]:
    """The top-level assignments of `tree` that make an empty container or a thread-local."""
    assigned = [node for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value]
    return [f"line {node.lineno}: {ast.unparse(node)}" for node in assigned if made_empty(node.value)]


def test_no_module_of_the_server_holds_a_registry_or_a_thread_local():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if state := module_state(ast.parse(path.read_text(), str(path))):
            found[str(path.relative_to(PACKAGE))] = state
    assert found == {}


def test_the_check_finds_a_thread_local_and_an_empty_registry():
    tree = ast.parse(
        "import threading\n_per_thread = threading.local()\n_known: dict[int, str] = {}\nDONE = set('ab')\n"
    )
    assert module_state(tree) == ["line 2: _per_thread = threading.local()", "line 3: _known: dict[int, str] = {}"]
