"""The prebuilt CEL parser (``fakekube/machinery/cel_parser.json``) is the parser celpy builds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celpy.celparser import CELParseError, CELParser
from lark import Lark, Token, Tree

from fakekube.machinery import cel_parser

#: The JobSet CRD's rules are the ones that matter most (read as data: fakekube's tests import no jobset_ref).
JOBSET_CRD = Path(__file__).resolve().parents[2] / "jobset_ref" / "api" / "jobset_crd.json"

#: Every grammar production at least once, plus lexical corner cases and syntax errors.
CORPUS = [
    "self == oldSelf", "oldSelf == self", "true", "false", "null", "1", "-1", "1u", "0x1F", "1.5", "1e3",
    "-2.5e-3", "'a'", '"a"', "'''tri\nple'''", '"""tri"ple"""', "r'\\d+'", "b'bytes'", "'\\u00e9\\n\\t'",
    "'é'", "a.b.c", "a[0]", "a['k']", "a.f(1, 2)", "f()", "f(x)", ".a.b", ".f(x)", "a{}", "a{b: 1, c: 2}",
    "[1, 2, 3]", "[]", "{}", "{'a': 1, 'b': [2]}", "a ? b : c", "a ? b : c ? d : e", "a || b && c",
    "!a", "!!a", "--1", "a + b * c - d / e % f", "(a + b) * c", "a < b", "a <= b", "a > b", "a >= b",
    "a != b", "a in [1]", "self.all(x, x.name != 'a')", "self.exists_one(x, x > 1)",
    "self.map(x, x * 2).filter(y, y > 2).size() <= 3", "has(self.spec) && has(self.spec.x)",
    "size(self) == 0 || self.startsWith('a')", "self.matches('^[a-z]+$')",
    "int(self) + uint(1) > double(2)", "timestamp('2030-01-01T00:00:00Z') < now",
    "duration('1h') > duration('30m')", "type(self) == string", "self.__dash__x == 1",
    "// a comment\nself > 0", "self\n  > 0", "a.b.c == d.e[f].g(h)",
    # syntax errors: the error text (line, column, caret) must be the same
    "", "(", ")", "a +", "a ? b", "a[", "'unterminated", "1 +* 2", "a..b", "{1:}", "f(,)", "a b",
    "self == ", "🙂", "a\n  +\n  )",
]


def _rules(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for v in node.get("x-kubernetes-validations", []):
            yield v["rule"]
            if "messageExpression" in v:
                yield v["messageExpression"]
        for value in node.values():
            yield from _rules(value)
    elif isinstance(node, list):
        for value in node:
            yield from _rules(value)


def _shape(tree: Any) -> Any:
    """Everything observable of a parse tree: node names, positions, token types and texts."""
    if isinstance(tree, Token):
        return ("token", tree.type, str(tree), tree.line, tree.column, tree.end_line, tree.end_column,
                tree.start_pos, tree.end_pos)
    assert isinstance(tree, Tree)
    meta = tree.meta
    pos = tuple(getattr(meta, k, None) for k in ("line", "column", "end_line", "end_column", "start_pos",
                                                  "end_pos"))
    return ("tree", type(tree).__name__, str(tree.data), pos, tuple(_shape(c) for c in tree.children))


def _outcome(parser: Lark, text: str) -> Any:
    saved = CELParser.CEL_PARSER
    CELParser.CEL_PARSER = parser
    try:
        return ("ok", _shape(CELParser().parse(text)))
    except CELParseError as exc:
        return ("error", exc.args[0], exc.line, exc.column)
    finally:
        CELParser.CEL_PARSER = saved


@pytest.fixture(scope="module")
def built() -> Lark:
    return cel_parser.build()


@pytest.fixture(scope="module")
def loaded() -> Lark:
    parser = cel_parser.load()
    assert parser is not None, "cel_parser.json is stale: run python -m fakekube.machinery.cel_parser"
    return parser


def test_committed_file_is_what_regeneration_gives(built: Lark) -> None:
    expected = cel_parser.render(cel_parser.generate(built))
    assert cel_parser.DATA_PATH.read_text(encoding="utf-8") == expected, (
        "fakekube/machinery/cel_parser.json is stale: run python -m fakekube.machinery.cel_parser")


def test_generation_is_reproducible(built: Lark) -> None:
    assert cel_parser.render(cel_parser.generate(built)) == cel_parser.render(cel_parser.generate())


def test_the_round_trip_keeps_every_option_and_rule(built: Lark, loaded: Lark) -> None:
    for name in ("parser", "lexer", "start", "debug", "priority", "propagate_positions", "maybe_placeholders",
                 "keep_all_tokens", "tree_class", "lexer_callbacks", "g_regex_flags", "ordered_sets"):
        assert getattr(loaded.options, name) == getattr(built.options, name), name
    assert [str(r) for r in loaded.rules] == [str(r) for r in built.rules]
    assert sorted(map(repr, loaded.terminals)) == sorted(map(repr, built.terminals))


@pytest.mark.parametrize("text", CORPUS + sorted(set(_rules(json.loads(JOBSET_CRD.read_text())))))
def test_parses_exactly_like_the_parser_celpy_builds(built: Lark, loaded: Lark, text: str) -> None:
    assert _outcome(loaded, text) == _outcome(built, text)


def test_a_stale_or_missing_file_leaves_celpy_to_build_its_own(tmp_path: Any) -> None:
    doc = json.loads(cel_parser.DATA_PATH.read_text(encoding="utf-8"))
    doc["stamp"]["lark"] = "0.0.0"
    stale = tmp_path / "cel_parser.json"
    stale.write_text(json.dumps(doc))
    assert cel_parser.load(stale) is None
    assert cel_parser.load(tmp_path / "missing.json") is None


def test_install_keeps_a_parser_celpy_already_has(loaded: Lark) -> None:
    saved = CELParser.CEL_PARSER
    try:
        CELParser.CEL_PARSER = loaded
        assert cel_parser.install() is False
        assert CELParser.CEL_PARSER is loaded
        CELParser.CEL_PARSER = None
        assert cel_parser.install() is True
        assert CELParser.CEL_PARSER is not None
    finally:
        CELParser.CEL_PARSER = saved
