"""fakekube.machinery.patch: merge patch, JSON patch, strategic merge patch, dispatch (spec §1.5, §6.21)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fakekube.errors import ApiError, BadRequest, Invalid, UnsupportedMediaType, UsageError
from fakekube.machinery import patch as p
from fakekube.machinery.patch import (
    GENERIC_METADATA_SCHEMA,
    JOB_SCHEMA,
    NODE_SCHEMA,
    POD_SCHEMA,
    SERVICE_SCHEMA,
    PatchApplyError,
    PatchInternalError,
    apply_patch,
    create_merge_patch,
    json_merge_patch,
    json_patch,
    schema_for,
    schemas,
    strategic_merge_patch,
)

GENERIC_422 = "the server rejected our request due to an error in our request"
JOB_TRACKING = "batch.kubernetes.io/job-tracking"


def canon(value: Any) -> str:
    """Strict comparison form: booleans differ from numbers, key order is irrelevant."""
    return json.dumps(value, sort_keys=True)


def status(code: int, reason: str, message: str, **extra: Any) -> dict[str, Any]:
    out = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
           "message": message, "reason": reason}
    out.update(extra)
    out["code"] = code
    return out


def pod(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": spec}


def names(items: list[dict[str, Any]]) -> list[str]:
    return [i["name"] for i in items]


# --------------------------------------------------------------------------- JSON merge patch


@pytest.mark.parametrize(("target", "patch", "expected"), [
    pytest.param({"a": "b"}, {"a": "c"}, {"a": "c"}, id="replace-scalar"),
    pytest.param({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}, id="add-key"),
    pytest.param({"a": "b", "c": 1}, {"a": None}, {"c": 1}, id="null-deletes"),
    pytest.param({"a": 1}, {"zz": None}, {"a": 1}, id="null-on-missing-key-noop"),
    pytest.param({"spec": {"parallelism": 2, "completions": 4}}, {"spec": {"parallelism": 3}},
                 {"spec": {"parallelism": 3, "completions": 4}}, id="nested-merge"),
    pytest.param({"l": [1, 2, 3]}, {"l": [4]}, {"l": [4]}, id="list-replaced-whole"),
    pytest.param({"f": ["a", "b"]}, {"f": ["b"]}, {"f": ["b"]}, id="finalizers-list-replaced-not-unioned"),
    pytest.param({"a": {"x": 1}}, {"a": "s"}, {"a": "s"}, id="scalar-replaces-object"),
    pytest.param({"a": "s"}, {"a": {"x": 1, "y": None}}, {"a": {"x": 1}}, id="object-replaces-scalar-pruned"),
    pytest.param({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}, id="new-object-nulls-pruned"),
    pytest.param({}, {"a": [{"k": None, "v": 1}, None]}, {"a": [{"v": 1}, None]}, id="v4-prunes-inside-lists"),
    pytest.param({"a": {"x": 1}}, {"a": [{"k": None}]}, {"a": [{"k": None}]}, id="v4-no-prune-over-object"),
    pytest.param({"e": None}, {"a": 1}, {"e": None, "a": 1}, id="existing-null-kept"),
    pytest.param({"a": 1}, {}, {"a": 1}, id="empty-patch"),
    pytest.param({"a": 1}, ["x"], ["x"], id="list-patch-replaces-document"),
    pytest.param([1, 2], {"a": "b", "c": None}, {"a": "b"}, id="object-patch-over-list"),
])
def test_json_merge_patch(target: Any, patch: Any, expected: Any) -> None:
    assert canon(json_merge_patch(target, patch)) == canon(expected)


@pytest.mark.parametrize(("original", "modified", "expected"), [
    pytest.param({"a": 1}, {"a": 1}, {}, id="unchanged"),
    pytest.param({"a": 1}, {"a": 2}, {"a": 2}, id="changed"),
    pytest.param({"a": 1}, {"a": 1, "b": 2}, {"b": 2}, id="added"),
    pytest.param({"a": 1, "b": 2}, {"a": 1}, {"b": None}, id="removed"),
    pytest.param({"s": {"x": 1, "y": 2}}, {"s": {"x": 1, "y": 3}}, {"s": {"y": 3}}, id="nested"),
    pytest.param({"l": [1, 2]}, {"l": [1, 2, 3]}, {"l": [1, 2, 3]}, id="list-whole"),
    pytest.param({"l": [{"a": 1}]}, {"l": [{"a": 1}]}, {}, id="equal-lists-of-maps"),
    pytest.param({"a": 1}, {"a": True}, {"a": True}, id="bool-is-not-int"),
    pytest.param({"a": 1}, {"a": 1.0}, {}, id="json-numbers-equal"),
    pytest.param({"a": {"x": 1}}, {"a": [1]}, {"a": [1]}, id="type-change"),
])
def test_create_merge_patch(original: dict[str, Any], modified: dict[str, Any], expected: Any) -> None:
    assert canon(create_merge_patch(original, modified)) == canon(expected)


def test_merge_patch_scales_a_job() -> None:
    """JobSet's elastic resize: ``client.MergeFrom`` sends only parallelism/completions."""
    job = {"spec": {"parallelism": 2, "completions": 2, "completionMode": "Indexed",
                    "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    scaled = json.loads(json.dumps(job))
    scaled["spec"].update(parallelism=5, completions=5)
    patch = create_merge_patch(job, scaled)
    assert patch == {"spec": {"parallelism": 5, "completions": 5}}
    assert apply_patch(job, json.dumps(patch), p.MERGE_PATCH, resource="jobs.batch") == scaled


# --------------------------------------------------------------------------- JSON patch

DOC: dict[str, Any] = {"a": {"b": 1}, "l": ["x", "y"], "t~k": 0, "s/k": 1}


@pytest.mark.parametrize(("ops", "expected"), [
    pytest.param([{"op": "add", "path": "/c", "value": 3}], {**DOC, "c": 3}, id="add-member"),
    pytest.param([{"op": "add", "path": "/a", "value": None}], {**DOC, "a": None}, id="add-replaces-member"),
    pytest.param([{"op": "add", "path": "/l/0", "value": "w"}], {**DOC, "l": ["w", "x", "y"]}, id="add-index"),
    pytest.param([{"op": "add", "path": "/l/2", "value": "z"}], {**DOC, "l": ["x", "y", "z"]}, id="add-at-len"),
    pytest.param([{"op": "add", "path": "/l/-", "value": "z"}], {**DOC, "l": ["x", "y", "z"]}, id="add-dash-appends"),
    pytest.param([{"op": "add", "path": "/l/-1", "value": "z"}], {**DOC, "l": ["x", "y", "z"]},
                 id="add-negative-one-appends-v4"),
    pytest.param([{"op": "add", "path": "/l/-3", "value": "z"}], {**DOC, "l": ["z", "x", "y"]},
                 id="add-negative-index-v4"),
    pytest.param([{"op": "add", "path": "/l/01", "value": "z"}], {**DOC, "l": ["x", "z", "y"]},
                 id="atoi-leading-zero"),
    pytest.param([{"op": "add", "path": "/a/new"}], {**DOC, "a": {"b": 1, "new": None}}, id="add-without-value-is-null"),
    pytest.param([{"op": "remove", "path": "/a/b"}], {**DOC, "a": {}}, id="remove-member"),
    pytest.param([{"op": "remove", "path": "/l/-1"}], {**DOC, "l": ["x"]}, id="remove-negative-index-v4"),
    pytest.param([{"op": "replace", "path": "/a/b", "value": [1]}], {**DOC, "a": {"b": [1]}}, id="replace"),
    pytest.param([{"op": "replace", "path": "/a/zz", "value": 1}], {**DOC, "a": {"b": 1, "zz": 1}},
                 id="replace-missing-member-adds-v4"),
    pytest.param([{"op": "replace", "path": "/l/-1", "value": "Y"}], {**DOC, "l": ["x", "Y"]}, id="replace-negative"),
    pytest.param([{"op": "replace", "path": "", "value": {"z": 1}}], {"z": 1}, id="replace-root"),
    pytest.param([{"op": "replace", "path": "", "value": 5}], DOC, id="replace-root-with-scalar-ignored-v4"),
    pytest.param([{"op": "move", "from": "/a/b", "path": "/c"}], {**DOC, "a": {}, "c": 1}, id="move"),
    pytest.param([{"op": "move", "from": "/l/0", "path": "/l/-"}], {**DOC, "l": ["y", "x"]}, id="move-in-list"),
    pytest.param([{"op": "copy", "from": "/a", "path": "/c"}], {**DOC, "c": {"b": 1}}, id="copy"),
    pytest.param([{"op": "copy", "from": "/nope", "path": "/c"}], {**DOC, "c": None}, id="copy-missing-is-null-v4"),
    pytest.param([{"op": "test", "path": "/a", "value": {"b": 1}}], DOC, id="test-passes"),
    pytest.param([{"op": "test", "path": "/a/b", "value": 1.0}], DOC, id="test-number-by-value"),
    pytest.param([{"op": "test", "path": "/nope", "value": None}], DOC, id="test-missing-equals-null-v4"),
    pytest.param([{"op": "test", "path": "", "value": DOC}], DOC, id="test-root"),
    pytest.param([{"op": "replace", "path": "/t~0k", "value": 5}], {**DOC, "t~k": 5}, id="escape-tilde"),
    pytest.param([{"op": "replace", "path": "/s~1k", "value": 5}], {**DOC, "s/k": 5}, id="escape-slash"),
    pytest.param([{"op": "add", "path": "/~01", "value": 5}], {**DOC, "~1": 5}, id="escape-single-pass"),
    pytest.param([{"op": "add", "path": "/", "value": 5}], {**DOC, "": 5}, id="empty-key"),
    pytest.param([{"op": "add", "path": "x/c", "value": 5}], {**DOC, "c": 5}, id="no-leading-slash-v4"),
    pytest.param(None, DOC, id="null-patch-noop"),
    pytest.param([{"op": "add", "path": "/c", "value": [1]}, {"op": "add", "path": "/c/-", "value": 2},
                  {"op": "test", "path": "/c", "value": [1, 2]}], {**DOC, "c": [1, 2]}, id="sequential"),
])
def test_json_patch(ops: Any, expected: Any) -> None:
    assert canon(json_patch(DOC, ops)) == canon(expected)


@pytest.mark.parametrize(("ops", "detail"), [
    pytest.param([{"op": "test", "path": "/a/b", "value": 2}], "testing value /a/b failed: test failed", id="test-fails"),
    pytest.param([{"op": "test", "path": "/a/b", "value": True}], "testing value /a/b failed: test failed",
                 id="test-bool-is-not-number"),
    pytest.param([{"op": "test", "path": "/a"}], "testing value /a failed: test failed", id="test-without-value"),
    pytest.param([{"op": "test", "path": "/a/b", "value": 1}, {"op": "test", "path": "/l/0", "value": "y"}],
                 "testing value /l/0 failed: test failed", id="second-test-fails"),
    pytest.param([{"op": "add", "path": "/x/y", "value": 1}],
                 'add operation does not apply: doc is missing path: "/x/y": missing value', id="add-missing-parent"),
    pytest.param([{"op": "add", "path": "", "value": 1}],
                 'add operation does not apply: doc is missing path: "": missing value', id="add-root"),
    pytest.param([{"op": "add", "path": "/a/b/c", "value": 1}],
                 'add operation does not apply: doc is missing path: "/a/b/c": missing value',
                 id="add-through-scalar"),
    pytest.param([{"op": "add", "path": "/l/5", "value": 1}],
                 "error in add for path: '/l/5': Unable to access invalid index: 5: invalid index referenced",
                 id="add-index-too-large"),
    pytest.param([{"op": "add", "path": "/l/-4", "value": 1}],
                 "error in add for path: '/l/-4': Unable to access invalid index: -4: invalid index referenced",
                 id="add-index-too-negative"),
    pytest.param([{"op": "add", "path": "/l/x", "value": 1}],
                 "error in add for path: '/l/x': value was not a proper array index: 'x': "
                 'strconv.Atoi: parsing "x": invalid syntax', id="add-index-not-number"),
    pytest.param([{"op": "add", "path": "/l/99999999999999999999", "value": 1}],
                 "error in add for path: '/l/99999999999999999999': value was not a proper array index: "
                 "'99999999999999999999': strconv.Atoi: parsing \"99999999999999999999\": value out of range",
                 id="add-index-out-of-int64"),
    pytest.param([{"op": "remove", "path": "/zz"}],
                 "error in remove for path: '/zz': Unable to remove nonexistent key: zz: missing value",
                 id="remove-missing"),
    pytest.param([{"op": "remove", "path": "/l/2"}],
                 "error in remove for path: '/l/2': Unable to access invalid index: 2: invalid index referenced",
                 id="remove-index-too-large"),
    pytest.param([{"op": "remove", "path": "/l/-"}],
                 "error in remove for path: '/l/-': strconv.Atoi: parsing \"-\": invalid syntax", id="remove-dash"),
    pytest.param([{"op": "replace", "path": "/l/9", "value": 1}],
                 "replace operation does not apply: doc is missing key: /l/9: missing value", id="replace-bad-index"),
    pytest.param([{"op": "replace", "path": "/q/r", "value": 1}],
                 "replace operation does not apply: doc is missing path: /q/r: missing value", id="replace-missing"),
    pytest.param([{"op": "move", "from": "/q/x", "path": "/c"}],
                 "move operation does not apply: doc is missing from path: /q/x: missing value", id="move-from-missing"),
    pytest.param([{"op": "move", "from": "/a/zz", "path": "/c"}],
                 "error in move for path: 'zz': Unable to remove nonexistent key: zz: missing value",
                 id="move-missing-member"),
    pytest.param([{"op": "move", "from": "/a", "path": "/a/b"}],
                 "move operation does not apply: doc is missing destination path: /a/b: missing value",
                 id="move-into-itself"),
    pytest.param([{"op": "copy", "from": "/l/7", "path": "/c"}],
                 "error in copy for from: '/l/7': Unable to access invalid index: 7: invalid index referenced",
                 id="copy-bad-index"),
    pytest.param([{"op": "copy", "from": "/a", "path": "/l/9"}],
                 "error while adding value during copy: Unable to access invalid index: 9: invalid index referenced",
                 id="copy-bad-destination"),
    pytest.param([{"op": "test", "path": "/q/r", "value": 1}],
                 "test operation does not apply: is missing path: /q/r: missing value", id="test-missing-parent"),
    pytest.param([{"op": "frobnicate", "path": "/a"}], "Unexpected kind: frobnicate", id="unknown-op"),
    pytest.param([{"path": "/a"}], "Unexpected kind: unknown", id="missing-op"),
    pytest.param([{"op": 7, "path": "/a"}], "Unexpected kind: unknown", id="non-string-op"),
    pytest.param([None], "Unexpected kind: unknown", id="null-operation"),
    pytest.param([{"op": "add", "value": 1}], "add operation failed to decode path: missing value", id="add-no-path"),
    pytest.param([{"op": "replace", "value": 1}],
                 "replace operation failed to decode path: operation missing path field: missing value",
                 id="replace-no-path"),
    pytest.param([{"op": "test", "path": 3, "value": 1}],
                 "test operation failed to decode path: json: cannot unmarshal number into Go value of type string",
                 id="path-not-string"),
    pytest.param([{"op": "move", "path": "/c"}],
                 "move operation failed to decode from: operation, missing from field: missing value",
                 id="move-no-from"),
    pytest.param([{"op": "copy", "from": "/a"}], "copy operation failed to decode path: missing value",
                 id="copy-no-path"),
])
def test_json_patch_errors(ops: list[Any], detail: str) -> None:
    with pytest.raises(PatchApplyError) as info:
        json_patch(DOC, ops)
    assert info.value.detail == detail


def test_json_patch_error_is_the_generic_422_status() -> None:
    """patch.go answers ``NewGenericServerResponse(422, ...)``: the library message is discarded."""
    with pytest.raises(Invalid) as info:
        json_patch({"metadata": {"resourceVersion": "5"}},
                   [{"op": "test", "path": "/metadata/resourceVersion", "value": "4"}])
    assert info.value.status == status(422, "Invalid", GENERIC_422, details={})
    assert (info.value.code, info.value.reason, info.value.message) == (422, "Invalid", GENERIC_422)


def test_json_patch_copy_limit() -> None:
    big = "x" * (1024 * 1024 - 2)  # 1 MiB once quoted: three copies reach the 3 MiB limit exactly
    ops = [{"op": "copy", "from": "/big", "path": f"/c{i}"} for i in range(4)]
    assert len(json_patch({"big": big}, ops[:3])) == 4
    with pytest.raises(PatchApplyError) as info:
        json_patch({"big": big}, ops)
    assert info.value.detail == ("Unable to complete the copy, the accumulated size increase of copy is "
                                 f"{4 * 1024 * 1024}, exceeding the limit {3 * 1024 * 1024}")


@pytest.mark.parametrize(("ops", "message"), [
    pytest.param({"op": "add"}, "json: cannot unmarshal object into Go value of type jsonpatch.Patch", id="object"),
    pytest.param("add", "json: cannot unmarshal string into Go value of type jsonpatch.Patch", id="string"),
    pytest.param([{"op": "add", "path": "/a"}, 3],
                 "json: cannot unmarshal number into Go value of type jsonpatch.Operation", id="bad-element"),
])
def test_json_patch_decode_errors(ops: Any, message: str) -> None:
    with pytest.raises(BadRequest) as info:
        json_patch(DOC, ops)
    assert info.value.message == message


def test_json_patch_operation_limit() -> None:
    ok = [{"op": "test", "path": "/a/b", "value": 1}] * 10000
    assert json_patch(DOC, ok) == DOC
    with pytest.raises(ApiError) as info:
        json_patch(DOC, [*ok, ok[0]])
    assert info.value.status == status(
        413, "RequestEntityTooLarge",
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001")


# --------------------------------------------------------------------------- strategic merge patch

JOB_POD = {
    "metadata": {"name": "j-0-abcde", "finalizers": [JOB_TRACKING, "example.com/keep"],
                 "ownerReferences": [
                     {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u1", "controller": True},
                     {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "u2"}]},
    "spec": {
        "containers": [
            {"name": "main", "image": "busybox:1", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
             "ports": [{"containerPort": 80, "name": "http"}]},
            {"name": "sidecar", "image": "envoy:1"}],
        "tolerations": [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}],
        "volumes": [{"name": "v", "emptyDir": {}}],
        "nodeSelector": {"zone": "a", "disk": "ssd"},
    },
    "status": {"phase": "Running", "conditions": [
        {"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}]},
}


def smp(patch: dict[str, Any], target: dict[str, Any] = JOB_POD, schema: p.MergeSchema = POD_SCHEMA) -> Any:
    return strategic_merge_patch(target, patch, schema)


@pytest.mark.parametrize(("patch", "path", "expected"), [
    pytest.param({"metadata": {"$deleteFromPrimitiveList/finalizers": [JOB_TRACKING]}},
                 ("metadata", "finalizers"), ["example.com/keep"], id="job-controller-finalizer-removal"),
    pytest.param({"metadata": {"$deleteFromPrimitiveList/finalizers": ["absent"]}},
                 ("metadata", "finalizers"), [JOB_TRACKING, "example.com/keep"], id="delete-absent-finalizer"),
    pytest.param({"metadata": {"finalizers": ["new"]}},
                 ("metadata", "finalizers"), ["new", JOB_TRACKING, "example.com/keep"],
                 id="finalizer-union-new-first"),
    pytest.param({"metadata": {"finalizers": ["example.com/keep", JOB_TRACKING]}},
                 ("metadata", "finalizers"), ["example.com/keep", JOB_TRACKING], id="finalizer-patch-order-wins"),
    pytest.param({"metadata": {"$setElementOrder/finalizers": [JOB_TRACKING, "example.com/keep", "new"],
                               "finalizers": ["new"]}},
                 ("metadata", "finalizers"), [JOB_TRACKING, "example.com/keep", "new"],
                 id="finalizer-set-element-order"),
    pytest.param({"metadata": {"$deleteFromPrimitiveList/finalizers": [JOB_TRACKING], "finalizers": ["new"]}},
                 ("metadata", "finalizers"), ["new", "example.com/keep"], id="finalizer-add-and-delete"),
    pytest.param({"spec": {"containers": [{"name": "main", "image": "busybox:2"}]}},
                 ("spec", "containers"),
                 [{**JOB_POD["spec"]["containers"][0], "image": "busybox:2"}, JOB_POD["spec"]["containers"][1]],
                 id="container-merge-by-name"),
    pytest.param({"spec": {"containers": [{"name": "main", "env": [{"name": "B", "value": "3"},
                                                                    {"name": "C", "value": "4"}]}]}},
                 ("spec", "containers", 0, "env"),
                 [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}, {"name": "C", "value": "4"}],
                 id="env-merge-by-name"),
    pytest.param({"spec": {"containers": [{"name": "main", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}},
                 ("spec", "containers", 0, "ports"), [{"containerPort": 80, "name": "http", "protocol": "TCP"}],
                 id="ports-merge-by-container-port"),
    pytest.param({"spec": {"containers": [{"name": "sidecar", "$patch": "delete"}]}},
                 ("spec", "containers"), [JOB_POD["spec"]["containers"][0]], id="container-patch-delete"),
    pytest.param({"spec": {"containers": [{"$patch": "replace"}, {"name": "only", "image": "x"}]}},
                 ("spec", "containers"), [{"name": "only", "image": "x"}], id="container-list-patch-replace"),
    pytest.param({"spec": {"tolerations": [{"key": "c", "operator": "Exists"}]}},
                 ("spec", "tolerations"), [{"key": "c", "operator": "Exists"}], id="tolerations-replaced"),
    pytest.param({"spec": {"nodeSelector": {"$patch": "replace", "gpu": "yes"}}},
                 ("spec", "nodeSelector"), {"gpu": "yes"}, id="map-patch-replace"),
    pytest.param({"spec": {"nodeSelector": {"$patch": "delete"}}}, ("spec", "nodeSelector"), {},
                 id="map-patch-delete"),
    pytest.param({"spec": {"nodeSelector": {"zone": None, "gpu": "yes"}}},
                 ("spec", "nodeSelector"), {"disk": "ssd", "gpu": "yes"}, id="map-merge-null-deletes"),
    pytest.param({"spec": {"volumes": [{"name": "v", "$retainKeys": ["name", "configMap"],
                                        "configMap": {"name": "cm"}}]}},
                 ("spec", "volumes"), [{"name": "v", "configMap": {"name": "cm"}}], id="volume-retain-keys"),
    pytest.param({"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
                 ("status", "conditions"),
                 [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}],
                 id="condition-merge-by-type"),
    pytest.param({"status": {"conditions": [{"type": "DisruptionTarget", "status": "True"}]}},
                 ("status", "conditions"),
                 [{"type": "DisruptionTarget", "status": "True"}, {"type": "PodScheduled", "status": "True"},
                  {"type": "Ready", "status": "False"}], id="condition-added"),
    pytest.param({"metadata": {"ownerReferences": [{"uid": "u2", "$patch": "delete"}]}},
                 ("metadata", "ownerReferences"), [JOB_POD["metadata"]["ownerReferences"][0]],
                 id="owner-reference-delete-by-uid"),
    pytest.param({"metadata": {"ownerReferences": [{"uid": "u1", "blockOwnerDeletion": True}]}},
                 ("metadata", "ownerReferences"),
                 [{**JOB_POD["metadata"]["ownerReferences"][0], "blockOwnerDeletion": True},
                  JOB_POD["metadata"]["ownerReferences"][1]], id="owner-reference-merge-by-uid"),
    pytest.param({"spec": {"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "main"}]}},
                 ("spec", "containers"),
                 [JOB_POD["spec"]["containers"][1], JOB_POD["spec"]["containers"][0]], id="set-element-order"),
    pytest.param({"spec": {"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "new"}],
                           "containers": [{"name": "new"}, {"name": "main", "$patch": "delete"}]}},
                 ("spec", "containers"), [JOB_POD["spec"]["containers"][1], {"name": "new"}],
                 id="set-element-order-with-delete"),
    pytest.param({"spec": {"containers": [{"name": "new", "image": "x",
                                           "$setElementOrder/env": [{"name": "E"}], "env": [{"name": "E"}],
                                           "$retainKeys": ["name"]}]}},
                 ("spec", "containers", 0), {"name": "new", "image": "x", "env": [{"name": "E"}]},
                 id="directives-stripped-from-new-items"),
    pytest.param({"spec": {"newField": {"$patch": "replace", "a": 1}}}, ("spec",),
                 JOB_POD["spec"], id="directive-map-on-missing-field-dropped"),
    pytest.param({"metadata": {"$deleteFromPrimitiveList/finalizers": None}}, ("metadata",),
                 {k: v for k, v in JOB_POD["metadata"].items() if k != "finalizers"},
                 id="null-delete-list-deletes-field"),
    pytest.param({"$patch": "replace", "kind": "Pod"}, (), {"kind": "Pod"}, id="top-level-replace"),
])
def test_strategic_merge_patch_pod(patch: dict[str, Any], path: tuple[Any, ...], expected: Any) -> None:
    result = smp(patch)
    for step in path:
        result = result[step]
    assert canon(result) == canon(expected)


def test_strategic_new_list_items_go_before_server_only_items() -> None:
    """Upstream's mergeSortedSlice places patch items first when the server has no order for them."""
    result = smp({"spec": {"containers": [{"name": "new", "image": "x"}]}})
    assert names(result["spec"]["containers"]) == ["new", "main", "sidecar"]


def test_strategic_set_element_order_follows_go_slice_aliasing() -> None:
    """Deletions shift the caller's Go backing array; the final ordering sees that shifted view."""
    target = {"containers": [{"name": "a"}, {"name": "b", "x": 1}, {"name": "d", "x": 2}]}
    patch = {"$setElementOrder/containers": [{"name": "b"}, {"name": "c"}],
             "containers": [{"name": "c"}, {"name": "a", "$patch": "delete"}]}
    assert names(strategic_merge_patch(target, patch, schemas._POD_SPEC)["containers"]) == ["b", "d", "c"]


def test_strategic_job_template_and_conditions() -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
           "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "a", "env": [{"name": "X"}]}]}}},
           "status": {"conditions": [{"type": "Suspended", "status": "True"}]}}
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "c", "env": [{"name": "Y", "value": "1"}]}]}}},
             "status": {"conditions": [{"type": "Suspended", "status": "False"},
                                       {"type": "Complete", "status": "True"}]}}
    result = strategic_merge_patch(job, patch, JOB_SCHEMA)
    assert result["spec"]["template"]["spec"]["containers"] == [
        {"name": "c", "image": "a", "env": [{"name": "Y", "value": "1"}, {"name": "X"}]}]
    assert result["status"]["conditions"] == [{"type": "Suspended", "status": "False"},
                                              {"type": "Complete", "status": "True"}]
    generic = strategic_merge_patch(job, patch, GENERIC_METADATA_SCHEMA)
    assert generic["status"]["conditions"] == patch["status"]["conditions"]
    assert generic["spec"]["template"]["spec"]["containers"] == [{"name": "c", "env": [{"name": "Y", "value": "1"}]}]


def test_strategic_node_and_service_schemas() -> None:
    node = {"spec": {"podCIDRs": ["10.0.0.0/24"], "taints": [{"key": "a", "effect": "NoSchedule"}]},
            "status": {"conditions": [{"type": "Ready", "status": "True"}], "addresses": [
                {"type": "InternalIP", "address": "1.1.1.1"}]}}
    result = strategic_merge_patch(node, {
        "spec": {"podCIDRs": ["fd00::/64"], "taints": []},
        "status": {"conditions": [{"type": "Ready", "status": "Unknown"}],
                   "addresses": [{"type": "Hostname", "address": "n1"}]}}, NODE_SCHEMA)
    assert result["spec"] == {"podCIDRs": ["fd00::/64", "10.0.0.0/24"], "taints": []}
    assert result["status"]["conditions"] == [{"type": "Ready", "status": "Unknown"}]
    assert [a["type"] for a in result["status"]["addresses"]] == ["Hostname", "InternalIP"]
    svc = {"spec": {"ports": [{"port": 80, "targetPort": 8080}, {"port": 443}], "selector": {"app": "a"}}}
    result = strategic_merge_patch(svc, {"spec": {"ports": [{"port": 80, "name": "http"}]}}, SERVICE_SCHEMA)
    assert result["spec"]["ports"] == [{"port": 80, "targetPort": 8080, "name": "http"}, {"port": 443}]


def test_strategic_replace_strategy_map() -> None:
    """PodDisruptionBudget ``spec.selector`` carries ``patchStrategy=replace``."""
    pdb = {"spec": {"selector": {"matchLabels": {"a": "1"}, "matchExpressions": []}, "minAvailable": 1}}
    patch = {"spec": {"selector": {"matchLabels": {"b": "2"}}}}
    result = strategic_merge_patch(pdb, patch, schema_for("poddisruptionbudgets.policy") or GENERIC_METADATA_SCHEMA)
    assert result["spec"] == {"selector": {"matchLabels": {"b": "2"}}, "minAvailable": 1}
    merged = strategic_merge_patch(pdb, patch, GENERIC_METADATA_SCHEMA)
    assert merged["spec"]["selector"] == {"matchLabels": {"a": "1", "b": "2"}, "matchExpressions": []}


@pytest.mark.parametrize(("patch", "code", "message"), [
    pytest.param({"spec": {"containers": [{"name": "main", "$patch": "merge"}]}}, 500,
                 "merging lists cannot yet be specified in the patch", id="list-patch-merge"),
    pytest.param({"spec": {"containers": [{"name": "main", "$patch": "frob"}]}}, 500,
                 "unknown patch type: frob in map: map[$patch:frob name:main]", id="list-unknown-directive"),
    pytest.param({"spec": {"nodeSelector": {"$patch": "merge", "a": "b"}}}, 500,
                 "unknown patch type: merge in map: map[$patch:merge a:b]", id="map-patch-merge"),
    pytest.param({"spec": {"nodeSelector": {"$patch": 1}}}, 500,
                 "unknown patch type: %!s(int64=1) in map: map[$patch:1]", id="map-directive-not-string"),
    pytest.param({"spec": {"containers": [{"image": "x", "cpu": 1e-07, "n": 1234567.0}]}}, 500,
                 "map: map[cpu:1e-07 image:x n:1.234567e+06] does not contain declared merge key: name",
                 id="missing-merge-key"),
    pytest.param({"spec": {"containers": [{"image": "x", "$patch": "delete"}]}}, 500,
                 "map: map[$patch:delete image:x] does not contain declared merge key: name",
                 id="delete-without-merge-key"),
    pytest.param({"metadata": {"finalizers": [1]}}, 500,
                 f"list element types are not identical: [[{JOB_TRACKING} example.com/keep] [1]]",
                 id="mixed-element-types"),
    pytest.param({"spec": {"$setElementOrder/containers": [{"name": "main"}, {"name": "sidecar"}],
                           "containers": [{"name": "sidecar"}, {"name": "main"}]}}, 500,
                 "The order in patch list:\n[map[name:sidecar] map[name:main]]\n doesn't match $setElementOrder "
                 "list:\n[map[name:main] map[name:sidecar]]\n", id="set-element-order-mismatch"),
    pytest.param({"spec": {"$setElementOrder/containers": "x"}}, 500,
                 "expected a []interface {}, but received a string", id="set-element-order-not-list"),
    pytest.param({"metadata": {"$deleteFromPrimitiveListfinalizers": ["x"]}}, 400,
                 "invalid patch format of primitive list", id="bad-delete-list-key"),
    pytest.param({"spec": {"$setElementOrderX/containers": []}}, 400,
                 "invalid patch format of setElementOrder list", id="bad-order-key"),
    pytest.param({"spec": {"$retainKeys": "name"}}, 400, "invalid patch format of retainKeys",
                 id="retain-keys-not-list"),
    pytest.param({"spec": {"$retainKeys": ["containers"], "volumes": []}}, 400,
                 "invalid patch format of retainKeys", id="retain-keys-missing-field"),
])
def test_strategic_merge_patch_errors(patch: dict[str, Any], code: int, message: str) -> None:
    with pytest.raises(ApiError) as info:
        smp(patch)
    assert (info.value.code, info.value.message) == (code, message)
    if code == 500:
        assert isinstance(info.value, PatchInternalError)
        assert info.value.status == status(500, "", message)
    else:
        assert info.value.status == status(400, "BadRequest", message)


def test_strategic_list_of_lists_is_the_generic_422() -> None:
    with pytest.raises(PatchApplyError) as info:
        smp({"spec": {"containers": [[1]]}}, {"spec": {"containers": []}})
    assert info.value.detail == "lists of lists are not supported"
    assert info.value.status == status(422, "Invalid", GENERIC_422, details={})


def test_strategic_patch_body_must_be_an_object() -> None:
    assert smp(None) == JOB_POD  # type: ignore[arg-type]
    with pytest.raises(BadRequest) as info:
        smp(["x"])  # type: ignore[arg-type]
    assert info.value.message == "json: cannot unmarshal array into Go value of type map[string]interface {}"


# --------------------------------------------------------------------------- schema_for and dispatch


@pytest.mark.parametrize(("resource", "expected"), [
    ("pods", POD_SCHEMA), ("pods/status", POD_SCHEMA), ("jobs", JOB_SCHEMA), ("jobs.batch", JOB_SCHEMA),
    ("jobs.batch/status", JOB_SCHEMA), ("jobs/scale", GENERIC_METADATA_SCHEMA), ("nodes", NODE_SCHEMA),
    ("services", SERVICE_SCHEMA), ("configmaps", GENERIC_METADATA_SCHEMA),
    ("events.events.k8s.io", GENERIC_METADATA_SCHEMA), ("jobs.example.com", None),
    ("jobsets.jobset.x-k8s.io", None), ("jobsets", None), ("jobsets/status", None),
])
def test_schema_for(resource: str, expected: p.MergeSchema | None) -> None:
    assert schema_for(resource) is expected


@pytest.mark.parametrize("patch_type", [
    "strategic", p.STRATEGIC_MERGE_PATCH, f"{p.STRATEGIC_MERGE_PATCH}; charset=utf-8",
])
def test_apply_patch_strategic_content_types(patch_type: str) -> None:
    body = json.dumps({"metadata": {"$deleteFromPrimitiveList/finalizers": [JOB_TRACKING]}})
    result = apply_patch(JOB_POD, body.encode(), patch_type, resource="pods")
    assert result["metadata"]["finalizers"] == ["example.com/keep"]


@pytest.mark.parametrize(("patch_type", "body", "expected"), [
    ("merge", '{"metadata": {"finalizers": ["x"]}}', ["x"]),
    (p.MERGE_PATCH, {"metadata": {"finalizers": None}}, None),
    ("json", '[{"op": "add", "path": "/metadata/finalizers/-", "value": "x"}]',
     [JOB_TRACKING, "example.com/keep", "x"]),
    (p.JSON_PATCH, [{"op": "remove", "path": "/metadata/finalizers/0"}], ["example.com/keep"]),
])
def test_apply_patch_dispatch(patch_type: str, body: Any, expected: Any) -> None:
    for resource in ("pods", "jobsets.jobset.x-k8s.io"):
        assert apply_patch(JOB_POD, body, patch_type, resource=resource)["metadata"].get("finalizers") == expected


def test_apply_patch_unsupported_media_types() -> None:
    with pytest.raises(UnsupportedMediaType) as info:
        apply_patch(JOB_POD, "{}", "application/json", resource="pods")
    assert info.value.status == status(415, "UnsupportedMediaType", "415: Unsupported Media Type", details={})
    cr_message = ("the body of the request was in an unknown format - accepted media types include: "
                  "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
    for patch_type in (p.STRATEGIC_MERGE_PATCH, "application/json"):
        with pytest.raises(UnsupportedMediaType) as info:
            apply_patch(JOB_POD, "{}", patch_type, resource="jobsets.jobset.x-k8s.io")
        assert info.value.status == status(415, "UnsupportedMediaType", cr_message)
    with pytest.raises(UsageError):
        apply_patch(JOB_POD, "{}", p.APPLY_PATCH_YAML, resource="pods")


@pytest.mark.parametrize(("patch_type", "body", "code", "message"), [
    ("merge", "{bad", 400, "Invalid JSON Patch"),
    ("merge", "null", 400, "Invalid JSON Patch"),
    ("merge", '"x"', 400, "Invalid JSON Patch"),
    ("merge", "[1]", 422, ' "" is invalid: patch: Invalid value: "[1]": couldn\'t get version/kind; json parse '
     'error: json: cannot unmarshal array into Go value of type struct { APIVersion string '
     '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'),
    ("json", "", 400, "unexpected end of JSON input"),
    ("json", "[{]", 400, "invalid character ']' looking for beginning of object key string"),
    ("json", '{"op": "add"}', 400, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
    ("json", '[{"op": "replace", "path": "", "value": [1]}]', 422, ' "" is invalid: patch: Invalid value: '
     '"[1]": couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type '
     'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'),
    ("json", '[{"op": "test", "path": "/kind", "value": "Job"}]', 422, GENERIC_422),
    ("strategic", "[]", 400, "json: cannot unmarshal array into Go value of type map[string]interface {}"),
    ("strategic", '{"a" 1}', 400, "invalid character '1' after object key"),
    ("strategic", '{"a": 1,}', 400, "invalid character '}' looking for beginning of object key string"),
    ("strategic", '{"a": [1, ]}', 400, "invalid character ']' looking for beginning of value"),
    ("strategic", '{"a": 1 "b": 2}', 400, "invalid character '\"' after object key:value pair"),
    ("strategic", '{"a": [1 2]}', 400, "invalid character '2' after array element"),
    ("strategic", '{"a": tru}', 400, "invalid character '}' in literal true (expecting 'e')"),
    ("strategic", '{"a": NaN}', 400, "invalid character 'N' looking for beginning of value"),
    ("strategic", '{} x', 400, "invalid character 'x' after top-level value"),
    ("strategic", '{"a": "\\q"}', 400, "invalid character 'q' in string escape code"),
    ("strategic", '{"a": "x', 400, "unexpected end of JSON input"),
])
def test_apply_patch_body_errors(patch_type: str, body: str, code: int, message: str) -> None:
    with pytest.raises(ApiError) as info:
        apply_patch(JOB_POD, body, patch_type, resource="pods")
    assert (info.value.code, info.value.message) == (code, message)


def test_apply_patch_noop_returns_equal_copy() -> None:
    for patch_type, body in (("merge", "{}"), ("json", "[]"), ("json", "null"), ("strategic", "{}"),
                             ("strategic", "null")):
        result = apply_patch(JOB_POD, body, patch_type, resource="pods")
        assert result == JOB_POD and result is not JOB_POD


# --------------------------------------------------------------------------- properties

KEYS = st.sampled_from(["a", "b", "c", "metadata", "spec", "name", "type", "finalizers", "containers"])
SCALARS = st.booleans() | st.integers(-5, 5) | st.sampled_from(["", "x", "y"])
# JSON whose objects never hold null (a merge patch cannot express a null member); lists may.
NO_NULL_MEMBERS = st.recursive(
    SCALARS, lambda c: st.lists(c | st.none(), max_size=3) | st.dictionaries(KEYS, c, max_size=4), max_leaves=8)
ANY_JSON = st.recursive(
    SCALARS | st.none(), lambda c: st.lists(c, max_size=3) | st.dictionaries(KEYS, c, max_size=4), max_leaves=8)
NO_NULL_DOCS = st.dictionaries(KEYS, NO_NULL_MEMBERS, max_size=4)
DOCS = st.dictionaries(KEYS, ANY_JSON, max_size=4)
LIST_FREE = st.recursive(SCALARS | st.none(), lambda c: st.dictionaries(KEYS, c, max_size=3), max_leaves=8)
DIRECTIVE_KEYS = st.sampled_from(["$patch", "$retainKeys", "$setElementOrder/containers",
                                  "$deleteFromPrimitiveList/finalizers", "containers", "finalizers", "name"])
SMP_PATCHES = st.recursive(
    SCALARS | st.none() | st.sampled_from(["delete", "replace"]),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(DIRECTIVE_KEYS | KEYS, c, max_size=4), max_leaves=8)
POINTERS = st.sampled_from(["", "/", "/a", "/a/b", "/a/0", "/a/-", "/b/1", "/c/-1", "/metadata/name", "/x~1y"])
OPS = st.lists(st.fixed_dictionaries(
    {"op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test"]), "path": POINTERS},
    optional={"from": POINTERS, "value": ANY_JSON}), max_size=4)


def scrub(value: Any) -> None:
    """Empty every container in ``value``; any aliasing with an input then shows up."""
    if isinstance(value, dict):
        for v in value.values():
            scrub(v)
        value.clear()
    elif isinstance(value, list):
        for v in value:
            scrub(v)
        value.clear()


@settings(max_examples=25, deadline=None)
@given(NO_NULL_DOCS, NO_NULL_DOCS)
def test_merge_patch_round_trip(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert canon(json_merge_patch(a, create_merge_patch(a, b))) == canon(b)


@settings(max_examples=25, deadline=None)
@given(DOCS, ANY_JSON)
def test_merge_patch_never_mutates_or_aliases(target: dict[str, Any], patch: Any) -> None:
    before = canon([target, patch])
    scrub(json_merge_patch(target, patch))
    scrub(create_merge_patch(target, patch))
    assert canon([target, patch]) == before


@settings(max_examples=25, deadline=None)
@given(DOCS, OPS)
def test_json_patch_never_mutates_or_aliases(target: dict[str, Any], ops: list[dict[str, Any]]) -> None:
    before = canon([target, ops])
    try:
        scrub(json_patch(target, ops))
    except ApiError:
        pass
    assert canon([target, ops]) == before


@settings(max_examples=25, deadline=None)
@given(DOCS, st.dictionaries(DIRECTIVE_KEYS | KEYS, SMP_PATCHES, max_size=4))
def test_strategic_patch_never_mutates_or_aliases(target: dict[str, Any], patch: dict[str, Any]) -> None:
    target = {"metadata": target, "spec": dict(target)}
    wrapped = {"metadata": patch, "spec": patch}
    before = canon([target, wrapped])
    try:
        scrub(strategic_merge_patch(target, wrapped, POD_SCHEMA))
    except ApiError:
        pass
    assert canon([target, wrapped]) == before


@settings(max_examples=50, deadline=None)
@given(DOCS, st.dictionaries(DIRECTIVE_KEYS | KEYS, SMP_PATCHES, max_size=4))
def test_strategic_patch_sharing_gives_the_same_result_and_leaves_the_target_alone(
        target: dict[str, Any], patch: dict[str, Any]) -> None:
    """The API server's share=True path: same result (or the same error) as the copying path."""
    target = {"metadata": target, "spec": dict(target), "status": {"kept": [1, {"x": 2}]}}
    wrapped = {"metadata": patch, "spec": patch}
    before = canon([target, wrapped])
    outcomes = []
    for share in (False, True):
        try:
            outcomes.append(canon(strategic_merge_patch(target, wrapped, POD_SCHEMA, share=share)))
        except ApiError as exc:
            outcomes.append(f"error {exc.status}")
        assert canon([target, wrapped]) == before
    assert outcomes[0] == outcomes[1]


def test_strategic_patch_sharing_reuses_untouched_subtrees() -> None:
    target = {"metadata": {"name": "p", "finalizers": ["a", "b"], "labels": {"x": "1"}},
              "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Running"}}
    out = strategic_merge_patch(target, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}},
                                POD_SCHEMA, share=True)
    assert out["metadata"]["finalizers"] == ["b"] and target["metadata"]["finalizers"] == ["a", "b"]
    assert out["spec"] is target["spec"] and out["status"] is target["status"]
    assert out["metadata"]["labels"] is target["metadata"]["labels"]


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(KEYS, LIST_FREE, max_size=4), st.dictionaries(KEYS, LIST_FREE, max_size=4))
def test_strategic_equals_merge_patch_without_lists(target: dict[str, Any], patch: dict[str, Any]) -> None:
    assert canon(strategic_merge_patch(target, patch, POD_SCHEMA)) == canon(json_merge_patch(target, patch))



