"""Label selectors, parsed, matched and printed as Kubernetes does (field selectors:
:mod:`fakekube.machinery.field_selectors`).

Mirrors, at ``kubernetes/apimachinery@v0.34.0``:

- ``pkg/labels/selector.go``: ``Parse`` (lexer + recursive-descent parser), ``NewRequirement``,
  ``Requirement.Matches``/``String``, ``internalSelector``, ``Everything``/``Nothing``,
  ``SelectorFromValidatedSet``, ``RequiresExactMatch``;
- ``pkg/apis/meta/v1/helpers.go``: ``LabelSelectorAsSelector``;
- ``pkg/apis/meta/v1/validation/validation.go``: ``ValidateLabelSelector``,
  ``ValidateLabelSelectorRequirement``.

How a bad selector reaches a client (read in ``kubernetes/apiserver@v0.34.0``
``pkg/endpoints/handlers/get.go`` ``ListResource``): the query string is decoded by
``metainternalversionscheme.ParameterCodec.DecodeParameters``, whose ``v1.ListOptions →
internalversion.ListOptions`` conversion calls ``labels.Parse`` / ``fields.ParseSelector`` and
returns their error unchanged; the handler answers ``errors.NewBadRequest(err.Error())``: HTTP
400, reason ``BadRequest``, message = the parser's error text verbatim (e.g.
``unable to parse requirement: found ',', expected: identifier``). Unsupported field labels
fail later in the same handler (``FieldSelector.Transform(ConvertFieldLabel)``), again as
``NewBadRequest(err.Error())``. Both raise :class:`SelectorError` here, which is a
:class:`~fakekube.errors.BadRequest` (and a ``ValueError`` for non-API callers).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from fakekube._core.gocompat import parse_int64
from fakekube.errors import BadRequest, FieldError, aggregate_message, go_quote

from .validation import is_qualified_name, is_valid_label_value, validate_labels

__all__ = [
    "EVERYTHING",
    "NOTHING",
    "LabelSelector",
    "Operator",
    "Requirement",
    "SelectorError",
    "new_requirement",
    "parse_label_selector",
    "selector_from_label_selector_dict",
    "selector_from_set",
    "validate_label_selector",
]


class SelectorError(BadRequest, ValueError):
    """A selector that cannot be parsed or converted: 400 BadRequest with upstream's error text."""


# =========================================================================== label selectors


class Operator(StrEnum):
    """``selection.Operator``: the values are the upstream constants."""

    DOES_NOT_EXIST = "!"
    EQUALS = "="
    DOUBLE_EQUALS = "=="
    IN = "in"
    NOT_EQUALS = "!="
    NOT_IN = "notin"
    EXISTS = "exists"
    GREATER_THAN = "gt"
    LESS_THAN = "lt"


# Order matters: it is the order printed in "expected: ..." and "supported values: ..." messages.
_BINARY_OPERATORS = (Operator.IN, Operator.NOT_IN, Operator.EQUALS, Operator.DOUBLE_EQUALS,
                     Operator.NOT_EQUALS, Operator.GREATER_THAN, Operator.LESS_THAN)
_UNARY_OPERATORS = (Operator.EXISTS, Operator.DOES_NOT_EXIST)
_VALID_OPERATORS = _BINARY_OPERATORS + _UNARY_OPERATORS

_MISSING: Any = object()  # a label value no selector value equals
_EQUALITY = (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS)  # "the label has one of these values"

LabelTest = Callable[[Mapping[str, str]], bool]


