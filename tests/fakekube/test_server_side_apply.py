"""Server-side apply and managedFields through the API server, with kube-apiserver's Status objects."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from fakekube import ApiError, BadRequest, Conflict, FakeCluster, Invalid, NotFound
from fakekube.apiserver.server import ApiServer, WriteInfo

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com", "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
        "versions": [{
            "name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {
                    "size": {"type": "integer"},
                    "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                              "items": {"type": "object", "required": ["name"], "properties": {
                                  "name": {"type": "string"}, "port": {"type": "integer"}}}},
                    "args": {"type": "array", "items": {"type": "string"}},
                }},
                "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}}},
        }],
    },
}
APPLY = "application/apply-patch+yaml"
# A built-in kind's schema as the ResourceType.schema hook takes it (data is a map, not a struct).
CONFIGMAP_SCHEMA = {"type": "object", "properties": {
    "data": {"type": "object", "additionalProperties": {"type": "string"}},
    "binaryData": {"type": "object", "additionalProperties": {"type": "string", "format": "byte"}},
    "immutable": {"type": "boolean"}}}


def with_schema(api: ApiServer, key: str, schema: dict[str, Any]) -> None:
    rt = api.registry.by_key(key)
    assert rt is not None
    api.registry.remove(rt)
    api.registry.add(dataclasses.replace(rt, schema=schema))


@pytest.fixture
def cluster() -> FakeCluster:
    c = FakeCluster(seed=0, simulate=False)
    c.create(CRD)
    with_schema(c.api, "configmaps", CONFIGMAP_SCHEMA)
    return c


def widget(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


def cm(**data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data}


def apply(api: ApiServer, body: Any, manager: str = "alice", *, kind: str = "widgets.example.com",
          name: str = "w", **options: Any) -> dict[str, Any]:
    return api.patch(kind, name, body, namespace="default", patch_type=APPLY, field_manager=manager, **options)


def owners(obj: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(e["manager"], e["operation"], e["fieldsV1"]) for e in obj["metadata"]["managedFields"]]


def test_apply_creates_the_object_with_an_apply_entry(cluster: FakeCluster) -> None:
    info = WriteInfo()
    created = apply(cluster.api, json.dumps(widget(size=1)), info=info)  # a JSON body, as kubectl sends it
    assert info.created
    assert created["metadata"]["uid"] and created["spec"] == {"size": 1}
    assert created["metadata"]["managedFields"] == [{
        "manager": "alice", "operation": "Apply", "apiVersion": "example.com/v1", "time": "2030-01-01T00:00:00Z",
        "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:size": {}}}}]
    info = WriteInfo()
    apply(cluster.api, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 2}\n", info=info)
    assert not info.created
    assert cluster.get("widgets.example.com", "w")["spec"] == {"size": 2}


def test_a_repeated_apply_keeps_the_resource_version_and_sends_no_event(cluster: FakeCluster) -> None:
    first = apply(cluster.api, widget(size=1))
    cluster.advance(30)
    writes = cluster.api.writes
    again = apply(cluster.api, widget(size=1))
    assert again["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    assert again["metadata"]["managedFields"] == first["metadata"]["managedFields"]  # time not bumped
    assert cluster.api.writes == writes


def test_fields_dropped_from_an_apply_are_removed_unless_another_manager_owns_them(cluster: FakeCluster) -> None:
    apply(cluster.api, widget(size=1, args=["a"], ports=[{"name": "http", "port": 80}, {"name": "dns", "port": 53}]))
    apply(cluster.api, widget(ports=[{"name": "dns", "port": 53}]), manager="bob")
    result = apply(cluster.api, widget(size=1))
    assert result["spec"] == {"size": 1, "ports": [{"name": "dns", "port": 53}]}
    # bob's apply changed nothing, so his entry has no time and sorts first, as upstream's does
    assert owners(result) == [
        ("bob", "Apply", {"f:spec": {"f:ports": {'k:{"name":"dns"}': {".": {}, "f:name": {}, "f:port": {}}}}}),
        ("alice", "Apply", {"f:spec": {"f:size": {}}}),
    ]


def test_list_map_items_of_a_custom_resource_merge_by_key(cluster: FakeCluster) -> None:
    apply(cluster.api, widget(ports=[{"name": "http", "port": 80}], args=["x"]))
    result = apply(cluster.api, widget(ports=[{"name": "metrics", "port": 9090}]), manager="bob")
    assert result["spec"] == {"ports": [{"name": "http", "port": 80}, {"name": "metrics", "port": 9090}],
                              "args": ["x"]}
    # an atomic list is one field: another manager setting any item of it conflicts
    with pytest.raises(Conflict, match=r'conflict with "alice": \.spec\.args$'):
        apply(cluster.api, widget(args=["x", "y"]), manager="bob")


def test_a_conflict_is_a_409_naming_the_manager_and_field(cluster: FakeCluster) -> None:
    apply(cluster.api, widget(size=1))
    with pytest.raises(Conflict) as err:
        apply(cluster.api, widget(size=2), manager="bob")
    assert err.value.status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Apply failed with 1 conflict: conflict with "alice": .spec.size', "reason": "Conflict",
        "details": {"causes": [{"reason": "FieldManagerConflict", "message": 'conflict with "alice"',
                                "field": ".spec.size"}]},
        "code": 409}


def test_a_conflict_with_an_update_names_its_api_version_and_subresource(cluster: FakeCluster) -> None:
    cm_ = cluster.api.create("configmaps", cm(mode="a"), field_manager="kubectl-create")
    cluster.api.update("configmaps", {**cm_, "data": {"mode": "b"}}, field_manager="editor")
    with pytest.raises(Conflict, match=r'^Apply failed with 1 conflict: conflict with "editor" using v1: \.data\.mode$'):
        apply(cluster.api, cm(mode="c"), kind="configmaps", name="c")
    apply(cluster.api, widget(size=1))
    cluster.api.patch("widgets.example.com", "w", {"status": {"phase": "Up"}}, namespace="default",
                      subresource="status", field_manager="ctrl")
    with pytest.raises(Conflict, match=r'conflict with "ctrl" with subresource "status" using example.com/v1: '
                                       r"\.status\.phase$"):
        apply(cluster.api, {**widget(), "status": {"phase": "Down"}}, manager="bob", subresource="status")


def test_force_moves_ownership(cluster: FakeCluster) -> None:
    apply(cluster.api, widget(size=1, args=["a"]))
    result = apply(cluster.api, widget(size=2), manager="bob", force=True)
    assert result["spec"] == {"size": 2, "args": ["a"]}
    assert owners(result) == [("alice", "Apply", {"f:spec": {"f:args": {}}}),
                              ("bob", "Apply", {"f:spec": {"f:size": {}}})]


def test_two_managers_applying_the_same_value_share_it(cluster: FakeCluster) -> None:
    apply(cluster.api, widget(size=1))
    shared = apply(cluster.api, widget(size=1), manager="bob")
    assert [(e["manager"], "time" in e) for e in shared["metadata"]["managedFields"]] == [
        ("bob", False), ("alice", True)]  # a no-op apply does not stamp its manager
    # alice lets go: the value stays because bob still owns it
    kept = apply(cluster.api, {k: v for k, v in widget().items() if k != "spec"})
    assert kept["spec"] == {"size": 1}
    assert owners(kept) == [("bob", "Apply", {"f:spec": {"f:size": {}}})]


def test_updates_record_their_manager_and_take_what_they_change(cluster: FakeCluster) -> None:
    api = cluster.api
    created = api.create("configmaps", cm(a="1", b="2"), field_manager="kubectl-create")
    assert owners(created) == [("kubectl-create", "Update", {"f:data": {".": {}, "f:a": {}, "f:b": {}}})]
    cluster.advance(61)
    patched = api.patch("configmaps", "c", {"data": {"b": "3", "c": "4"}}, namespace="default",
                        field_manager="kubectl-patch")
    assert [(e["manager"], e["time"], e["fieldsV1"]) for e in patched["metadata"]["managedFields"]] == [
        ("kubectl-create", "2030-01-01T00:00:00Z", {"f:data": {".": {}, "f:a": {}}}),
        ("kubectl-patch", "2030-01-01T00:01:01Z", {"f:data": {"f:b": {}, "f:c": {}}}),
    ]
    # removing a field takes it from everyone; the creator keeps the map it added
    removed = api.patch("configmaps", "c", {"data": {"a": None}}, namespace="default", field_manager="x")
    assert owners(removed) == [("kubectl-create", "Update", {"f:data": {}}),
                               ("kubectl-patch", "Update", {"f:data": {"f:b": {}, "f:c": {}}})]
    # a write without a field manager to a tracked object is named after its user agent
    named = api.patch("configmaps", "c", {"data": {"b": "5"}}, namespace="default",
                      user_agent="kube-controller-manager/v1.34.0 (linux/amd64)")
    assert ("kube-controller-manager", "Update", {"f:data": {"f:b": {}}}) in owners(named)
    status = api.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                 "spec": {"containers": [{"name": "m", "image": "i"}]}}, field_manager="t")
    status["status"] = {"message": "hi"}
    entry = api.update("pods", status, subresource="status")["metadata"]["managedFields"][-1]
    assert (entry["manager"], entry.get("subresource"), entry["fieldsV1"]) == (
        "unknown", "status", {"f:status": {"f:message": {}}})


def test_objects_written_without_a_field_manager_stay_untracked(cluster: FakeCluster) -> None:
    created = cluster.create(cm(a="1"))
    assert "managedFields" not in created["metadata"]
    updated = cluster.patch("configmaps", "c", {"data": {"a": "2"}})
    assert "managedFields" not in updated["metadata"]


def test_an_empty_list_resets_managed_fields(cluster: FakeCluster) -> None:
    cluster.api.create("configmaps", cm(a="1"), field_manager="m")
    reset = cluster.api.patch("configmaps", "c", {"metadata": {"managedFields": []}}, namespace="default",
                              field_manager="m")
    assert "managedFields" not in reset["metadata"]


def test_a_write_that_only_moves_timestamps_stays_a_no_op(cluster: FakeCluster) -> None:
    created = cluster.api.create("configmaps", cm(a="1"), field_manager="m")
    cluster.advance(10)
    same = cluster.api.update("configmaps", created, field_manager="m")
    assert same["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert same["metadata"]["managedFields"] == created["metadata"]["managedFields"]


def test_first_apply_to_an_untracked_object_gives_its_fields_to_before_first_apply(cluster: FakeCluster) -> None:
    cluster.create(cm(a="1"))
    with pytest.raises(Conflict, match=r'conflict with "before-first-apply" using v1: \.data\.a$'):
        apply(cluster.api, cm(a="2"), kind="configmaps", name="c")
    result = apply(cluster.api, cm(a="1", b="2"), kind="configmaps", name="c")
    assert owners(result) == [("alice", "Apply", {"f:data": {"f:a": {}, "f:b": {}}}),
                              ("before-first-apply", "Update", {"f:data": {".": {}, "f:a": {}}})]


def test_apply_needs_a_field_manager(cluster: FakeCluster) -> None:
    with pytest.raises(Invalid) as err:
        cluster.api.patch("widgets.example.com", "w", widget(), namespace="default", patch_type=APPLY)
    assert err.value.status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        "reason": "Invalid",
        "details": {"group": "meta.k8s.io", "kind": "PatchOptions", "causes": [
            {"reason": "FieldValueRequired", "message": "Required value: is required for apply patch",
             "field": "fieldManager"}]},
        "code": 422}


@pytest.mark.parametrize(("call", "message"), [
    (lambda api: api.patch("configmaps", "c", {}, namespace="default", force=True),
     'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch'),
    (lambda api: api.create("configmaps", cm(), field_validation="Loud"),
     'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: '
     '"", "Ignore", "Strict", "Warn"'),
    (lambda api: api.update("configmaps", cm(), field_manager="a\tb"),
     'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\tb": invalid character U+0009 '
     "(at position 1)"),
    (lambda api: api.create("configmaps", cm(), field_manager="m" * 129),
     'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes'),
])
def test_request_options_are_validated(cluster: FakeCluster, call: Any, message: str) -> None:
    with pytest.raises(Invalid) as err:
        call(cluster.api)
    assert err.value.message == message


@pytest.mark.parametrize(("body", "error", "message"), [
    ({"kind": "Widget", "metadata": {"name": "w"}}, BadRequest, "invalid object type: /, Kind=Widget"),
    ({**widget(), "apiVersion": "example.com/v2"}, BadRequest, "invalid object type: example.com/v2, Kind=Widget"),
    ({**widget(), "metadata": {"name": "w", "managedFields": []}}, BadRequest, "metadata.managedFields must be nil"),
    ({**widget(), "metadata": {"name": "x"}}, BadRequest,
     "the name of the object (x) does not match the name on the URL (w)"),
    ("[1, 2]", BadRequest, "error decoding patch: json: cannot unmarshal array into Go value of type "
                           "map[string]interface {}"),
    ("true", BadRequest, "error decoding patch: json: cannot unmarshal bool into Go value of type "
                         "map[string]interface {}"),
    (widget(sise=1), ApiError, "failed to create typed patch object (/w; example.com/v1, Kind=Widget): "
                               ".spec.sise: field not declared in schema"),
])
def test_bad_apply_bodies(cluster: FakeCluster, body: Any, error: type[ApiError], message: str) -> None:
    with pytest.raises(error) as err:
        apply(cluster.api, body)
    assert err.value.message == message
    assert err.value.code == (500 if error is ApiError else 400)


def test_apply_to_the_status_of_a_missing_object_is_not_found(cluster: FakeCluster) -> None:
    with pytest.raises(NotFound):
        apply(cluster.api, widget(), subresource="status")


def test_in_process_clients_name_their_writes_to_tracked_objects_after_their_user_agent(cluster: FakeCluster) -> None:
    from fakekube.runtime.client import Client

    cluster.api.create("configmaps", cm(a="1", b="1"), field_manager="kubectl-create")
    Client(cluster.api, user_agent="job-controller").patch("configmaps", "c", {"data": {"a": "2"}})
    assert [(m, f) for m, _, f in owners(cluster.get("configmaps", "c"))] == [
        ("job-controller", {"f:data": {"f:a": {}}}), ("kubectl-create", {"f:data": {".": {}, "f:b": {}}})]


def test_a_request_without_a_field_manager_is_tracked_under_its_user_agent(cluster: FakeCluster) -> None:
    created = cluster.api.create("configmaps", cm(a="1"), field_manager="", user_agent="OpenAPI-Generator/37.0.2/python")
    assert [e["manager"] for e in created["metadata"]["managedFields"]] == ["OpenAPI-Generator"]
