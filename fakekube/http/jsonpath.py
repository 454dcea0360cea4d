"""The JSONPath of CRD ``additionalPrinterColumns`` (``k8s.io/client-go/util/jsonpath``), the simple
forms printer columns use.

A column's ``jsonPath`` (``.status.conditions[?(@.type=="Ready")].status``) is a chain of steps:
``.name`` or ``['name']`` (a field), ``[N]`` (an index, negative from the end), ``[*]`` or ``.*``
(every element or value), ``[?(@.path OP literal)]`` / ``[?(@.path)]`` (filter; ``==``, ``!=``,
``<``, ``<=``, ``>``, ``>=``; string, number, ``true``/``false`` literals) and ``..name``
(recursive descent). Missing keys give no result (``AllowMissingKeys(true)``); the printer uses the
first result only. Anything else (unions, slices, functions) is rejected by :func:`compile_path`
with a :class:`~fakekube.errors.UsageError`, as kube-apiserver refuses such a CRD.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from fakekube.errors import UsageError

__all__ = ["JsonPath", "compile_path"]

Step = Callable[[Any], Iterator[Any]]

_NAME: Final = re.compile(r"[A-Za-z0-9_\-$/]+")
_FILTER: Final = re.compile(r"\[\?\(\s*@((?:\.[A-Za-z0-9_\-$/]+)+)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*\)\]")
_MISSING: Final = object()


@dataclass(frozen=True, slots=True)
class JsonPath:
    """A compiled printer-column path."""

    text: str
    steps: tuple[Step, ...]

    def first(self, obj: Any) -> Any:
        """The first value the path finds in ``obj``, or ``None`` when it finds nothing."""
        values: Iterator[Any] = iter((obj,))
        for step in self.steps:
            values = _chain(step, values)
        return next(values, None)


def _chain(step: Step, values: Iterator[Any]) -> Iterator[Any]:
    for value in values:
        yield from step(value)


def _field(name: str) -> Step:
    def step(value: Any) -> Iterator[Any]:
        if isinstance(value, dict) and name in value:
            yield value[name]
    return step


def _index(i: int) -> Step:
    def step(value: Any) -> Iterator[Any]:
        if isinstance(value, list) and -len(value) <= i < len(value):
            yield value[i]
    return step


def _wildcard(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        yield from value.values()
    elif isinstance(value, list):
        yield from value


def _descend(name: str) -> Step:
    def step(value: Any) -> Iterator[Any]:
        if isinstance(value, dict):
            if name in value:
                yield value[name]
            for child in value.values():
                yield from step(child)
        elif isinstance(value, list):
            for child in value:
                yield from step(child)
    return step


def _literal(text: str, path: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    try:
        number: Any = json.loads(text)
    except ValueError:
        raise UsageError(f"unrecognized column definition {path!r}: bad filter literal {text!r}") from None
    if isinstance(number, int | float) and not isinstance(number, bool):
        return number
    raise UsageError(f"unrecognized column definition {path!r}: bad filter literal {text!r}")


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _compare(op: str, left: Any, right: Any) -> bool:
    """A filter comparison: numbers by value, other values only with their own type."""
    comparable = (_is_number(left) and _is_number(right)) or type(left) is type(right)
    if op in ("==", "!="):
        return (comparable and left == right) == (op == "==")
    if not comparable or not isinstance(left, int | float | str) or isinstance(left, bool):
        return False
    if op == "<":
        return bool(left < right)
    if op == "<=":
        return bool(left <= right)
    if op == ">":
        return bool(left > right)
    return bool(left >= right)


def _filter(fields: str, op: str | None, literal: Any) -> Step:
    names = fields.split(".")[1:]

    def lookup(item: Any) -> Any:
        for name in names:
            if not isinstance(item, dict) or name not in item:
                return _MISSING
            item = item[name]
        return item

    def step(value: Any) -> Iterator[Any]:
        if not isinstance(value, list):
            return
        for item in value:
            found = lookup(item)
            if found is _MISSING:
                continue
            if op is None or _compare(op, found, literal):
                yield item
    return step


def compile_path(text: str) -> JsonPath:
    """Compile a printer column's ``jsonPath`` (with or without the surrounding ``{}``)."""
    path = text.strip()
    if path.startswith("{") and path.endswith("}"):
        path = path[1:-1].strip()
    steps: list[Step] = []
    i = 0
    while i < len(path):
        rest = path[i:]
        if rest.startswith(".."):
            m = _NAME.match(path, i + 2)
            if m is None:
                raise UsageError(f"unrecognized column definition {text!r}")
            steps.append(_descend(m.group()))
            i = m.end()
        elif rest.startswith(".*"):
            steps.append(_wildcard)
            i += 2
        elif rest.startswith("."):
            m = _NAME.match(path, i + 1)
            if m is None:
                raise UsageError(f"unrecognized column definition {text!r}")
            steps.append(_field(m.group()))
            i = m.end()
        elif rest.startswith("[*]"):
            steps.append(_wildcard)
            i += 3
        elif rest.startswith("[?"):
            m = _FILTER.match(path, i)
            if m is None:
                raise UsageError(f"unrecognized column definition {text!r}: unsupported filter")
            op = m.group(2)
            steps.append(_filter(m.group(1), op, _literal(m.group(3), text) if op else None))
            i = m.end()
        elif rest.startswith("['") or rest.startswith('["'):
            end = path.find(rest[1] + "]", i + 2)
            if end < 0:
                raise UsageError(f"unrecognized column definition {text!r}")
            steps.append(_field(path[i + 2:end]))
            i = end + 2
        elif rest.startswith("["):
            end = path.find("]", i)
            token = path[i + 1:end] if end > 0 else ""
            if not re.fullmatch(r"-?\d+", token.strip()):
                raise UsageError(f"unrecognized column definition {text!r}: only [N], [*] and filters are supported")
            steps.append(_index(int(token)))
            i = end + 1
        else:
            raise UsageError(f"unrecognized column definition {text!r}")
    return JsonPath(text, tuple(steps))
