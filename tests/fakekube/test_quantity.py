"""fakekube.machinery.quantity: resource.ParseQuantity and canonical form (spec §4.4)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.machinery import quantity as q

FAST = settings(max_examples=40, deadline=None)  # keep the whole suite well under 5 s

REGEX_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_MSG = "unable to parse quantity's suffix"
F = Fraction


@pytest.mark.parametrize(("text", "value", "fmt"), [
    ("0", F(0), "DecimalSI"),
    ("1", F(1), "DecimalSI"),
    ("100m", F(1, 10), "DecimalSI"),
    ("1.5", F(3, 2), "DecimalSI"),
    (".5", F(1, 2), "DecimalSI"),
    ("1.", F(1), "DecimalSI"),
    ("-2", F(-2), "DecimalSI"),
    ("+2", F(2), "DecimalSI"),
    ("007", F(7), "DecimalSI"),
    ("5n", F(5, 10**9), "DecimalSI"),
    ("5u", F(5, 10**6), "DecimalSI"),
    ("2k", F(2000), "DecimalSI"),
    ("2M", F(2 * 10**6), "DecimalSI"),
    ("2G", F(2 * 10**9), "DecimalSI"),
    ("2T", F(2 * 10**12), "DecimalSI"),
    ("2P", F(2 * 10**15), "DecimalSI"),
    ("2E", F(2 * 10**18), "DecimalSI"),
    ("1.G", F(10**9), "DecimalSI"),
    ("1Ki", F(1024), "BinarySI"),
    ("500Mi", F(500 * 2**20), "BinarySI"),
    ("2Gi", F(2 * 2**30), "BinarySI"),
    ("1.5Gi", F(3 * 2**29), "BinarySI"),
    ("1Ti", F(2**40), "BinarySI"),
    ("1Pi", F(2**50), "BinarySI"),
    ("1Ei", F(2**60), "BinarySI"),
    ("8Ei", F(2**63 - 1), "BinarySI"),
    ("-16Ei", F(-(2**63 - 1)), "BinarySI"),
    ("1e3", F(1000), "DecimalExponent"),
    ("1E3", F(1000), "DecimalExponent"),
    ("1e+3", F(1000), "DecimalExponent"),
    ("25e-2", F(1, 4), "DecimalExponent"),
    ("0.1n", F(1, 10**9), "DecimalSI"),
    ("-0.1n", F(-1, 10**9), "DecimalSI"),
    ("1.0000000001", F(1000000001, 10**9), "DecimalSI"),
    ("1e-10", F(1, 10**9), "DecimalExponent"),
    ("123456789012345678901234", F(123456789012345678901234), "DecimalSI"),
    (".", F(0), "DecimalSI"),
    ("+", F(0), "DecimalSI"),
    ("m", F(0), "DecimalSI"),
    ("Ki", F(0), "BinarySI"),
], ids=lambda x: x if isinstance(x, str) else None)
def test_parse(text: str, value: Fraction, fmt: str) -> None:
    parsed = q.Quantity.parse(text)
    assert parsed.value == value
    assert parsed.format == fmt
    assert q.parse_quantity(text) == value


@pytest.mark.parametrize(("text", "message"), [
    ("", REGEX_MSG),
    ("abc", REGEX_MSG),
    ("1.2.3", REGEX_MSG),
    ("1 ", REGEX_MSG),
    (" 1", REGEX_MSG),
    ("1x", REGEX_MSG),
    ("1e3m", REGEX_MSG),
    ("--1", SUFFIX_MSG),
    ("1e", SUFFIX_MSG),
    ("1e-", SUFFIX_MSG),
    ("1GG", SUFFIX_MSG),
    ("1KI", REGEX_MSG),
    ("1ki", SUFFIX_MSG),
    ("1m-3", SUFFIX_MSG),
    ("1e99999999999999999999", SUFFIX_MSG),
], ids=lambda x: x if x not in (REGEX_MSG, SUFFIX_MSG) else None)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        q.parse_quantity(text)
    assert str(info.value) == message


def test_huge_exponent_is_refused_not_computed() -> None:
    with pytest.raises(ValueError, match="exponent out of the supported range"):
        q.parse_quantity("1e100000")


def test_int32_exponent_wraps_like_go() -> None:
    assert q.parse_quantity("1e4294967296") == 1  # int32(4294967296) == 0


@pytest.mark.parametrize(("text", "canonical"), [
    ("0", "0"),
    ("1", "1"),
    ("100m", "100m"),
    ("1000m", "1"),
    ("1500m", "1500m"),
    ("1.5", "1500m"),
    ("0.5", "500m"),
    ("12000", "12k"),
    ("1500", "1500"),
    ("1.5k", "1500"),
    ("+1", "+1"),
    ("01", "01"),
    ("1.G", "1.G"),
    ("1Ki", "1Ki"),
    ("1024Ki", "1Mi"),
    ("1025Ki", "1025Ki"),
    ("8Ki", "8Ki"),
    ("1.5Gi", "1536Mi"),
    ("0.5Ki", "512"),
    ("1e3", "1e3"),
    ("1.5e3", "1500"),
    ("1e-3", "1e-3"),
    ("2e4", "20e3"),
    ("0.1n", "1n"),
    ("-0", "0"),
    ("-1.5", "-1500m"),
    ("8Ei", "9223372036854775807"),
    ("1000E", "1"),
], ids=lambda x: x)
def test_canonicalize(text: str, canonical: str) -> None:
    assert q.canonicalize_quantity(text) == canonical


@pytest.mark.parametrize(("value", "fmt", "text"), [
    (F(0), "DecimalSI", "0"),
    (F(3, 2), "DecimalSI", "1500m"),
    (F(10**9), "DecimalSI", "1G"),
    (F(1, 3), "DecimalSI", "333333334n"),
    (F(2048), "BinarySI", "2Ki"),
    (F(1023), "BinarySI", "1023"),
    (F(-2048), "BinarySI", "-2Ki"),
    (F(3, 2) * 1024, "BinarySI", "1536"),
    (F(2049, 2), "BinarySI", "1024500m"),
    (F(1000), "DecimalExponent", "1e3"),
    (F(1, 100), "DecimalExponent", "10e-3"),
    (7, "DecimalSI", "7"),
], ids=lambda x: str(x))
def test_format(value: Fraction | int, fmt: q.QuantityFormat, text: str) -> None:
    assert q.format_quantity(value, fmt) == text


@pytest.mark.parametrize(("text", "value", "milli"), [
    ("1", 1, 1000),
    ("100m", 1, 100),
    ("1500m", 2, 1500),
    ("0.1m", 1, 1),
    ("2Gi", 2**31, 2**31 * 1000),
    ("-1500m", -2, -1500),
], ids=lambda x: str(x))
def test_value_and_milli_value(text: str, value: int, milli: int) -> None:
    assert q.value_of(text) == value
    assert q.milli_value(text) == milli
    assert q.milli_value(q.parse_quantity(text)) == milli


def test_scheduler_comparison_is_exact() -> None:
    requests = ["100m", "250m", "0.65"]
    assert sum(q.parse_quantity(r) for r in requests) == q.parse_quantity("1")
    assert q.parse_quantity("1Gi") > q.parse_quantity("1G")


# --------------------------------------------------------------------------- properties

nano_values = st.integers(min_value=-(10**20), max_value=10**20).map(lambda n: Fraction(n, 10**9))
formats = st.sampled_from(["DecimalSI", "BinarySI", "DecimalExponent"])


@FAST
@given(nano_values, formats)
def test_format_parse_round_trip(value: Fraction, fmt: q.QuantityFormat) -> None:
    text = q.format_quantity(value, fmt)
    assert q.parse_quantity(text) == value
    canonical = q.canonicalize_quantity(text)
    assert q.parse_quantity(canonical) == value and q.canonicalize_quantity(canonical) == canonical
    if fmt != "BinarySI":
        assert canonical == text
    # A BinarySI value that is no whole number of Ki prints bare ("125000"), and a bare number
    # parses as DecimalSI, which prints "125k": Go's ParseQuantity and String do the same.


def test_a_bare_binary_si_number_reads_back_as_decimal_si() -> None:
    assert q.format_quantity(Fraction(125000), "BinarySI") == "125000"
    assert q.canonicalize_quantity("125000") == "125k"
    assert q.format_quantity(Fraction(125 * 1024), "BinarySI") == "125Ki"


@FAST
@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=999),
       st.sampled_from(["", "n", "u", "m", "k", "M", "G", "Ki", "Mi", "Gi", "e2", "e-4", "E1"]))
def test_parse_matches_decimal_arithmetic(whole: int, frac: int, suffix: str) -> None:
    text = f"{whole}.{frac:03d}{suffix}"
    multiplier = {"": 1, "n": F(1, 10**9), "u": F(1, 10**6), "m": F(1, 1000), "k": 1000, "M": 10**6,
                  "G": 10**9, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "e2": 100, "e-4": F(1, 10**4),
                  "E1": 10}[suffix]
    exact = (whole + F(frac, 1000)) * multiplier
    nanos = exact * 10**9
    expected = Fraction(-(-nanos.numerator // nanos.denominator), 10**9)  # round up to 1n
    assert q.parse_quantity(text) == expected
    assert q.parse_quantity(q.canonicalize_quantity(text)) == expected
