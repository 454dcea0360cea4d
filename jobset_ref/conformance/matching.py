"""Matching: field paths into objects and expected-vs-actual value matching (the ``$`` matchers),
and an expected API error against the one raised."""

from __future__ import annotations

import json
import re
from typing import Any

from fakekube import ApiError
from jobset_ref.conformance.scenario import ScenarioError, check_keys

__all__ = ["MISSING", "match_error", "match_value", "resolve_path", "show"]

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<absent>"})()


def show(value: Any, limit: int | None = 300) -> str:
    """``value`` as JSON on one line, cut to ``limit`` characters (None: whole)."""
    if value is MISSING:
        return "<absent>"
    text = json.dumps(value, sort_keys=True, default=str)
    return text if limit is None or len(text) <= limit else text[:limit - 3] + "..."


# ====================================================================== field paths

_TOKEN = re.compile(r"""
    (?P<name>[A-Za-z_$][\w\-$]*)                 # plain key
  | \[(?P<index>-?\d+)\]                         # list index
  | \[(?P<quoted>"(?:[^"\\]|\\.)*"|'[^']*')\]    # ["key.with.dots"]
  | \[(?P<fkey>[\w.\-/]+)=(?P<fval>[^\]]*)\]     # [name=value] list filter
  | (?P<dot>\.)
""", re.VERBOSE)


def _parse_path(path: str) -> list[tuple[str, Any]]:
    steps: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if m is None:
            raise ScenarioError(f"bad field path {path!r} at {path[pos:]!r}: use a.b[0].c, "
                                f"a[name=x].b or metadata.labels[\"k8s.io/key\"]")
        pos = m.end()
        if m.group("dot"):
            continue
        if m.group("name") is not None:
            steps.append(("key", m.group("name")))
        elif m.group("index") is not None:
            steps.append(("index", int(m.group("index"))))
        elif m.group("quoted") is not None:
            raw = m.group("quoted")
            steps.append(("key", json.loads(raw) if raw.startswith('"') else raw[1:-1]))
        else:
            steps.append(("filter", (m.group("fkey"), m.group("fval"))))
    return steps


def resolve_path(obj: Any, path: str) -> Any:
    """The value at ``path`` (``status.replicatedJobsStatus[name=workers].ready``,
    ``metadata.labels["jobset.sigs.k8s.io/job-index"]``, ``spec.containers[0].name``), or
    ``MISSING``."""
    value = obj
    for kind, arg in _parse_path(path):
        if kind == "key":
            if not isinstance(value, dict) or arg not in value:
                return MISSING
            value = value[arg]
        elif kind == "index":
            if not isinstance(value, list) or not -len(value) <= arg < len(value):
                return MISSING
            value = value[arg]
        else:
            key, want = arg
            if not isinstance(value, list):
                return MISSING
            found = [item for item in value if isinstance(item, dict) and str(item.get(key)) == want]
            if not found:
                return MISSING
            value = found[0]
    return value


# ====================================================================== value matching


