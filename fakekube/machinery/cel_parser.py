"""A prebuilt CEL parser: the first CEL rule costs milliseconds instead of half a second.

``celpy`` parses CEL with a lark LALR(1) parser that it builds from its ``cel.lark`` grammar on
first use (``celpy.celparser.CELParser``, a process-wide singleton). Building it (loading the
grammar with lark's own meta-parser, then the LALR analysis) costs 0.3-0.6 s, once per process,
at the first write of an object whose schema has ``x-kubernetes-validations``.

This module does that analysis ahead of time. ``cel_parser.json`` (committed next to it) holds
the parser that celpy builds, in lark's own serialization format (``Lark.memo_serialize``, the
format of lark's ``cache=`` option and standalone parsers) with the parse-table states renumbered
canonically (breadth first from the start state, terminals in name order), so regenerating it
gives the same bytes whatever the hash seed. :func:`install` loads it with lark's deserializer
and hands it to celpy as its parser singleton; the parse trees (and syntax error texts) are those
of the parser celpy would have built, as ``tests/fakekube/test_cel_parser.py`` checks.

The file is stamped with the lark version and the SHA-256 of celpy's ``cel.lark`` and
``celparser.py``. When the installed packages differ from the stamp, :func:`install` does nothing
and celpy builds its own parser (slow, still correct). Regenerate after upgrading cel-python or
lark with::

    python -m fakekube.machinery.cel_parser          # rewrites cel_parser.json
    python -m fakekube.machinery.cel_parser --check  # exit status 1 if it is stale
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fakekube._core.generated import regenerate_command

if TYPE_CHECKING:
    from lark import Lark

__all__ = ["DATA_PATH", "build", "generate", "install", "load", "render", "stamp"]

#: The prebuilt parser, committed (regenerate with ``python -m fakekube.machinery.cel_parser``).
DATA_PATH = Path(__file__).with_name("cel_parser.json")

_FORMAT = 1
_TUPLE = "__tuple__"        # JSON tags that keep the serialized data's Python types exact
_INT_KEYS = "__int_keys__"
_PLACEHOLDER = "__states__"


# --------------------------------------------------------------------------- loading (runtime)

def stamp() -> dict[str, Any]:
    """What the data depends on: the lark version and celpy's grammar and parser module."""
    import celpy.celparser
    import lark

    folder = Path(celpy.celparser.__file__).parent
    return {
        "format": _FORMAT,
        "lark": lark.__version__,
        "cel.lark sha256": hashlib.sha256((folder / "cel.lark").read_bytes()).hexdigest(),
        "celparser.py sha256": hashlib.sha256((folder / "celparser.py").read_bytes()).hexdigest(),
    }


def load(path: Path = DATA_PATH) -> Lark | None:
    """The prebuilt parser, or None when the file is missing or stamped for other packages."""
    import celpy
    from celpy.celparser import CELParser
    from lark import Lark

    try:
        doc = json.loads(path.read_text(encoding="utf-8"), object_hook=_decode)
        if doc.get("stamp") != stamp():
            return None
    except OSError:  # no data file, or a celpy installed without its sources
        return None
    data, memo = doc["data"], doc["memo"]
    # The options that are Python objects are not serialized; they are celpy's (checked by generate()).
    # ``_load_from_dict`` is how lark's standalone parsers load the same data.
    parser: Lark = Lark._load_from_dict(  # type: ignore[no-untyped-call]  # lark leaves it unannotated
        data, memo, tree_class=celpy.InterpretedRunner.tree_node_class,
        lexer_callbacks={"IDENT": CELParser.ambiguous_literals},
        g_regex_flags=data["parser"]["lexer_conf"]["g_regex_flags"])
    return parser


def install() -> bool:
    """Give celpy the prebuilt parser unless it already has one; True if this call installed it."""
    from celpy.celparser import CELParser

    if CELParser.CEL_PARSER is None:
        CELParser.CEL_PARSER = load()
        return CELParser.CEL_PARSER is not None
    return False


def _decode(obj: dict[str, Any]) -> Any:
    """``json.loads`` object hook: undo :func:`_encode`'s tags (inner objects come first)."""
    if len(obj) == 1:
        if _TUPLE in obj:
            return tuple(obj[_TUPLE])
        if _INT_KEYS in obj:
            return dict(obj[_INT_KEYS])
    return obj


# --------------------------------------------------------------------------- generating

def build() -> Lark:
    """A fresh parser built by celpy itself (its grammar, its options); celpy's singleton is kept."""
    import celpy
    from celpy.celparser import CELParser

    saved = CELParser.CEL_PARSER
    CELParser.CEL_PARSER = None
    try:
        CELParser(tree_class=celpy.InterpretedRunner.tree_node_class)
        built = CELParser.CEL_PARSER
    finally:
        CELParser.CEL_PARSER = saved
    assert built is not None
    return built


