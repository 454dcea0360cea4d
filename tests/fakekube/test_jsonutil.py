"""jsonutil: deep_copy (an independent copy of a wire-form value), json_equal, compact_json."""

from __future__ import annotations

import enum
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube._core.jsonutil import compact_json, deep_copy, json_equal

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=30)


def _ids(value: Any) -> set[int]:
    if isinstance(value, dict):
        return {id(value)}.union(*(_ids(v) for v in value.values()))
    if isinstance(value, list):
        return {id(value)}.union(*(_ids(v) for v in value))
    return set()


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_the_copy_is_equal_with_the_same_types_and_shares_no_container(value: Any) -> None:
    copied = deep_copy(value)
    assert copied == value and repr(copied) == repr(value)  # repr: True stays True, 1.0 stays 1.0
    assert not (_ids(copied) & _ids(value))


def test_a_subtree_shared_twice_becomes_two_independent_copies() -> None:
    shared = {"x": [1]}
    copied = deep_copy({"a": shared, "b": shared})
    copied["a"]["x"].append(2)
    assert copied["b"] == {"x": [1]} and shared == {"x": [1]}


def test_values_marshal_refuses_are_copied_by_the_walk() -> None:
    class Color(enum.StrEnum):
        RED = "red"

    class Meta(dict):  # type: ignore[type-arg]
        pass

    value = {"color": Color.RED, "meta": Meta(a=[1])}
    copied = deep_copy(value)
    assert copied == value and copied["color"] is Color.RED
    assert type(copied["meta"]) is dict and copied["meta"]["a"] is not value["meta"]["a"]


def test_json_equal_compares_numbers_by_value_but_never_bools_with_numbers() -> None:
    assert json_equal({"a": [1, {"b": 2.0}]}, {"a": [1.0, {"b": 2}]})
    assert not json_equal(True, 1) and not json_equal(0, False) and json_equal(False, False)
    assert not json_equal({"a": 1}, {"a": 1, "b": None}) and not json_equal([1], [1, 1])
    assert not json_equal("1", 1) and not json_equal(None, {}) and json_equal(None, None)


def test_compact_json_has_no_spaces_and_keeps_non_ascii() -> None:
    assert compact_json({"a": [1, "é"], "b": None}) == '{"a":[1,"é"],"b":null}'