def match_value(expected: Any, actual: Any, path: str) -> list[str]:
    """Mismatches between an expected value and an actual one.

    Dicts match as subsets (keys not mentioned are ignored; ``null`` means absent or null);
    lists match element-wise with equal length; ``{$regex: ..}``, ``{$contains: ..}``,
    ``{$len: n}``, ``{$absent: true}``, ``{$any: true}`` are matchers; scalars compare
    equal (``1`` vs ``"1"`` are different).
    """
    if isinstance(expected, dict) and expected and all(isinstance(k, str) and k.startswith("$") for k in expected):
        return _match_operator(expected, actual, path)
    if expected is None:
        return [] if actual is MISSING or actual is None else [f"{path}: expected absent/null, got {show(actual)}"]
    if actual is MISSING:
        return [f"{path}: expected {show(expected)}, got <absent>"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object {show(expected)}, got {show(actual)}"]
        out: list[str] = []
        for key, want in expected.items():
            sub = f"{path}.{key}" if re.fullmatch(r"[A-Za-z_]\w*", str(key)) else f'{path}["{key}"]'
            out += match_value(want, actual.get(key, MISSING), sub.lstrip("."))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{path}: expected a list {show(expected)}, got {show(actual)}"]
        if len(expected) != len(actual):
            return [_length_mismatch(expected, actual, path)]
        out = []
        for i, (want, have) in enumerate(zip(expected, actual, strict=True)):
            out += match_value(want, have, f"{path}[{i}]")
        return out
    if type(expected) is not type(actual) and not (isinstance(expected, int | float) and isinstance(actual, int | float)
                                                   and not isinstance(actual, bool) and not isinstance(expected, bool)):
        return [f"{path}: expected {show(expected)} ({type(expected).__name__}), got {show(actual)} "
                f"({type(actual).__name__})"]
    return [] if expected == actual else [f"{path}: expected {show(expected)}, got {show(actual)}"]


def _length_mismatch(expected: list[Any], actual: list[Any], path: str) -> str:
    """Lists of different lengths: where they part, and every actual item, whole, on a line of its own."""
    first = next((i for i, (want, have) in enumerate(zip(expected, actual, strict=False))
                  if match_value(want, have, "")), min(len(expected), len(actual)))
    if first < len(expected) and first < len(actual):
        where = f"first difference at [{first}]: expected {show(expected[first])}"
    elif first < len(expected):
        where = f"missing from [{first}]: {show(expected[first])}"
    else:
        where = f"unexpected from [{first}]"
    items = "".join(f"\n        [{i}] {show(have, limit=None)}" for i, have in enumerate(actual))
    return f"{path}: expected {len(expected)} item(s), got {len(actual)}; {where}; got:{items}"


def _match_operator(expected: dict[str, Any], actual: Any, path: str) -> list[str]:
    out: list[str] = []
    for op, arg in expected.items():
        if op == "$absent":
            if bool(arg) != (actual is MISSING):
                out.append(f"{path}: expected {'absent' if arg else 'present'}, got {show(actual)}")
        elif op == "$any":
            if actual is MISSING:
                out.append(f"{path}: expected a value, got <absent>")
        elif op == "$regex":
            if not isinstance(actual, str) or re.search(arg, actual) is None:
                out.append(f"{path}: expected a string matching /{arg}/, got {show(actual)}")
        elif op == "$contains":
            if isinstance(actual, str):
                if str(arg) not in actual:
                    out.append(f"{path}: expected a string containing {arg!r}, got {show(actual)}")
            elif isinstance(actual, list):
                if not any(not match_value(arg, item, path) for item in actual):
                    out.append(f"{path}: expected a list containing {show(arg)}, got {show(actual)}")
            else:
                out.append(f"{path}: expected a string or list containing {show(arg)}, got {show(actual)}")
        elif op == "$len":
            if not isinstance(actual, list | dict | str) or len(actual) != arg:
                got = len(actual) if isinstance(actual, list | dict | str) else show(actual)
                out.append(f"{path}: expected length {arg}, got {got}")
        elif op == "$not":
            if not match_value(arg, actual, path):
                out.append(f"{path}: expected anything but {show(arg)}, got {show(actual)}")
        else:
            raise ScenarioError(f"unknown matcher {op!r} at {path}; known: $absent, $any, $regex, $contains, "
                                "$len, $not")
    return out


def match_error(expected: Any, err: ApiError) -> list[str]:
    """Mismatches between an ``expectError`` mapping and the ``ApiError`` a request raised."""
    check_keys(expected, ("code", "reason", "message", "messageContains", "causes", "status"), "expectError")
    out: list[str] = []
    if "code" in expected and expected["code"] != err.code:
        out.append(f"code: expected {expected['code']}, got {err.code}")
    if "reason" in expected and expected["reason"] != err.reason:
        out.append(f"reason: expected {expected['reason']!r}, got {err.reason!r}")
    if "message" in expected and expected["message"] != err.message:
        out.append(f"message:\n        expected: {expected['message']}\n        got:      {err.message}")
    contains = expected.get("messageContains")
    for part in [contains] if isinstance(contains, str) else contains or []:
        if part not in err.message:
            out.append(f"message: expected to contain: {part}\n        got: {err.message}")
    if "causes" in expected:
        out += match_value(expected["causes"], err.details.get("causes", MISSING), "details.causes")
    if "status" in expected:
        out += match_value(expected["status"], err.status, "status")
    return out
