"""Kubernetes resource quantities with exact arithmetic (``fractions.Fraction``, never floats).

Mirrors ``kubernetes/apimachinery@v0.34.0`` ``pkg/api/resource``: ``ParseQuantity`` (the
``parseQuantityString`` scanner, ``quantitySuffixer.interpret``, rounding and caps),
``Quantity.String``/``CanonicalizeBytes`` (canonical form), ``Value`` and ``MilliValue``.

Semantics reproduced:

- the value is rounded *away from zero* to a multiple of 1e-9 (``0.1n`` → ``1n``);
- binary-suffixed (``Ki``…``Ei``) magnitudes are capped at 2**63 - 1;
- the scanner is looser than its error message's regex: ``"."``, ``"+"``, ``"m"`` and ``"Ki"``
  all parse as zero, ``"1."`` is one, ``"1.G"`` is 1e9;
- errors are ``ValueError`` with upstream's texts: ``quantities must match the regular
  expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'``,
  ``unable to parse quantity's suffix``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

__all__ = [
    "ERR_FORMAT_WRONG",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "Quantity",
    "QuantityFormat",
    "canonicalize_quantity",
    "format_quantity",
    "milli_value",
    "parse_quantity",
    "value_of",
]

QuantityFormat = Literal["DecimalExponent", "BinarySI", "DecimalSI"]

_SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = "quantities must match the regular expression '" + _SPLIT_RE + "'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

_NANO = Fraction(1, 10**9)
_MAX_INT64 = (1 << 63) - 1
_DIGITS = frozenset("0123456789")
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")

# DEVIATION(upstream): Go keeps a decimal exponent as an int32 scale and never expands it; exact
# rationals would need 10**|e| digits, so exponents beyond this bound are refused.
_MAX_ABS_EXPONENT = 10_000

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_BY_EXPONENT = {e: s for s, e in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_EXPONENT = {e: s for s, e in _BINARY_SUFFIXES.items()}


def _scan(text: str) -> tuple[bool, str, str, str]:
    """``parseQuantityString``: (positive, numerator digits, denominator digits, suffix)."""
    positive, pos, end = True, 0, len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    while pos < end and text[pos] == "0":  # strip leading zeros
        pos += 1
    if pos >= end:
        return positive, "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    if pos >= end:
        return positive, num, "", ""
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, num, denom, ""
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise ValueError(ERR_FORMAT_WRONG)
    return positive, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, QuantityFormat]:
    """``quantitySuffixer.interpret``: (base, exponent, format)."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], "DecimalSI"
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        body = digits[1:] if digits[0] in "+-" else digits
        if body and all(c in _DIGITS for c in body):
            exponent = int(digits)
            if -(1 << 63) <= exponent <= _MAX_INT64:
                exponent = (exponent + (1 << 31)) % (1 << 32) - (1 << 31)  # Go's int32(parsed)
                return 10, exponent, "DecimalExponent"
    raise ValueError(ERR_SUFFIX)


