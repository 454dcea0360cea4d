"""wire.check_json: what an in-process caller passes must be a JSON value a request could carry."""

from __future__ import annotations

import enum
import math
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.machinery import wire


class Colour(enum.StrEnum):
    RED = "red"


_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=3),
                    st.just(Colour.RED), st.binary(max_size=2), st.just(math.inf))
_VALUES = st.recursive(_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.tuples(inner), st.frozensets(st.integers(), max_size=2),
    st.dictionaries(st.one_of(st.text(max_size=3), st.integers(0, 2), st.just(Colour.RED)), inner, max_size=3)),
    max_leaves=12)


@given(_VALUES)
@settings(max_examples=400, deadline=None)
def test_the_quick_walk_and_the_worded_walk_agree(value: Any) -> None:
    """Most bodies take a walk that keeps no paths; anything it doubts takes the walk that says
    where the problem is. Both accept exactly the same values."""
    try:
        wire._walk(value)
        slow_ok = True
    except wire.NotJson:
        slow_ok = False
    try:
        wire.check_json(value)
        ok = True
    except wire.NotJson:
        ok = False
    assert ok == slow_ok
    if wire.is_json(value, wire.MAX_DEPTH):
        assert slow_ok


@pytest.mark.parametrize(("value", "message"), [
    ({"a": [1, {"b": math.nan}]}, "a[1].b is nan, which is not a JSON number"),
    ({"a": {1: "x"}}, "a has a key that is not a string: 1"),
    ({"a": {"b"}}, "a holds a set ({'b'}), which is not a JSON value; quote it to make it a string"),
])
def test_a_value_that_is_not_json_is_named_by_its_path(value: Any, message: str) -> None:
    with pytest.raises(wire.NotJson, match=f"^{re.escape(message)}$"):
        wire.check_json(value)


def test_nesting_deeper_than_the_limit_is_refused_at_the_limit() -> None:
    value: Any = "leaf"
    for _ in range(wire.MAX_DEPTH):
        value = [value]
    wire.check_json(value)
    with pytest.raises(wire.NotJson, match=f"nested more than {wire.MAX_DEPTH} levels deep"):
        wire.check_json([value])