def _compile_requirement(key: str, op: Operator | str, values: tuple[str, ...]) -> LabelTest:
    """``Requirement.Matches`` specialised for one requirement (dispatch done once, not per call).

    ``labels.get(key, _MISSING) in values`` is ``key in labels and labels[key] in values``; a single
    value compares with ``==`` (what ``in`` does for a one-element tuple, identity aside).
    """
    if op in _EQUALITY:
        if len(values) == 1:
            value = values[0]
            return lambda labels: labels.get(key, _MISSING) == value
        return lambda labels: labels.get(key, _MISSING) in values
    if op in (Operator.NOT_IN, Operator.NOT_EQUALS):
        if len(values) == 1:
            value = values[0]
            return lambda labels: labels.get(key, _MISSING) != value
        return lambda labels: labels.get(key, _MISSING) not in values
    if op is Operator.EXISTS:
        return lambda labels: key in labels
    if op is Operator.DOES_NOT_EXIST:
        return lambda labels: key not in labels
    if op in (Operator.GREATER_THAN, Operator.LESS_THAN):
        want = parse_int64(values[0]) if len(values) == 1 else None
        if want is None:
            return lambda labels: False
        greater = op is Operator.GREATER_THAN

        def compare(labels: Mapping[str, str]) -> bool:
            if key not in labels:
                return False
            have = parse_int64(labels[key])
            if have is None:
                return False
            return have > want if greater else have < want
        return compare
    return lambda labels: False


