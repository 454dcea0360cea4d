"""The JobSet webhook server's answers: a mutation travels as a JSON patch that rebuilds the
adapter's object exactly."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fakekube.machinery.patch.jsonpatch import json_patch
from jobset_ref.webhook_server import json_patch_between

keys = st.sampled_from(["a", "b", "c/d", "e~f", ""])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=3))
documents = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                          st.dictionaries(keys, inner, max_size=4)), max_leaves=12)
objects = st.dictionaries(keys, documents, max_size=5)


@given(objects, objects)
def test_the_patch_between_two_objects_turns_the_first_into_the_second(old: dict[str, Any],
                                                                       new: dict[str, Any]) -> None:
    assert json_patch(old, json_patch_between(old, new)) == new


def test_an_unchanged_object_needs_no_patch_and_a_changed_leaf_is_one_operation() -> None:
    pod = {"metadata": {"labels": {"a": "1"}}, "spec": {"priority": 0}}
    assert json_patch_between(pod, pod) == []
    assert json_patch_between(pod, {**pod, "spec": {"priority": 0, "nodeSelector": {"zone": "z"}}}) == [
        {"op": "add", "path": "/spec/nodeSelector", "value": {"zone": "z"}}]
    assert json_patch_between({"x": 1}, {"x": True}) == [{"op": "replace", "path": "/x", "value": True}]
