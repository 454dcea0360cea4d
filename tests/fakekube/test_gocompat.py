"""fakekube._core.gocompat: Go's %q, %v, %s, strconv, sort.SliceStable and json.Unmarshal errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube import errors
from fakekube._core.gocompat import (
    GoFloat,
    GoJSONError,
    go_atoi,
    go_duration,
    go_float,
    go_json_kind,
    go_json_loads,
    go_quote,
    go_quote_char,
    go_s,
    go_stable_sort,
    go_type,
    go_v,
    parse_int64,
)


def test_go_quote_escapes_like_strconv_quote() -> None:
    assert go_quote('a"b\\c\n\t\r\x01\x7f é') == '"a\\"b\\\\c\\n\\t\\r\\x01\\x7f é"'
    assert errors.go_quote is go_quote  # the public name in fakekube.errors is this one


@pytest.mark.parametrize(("ch", "quoted"), [("'", "'\\''"), ('"', "'\"'"), ("x", "'x'"), ("\n", "'\\n'"),
                                            ("é", "'Ã'")])  # é: only its first UTF-8 byte, 0xC3
def test_go_quote_char_quotes_the_first_byte(ch: str, quoted: str) -> None:
    assert go_quote_char(ch) == quoted


@pytest.mark.parametrize(("value", "text"), [
    (0.0, "0"), (-0.0, "-0"), (1.5, "1.5"), (100.0, "100"), (123456.0, "123456"), (1e6, "1e+06"),
    (1234567.25, "1.23456725e+06"), (0.0001, "0.0001"), (0.00001, "1e-05"), (-2.25e-7, "-2.25e-07"),
    (1e21, "1e+21"), (0.1 + 0.2, "0.30000000000000004"), (float("nan"), "NaN"), (float("inf"), "+Inf"),
    (float("-inf"), "-Inf"),
])
def test_go_float_is_fmt_v(value: float, text: str) -> None:
    assert go_float(value) == text
    assert str(GoFloat(value)) == repr(GoFloat(value)) == text


@pytest.mark.parametrize(("ns", "text"), [
    (0, "0s"), (10 * 10**9, "10s"), (80 * 10**9, "1m20s"), (300 * 10**9, "5m0s"), (3600 * 10**9, "1h0m0s"),
    (90061 * 10**9, "25h1m1s"), (1_500_000_000, "1.5s"), (61_000_000_001, "1m1.000000001s"),
    (1_500_000, "1.5ms"), (1_000_000, "1ms"), (1_500, "1.5µs"), (999, "999ns"), (-2_500_000_000, "-2.5s"),
    (-(1 << 63), "-2562047h47m16.854775808s"),
])
def test_go_duration_is_duration_string(ns: int, text: str) -> None:
    assert go_duration(ns) == text


def test_go_v_s_and_type_of_decoded_json() -> None:
    value = {"b": [1, 2.5, None, "x"], "a": True}
    assert go_v(value) == "map[a:true b:[1 2.5 <nil> x]]"  # fmt prints map keys sorted
    assert go_s(value) == go_v(value)
    assert [go_s(v) for v in ("x", 3, 1e6, None, False)] == [
        "x", "%!s(int64=3)", "%!s(float64=1e+06)", "%!s(<nil>)", "%!s(bool=false)"]
    assert [go_type(v) for v in ({}, [], "", True, 1, 1.0, None)] == [
        "map[string]interface {}", "[]interface {}", "string", "bool", "int64", "float64", "nil"]
    assert [go_json_kind(v) for v in ({}, [], "", True, 1, 1.0, None)] == [
        "object", "array", "string", "bool", "number", "number", "null"]


def test_go_atoi_and_parse_int64() -> None:
    assert [go_atoi(t) for t in ("12", "+7", "-0", "-9223372036854775808")] == [12, 7, 0, -(1 << 63)]
    with pytest.raises(ValueError, match=r'^strconv.Atoi: parsing " 1": invalid syntax$'):
        go_atoi(" 1")
    with pytest.raises(ValueError, match=r'^strconv.Atoi: parsing "9223372036854775808": value out of range$'):
        go_atoi("9223372036854775808")
    assert [parse_int64(t) for t in ("42", "-3", "1.0", "", "٣", "9223372036854775808")] == [
        42, -3, None, None, None, None]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 8), max_size=90))
def test_go_stable_sort_is_stable_for_consistent_orders(keys: list[int]) -> None:
    items = list(enumerate(keys))
    result = go_stable_sort(items, lambda x, y: x[1] < y[1])
    assert result == sorted(items, key=lambda t: t[1])


def test_go_stable_sort_follows_go_steps_for_a_comparator_that_always_says_less() -> None:
    """Upstream's ``less`` answers true for unknown items; Go's insertion sort then reverses a short run."""
    items = [0, 1, 2, 3, 4]
    assert go_stable_sort(items, lambda x, y: True) == [4, 3, 2, 1, 0]
    assert items == [0, 1, 2, 3, 4]  # the input is not sorted in place


@pytest.mark.parametrize(("body", "message"), [
    ("[1,]", "invalid character ']' looking for beginning of value"),
    ("NaN", "invalid character 'N' looking for beginning of value"),
    ("-Infinity", "invalid character 'I' in numeric literal"),
    ("{", "unexpected end of JSON input"),
    ('{"a" 1}', "invalid character '1' after object key"),
    ('{"a": 1 "b": 2}', "invalid character '\"' after object key:value pair"),
    ("[1 2]", "invalid character '2' after array element"),
    ("trux", "invalid character 'x' in literal true (expecting 'e')"),
    ("{} x", "invalid character 'x' after top-level value"),
])
def test_go_json_loads_refuses_with_go_scanner_messages(body: str, message: str) -> None:
    with pytest.raises(GoJSONError) as info:
        go_json_loads(body)
    assert str(info.value) == message


def test_go_json_loads_decodes_bytes_and_text() -> None:
    expected: Any = {"a": [1, 2.5, None, True]}
    assert go_json_loads(b'{"a": [1, 2.5, null, true]}') == expected
    assert go_json_loads('{"a": [1, 2.5, null, true]}') == expected