@dataclass(frozen=True, slots=True)
class Requirement:
    """``labels.Requirement``: ``values`` keep the order given (``String()`` sorts on output).

    Matching goes through a test compiled once at construction (``_test``, not part of equality,
    hashing or the printed form); the hash is computed once too (requirements key indexes).
    """

    key: str
    operator: Operator
    values: tuple[str, ...] = ()
    _test: LabelTest = field(init=False, repr=False, compare=False)
    _hash: int | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_test", _compile_requirement(self.key, self.operator, self.values))
        try:
            object.__setattr__(self, "_hash", hash((self.key, self.operator, self.values)))
        except TypeError:  # unhashable values (not a tuple): fail when hashed, as a dataclass does
            object.__setattr__(self, "_hash", None)

    def __hash__(self) -> int:
        h = self._hash
        return hash((self.key, self.operator, self.values)) if h is None else h

    def __reduce__(self) -> tuple[Any, ...]:
        return (Requirement, (self.key, self.operator, self.values))

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``Requirement.Matches``."""
        return self._test(labels)

    def __str__(self) -> str:
        """``Requirement.String``."""
        op = self.operator
        if op is Operator.DOES_NOT_EXIST:
            return "!" + self.key
        if op is Operator.EXISTS:
            return self.key
        symbol = {Operator.EQUALS: "=", Operator.DOUBLE_EQUALS: "==", Operator.NOT_EQUALS: "!=",
                  Operator.IN: " in ", Operator.NOT_IN: " notin ", Operator.GREATER_THAN: ">",
                  Operator.LESS_THAN: "<"}[op]
        values = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if op in (Operator.IN, Operator.NOT_IN):
            values = f"({values})"
        return self.key + symbol + values


def _key_error(key: str, path: str) -> FieldError | None:
    """``labels.validateLabelKey``: one error, messages joined with ``"; "``."""
    errs = is_qualified_name(key)
    return FieldError.invalid(path, key, "; ".join(errs)) if errs else None


def _value_error(key: str, value: str, path: str) -> FieldError | None:
    """``labels.validateLabelValue``: the path gets ``[key]`` appended."""
    errs = is_valid_label_value(value)
    return FieldError.invalid(f"{path}[{key}]", value, "; ".join(errs)) if errs else None


def _requirement_errors(key: str, op: str, values: Sequence[str] | None) -> list[FieldError]:
    """The field errors ``labels.NewRequirement`` aggregates (path ``nil``, so children are bare)."""
    errs: list[FieldError] = []
    vals = list(values or ())
    # Go renders a nil []string as null and an empty one as []: keep the distinction.
    shown: list[str] | None = None if values is None else vals
    if (err := _key_error(key, "key")) is not None:
        errs.append(err)
    if op in (Operator.IN, Operator.NOT_IN):
        if not vals:
            errs.append(FieldError.invalid("values", shown, "for 'in', 'notin' operators, values set can't be empty"))
    elif op in (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS):
        if len(vals) != 1:
            errs.append(FieldError.invalid("values", shown, "exact-match compatibility requires one single value"))
    elif op in (Operator.EXISTS, Operator.DOES_NOT_EXIST):
        if vals:
            errs.append(FieldError.invalid("values", shown, "values set must be empty for exists and does not exist"))
    elif op in (Operator.GREATER_THAN, Operator.LESS_THAN):
        if len(vals) != 1:
            errs.append(FieldError.invalid("values", shown,
                                           "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, value in enumerate(vals):
            if parse_int64(value) is None:
                errs.append(FieldError.invalid(f"values[{i}]", value,
                                               "for 'Gt', 'Lt' operators, the value must be an integer"))
    else:
        errs.append(FieldError.not_supported("operator", op, [str(o) for o in _VALID_OPERATORS]))
    for i, value in enumerate(vals):
        if (err := _value_error(key, value, f"values[{i}]")) is not None:
            errs.append(err)
    return errs


def new_requirement(key: str, operator: Operator | str, values: Sequence[str] | None = ()) -> Requirement:
    """``labels.NewRequirement``: validates and raises :class:`SelectorError` with the aggregate text.

    Pass ``values=None`` to mimic a nil Go slice (rendered ``null`` in a message).
    """
    errs = _requirement_errors(key, operator, values)
    if errs:
        raise SelectorError(aggregate_message(errs))
    return Requirement(key, Operator(operator), tuple(values or ()))


def _always(labels: Mapping[str, str]) -> bool:
    return True


def _never(labels: Mapping[str, str]) -> bool:
    return False


def _compile_selector(requirements: tuple[Requirement, ...], matches_nothing: bool) -> LabelTest:
    """``Selector.Matches`` for one selector: all requirements' compiled tests, ANDed.

    Selectors made only of single-value equality terms (``matchLabels``, Services, ``k in (v)``)
    compare ``(key, value)`` pairs directly.
    """
    if matches_nothing:
        return _never
    if not requirements:
        return _always
    if len(requirements) == 1:
        return requirements[0]._test
    if all(r.operator in _EQUALITY and len(r.values) == 1 for r in requirements):
        pairs = tuple((r.key, r.values[0]) for r in requirements)

        def match_pairs(labels: Mapping[str, str]) -> bool:
            get = labels.get
            for key, value in pairs:
                if get(key, _MISSING) != value:
                    return False
            return True
        return match_pairs
    tests = tuple(r._test for r in requirements)

    def match_all(labels: Mapping[str, str]) -> bool:
        for test in tests:
            if not test(labels):
                return False
        return True
    return match_all


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A parsed label selector (``labels.internalSelector``), or :data:`NOTHING`.

    ``requirements`` are sorted by key (stable, so requirements on one key keep their order;
    Go's ``sort.Sort`` is only stable for fewer than 13 requirements).
    """

    requirements: tuple[Requirement, ...] = ()
    matches_nothing: bool = False
    _test: LabelTest = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_test", _compile_selector(self.requirements, self.matches_nothing))

    def __reduce__(self) -> tuple[Any, ...]:
        return (LabelSelector, (self.requirements, self.matches_nothing))

    @classmethod
    def of(cls, requirements: Iterable[Requirement]) -> LabelSelector:
        """``NewSelector().Add(...)``: sort by key."""
        return cls(tuple(sorted(requirements, key=lambda r: r.key)))

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``Selector.Matches``: every requirement holds (nothing matches :data:`NOTHING`)."""
        return self._test(labels)

    @property
    def empty(self) -> bool:
        """``Selector.Empty``: true when the selector matches everything."""
        return not self.matches_nothing and not self.requirements

    def __str__(self) -> str:
        """``Selector.String``: requirements joined by ``,`` (``""`` for both everything and nothing)."""
        return ",".join(str(r) for r in self.requirements)

    def requires_exact_match(self, key: str) -> str | None:
        """``RequiresExactMatch``: the first requirement on ``key`` decides."""
        for r in self.requirements:
            if r.key == key:
                if r.operator in _EQUALITY and len(r.values) == 1:
                    return r.values[0]
                return None
        return None

    def equality_terms(self) -> tuple[tuple[str, str], ...]:
        """``(key, value)`` pairs every match must carry exactly: ``k=v``, ``k==v``, ``k in (v)``.

        A store may answer from a label index on any one of them and filter with :meth:`matches`.
        Empty for :data:`NOTHING`, which callers must check with :attr:`matches_nothing`.
        """
        return tuple(group[0] for group in self.index_groups() if len(group) == 1)

    def index_groups(self) -> tuple[tuple[tuple[str, str], ...], ...]:
        """For each ``=``/``==``/``in`` requirement, the ``(key, value)`` pairs one of which every
        match carries: a store may answer from the union of one group's label-index buckets."""
        return tuple(tuple((r.key, v) for v in dict.fromkeys(r.values)) for r in self.requirements
                     if r.operator in _EQUALITY and r.values)

    def required_keys(self) -> tuple[str, ...]:
        """Label keys every match must have (sorted, unique)."""
        present = (*_EQUALITY, Operator.EXISTS, Operator.GREATER_THAN, Operator.LESS_THAN)
        return tuple(sorted({r.key for r in self.requirements if r.operator in present}))