_texts = st.sampled_from(["a", "b", JOB_TRACKING, "", "$patch"])
_names = st.sampled_from(["finalizers", "labels", "$retainKeys", "$patch", "$deleteFromPrimitiveList/x"])
_values = st.one_of(st.lists(_texts, max_size=4), st.dictionaries(_texts, _texts, max_size=2), _texts, st.none(),
                    st.lists(st.one_of(_texts, st.integers(0, 1)), max_size=3))
_maps = st.dictionaries(_names, st.one_of(st.lists(_texts, max_size=4), _values), max_size=4)
_fields = st.sampled_from(["metadata", "spec", "$patch"])


@settings(max_examples=400, deadline=None)
@example(target={"metadata": {"$retainKeys": ["a", "b"], "name": "x"}}, field="metadata",
         directive="$deleteFromPrimitiveList/$retainKeys", removed=["a"], extra=False)
@example(target={"metadata": {"finalizers": ["a", "b", "a"]}, "$patch": "x"}, field="metadata",
         directive="$deleteFromPrimitiveList/finalizers", removed=["a"], extra=False)
@example(target={"metadata": {"finalizers": []}}, field="metadata",
         directive="$deleteFromPrimitiveList/finalizers", removed=[], extra=False)
@given(target=st.dictionaries(_fields, st.one_of(_maps, _maps, _values), max_size=3), field=_fields,
       directive=st.one_of(_names.map("$deleteFromPrimitiveList/".__add__),
                           st.sampled_from(["$deleteFromPrimitiveList", "$deleteFromPrimitiveListX/finalizers",
                                            "finalizers"])),
       removed=st.one_of(st.lists(_texts, max_size=3), _values), extra=st.booleans())
