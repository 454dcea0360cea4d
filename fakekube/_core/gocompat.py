"""Go's formatting and parsing, imitated: the one place fakekube reproduces what Go prints.

Upstream messages embed values rendered by Go (``fmt``, ``strconv``, ``encoding/json``) and some
orderings come from Go's sort. Every such rendering lives here, once:

* :func:`go_quote` -- ``strconv.Quote`` / ``%q`` of a string.
* :func:`go_quote_char` -- ``encoding/json``'s ``quoteChar`` (its syntax-error messages).
* :func:`go_float`, :class:`GoFloat` -- ``%v`` of a ``float64`` (``strconv.FormatFloat(f, 'g', -1,
  64)`` with ``fmt``'s exponent threshold of 6).
* :func:`go_type`, :func:`go_v`, :func:`go_s` -- the dynamic type, ``%v`` and ``%s`` of a value
  ``json.Unmarshal`` decoded into ``interface{}`` (maps print their keys sorted, as ``fmt`` does);
  :func:`go_json_kind` -- its JSON type word in an ``UnmarshalTypeError``.
* :func:`go_atoi`, :func:`parse_int64` -- ``strconv.Atoi`` (with its error text) and
  ``strconv.ParseInt(s, 10, 64)`` on a 64-bit platform.
* :func:`go_duration` -- ``time.Duration.String`` (``10s``, ``5m0s``, ``1.5ms``).
* :func:`go_stable_sort` -- ``sort.SliceStable`` step for step (upstream comparators are not always
  strict weak orders, so only the same algorithm gives the same order).
* :func:`go_json_loads`, :class:`GoJSONError` -- ``json.Unmarshal`` into ``interface{}``: what it
  refuses, with Go's scanner message (approximated from Python's decoder).

Pure functions of their arguments; this module imports nothing from fakekube.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Final, TypeVar

__all__ = [
    "GoFloat",
    "GoJSONError",
    "go_atoi",
    "go_duration",
    "go_float",
    "go_json_kind",
    "go_json_loads",
    "go_quote",
    "go_quote_char",
    "go_s",
    "go_stable_sort",
    "go_type",
    "go_v",
    "parse_int64",
]

T = TypeVar("T")

# --------------------------------------------------------------------------- strings


def go_quote(s: str) -> str:
    """Render ``s`` as Go's ``%q`` / ``strconv.Quote`` would."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def go_quote_char(ch: str) -> str:
    """``encoding/json``'s ``quoteChar`` for the first byte of ``ch``."""
    byte = ch.encode("utf-8")[0]
    if byte == ord("'"):
        return "'\\''"
    if byte == ord('"'):
        return "'\"'"
    return "'" + go_quote(chr(byte))[1:-1] + "'"


# --------------------------------------------------------------------------- numbers


def go_float(x: float) -> str:
    """``fmt``'s ``%v`` of a float64: shortest digits, exponent form below 1e-4 and from 1e+06."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    _, digit_tuple, exponent = Decimal(repr(abs(float(x)))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    dp = len(digits) + int(exponent)
    prefix = "-" if x < 0 else ""
    if dp - 1 < -4 or dp - 1 >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        exp = dp - 1
        return f"{prefix}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if dp <= 0:
        return f"{prefix}0.{'0' * -dp}{digits}"
    if dp >= len(digits):
        return prefix + digits + "0" * (dp - len(digits))
    return f"{prefix}{digits[:dp]}.{digits[dp:]}"


class GoFloat(float):
    """A float whose ``str`` and ``repr`` are Go's ``%v`` (a bad value in a field error)."""

    def __str__(self) -> str:
        return go_float(self)

    __repr__ = __str__


_INT_RE: Final = re.compile(r"[+-]?[0-9]+")
_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1


def parse_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: optional sign, ASCII digits, in range; ``None`` on error."""
    if not _INT_RE.fullmatch(text):
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


def go_atoi(text: str) -> int:
    """``strconv.Atoi`` (64-bit); ``ValueError`` whose text is Go's error."""
    if not _INT_RE.fullmatch(text):
        raise ValueError(f"strconv.Atoi: parsing {go_quote(text)}: invalid syntax")
    value = int(text)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"strconv.Atoi: parsing {go_quote(text)}: value out of range")
    return value