EVERYTHING = LabelSelector()
"""``labels.Everything()``: matches every label set."""

NOTHING = LabelSelector(matches_nothing=True)
"""``labels.Nothing()``: matches no label set; prints as ``""``."""


def selector_from_set(labels: Mapping[str, str] | None) -> LabelSelector:
    """``labels.SelectorFromValidatedSet``: ``k=v`` for every entry; empty → :data:`EVERYTHING`."""
    if not labels:
        return EVERYTHING
    return LabelSelector(tuple(Requirement(k, Operator.EQUALS, (labels[k],)) for k in sorted(labels)))


# --------------------------------------------------------------------------- lexer and parser

_END, _CLOSED_PAR, _COMMA, _BANG, _DOUBLE_EQUALS, _EQUALS, _GT, _IDENT, _IN, _LT, _NOT_EQUALS, \
    _NOT_IN, _OPEN_PAR, _ERROR = range(14)

_STRING_TO_TOKEN = {")": _CLOSED_PAR, ",": _COMMA, "!": _BANG, "==": _DOUBLE_EQUALS, "=": _EQUALS,
                    ">": _GT, "in": _IN, "<": _LT, "!=": _NOT_EQUALS, "notin": _NOT_IN, "(": _OPEN_PAR}
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")


def _lex(text: str) -> list[tuple[int, str]]:
    """``Lexer.Lex`` until end of string, byte-for-byte in behaviour.

    Go's ``read`` returns 0 at the end of input; a literal NUL character reads the same way,
    so (as upstream) a NUL ends the input where a token would start and ends a token otherwise.
    """
    items: list[tuple[int, str]] = []
    pos, end = 0, len(text)

    def read() -> str:
        nonlocal pos
        if pos < end:
            pos += 1
            return text[pos - 1]
        return "\0"

    while True:
        ch = read()
        while ch in _WHITESPACE:  # skipWhiteSpaces
            ch = read()
        if ch == "\0":
            items.append((_END, ""))
            return items
        pos -= 1  # unread
        buffer = ""
        if ch in _SPECIAL:  # scanSpecialSymbol
            last: tuple[int, str] | None = None
            while True:
                ch = read()
                if ch == "\0":
                    break
                if ch not in _SPECIAL:
                    pos -= 1
                    break
                buffer += ch
                if buffer in _STRING_TO_TOKEN:
                    last = (_STRING_TO_TOKEN[buffer], buffer)
                elif last is not None:
                    pos -= 1
                    break
            items.append(last if last is not None else (_ERROR, f"error expected: keyword found '{buffer}'"))
        else:  # scanIDOrKeyword
            while True:
                ch = read()
                if ch == "\0":
                    break
                if ch in _SPECIAL or ch in _WHITESPACE:
                    pos -= 1
                    break
                buffer += ch
            items.append((_STRING_TO_TOKEN.get(buffer, _IDENT), buffer))


