"""No circle of imports in fakekube or jobset_ref, not even at the type level.

import-linter sees the imports Python runs; this test reads the source with ``ast`` and counts
EVERY import statement: module level, under ``if TYPE_CHECKING:``, inside functions and
methods, in ``try``/``except`` blocks. A circle that only exists in annotations is still a
circle: the two modules cannot be understood, tested or moved apart, and the day someone
needs the name at run time the cycle bites.

How imports become edges of the module graph (nodes are modules; a package is its
``__init__``):

* ``import a.b.c`` and ``from a.b.c import name`` are edges to the deepest module named:
  ``a.b.c``, or ``a.b.c.name`` when ``name`` is a submodule (``from pkg import sub``,
  ``from . import sub``). Python also runs ``a/__init__`` and ``a/b/__init__`` on the way,
  but that is the import system's doing, not a dependency the importer states: a module
  inside a package does not depend on its package's ``__init__`` unless it imports a name
  from it. (Counting those implicit edges would put every submodule of a package whose
  ``__init__`` re-exports anything in a circle with it, which says nothing.)
* ``from pkg import name`` where ``name`` is not a submodule of ``pkg`` is an edge to
  ``pkg`` itself, i.e. ``pkg/__init__``: the name is looked up there. So a package
  ``__init__`` that re-exports its submodules (an edge ``pkg -> pkg.sub``) and a submodule
  that takes a name from its package (``pkg.other -> pkg``) while ``pkg`` imports
  ``pkg.other`` form a circle, as they do at run time (partially initialised module).
* Relative imports are resolved against the importing module's package (``__init__`` is
  its own package). Imports of modules outside fakekube and jobset_ref are ignored.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fakekube", "jobset_ref")


@dataclass(frozen=True)
class Import:
    """One edge of the module graph and the source line that makes it."""

    importer: str
    imported: str
    path: Path
    line: int
    text: str

    def render(self, root: Path) -> str:
        try:
            where = self.path.relative_to(root)
        except ValueError:
            where = self.path
        return f"{where}:{self.line}: {self.text}"


def discover(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``: dotted name -> source file."""
    modules: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if any(not part.isidentifier() for part in parts):
                continue  # not importable (e.g. a data directory with dashes)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _resolve_from(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` names (before its imported names)."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if _is_package(path) else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
    return ".".join([*base, node.module] if node.module else base)


