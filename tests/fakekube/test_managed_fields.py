"""Field-set algebra and server-side apply as pure functions (fakekube.machinery.field_sets,
typed_walkers and managed_fields).

Expected values follow structured-merge-diff's rules: FieldsV1 key order (fields, keys, values,
indexes), ``.`` for a node that is itself a member, what ToFieldSet/Compare record, the merge
order of associative lists and the prune rule of apply.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakekube.machinery import field_sets as fsets
from fakekube.machinery import managed_fields as mf
from fakekube.machinery import typed_walkers as walk
from fakekube.machinery.field_types import LOOSE, FieldType, from_merge_schema, from_openapi
from fakekube.machinery.patch import POD_SCHEMA

WIDGET = from_openapi({"type": "object", "properties": {
    "spec": {"type": "object", "properties": {
        "replicas": {"type": "integer"},
        "ports": {"type": "array", "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name", "protocol"],
                  "items": {"type": "object", "properties": {
                      "name": {"type": "string"}, "protocol": {"type": "string"}, "port": {"type": "integer"}}}},
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "args": {"type": "array", "items": {"type": "string"}},
        "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                     "additionalProperties": {"type": "string"}},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        "template": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                     "properties": {"name": {"type": "string"}}},
        "nested": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
    }},
    "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
}})


def F(*names: str) -> mf.Path:
    """A path of field names."""
    return tuple(("f", n) for n in names)


def K(**fields: Any) -> tuple[str, Any]:
    return ("k", tuple(sorted(fields.items())))


def V(value: Any) -> tuple[str, Any]:
    return ("v", value)


def strings(paths: set[mf.Path]) -> list[str]:
    return sorted(fsets.path_string(p) for p in paths)


# --------------------------------------------------------------------------- FieldsV1


FIELDS_V1 = [
    # members only
    ('{"f:data":{"f:a":{},"f:b":{}}}', {F("data", "a"), F("data", "b")}),
    # a member with children carries "."; fields sort before keys, keys before values, values before indexes
    ('{"f:spec":{"f:ports":{".":{},"k:{\\"name\\":\\"http\\",\\"protocol\\":\\"TCP\\"}":{".":{},"f:port":{}}}}}',
     {F("spec", "ports"), (*F("spec", "ports"), K(name="http", protocol="TCP")),
      (*F("spec", "ports"), K(name="http", protocol="TCP"), ("f", "port"))}),
    ('{"f:x":{"f:z":{},"k:{\\"a\\":1}":{},"v:2":{},"v:\\"s\\"":{},"i:0":{}}}',
     {(*F("x"), e) for e in (("f", "z"), K(a=1), V("s"), V(2), ("i", 0))}),
    # numbers before strings before booleans among values; indexes numerically
    ('{"f:l":{"v:1":{},"v:10":{},"v:\\"a\\"":{},"v:false":{},"v:true":{},"i:2":{},"i:10":{}}}',
     {(*F("l"), e) for e in (V(10), V(1), V("a"), V(("b", True)), V(("b", False)), ("i", 10), ("i", 2))}),
    # HTML characters are escaped inside keys as Go's encoder does (the backslash then escaped once more)
    ('{"f:m":{"k:{\\"name\\":\\"a\\\\u003cb\\"}":{}}}', {(*F("m"), K(name="a<b"))}),
]


@pytest.mark.parametrize(("text", "paths"), FIELDS_V1)
def test_fields_v1_round_trip(text: str, paths: set[mf.Path]) -> None:
    assert fsets.decode_fields(json.loads(text)) == paths
    assert json.dumps(fsets.encode_fields(paths), separators=(",", ":"), ensure_ascii=False) == text


def test_fields_v1_decoding_rules() -> None:
    # "{}" is a member, "." makes a node with children a member too, a node of unknown type is skipped.
    assert fsets.decode_fields({"f:a": {".": {}, "f:b": {}}, "x:y": {}, "f:c": {"x:d": {}}}) == {
        F("a"), F("a", "b"), F("c")}
    # a key read back as a float is the same element as the integer in the object
    assert fsets.decode_fields({"k:{\"port\":80.0}": {}}) == {(("k", (("port", 80),)),)}
    with pytest.raises(mf.ManagedFieldsError, match="missing colon: fa"):
        fsets.decode_fields({"fa": {}})


@pytest.mark.parametrize(("path", "text"), [
    (F("spec", "replicas"), ".spec.replicas"),
    ((*F("spec", "ports"), K(protocol="TCP", name="http"), ("f", "port")), '.spec.ports[name="http",protocol="TCP"].port'),
    ((*F("metadata", "finalizers"), V("a")), '.metadata.finalizers[="a"]'),
    ((*F("spec", "args"), ("i", 3)), ".spec.args[3]"),
    ((*F("spec", "ports"), K(port=80)), ".spec.ports[port=80]"),
])
def test_path_strings(path: mf.Path, text: str) -> None:
    assert fsets.path_string(path) == text


def test_sorted_paths_visit_members_before_children_at_each_level() -> None:
    paths = {F("spec", "template", "x"), F("spec", "replicas"), F("metadata", "labels", "a"), F("kind")}
    assert [fsets.path_string(p) for p in fsets.sorted_paths(paths)] == [
        ".kind", ".metadata.labels.a", ".spec.replicas", ".spec.template.x"]


# --------------------------------------------------------------------------- typed walkers


@pytest.mark.parametrize(("spec", "owned"), [
    ({"replicas": 1}, [".spec.replicas"]),
    ({"ports": [{"name": "a", "protocol": "TCP", "port": 1}]},
     ['.spec.ports[name="a",protocol="TCP"]', '.spec.ports[name="a",protocol="TCP"].name',
      '.spec.ports[name="a",protocol="TCP"].port', '.spec.ports[name="a",protocol="TCP"].protocol']),
    ({"tags": ["x", "y"]}, ['.spec.tags[="x"]', '.spec.tags[="y"]']),
    ({"args": ["x", "y"]}, [".spec.args"]),                        # atomic list: one leaf
    ({"selector": {"a": "b"}}, [".spec.selector"]),                # atomic map: one leaf
    ({"env": {"A": "1"}}, [".spec.env.A"]),                         # granular map: each key
    ({"nested": {}}, [".spec.nested"]),                             # an empty map is owned as such
    ({"nested": None}, [".spec.nested"]),                           # so is null
    ({"template": {"name": "n", "extra": {"deep": 1}}},            # preserved unknown keys are members
     [".spec.template.extra", ".spec.template.extra.deep", ".spec.template.name"]),
    ({"tags": ["x", "x"]}, ['.spec.tags[="x"]']),                   # a duplicate is owned once, as a whole
])
def test_to_field_set(spec: dict[str, Any], owned: list[str]) -> None:
    assert strings(walk.to_field_set({"spec": spec}, WIDGET)) == owned


def test_compare_records_added_modified_removed_with_new_maps_and_items_as_members() -> None:
    old = {"spec": {"replicas": 1, "tags": ["a", "b"], "nested": {"a": "x"}}}
    new = {"spec": {"replicas": 2, "tags": ["a", "c"], "env": {"K": "v"}}}
    c = walk.compare(old, new, WIDGET)
    assert strings(c.modified) == [".spec.replicas"]
    assert strings(c.added) == [".spec.env", ".spec.env.K", '.spec.tags[="c"]']
    assert strings(c.removed) == [".spec.nested", ".spec.nested.a", '.spec.tags[="b"]']
    assert walk.compare(old, old, WIDGET) == walk.Comparison()


@pytest.mark.parametrize(("live", "applied", "merged"), [
    # shared items take the applied order; live-only items stay next to their neighbours
    (["a", "b", "c", "d"], ["a", "a2", "c", "c2"], ["a", "b", "a2", "c", "d", "c2"]),
    (["a", "b"], ["b", "a"], ["b", "a"]),
    ([], ["x"], ["x"]),
])
def test_merge_orders_set_items_as_upstream(live: list[str], applied: list[str], merged: list[str]) -> None:
    assert walk.merge({"spec": {"tags": live}}, {"spec": {"tags": applied}}, WIDGET) == {"spec": {"tags": merged}}


def test_merge_merges_keyed_items_field_by_field_and_replaces_atomic_values() -> None:
    live = {"spec": {"ports": [{"name": "a", "protocol": "TCP", "port": 1}], "args": ["x"], "selector": {"k": "v"}}}
    applied = {"spec": {"ports": [{"name": "a", "protocol": "TCP", "port": 2}], "args": ["y"], "selector": {"j": "w"}}}
    assert walk.merge(live, applied, WIDGET) == {"spec": {
        "ports": [{"name": "a", "protocol": "TCP", "port": 2}], "args": ["y"], "selector": {"j": "w"}}}


def test_remove_items_leaves_a_map_it_empties_as_null() -> None:
    value = {"spec": {"nested": {"a": "1"}, "tags": ["x", "y"], "replicas": 1}}
    assert walk.remove_items(value, {F("spec", "nested", "a"), (*F("spec", "tags"), V("x"))}, WIDGET) == {
        "spec": {"nested": None, "tags": ["y"], "replicas": 1}}
    assert value["spec"]["tags"] == ["x", "y"]  # inputs are not mutated


def test_ensure_named_fields_adds_declared_parents_only() -> None:
    paths = {F("spec", "nested", "a"), F("spec", "env", "K"), (*F("spec", "tags"), V("x"))}
    assert strings(walk.ensure_named_fields(paths, WIDGET)) == [
        ".spec", ".spec.env", ".spec.env.K", ".spec.nested", ".spec.nested.a", ".spec.tags", '.spec.tags[="x"]']


@pytest.mark.parametrize(("value", "errors"), [
    ({"spec": {"replicaz": 1, "nested": {"c": 1}}}, [".spec.replicaz: field not declared in schema"]),
    ({"spec": {"nested": {"c": 1}}}, [".spec.nested.c: field not declared in schema"]),
    ({"spec": {"ports": [{"name": "a", "protocol": "TCP", "bogus": 1}]}},
     ['.spec.ports[name="a",protocol="TCP"].bogus: field not declared in schema']),
    ({"spec": {"template": {"anything": {"goes": 1}}}}, []),
    ({"spec": {"ports": [{"port": 1}]}},
     ['.spec.ports: element 0: associative list with keys has an element that omits all key fields '
      '["name" "protocol"] (and doesn\'t have default values for any key fields)']),
    ({"spec": {"tags": ["a", "a"]}}, ['.spec.tags: duplicate entries for key [="a"]']),
    ({"metadata": {"name": "x", "labelz": {}}}, [".metadata.labelz: field not declared in schema"]),
])
def test_typed_errors(value: dict[str, Any], errors: list[str]) -> None:
    assert walk.typed_errors(value, WIDGET) == errors


def test_built_in_kinds_without_a_schema_key_lists_by_their_merge_keys_and_declare_everything() -> None:
    pod = from_merge_schema(POD_SCHEMA)
    spec = {"spec": {"containers": [{"name": "c", "image": "i", "anything": {"x": 1}}], "tolerations": [{"k": 1}]}}
    assert walk.typed_errors(spec, pod) == []
    assert strings(walk.to_field_set(spec, pod)) == [
        '.spec.containers[name="c"]', '.spec.containers[name="c"].anything.x', '.spec.containers[name="c"].image',
        '.spec.containers[name="c"].name', ".spec.tolerations"]
    assert walk.to_field_set({"a": {"b": 1}}, LOOSE) == {F("a", "b")}


# --------------------------------------------------------------------------- managers

ALICE = mf.Manager.applier("alice")
BOB = mf.Manager.applier("bob")
CTRL = mf.Manager.updater("ctrl", "example.com/v1")


def owned(managed: mf.Managed) -> dict[str, list[str]]:
    return {f"{who.manager}/{who.operation}": strings(set(own.fields)) for who, own in managed.items()}


def apply(live: Any, config: dict[str, Any], managed: mf.Managed, who: mf.Manager = ALICE,
          force: bool = False) -> tuple[Any, mf.Managed]:
    return mf.apply(live, config, managed, who, "example.com/v1", WIDGET, force=force)


def test_apply_owns_what_it_sets_and_a_repeat_changes_nothing() -> None:
    obj, managed = apply({}, {"spec": {"replicas": 1, "tags": ["a"]}}, {})
    assert obj == {"spec": {"replicas": 1, "tags": ["a"]}}
    assert owned(managed) == {"alice/Apply": [".spec.replicas", '.spec.tags[="a"]']}
    again, managed2 = apply(obj, {"spec": {"replicas": 1, "tags": ["a"]}}, managed)
    assert again is None and managed2 == managed


def test_apply_removes_fields_the_applier_dropped_unless_someone_else_owns_them() -> None:
    obj, managed = apply({}, {"spec": {"replicas": 1, "tags": ["a", "b"], "nested": {"a": "x", "b": "y"}}}, {})
    same, managed = apply(obj, {"spec": {"replicas": 1, "tags": ["b"], "nested": {"b": "y"}}}, managed, who=BOB)
    assert same is None
    obj, managed = apply(obj, {"spec": {"replicas": 1}}, managed)
    # tags[a] and nested.a were alice's alone: gone; tags[b] and nested.b stay with bob
    assert obj == {"spec": {"replicas": 1, "tags": ["b"], "nested": {"b": "y"}}}
    assert owned(managed) == {"alice/Apply": [".spec.replicas"],
                              "bob/Apply": [".spec.nested.b", ".spec.replicas", '.spec.tags[="b"]']}
    obj, managed = apply(obj, {}, managed)
    assert obj is None  # bob still owns replicas: nothing is removed


def test_applying_a_value_another_manager_owns_conflicts_and_force_moves_ownership() -> None:
    obj, managed = apply({}, {"spec": {"replicas": 1, "nested": {"a": "x"}}}, {})
    managed = mf.update(obj, {"spec": {"replicas": 2, "nested": {"a": "x"}}}, managed, CTRL, WIDGET, now="T")
    live = {"spec": {"replicas": 2, "nested": {"a": "x"}}}
    assert owned(managed) == {"alice/Apply": [".spec.nested.a"], "ctrl/Update": [".spec.replicas"]}
    with pytest.raises(mf.ApplyConflicts) as err:
        apply(live, {"spec": {"replicas": 3, "nested": {"a": "y"}}}, managed, who=BOB)
    assert err.value.message == ('Apply failed with 2 conflicts: conflicts with "alice":\n- .spec.nested.a\n'
                                 'conflicts with "ctrl" using example.com/v1:\n- .spec.replicas')
    assert err.value.causes()[1] == {"reason": "FieldManagerConflict", "message": 'conflict with "ctrl" using '
                                     "example.com/v1", "field": ".spec.replicas"}
    obj, managed = apply(live, {"spec": {"replicas": 3}}, managed, who=BOB, force=True)
    assert obj == {"spec": {"replicas": 3, "nested": {"a": "x"}}}
    assert owned(managed) == {"alice/Apply": [".spec.nested.a"], "bob/Apply": [".spec.replicas"]}


def test_applying_the_same_value_shares_ownership() -> None:
    obj, managed = apply({}, {"spec": {"replicas": 1}}, {})
    again, managed = apply(obj, {"spec": {"replicas": 1}}, managed, who=BOB)
    assert again is None
    assert owned(managed) == {"alice/Apply": [".spec.replicas"], "bob/Apply": [".spec.replicas"]}
    with pytest.raises(mf.ApplyConflicts, match=r'^Apply failed with 1 conflict: conflict with "bob": \.spec\.replicas$'):
        apply(obj, {"spec": {"replicas": 2}}, managed)


def test_update_takes_what_it_changes_and_everyone_loses_what_it_removes() -> None:
    obj, managed = apply({}, {"spec": {"replicas": 1, "tags": ["a", "b"]}}, {})
    managed = mf.update(obj, {"spec": {"replicas": 1, "tags": ["a"], "env": {"K": "v"}}}, managed, CTRL, WIDGET,
                        now="2030-01-01T00:00:05Z")
    assert owned(managed) == {"alice/Apply": [".spec.replicas", '.spec.tags[="a"]'],
                              "ctrl/Update": [".spec.env", ".spec.env.K"]}
    assert managed[CTRL].time == "2030-01-01T00:00:05Z"
    # a write that changes nothing leaves every entry (and its time) alone
    assert mf.update(obj, obj, managed, CTRL, WIDGET, now="later") == managed


def test_reset_fields_are_never_owned() -> None:
    managed = mf.update({}, {"spec": {"replicas": 1}, "status": {"phase": "x"}}, {}, CTRL, WIDGET, now="T",
                        reset=frozenset({F("status")}))
    assert owned(managed) == {"ctrl/Update": [".spec", ".spec.replicas"]}


def test_encoded_entries_order_and_shape() -> None:
    managed = {
        mf.Manager.updater("z", "v1"): mf.Ownership(frozenset({F("a")}), "v1", "2030-01-01T00:00:01Z"),
        mf.Manager.updater("a", "v1", "status"): mf.Ownership(frozenset({F("b")}), "v1", "2030-01-01T00:00:02Z"),
        mf.Manager.applier("m"): mf.Ownership(frozenset({F("c")}), "v1", None),
    }
    entries = mf.encode_managed_fields(managed)
    assert entries == [
        {"manager": "m", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:c": {}}},
        {"manager": "z", "operation": "Update", "apiVersion": "v1", "time": "2030-01-01T00:00:01Z",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:a": {}}},
        {"manager": "a", "operation": "Update", "apiVersion": "v1", "time": "2030-01-01T00:00:02Z",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:b": {}}, "subresource": "status"},
    ]
    assert mf.decode_managed_fields(entries) == managed
    with pytest.raises(mf.ManagedFieldsError, match=r"^operation must be `Apply` or `Update`$"):
        mf.decode_managed_fields([{"manager": "x", "operation": "Patch", "apiVersion": "v1", "fieldsType": "FieldsV1"}])


def test_more_than_ten_update_managers_fold_the_oldest_into_ancient_changes() -> None:
    managed: mf.Managed = {}
    for i in range(12):
        managed = mf.update({"spec": {"env": {f"K{j}": "v" for j in range(i)}}},
                            {"spec": {"env": {f"K{j}": "v" for j in range(i + 1)}}}, managed,
                            mf.Manager.updater(f"m{i:02}", "example.com/v1"), WIDGET, now=f"2030-01-01T00:00:{i:02}Z")
    names = sorted(who.manager for who in managed)
    assert names == ["ancient-changes", *(f"m{i:02}" for i in range(3, 12))]
    ancient = managed[mf.Manager.updater("ancient-changes", "example.com/v1")]
    assert strings(set(ancient.fields)) == [".spec.env.K0", ".spec.env.K1", ".spec.env.K2"]
    assert ancient.time == "2030-01-01T00:00:02Z"


@pytest.mark.parametrize(("user_agent", "manager"), [
    ("kubectl/v1.32.4 (linux/amd64) kubernetes/abc", "kubectl"),
    ("OpenAPI-Generator/37.0.2/python", "OpenAPI-Generator"),
    ("", "unknown"),
    (None, "unknown"),
    ("a\x00b/1", "ab"),
    ("x" * 200, "x" * 128),
])
def test_manager_from_user_agent(user_agent: str | None, manager: str) -> None:
    assert mf.manager_from_user_agent(user_agent) == manager


def test_field_type_of_an_embedded_resource_declares_its_metadata() -> None:
    t = from_openapi({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "template": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {}}}}}})
    ok = {"spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"a": "b"}}}}}
    assert walk.typed_errors(ok, t) == []
    assert isinstance(t.fields["metadata"], FieldType)