def _round_away_to_nano(value: Fraction) -> Fraction:
    scaled = value / _NANO
    if scaled.denominator == 1:
        return value
    magnitude = -(-abs(scaled.numerator) // scaled.denominator)  # ceil of |scaled|
    return Fraction(magnitude if value > 0 else -magnitude) * _NANO


@dataclass(frozen=True, slots=True)
class Quantity:
    """A parsed quantity: exact ``value``, the ``format`` it was written in, and ``text``, the
    original string when upstream keeps it verbatim (it was already canonical), else ``None``."""

    value: Fraction
    format: QuantityFormat
    text: str | None = None

    @classmethod
    def parse(cls, text: str) -> Quantity:
        """``resource.ParseQuantity``. Memoised (a Quantity is immutable, and a cluster writes the
        same few strings over and over); a string that does not parse raises each time."""
        return _parse(text)

    def canonical(self) -> str:
        """``Quantity.String``: the original text if upstream cached it, else the canonical form."""
        return self.text if self.text is not None else format_quantity(self.value, self.format)


@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> Quantity:
    if not text:
        raise ValueError(ERR_FORMAT_WRONG)
    if text == "0":
        return Quantity(Fraction(0), "DecimalSI", text)
    positive, num, denom, suffix = _scan(text)
    base, exponent, fmt = _interpret(suffix)
    if abs(exponent) > _MAX_ABS_EXPONENT:
        raise ValueError(f"quantity exponent out of the supported range ±{_MAX_ABS_EXPONENT}: {text!r}")
    magnitude = Fraction(int(num + denom), 10 ** len(denom))
    magnitude *= Fraction(10) ** exponent if base == 10 else 2 ** exponent
    magnitude = _round_away_to_nano(magnitude)
    if fmt == "BinarySI" and magnitude > _MAX_INT64:
        magnitude = Fraction(_MAX_INT64)
    value = magnitude if positive else -magnitude
    return Quantity(value, fmt, text if _keeps_text(fmt, exponent, num, denom, positive) else None)


def _keeps_text(fmt: QuantityFormat, exponent: int, num: str, denom: str, positive: bool) -> bool:
    """Whether ``ParseQuantity``'s int64 fast path stores the input string as the canonical one."""
    if fmt == "BinarySI":
        if exponent < 0 or denom:
            return False
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1  # Go: int32(float32(exponent)*3/10)
        shifted = int(num)
        if precision < 0 or abs(shifted * mantissa) > _MAX_INT64:
            return False
        return exponent % 10 == 0 and (shifted & 0x07) != 0
    if 18 - (len(num) + len(denom)) < 0:
        return False
    scale = exponent - len(denom)
    if scale < -9:
        return False
    digits = num + denom
    return scale % 3 == 0 and not digits.endswith("000") and digits[0] != "0"


def parse_quantity(text: str) -> Fraction:
    """The exact value of a quantity string (``ParseQuantity``), e.g. ``"100m"`` → ``1/10``."""
    return Quantity.parse(text).value


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    """``removeInt64Factors`` on a non-negative value."""
    times = 0
    while value >= base and value % base == 0:
        value //= base
        times += 1
    return value, times


def format_quantity(value: Fraction | int, fmt: QuantityFormat = "DecimalSI") -> str:
    """``CanonicalizeBytes``: the canonical string of ``value`` (rounded away from zero to 1e-9).

    Decimal forms use the largest exponent that is a multiple of 3 with an integral mantissa
    (``1.5`` → ``1500m``, ``1000`` → ``1k``). ``BinarySI`` is used only for integral magnitudes of
    at least 1024 (``1.5Gi`` → ``1536Mi``); otherwise the value prints as ``DecimalSI``.

    Faithful to a Go quirk: when no suffix exists for the exponent (``DecimalSI`` above ``E``,
    i.e. 10**21 and up; ``BinarySI`` above ``Ei``) upstream prints the mantissa with *no* suffix
    (``"1000E"`` is stored as ``"1"``). Parsing caps binary values below 2**63, so only decimal
    values that large can hit this.
    """
    value = _round_away_to_nano(Fraction(value))
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    if fmt == "BinarySI":
        if magnitude < 1024 or magnitude.denominator != 1:
            fmt = "DecimalSI"
        else:
            amount, times = _remove_factors(magnitude.numerator, 1024)
            return f"{sign}{amount}{_BINARY_BY_EXPONENT.get(times * 10, '')}"
    amount, times = _remove_factors(int(magnitude / _NANO), 10)
    exponent = times - 9
    shift = exponent % 3
    amount, exponent = amount * 10**shift, exponent - shift
    if fmt == "DecimalExponent":
        suffix = f"e{exponent}" if exponent else ""
    else:
        suffix = _DECIMAL_BY_EXPONENT.get(exponent, "")
    return f"{sign}{amount}{suffix}"


def canonicalize_quantity(text: str) -> str:
    """What an API server stores and returns for ``text`` (``ParseQuantity(text).String()``)."""
    return Quantity.parse(text).canonical()


def _ceil_away(value: Fraction) -> int:
    magnitude = -(-abs(value.numerator) // value.denominator)
    return magnitude if value >= 0 else -magnitude


def value_of(quantity: Fraction | str) -> int:
    """``Quantity.Value``: the integer value, rounded away from zero (``1500m`` → 2).

    Upstream's int64 path rounds away from zero; its big-decimal path rounds negative values
    differently, but no valid resource amount is negative.
    """
    return _ceil_away(parse_quantity(quantity) if isinstance(quantity, str) else quantity)


def milli_value(quantity: Fraction | str) -> int:
    """``Quantity.MilliValue``: thousandths, rounded away from zero (``"0.1m"`` → 1); cpu uses this."""
    value = parse_quantity(quantity) if isinstance(quantity, str) else quantity
    return _ceil_away(value * 1000)