class _Parser:
    """``labels.Parser`` with its two contexts (``in``/``notin`` are identifiers in value context)."""

    def __init__(self, text: str) -> None:
        self.items = _lex(text)
        self.pos = 0

    def lookahead(self, values: bool) -> tuple[int, str]:
        tok, lit = self.items[self.pos]
        return (_IDENT if values and tok in (_IN, _NOT_IN) else tok), lit

    def consume(self, values: bool) -> tuple[int, str]:
        item = self.lookahead(values)
        self.pos += 1
        return item

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            tok, lit = self.lookahead(True)
            if tok in (_IDENT, _BANG):
                try:
                    requirements.append(self.parse_requirement())
                except SelectorError as err:
                    raise SelectorError(f"unable to parse requirement: {err.message}") from None
                tok, lit = self.consume(True)
                if tok == _END:
                    return requirements
                if tok == _COMMA:
                    tok2, lit2 = self.lookahead(True)
                    if tok2 not in (_IDENT, _BANG):
                        raise SelectorError(f"found '{lit2}', expected: identifier after ','")
                else:
                    raise SelectorError(f"found '{lit}', expected: ',' or 'end of string'")
            elif tok == _END:
                return requirements
            else:
                raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def parse_requirement(self) -> Requirement:
        key, operator = self.parse_key_and_infer_operator()
        if operator in (Operator.EXISTS, Operator.DOES_NOT_EXIST):
            return new_requirement(key, operator, [])
        operator = self.parse_operator()
        values = self.parse_values() if operator in (Operator.IN, Operator.NOT_IN) else self.parse_exact_value()
        return new_requirement(key, operator, sorted(values))

    def parse_key_and_infer_operator(self) -> tuple[str, Operator | None]:
        operator: Operator | None = None
        tok, lit = self.consume(True)
        if tok == _BANG:
            operator = Operator.DOES_NOT_EXIST
            tok, lit = self.consume(True)
        if tok != _IDENT:
            raise SelectorError(f"found '{lit}', expected: identifier")
        if (err := _key_error(lit, "<nil>")) is not None:  # the parser's path is a nil *field.Path
            raise SelectorError(str(err))
        if self.lookahead(True)[0] in (_END, _COMMA) and operator is None:
            operator = Operator.EXISTS
        return lit, operator

    def parse_operator(self) -> Operator:
        tok, lit = self.consume(False)
        ops = {_IN: Operator.IN, _EQUALS: Operator.EQUALS, _DOUBLE_EQUALS: Operator.DOUBLE_EQUALS,
               _GT: Operator.GREATER_THAN, _LT: Operator.LESS_THAN, _NOT_IN: Operator.NOT_IN,
               _NOT_EQUALS: Operator.NOT_EQUALS}
        if tok not in ops:
            expected = ", ".join(str(o) for o in _BINARY_OPERATORS)
            raise SelectorError(f"found '{lit}', expected: {expected}")
        return ops[tok]

    def parse_values(self) -> set[str]:
        tok, lit = self.consume(True)
        if tok != _OPEN_PAR:
            raise SelectorError(f"found '{lit}' expected: '('")
        tok, lit = self.lookahead(True)
        if tok in (_IDENT, _COMMA):
            values = self.parse_identifiers_list()
            if self.consume(True)[0] != _CLOSED_PAR:
                raise SelectorError(f"found '{lit}', expected: ')'")
            return values
        if tok == _CLOSED_PAR:
            self.consume(True)
            return {""}
        raise SelectorError(f"found '{lit}', expected: ',', ')' or identifier")

    def parse_identifiers_list(self) -> set[str]:
        values: set[str] = set()
        while True:
            tok, lit = self.consume(True)
            if tok == _IDENT:
                values.add(lit)
                tok2, lit2 = self.lookahead(True)
                if tok2 == _COMMA:
                    continue
                if tok2 == _CLOSED_PAR:
                    return values
                raise SelectorError(f"found '{lit2}', expected: ',' or ')'")
            if tok == _COMMA:
                if not values:
                    values.add("")
                tok2 = self.lookahead(True)[0]
                if tok2 == _CLOSED_PAR:
                    values.add("")
                    return values
                if tok2 == _COMMA:
                    self.consume(True)
                    values.add("")
            else:
                raise SelectorError(f"found '{lit}', expected: ',', or identifier")

    def parse_exact_value(self) -> set[str]:
        if self.lookahead(True)[0] in (_END, _COMMA):
            return {""}
        tok, lit = self.consume(True)
        if tok == _IDENT:
            return {lit}
        raise SelectorError(f"found '{lit}', expected: identifier")


