"""Imports point down the layers of ARCHITECTURE.md's Layout, checked over every module's syntax tree.

A unit is a top-level module (`config`) or package (`api`) of telephony. A unit may import from its
own layer or a lower one, never a higher one; units must not import each other in a cycle, not even
through an import `ALLOWED` exempts; a capability may use another capability only through its package
root (`from ..accounts import User`, never `from ..accounts.models import User`). `testing`, on top,
starts the app through `embedded` and uses none of its parts (`TESTING_USES`). Imports under
`if TYPE_CHECKING:` are for the type checker only and do not count.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

TELEPHONY = Path(__file__).resolve().parents[1] / "telephony"
LAYERS = (  # bottom to top
    ("config", "fault_rule", "clock", "keys", "security", "redaction", "output", "logs", "control_key", "datadir",
     "threaded"),
    ("domain",),
    ("media",),
    ("eventlog",),
    ("projections", "documents"),
    ("reactors",),
    ("api", "collections"),
    ("accounts", "registry", "calls", "billing", "conversations", "messaging", "reports", "webhooks", "mail", "audit",
     "faults", "stream", "sip", "rtc", "dashboard", "demo"),
    ("openapi",),
    ("app", "cli", "wiring", "embedded", "event_catalogue", "__main__", "__init__"),
    ("testing",),
)  # fmt: skip
LAYER = {unit: level for level, units in enumerate(LAYERS) for unit in units}
CAPABILITIES = frozenset(LAYERS[7])
TESTING_USES = frozenset({*(unit for units in LAYERS[:4] for unit in units), "embedded", "cli"})
"""The units `testing` may import: `embedded`, which starts the app, and the command line that its
commands (`listen`, `scenario`) plug into; below the app, the leaves, the domain, media and the event
log (a scenario run reads its log's head once the app has stopped)."""
ALLOWED: frozenset[tuple[str, str]] = frozenset({("telephony.testing.commands.listen", "telephony.webhooks")})
"""(importing module, imported module) pairs exempt from every rule but the acyclic graph's.
`telephony listen` refuses a `--forward-to` URL that a webhook could not have (`webhooks.allowed_url`,
http:// to loopback allowed), by the webhooks' own rule."""


def modules(root: Path) -> dict[str, Path]:
    """Every module under `root` by dotted name; a package is named by its `__init__.py`."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(node: ast.AST) -> Iterator[ast.AST]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _runtime_nodes(other)
            continue
        yield child
        yield from _runtime_nodes(child)


def _absolute(package: str, level: int, module: str | None) -> str:
    """The absolute name of `from <level dots><module> import ...` written in `package`."""
    if not level:
        return module or ""
    parts = package.split(".")
    return ".".join([*parts[: len(parts) - level + 1], *([module] if module else [])])


def imports(module: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import of a module of the tree that runs, in functions too."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(package, node.level, node.module)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        yield from ((node.lineno, target) for target in dict.fromkeys(targets) if target in known)


def check(root: Path, allowed: frozenset[tuple[str, str]] = ALLOWED) -> list[str]:
    """Every import that breaks a rule, each named by file, line and imported module."""
    known = modules(root)
    problems, edges = [], {}
    for module, path in known.items():
        source = unit(module)
        file = path.relative_to(root.parent).as_posix()
        if source not in LAYER:
            problems.append(f"{file}: unit {source!r} is in no layer; add it to LAYERS in {Path(__file__).name}")
            continue
        for line, target in imports(module, path, known):
            dest, where = unit(target), f"{file}:{line} imports {target}"
            if dest == source or dest not in LAYER or (module, target) in allowed:
                continue
            if LAYER[dest] > LAYER[source]:
                problems.append(f"{where}: {source} may not import {dest}, which is in a higher layer")
            elif source == "testing" and dest not in TESTING_USES:
                problems.append(f"{where}: testing uses the app through embedded only, not {dest}")
            elif source in CAPABILITIES and dest in CAPABILITIES and target != f"{root.name}.{dest}":
                problems.append(f"{where}: another capability's internals; import it from {root.name}.{dest}")
            edges.setdefault((source, dest), []).append(where)
    return problems + _cycles(edges)


def _cycles(edges: dict[tuple[str, str], list[str]]) -> list[str]:
    """Every import between units that reach each other (a cycle), naming the units of its cycle."""
    graph: dict[str, set[str]] = {}
    for source, dest in edges:
        graph.setdefault(source, set()).add(dest)

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reached = {u: reach(u) for u in graph}
    problems = []
    for (source, dest), wheres in edges.items():
        if source in reached.get(dest, ()):
            cycle = sorted({u for u in reached[source] if source in reached.get(u, ())})
            problems += [f"{where}: part of an import cycle between {', '.join(cycle)}" for where in wheres]
    return problems


def package_graph(root: Path) -> dict[tuple[str, str], list[str]]:
    """Every import of one unit by another that runs, `ALLOWED` ones too, each named by file and line."""
    known = modules(root)
    edges: dict[tuple[str, str], list[str]] = {}
    for module, path in known.items():
        for line, target in imports(module, path, known):
            if unit(target) != unit(module):
                file = path.relative_to(root.parent).as_posix()
                edges.setdefault((unit(module), unit(target)), []).append(f"{file}:{line} imports {target}")
    return edges


def test_the_package_graph_is_acyclic():
    problems = _cycles(package_graph(TELEPHONY))
    assert not problems, "\n".join(problems)


def test_imports_point_down_the_layers():
    problems = check(TELEPHONY)
    assert not problems, "\n".join(problems)


def test_every_allowed_import_still_exists():
    known = modules(TELEPHONY)
    found = {(module, target) for module, path in known.items() for _, target in imports(module, path, known)}
    stale = ALLOWED - found
    assert not stale, f"remove from ALLOWED, these imports are gone: {sorted(stale)}"


def tree(root: Path, files: dict[str, str]) -> Path:
    package = root / "telephony"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(package).parents:
            (package / parent / "__init__.py").touch()
        path.write_text(text)
    return package


CYCLES = {
    "openapi and wiring": (
        {"openapi.py": "from . import wiring\n", "wiring.py": "from .openapi import ROUTES\n"},
        ["telephony/openapi.py:1 imports telephony.wiring", "telephony/wiring.py:1 imports telephony.openapi"],
    ),
    "collections, api and keys": (
        {
            "collections/query.py": "from ..api.errors import BadRequest\n",
            "api/errors.py": "",
            "api/route_table.py": "from ..keys import API_VERSION\n",
            "keys.py": "import aiohttp\n\nfrom .collections.cache import PageCache\n",
            "collections/cache.py": "",
        },
        [
            "telephony/keys.py:3 imports telephony.collections.cache",
            "telephony/collections/query.py:1 imports telephony.api.errors",
            "telephony/api/route_table.py:1 imports telephony.keys",
        ],
    ),
    "eventlog and projections": (
        {
            "eventlog/log.py": "def open():\n    from ..projections.runner import Projections\n",
            "eventlog/store.py": "",
            "projections/runner.py": "from ..eventlog import store\n",
        },
        [
            "telephony/eventlog/log.py:2 imports telephony.projections.runner",
            "telephony/projections/runner.py:1 imports telephony.eventlog.store",
        ],
    ),
    "api and collections, within one layer": (
        {"api/route_table.py": "from ..collections import fetch\n", "collections/__init__.py": "from ..api import x\n"},
        ["telephony/api/route_table.py:1 imports telephony.collections", "telephony/collections/__init__.py:1 imports"],
    ),
}


@pytest.mark.parametrize(("files", "named"), CYCLES.values(), ids=CYCLES.keys())
def test_each_import_of_a_cycle_is_named(tmp_path, files, named):
    problems = check(tree(tmp_path, files), allowed=frozenset())
    for where in named:
        assert any(problem.startswith(where) and "cycle" in problem for problem in problems), (where, problems)


def test_a_higher_layer_another_capabilitys_internals_and_an_unplaced_unit_are_named(tmp_path):
    files = {
        "keys.py": "from .collections.cache import PageCache\n",
        "collections/cache.py": "",
        "registry/handlers.py": "from ..accounts.auth import authorize\nfrom ..accounts import User\n",
        "accounts/auth.py": "",
        "invoicing.py": "",
    }
    assert check(tree(tmp_path, files), allowed=frozenset()) == [
        "telephony/invoicing.py: unit 'invoicing' is in no layer; add it to LAYERS in test_layers.py",
        "telephony/keys.py:1 imports telephony.collections.cache: keys may not import collections, "
        "which is in a higher layer",
        "telephony/registry/handlers.py:1 imports telephony.accounts.auth: another capability's internals; "
        "import it from telephony.accounts",
    ]


def test_a_cycle_through_an_allowed_import_is_still_a_cycle(tmp_path):
    files = {"embedded.py": "from .testing import running\n", "testing/__init__.py": "from .. import embedded\n"}
    root = tree(tmp_path, files)
    assert check(root, allowed=frozenset({("telephony.embedded", "telephony.testing")})) == []
    assert _cycles(package_graph(root)) == [
        "telephony/embedded.py:1 imports telephony.testing: part of an import cycle between embedded, testing",
        "telephony/testing/__init__.py:1 imports telephony.embedded: part of an import cycle between embedded, testing",
    ]


def test_testing_may_not_use_the_apps_parts(tmp_path):
    files = {"testing/plugin.py": "from .. import embedded, wiring\nfrom ..domain import webhooks\n",
             "embedded.py": "", "wiring.py": "", "domain/webhooks.py": ""}  # fmt: skip
    assert check(tree(tmp_path, files), allowed=frozenset()) == [
        "telephony/testing/plugin.py:1 imports telephony.wiring: testing uses the app through embedded only, not wiring"
    ]


def test_imports_for_the_type_checker_only_do_not_count(tmp_path):
    keys = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .collections.cache import PageCache\n"
    assert check(tree(tmp_path, {"keys.py": keys, "collections/cache.py": ""}), allowed=frozenset()) == []