def _deepest_module(name: str, modules: Mapping[str, Path]) -> str | None:
    """The longest prefix of dotted ``name`` that is a module we know."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


# Finding the import statements. Parsing 2.4 MB of source into full syntax trees takes a second
# or more of CPU; the imports are a few thousand short statements. So one regular expression
# walks the text, stepping over every string literal (docstrings with example code) and comment
# as a whole, and picks the statements that begin with ``import``/``from`` at the start of a
# line or after ``:``/``;`` (``if TYPE_CHECKING: from x import y``); each is then parsed with
# ``ast`` and resolved from its syntax tree. A statement it cannot parse fails the test with its
# file and line, and ``walk_imports`` (a full ``ast.walk``) is the reference it must agree with
# (tested below on tricky text and real modules; on the whole tree in the slow suite).
_SCAN = re.compile(
    r"""
      (?P<string> (?:[rRbBuUfF]{1,2})?
                  (?: \"\"\"(?:\\.|[^\\])*?\"\"\" | '''(?:\\.|[^\\])*?'''
                    | "(?:\\.|[^"\\\n])*" | '(?:\\.|[^'\\\n])*' ) )
    | (?P<comment> \#[^\n]* )
    | (?:^|(?<=[:;])) [ \t]*
      (?P<stmt> (?:from[ \t]+[\w.]+[ \t]+import|import) \b
                (?: [ \t]*\((?:[^)#]|\#[^\n]*)*\)      # from x import (a, b,  # comment
                  | (?:[^\n#;\\]|\\\n)* ) )            # import a, \ (continued)
    """,
    re.MULTILINE | re.VERBOSE | re.DOTALL,  # DOTALL: a backslash may escape a newline in a string
)


def scan_imports(source: str, path: Path) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of ``source`` outside strings and comments, parsed, with their line."""
    line, counted = 1, 0
    for match in _SCAN.finditer(source):
        if match.lastgroup != "stmt":
            continue
        start = match.start("stmt")
        line += source.count("\n", counted, start)
        counted = start
        try:
            (node,) = ast.parse(match.group("stmt")).body
        except (SyntaxError, ValueError) as err:
            raise AssertionError(f"{path}:{line}: cannot read this import: {match.group('stmt')!r} ({err})") from None
        assert isinstance(node, ast.Import | ast.ImportFrom), f"{path}:{line}: not an import statement"
        node.lineno = line
        yield node


def walk_imports(source: str, path: Path) -> Iterator[ast.Import | ast.ImportFrom]:
    """The same statements from the full syntax tree (the slow reference)."""
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def imports_of(module: str, path: Path, modules: Mapping[str, Path]) -> Iterator[Import]:
    """Every import statement anywhere in the file, as edges to modules of ``modules``."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    for node in scan_imports(source, path):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = _resolve_from(module, path, node)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in modules else base)
        text = lines[node.lineno - 1].strip()
        seen: set[str] = set()
        for target in targets:
            imported = _deepest_module(target, modules)
            if imported is not None and imported != module and imported not in seen:
                seen.add(imported)
                yield Import(module, imported, path, node.lineno, text)


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, dict[str, list[Import]]]:
    """importer -> imported -> the import statements that make the edge."""
    modules = discover(root, packages)
    graph: dict[str, dict[str, list[Import]]] = {name: {} for name in modules}
    for module, path in modules.items():
        for edge in imports_of(module, path, modules):
            graph[module].setdefault(edge.imported, []).append(edge)
    return graph


def strongly_connected(graph: Mapping[str, Mapping[str, object]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components with more than one module, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph.get(succ, {})))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def describe_cycles(graph: Mapping[str, Mapping[str, list[Import]]], root: Path) -> list[str]:
    """One paragraph per circle: its modules and every import line between them."""
    paragraphs = []
    for component in strongly_connected(graph):
        members = set(component)
        lines = [f"circle of {len(component)} modules: {', '.join(component)}"]
        for importer in component:
            for imported in sorted(graph[importer]):
                if imported in members:
                    for edge in graph[importer][imported]:
                        lines.append(f"  {importer} -> {imported}   ({edge.render(root)})")
        paragraphs.append("\n".join(lines))
    return paragraphs


def test_fakekube_and_jobset_ref_have_no_circle_of_imports_even_in_type_hints() -> None:
    graph = import_graph(ROOT, PACKAGES)  # about 0.3 s for ~240 modules and ~1800 imports
    assert len(graph) > 200, "the walk found too few modules: is ROOT right?"
    cycles = describe_cycles(graph, ROOT)
    assert not cycles, "circles of imports (counting TYPE_CHECKING and function-level imports):\n\n" + "\n\n".join(cycles)


# --- the rules of the graph, on small trees ------------------------------------------------


def _tree(tmp_path: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def _edges(root: Path) -> set[tuple[str, str]]:
    graph = import_graph(root, ["pkg"])
    return {(importer, imported) for importer, targets in graph.items() for imported in targets}


def _cycles(root: Path) -> list[list[str]]:
    return strongly_connected(import_graph(root, ["pkg"]))


def test_type_checking_and_function_level_imports_count(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/cluster.py": "def serve():\n    from pkg.server import Server\n    return Server()\n",
            "pkg/server.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from pkg.cluster import Cluster\n"
            ),
        },
    )
    assert _cycles(root) == [["pkg.cluster", "pkg.server"]]
    report = describe_cycles(import_graph(root, ["pkg"]), root)
    assert len(report) == 1
    assert "pkg/cluster.py:2: from pkg.server import Server" in report[0]
    assert "pkg/server.py:3: from pkg.cluster import Cluster" in report[0]


def test_relative_imports_resolve_against_the_importers_package(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "from .a import A\n",
            "pkg/a.py": "from .sub import b\nfrom .sub.c import C\n",
            "pkg/sub/__init__.py": "from . import c\nfrom .. import a\n",
            "pkg/sub/b.py": "from ..sub.c import C\nimport pkg.a\n",
            "pkg/sub/c.py": "from .b import B\n",
        },
    )
    assert _edges(root) == {
        ("pkg", "pkg.a"),
        ("pkg.a", "pkg.sub.b"),
        ("pkg.a", "pkg.sub.c"),
        ("pkg.sub", "pkg.sub.c"),
        ("pkg.sub", "pkg.a"),
        ("pkg.sub.b", "pkg.sub.c"),
        ("pkg.sub.b", "pkg.a"),
        ("pkg.sub.c", "pkg.sub.b"),
    }
    assert _cycles(root) == [["pkg.a", "pkg.sub.b", "pkg.sub.c"]]


def test_a_package_init_counts_only_when_a_name_is_taken_from_it(tmp_path: Path) -> None:
    # The package re-exports its submodule's class; a sibling importing the SUBMODULE does not
    # depend on the package's __init__ (Python runs it, nobody asked for it): no circle.
    files = {
        "pkg/__init__.py": "from pkg.store import Store\nfrom pkg.index import Index\n",
        "pkg/store.py": "from pkg.index import Index\nclass Store: ...\n",
        "pkg/index.py": "class Index: ...\n",
    }
    assert _cycles(_tree(tmp_path / "ok", files)) == []
    # Taking the re-exported NAME from the package is an edge to its __init__, which imports
    # the importer back: the partially initialised module Python would trip over.
    files["pkg/index.py"] = "from pkg import Store\nclass Index: ...\n"
    assert _cycles(_tree(tmp_path / "bad", files)) == [["pkg", "pkg.index", "pkg.store"]]


def test_a_long_circle_is_found_whole(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": ""}
    for i in range(6):
        files[f"pkg/m{i}.py"] = f"from pkg import m{(i + 1) % 6}\n"
    files["pkg/leaf.py"] = "from pkg import m0\n"
    assert _cycles(_tree(tmp_path, files)) == [[f"pkg.m{i}" for i in range(6)]]


# --- the scanner reads what the syntax tree holds ----------------------------------------

TRICKY = '''"""Docs with code:

    from pkg.b import B
    import pkg.c
and a continued line \\
    import pkg.c
"""
from __future__ import annotations
import os, pkg.a as a  # import pkg.c in a comment
from typing import TYPE_CHECKING
if TYPE_CHECKING: from pkg.b import B
from . import (
    a,  # (the first)
    b,
)
from .a import \\
    A
x = 'import pkg.c'; import pkg.b
y = f"{x!r} from pkg.c import C"
z = rb\'\'\'
import pkg.c
\'\'\'


def f() -> None:
    try:
        from ..up import thing
    except ImportError:
        import pkg.b as b2
    message = ("not an import:"
               " from pkg.c import C")


class K:
    import pkg.a
'''


def _dumps(nodes: Iterable[ast.AST]) -> list[tuple[int, str]]:
    return sorted((getattr(n, "lineno", 0), ast.dump(n, include_attributes=False)) for n in nodes)


def test_the_scanner_finds_every_import_statement_and_nothing_in_strings_or_comments() -> None:
    found = _dumps(scan_imports(TRICKY, Path("tricky.py")))
    assert found == _dumps(walk_imports(TRICKY, Path("tricky.py")))
    assert [line for line, _ in found] == [8, 9, 10, 11, 12, 16, 18, 27, 29, 35]


@pytest.mark.parametrize("relative", [
    "fakekube/cluster.py",  # imports inside functions and under TYPE_CHECKING
    "fakekube/__init__.py",  # a docstring with example code
    "jobset_ref/conformance/__main__.py",  # a docstring with a backslash at the end of a line
    "fakekube/machinery/openapi/cel.py",  # a lazy import of a submodule (from pkg import sub)
])
def test_the_scanner_agrees_with_the_syntax_tree_on_real_modules(relative: str) -> None:
    path = ROOT / relative
    source = path.read_text(encoding="utf-8")
    assert _dumps(scan_imports(source, path)) == _dumps(walk_imports(source, path))


@pytest.mark.slow
def test_the_scanner_agrees_with_the_syntax_tree_on_every_module() -> None:
    for path in discover(ROOT, PACKAGES).values():
        source = path.read_text(encoding="utf-8")
        assert _dumps(scan_imports(source, path)) == _dumps(walk_imports(source, path)), path


# --- the four circles the house had before issue 26 ----------------------------------------


@pytest.mark.parametrize(
    ("relative", "line"),
    [
        # Each circle re-created by one import added to a copy of the module that closed it
        # (inside a function, or under TYPE_CHECKING: the test must see those too).
        ("fakekube/http/server.py", "from fakekube.cluster import FakeCluster"),
        ("fakekube/http/requests.py", "from fakekube.http.server import ClusterServer"),
        ("fakekube/machinery/openapi/nodes.py", "from .cel import compile_rule"),
        ("fakekube/remote/watch.py", "from fakekube.remote.api import RemoteApiServer"),
        ("fakekube/components/kueue_jobs/interface.py", "from .reconciler import ReconcilerClient"),
    ],
)
@pytest.mark.parametrize("where", ["function", "TYPE_CHECKING"])
def test_each_of_the_old_circles_would_be_caught(tmp_path: Path, relative: str, line: str, where: str) -> None:
    modules = discover(ROOT, PACKAGES)
    module = next(name for name, path in modules.items() if path == ROOT / relative)
    source = (ROOT / relative).read_text(encoding="utf-8")
    if where == "function":
        source += f"\n\ndef _reintroduced() -> None:\n    {line}\n"
    else:
        source += f"\n\nif TYPE_CHECKING:\n    {line}\n"
    copy = tmp_path / relative
    copy.parent.mkdir(parents=True)
    copy.write_text(source, encoding="utf-8")
    graph = _real_graph()
    assert not strongly_connected(graph)
    broken = dict(graph)
    broken[module] = {}
    for edge in imports_of(module, copy, modules):
        broken[module].setdefault(edge.imported, []).append(edge)
    cycles = describe_cycles(broken, tmp_path)
    assert len(cycles) == 1, cycles
    assert f"{relative}:" in cycles[0] and line in cycles[0], cycles[0]


_GRAPH: list[dict[str, dict[str, list[Import]]]] = []


def _real_graph() -> dict[str, dict[str, list[Import]]]:
    """The graph of the tree, built once for the tests that break a copy of one module."""
    if not _GRAPH:
        _GRAPH.append(import_graph(ROOT, PACKAGES))
    return _GRAPH[0]