def parse_label_selector(text: str) -> LabelSelector:
    """``labels.Parse``: the full string syntax; ``""`` (or blanks) is :data:`EVERYTHING`.

    Raises :class:`SelectorError` (400 BadRequest) whose message is the text kube-apiserver
    returns for a bad ``labelSelector`` query parameter: the parser's error, unwrapped (see the
    module docstring), e.g. ``unable to parse requirement: found ',', expected: identifier``.

    Parsed selectors are immutable, so the last few hundred distinct strings are kept (a watch or
    list selector, a Service selector, recurs); errors are raised afresh each time.
    """
    if type(text) is str:
        return _parse_label_selector_cached(text)
    return LabelSelector.of(_Parser(text).parse())


@functools.lru_cache(maxsize=512)
def _parse_label_selector_cached(text: str) -> LabelSelector:
    return LabelSelector.of(_Parser(text).parse())


# --------------------------------------------------------------------------- metav1.LabelSelector

_STRUCTURED_OPERATORS = {"In": Operator.IN, "NotIn": Operator.NOT_IN, "Exists": Operator.EXISTS,
                         "DoesNotExist": Operator.DOES_NOT_EXIST}


def selector_from_label_selector_dict(sel: Mapping[str, Any] | None) -> LabelSelector:
    """``metav1.LabelSelectorAsSelector``: ``None`` → :data:`NOTHING`, ``{}`` → :data:`EVERYTHING`.

    ``matchLabels`` become ``k=v`` (visited in sorted key order; Go's map order is random, so
    with several bad entries Go may report a different one first), then ``matchExpressions``.
    Errors raise :class:`SelectorError` with upstream's text, e.g.
    ``"Foo" is not a valid label selector operator``.
    """
    if sel is None:
        return NOTHING
    match_labels: Mapping[str, str] = sel.get("matchLabels") or {}
    expressions: Sequence[Mapping[str, Any]] = sel.get("matchExpressions") or []
    if not match_labels and not expressions:
        return EVERYTHING
    requirements = [new_requirement(key, Operator.EQUALS, [match_labels[key]]) for key in sorted(match_labels)]
    for expr in expressions:
        raw_op = expr.get("operator") or ""
        if raw_op not in _STRUCTURED_OPERATORS:
            raise SelectorError(f"{go_quote(raw_op)} is not a valid label selector operator")
        values = expr.get("values")
        requirements.append(new_requirement(expr.get("key") or "", _STRUCTURED_OPERATORS[raw_op],
                                            list(values) if values else None))
    return LabelSelector.of(requirements)


def validate_label_selector(sel: Mapping[str, Any] | None, path: str) -> list[FieldError]:
    """``ValidateLabelSelector`` with default options (invalid values and unknown operators rejected)."""
    if sel is None:
        return []
    errs = validate_labels(sel.get("matchLabels"), f"{path}.matchLabels")
    for i, expr in enumerate(sel.get("matchExpressions") or []):
        errs.extend(_validate_requirement(expr, f"{path}.matchExpressions[{i}]"))
    return errs


def _validate_requirement(expr: Mapping[str, Any], path: str) -> list[FieldError]:
    """``ValidateLabelSelectorRequirement``."""
    errs: list[FieldError] = []
    op = expr.get("operator") or ""
    values: Sequence[str] = expr.get("values") or []
    if op in ("In", "NotIn"):
        if not values:
            errs.append(FieldError.required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(FieldError.forbidden(
                f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    else:
        errs.append(FieldError.invalid(f"{path}.operator", op, "not a valid selector operator"))
    key = expr.get("key") or ""
    errs.extend(FieldError.invalid(f"{path}.key", key, msg) for msg in is_qualified_name(key))
    for i, value in enumerate(values):
        errs.extend(FieldError.invalid(f"{path}.values[{i}]", value, msg) for msg in is_valid_label_value(value))
    return errs