def test_a_primitive_list_deletion_takes_a_shortcut_equal_to_the_general_merge(
        target: dict[str, Any], field: str, directive: str, removed: Any, extra: bool) -> None:
    """The shortcut for ``{"<map>": {"$deleteFromPrimitiveList/<list>": [...]}}`` (the Job
    controller's finalizer removal) answers exactly what the general algorithm answers, key order
    included, or declines; neither touches the target."""
    from fakekube.machinery.patch import strategic

    patch: dict[str, Any] = {field: {directive: removed}}
    if extra:
        patch[field]["labels"] = {"a": "b"}
    before = json.dumps(target)
    quick = strategic._primitive_deletion(target, patch, POD_SCHEMA)
    if quick is None:
        return
    reference = strategic._merged(target, patch, POD_SCHEMA, True)
    assert json.dumps(quick) == json.dumps(reference)
    assert json.dumps(target) == before
    assert field in target and directive.startswith("$deleteFromPrimitiveList/")



@settings(max_examples=300, deadline=None)
@example(target={"a": 1, "$patch": "x", "b": {"c": 2}}, patch={"b": "y", "new": True})
@given(target=st.dictionaries(st.sampled_from(["a", "b", "count", "$patch", "$retainKeys"]),
                              st.one_of(_values, _maps), max_size=4),
       patch=st.dictionaries(st.sampled_from(["a", "b", "count", "new", "$patch", "$retainKeys"]),
                             st.one_of(_texts, st.integers(), st.floats(allow_nan=False), st.booleans(), _values),
                             max_size=3))