def go_duration(ns: int) -> str:
    """``time.Duration.String`` of ``ns`` nanoseconds: ``0s``, ``10s``, ``1m20s``, ``5m0s``,
    ``2h0m0s``, ``1.5s``; below a second in ``ns``, ``µs`` or ``ms`` (``1.5ms``)."""
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    u = abs(ns)
    if u < 1_000:
        return f"{sign}{u}ns"
    if u < 1_000_000_000:
        unit, prec = ("µs", 3) if u < 1_000_000 else ("ms", 6)
        whole, frac = _go_fraction(u, prec)
        return f"{sign}{whole}{frac}{unit}"
    total, frac = _go_fraction(u, 9)
    out = f"{total % 60}{frac}s"
    minutes = total // 60
    if minutes:
        out = f"{minutes % 60}m{out}"
        if minutes // 60:
            out = f"{minutes // 60}h{out}"
    return sign + out


def _go_fraction(value: int, prec: int) -> tuple[int, str]:
    """``time``'s ``fmtFrac``: ``value / 10**prec`` as its whole part and ``.digits`` without
    trailing zeros (empty when the fraction is 0)."""
    whole, frac = divmod(value, 10**prec)
    digits = f"{frac:0{prec}d}".rstrip("0")
    return whole, f".{digits}" if digits else ""


# --------------------------------------------------------------------------- decoded JSON values


def go_type(value: Any) -> str:
    """The Go dynamic type ``json.Unmarshal`` gives ``value`` (``nil`` for null)."""
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    return "nil"


def go_json_kind(value: Any) -> str:
    """The JSON type word ``encoding/json``'s ``UnmarshalTypeError`` uses (``object``, ``number``...)."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if value is None:
        return "null"
    return "number"


def go_v(value: Any) -> str:
    """``fmt``'s ``%v`` of a decoded JSON value (or an int64/float64)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_v(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_v(v) for v in value) + "]"
    return str(value)