def generate(parser: Lark | None = None) -> dict[str, Any]:
    """The JSON document of ``cel_parser.json`` for ``parser`` (default: a fresh :func:`build`)."""
    import celpy
    from celpy.celparser import CELParser
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    parser = build() if parser is None else parser
    options = parser.options
    if (options.tree_class is not celpy.InterpretedRunner.tree_node_class
            or options.lexer_callbacks != {"IDENT": CELParser.ambiguous_literals}
            or options.parser != "lalr"):
        raise RuntimeError("celpy builds its CEL parser with options this module does not know; "
                           "update fakekube.machinery.cel_parser.load()")
    lalr = parser.parser.parser  # ParsingFrontend -> LALR_Parser
    table = lalr._parse_table
    lalr._parse_table = _canonical(table)  # serialize the canonical numbering, then put it back
    try:
        data, memo = parser.memo_serialize([TerminalDef, Rule])
    finally:
        lalr._parse_table = table
    # The options that are Python objects are passed again by load(). (serialize() shares the dict.)
    data["options"] = {k: v for k, v in data["options"].items()
                       if k not in ("tree_class", "lexer_callbacks", "g_regex_flags")}
    lexer_conf = data["parser"]["lexer_conf"]
    lexer_conf["g_regex_flags"] = int(lexer_conf["g_regex_flags"])
    return {"generator": "python -m fakekube.machinery.cel_parser", "stamp": stamp(),
            "data": _encode(data), "memo": _encode(memo)}


def render(doc: dict[str, Any]) -> str:
    """The exact text of ``cel_parser.json``: one line per parse-table state or memo entry."""
    lines = ["{"]
    for i, (key, value) in enumerate(doc.items()):
        comma = "," if i < len(doc) - 1 else ""
        lines.append(f"{json.dumps(key)}: {_render(value, key)}{comma}")
    return "\n".join(lines) + "\n}\n"


def _render(value: Any, key: str) -> str:
    if key in ("memo", "states") and isinstance(value, dict) and _INT_KEYS in value:
        rows = ",\n".join(json.dumps(row, separators=(",", ":")) for row in value[_INT_KEYS])
        return f'{{"{_INT_KEYS}": [\n{rows}\n]}}'
    if key == "data":  # the parse table's states one per line, the rest compact
        table = value["parser"]["parser"]
        body = {**value, "parser": {**value["parser"], "parser": {**table, "states": _PLACEHOLDER}}}
        text = json.dumps(body, separators=(",", ":"))
        return text.replace(json.dumps(_PLACEHOLDER), _render(table["states"], "states"), 1)
    return json.dumps(value, separators=(",", ":"))


def _canonical(table: Any) -> Any:
    """``table`` as an ``IntParseTable`` numbered breadth first from the start states (terminals by name)."""
    from lark.parsers.lalr_analysis import IntParseTable, Shift

    order: dict[Any, int] = {}
    queue = [table.start_states[start] for start in sorted(table.start_states)]
    for state in queue:
        order.setdefault(state, len(order))
    queue = list(order)
    for state in queue:  # grows while iterating: breadth first
        actions = table.states[state]
        for token in sorted(actions):
            action, arg = actions[token]
            if action is Shift and arg not in order:
                order[arg] = len(order)
                queue.append(arg)
    if len(order) != len(table.states):
        raise RuntimeError("the CEL parse table has unreachable states")
    states: dict[int, dict[str, tuple[Any, Any]]] = {}
    for state in queue:
        actions = table.states[state]
        row = states[order[state]] = {}
        for token in sorted(actions):
            action, arg = actions[token]
            row[token] = (Shift, order[arg]) if action is Shift else (action, arg)
    return IntParseTable(  # type: ignore[no-untyped-call]  # lark leaves IntParseTable.__init__ unannotated
        states, {k: order[v] for k, v in sorted(table.start_states.items())},
        {k: order[v] for k, v in sorted(table.end_states.items())})


def _encode(v: Any) -> Any:
    if isinstance(v, tuple):
        return {_TUPLE: [_encode(x) for x in v]}
    if isinstance(v, list):
        return [_encode(x) for x in v]
    if isinstance(v, dict):
        if v and all(type(k) is int for k in v):
            return {_INT_KEYS: [[k, _encode(x)] for k, x in v.items()]}
        if not all(isinstance(k, str) for k in v) or _TUPLE in v or _INT_KEYS in v:
            raise TypeError(f"cannot encode a dict with keys {list(v)[:5]!r}")
        return {k: _encode(x) for k, x in v.items()}
    if v is None or isinstance(v, bool | int | float | str):
        return v
    raise TypeError(f"cannot encode {type(v).__name__} {v!r}")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m fakekube.machinery.cel_parser [--check]``: regenerate (or check) ``cel_parser.json``."""
    return regenerate_command(argv, path=DATA_PATH, render=lambda: render(generate()),
                              module="fakekube.machinery.cel_parser")


if __name__ == "__main__":
    raise SystemExit(main())