def test_a_patch_of_top_level_scalars_takes_a_shortcut_equal_to_the_general_merge(
        target: dict[str, Any], patch: dict[str, Any]) -> None:
    """The shortcut for a patch setting top-level scalars (an Event's count and timestamps)
    answers exactly what the general algorithm answers, key order included, or declines."""
    from fakekube.machinery.patch import strategic

    before = json.dumps(target)
    quick = strategic._scalar_fields(target, patch)
    if quick is None:
        return
    assert json.dumps(quick) == json.dumps(strategic._merged(target, patch, POD_SCHEMA, True))
    assert json.dumps(target) == before


def test_a_finalizer_removal_shares_what_it_does_not_touch() -> None:
    pod = {"metadata": {"name": "p", "finalizers": ["x", JOB_TRACKING], "labels": {"a": "b"}}, "spec": {"c": [1]}}
    patched = strategic_merge_patch(pod, {"metadata": {"$deleteFromPrimitiveList/finalizers": [JOB_TRACKING]}},
                                    POD_SCHEMA, share=True)
    assert patched == {"metadata": {"name": "p", "finalizers": ["x"], "labels": {"a": "b"}}, "spec": {"c": [1]}}
    assert patched["spec"] is pod["spec"] and patched["metadata"]["labels"] is pod["metadata"]["labels"]
    assert pod["metadata"]["finalizers"] == ["x", JOB_TRACKING]