def go_s(value: Any) -> str:
    """``fmt``'s ``%s``: strings bare, containers as ``%v``, other scalars as ``%!s(type=value)``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return go_v(value)
    if value is None:
        return "%!s(<nil>)"
    return f"%!s({go_type(value)}={go_v(value)})"


# --------------------------------------------------------------------------- sort.SliceStable


def go_stable_sort(items: list[T], less: Callable[[T, T], bool]) -> list[T]:
    """Go's ``sort.SliceStable`` (insertion-sorted blocks of 20, then SymMerge); returns a new list.

    Reproduced step for step because upstream's comparators are not always strict weak orders.
    """
    data = list(items)

    def lt(i: int, j: int) -> bool:
        return less(data[i], data[j])

    def swap(i: int, j: int) -> None:
        data[i], data[j] = data[j], data[i]

    def insertion(a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and lt(j, j - 1):
                swap(j, j - 1)
                j -= 1

    def swap_range(a: int, b: int, n: int) -> None:
        for i in range(n):
            swap(a + i, b + i)

    def rotate(a: int, m: int, b: int) -> None:
        i, j = m - a, b - m
        while i != j:
            if i > j:
                swap_range(m - i, m, j)
                i -= j
            else:
                swap_range(m - i, m + j - i, i)
                j -= i
        swap_range(m - i, m, i)

    def sym_merge(a: int, m: int, b: int) -> None:
        if m - a == 1:
            i, j = m, b
            while i < j:
                h = (i + j) // 2
                if lt(h, a):
                    i = h + 1
                else:
                    j = h
            for k in range(a, i - 1):
                swap(k, k + 1)
            return
        if b - m == 1:
            i, j = a, m
            while i < j:
                h = (i + j) // 2
                if not lt(m, h):
                    i = h + 1
                else:
                    j = h
            for k in range(m, i, -1):
                swap(k, k - 1)
            return
        mid = (a + b) // 2
        n = mid + m
        start, r = (n - b, mid) if m > mid else (a, m)
        p = n - 1
        while start < r:
            c = (start + r) // 2
            if not lt(p - c, c):
                start = c + 1
            else:
                r = c
        end = n - start
        if start < m < end:
            rotate(start, m, end)
        if a < start < mid:
            sym_merge(a, start, mid)
        if mid < end < b:
            sym_merge(mid, end, b)

    n, block = len(data), 20
    a, b = 0, block
    while b <= n:
        insertion(a, b)
        a, b = b, b + block
    insertion(a, n)
    while block < n:
        a, b = 0, 2 * block
        while b <= n:
            sym_merge(a, a + block, b)
            a, b = b, b + 2 * block
        if a + block < n:
            sym_merge(a, a + block, n)
        block *= 2
    return data


# --------------------------------------------------------------------------- encoding/json decoding


class GoJSONError(Exception):
    """A body Go's ``encoding/json`` would refuse; ``str()`` is Go's message."""


def _innermost_container(doc: str, pos: int) -> str:
    """``{`` or ``[``: the container open at ``pos`` (strings skipped)."""
    stack: list[str] = []
    in_string = escaped = False
    for ch in doc[:pos]:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]" and stack:
            stack.pop()
    return stack[-1] if stack else ""


_LITERALS: Final = {"t": "true", "f": "false", "n": "null"}


def _go_syntax_message(doc: str, err: json.JSONDecodeError) -> str:
    """Translate Python's decoder error into the message Go's scanner gives (best effort)."""
    pos, msg = err.pos, err.msg
    if msg.startswith("Illegal trailing comma"):  # Python 3.13+ points at the comma; Go at what follows
        pos = len(doc) - len(doc[pos + 1:].lstrip(" \t\r\n"))
        msg = "Expecting property name" if msg.endswith("object") else "Expecting value"
    if pos >= len(doc.rstrip(" \t\r\n")) or msg.startswith("Unterminated string"):
        return "unexpected end of JSON input"
    ch = doc[pos]
    if msg.startswith("Expecting value"):
        literal = _LITERALS.get(ch)
        if literal is not None:
            for i, want in enumerate(literal):
                if pos + i >= len(doc):
                    return "unexpected end of JSON input"
                if doc[pos + i] != want:
                    return (f"invalid character {go_quote_char(doc[pos + i])} in literal {literal} "
                            f"(expecting {go_quote_char(want)})")
        if ch == "-" and pos + 1 < len(doc):
            return f"invalid character {go_quote_char(doc[pos + 1])} in numeric literal"
        return f"invalid character {go_quote_char(ch)} looking for beginning of value"
    if msg.startswith("Expecting property name"):
        return f"invalid character {go_quote_char(ch)} looking for beginning of object key string"
    if msg.startswith("Expecting ':'"):
        return f"invalid character {go_quote_char(ch)} after object key"
    if msg.startswith("Expecting ','"):
        where = "object key:value pair" if _innermost_container(doc, pos) == "{" else "array element"
        return f"invalid character {go_quote_char(ch)} after {where}"
    if msg.startswith("Extra data"):
        return f"invalid character {go_quote_char(ch)} after top-level value"
    if msg.startswith("Invalid control character"):
        return f"invalid character {go_quote_char(ch)} in string literal"
    if msg.startswith("Invalid \\u"):
        bad = next((c for c in doc[pos + 2:pos + 6] if c not in "0123456789abcdefABCDEF"), ch)
        return f"invalid character {go_quote_char(bad)} in \\u hexadecimal character escape"
    if msg.startswith("Invalid \\escape"):
        return f"invalid character {go_quote_char(doc[pos + 1])} in string escape code"
    return f"invalid character {go_quote_char(ch)} looking for beginning of value"


def _reject_constant(name: str) -> Any:
    raise GoJSONError("invalid character 'I' in numeric literal" if name.startswith("-")
                      else f"invalid character {go_quote_char(name)} looking for beginning of value")


def go_json_loads(body: bytes | str) -> Any:
    """Decode a request body as Go's ``json.Unmarshal`` into ``interface{}`` would accept it.

    Raises :class:`GoJSONError` with Go's message where Go refuses (``NaN``/``Infinity`` included).
    """
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes | bytearray) else body
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise GoJSONError(_go_syntax_message(text, exc)) from None
