"""Request options every write takes: fieldValidation (Strict, Warn, Ignore) and dryRun."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from fakekube import BadRequest, FakeCluster, Invalid
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
                    "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "string"}}}},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                }},
                "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}}},
        }],
    },
}
CONFIGMAP_SCHEMA = {"type": "object", "properties": {
    "data": {"type": "object", "additionalProperties": {"type": "string"}}, "immutable": {"type": "boolean"}}}
APPLY = "application/apply-patch+yaml"


@pytest.fixture
def cluster() -> FakeCluster:
    c = FakeCluster(seed=0, simulate=False)
    c.create(CRD)
    rt = c.api.registry.by_key("configmaps")
    assert rt is not None
    c.api.registry.remove(rt)
    c.api.registry.add(dataclasses.replace(rt, schema=CONFIGMAP_SCHEMA))  # the hook, as a built-in kind
    return c


def widget(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


def cm(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, **fields}


# --------------------------------------------------------------------------- fieldValidation

UNKNOWN_WIDGET = widget(size=1, sise=2, items=[{"n": "a", "m": "b"}], free={"anything": 1})
WIDGET_UNKNOWN = ['unknown field "spec.items[0].m"', 'unknown field "spec.sise"']


def write(api: ApiServer, verb: str, body: dict[str, Any], validation: str | None, info: WriteInfo | None,
          **options: Any) -> dict[str, Any]:
    kind = "widgets.example.com" if body["kind"] == "Widget" else "configmaps"
    if verb == "create":
        return api.create(kind, body, field_validation=validation, info=info, **options)
    current = api.get(kind, body["metadata"]["name"], "default")
    if verb == "update":
        return api.update(kind, {**body, "metadata": current["metadata"]}, field_validation=validation, info=info,
                          **options)
    patch = {k: v for k, v in body.items() if k not in ("apiVersion", "kind", "metadata")}
    return api.patch(kind, body["metadata"]["name"], patch, namespace="default", field_validation=validation,
                     info=info, **options)


@pytest.mark.parametrize("verb", ["create", "update", "patch"])
@pytest.mark.parametrize("validation", ["Warn", None])
def test_warn_reports_each_unknown_field_and_drops_it(cluster: FakeCluster, verb: str, validation: str | None) -> None:
    if verb != "create":
        cluster.create(widget(size=0))
    info = WriteInfo()
    stored = write(cluster.api, verb, UNKNOWN_WIDGET, validation, info)
    assert info.warnings == WIDGET_UNKNOWN
    assert stored["spec"] == {"size": 1, "items": [{"n": "a"}], "free": {"anything": 1}}


@pytest.mark.parametrize("verb", ["create", "update", "patch"])
def test_ignore_says_nothing(cluster: FakeCluster, verb: str) -> None:
    if verb != "create":
        cluster.create(widget(size=0))
    info = WriteInfo()
    write(cluster.api, verb, UNKNOWN_WIDGET, "Ignore", info)
    assert info.warnings == []


@pytest.mark.parametrize("verb", ["create", "update"])
def test_strict_rejects_a_create_or_update_as_undecodable(cluster: FakeCluster, verb: str) -> None:
    if verb != "create":
        cluster.create(widget(size=0))
    rv = cluster.api.store.rv
    with pytest.raises(BadRequest) as err:
        write(cluster.api, verb, UNKNOWN_WIDGET, "Strict", None)
    assert err.value.message == ('Widget in version "v1" cannot be handled as a Widget: strict decoding error: '
                                 'unknown field "spec.items[0].m", unknown field "spec.sise"')
    assert cluster.api.store.rv == rv


def test_strict_rejects_a_patch_as_invalid(cluster: FakeCluster) -> None:
    cluster.create(widget(size=0))
    with pytest.raises(Invalid) as err:
        write(cluster.api, "patch", widget(sise=2), "Strict", None)
    message = err.value.message
    assert message.startswith(' "" is invalid: patch: Invalid value: "{')
    assert message.endswith('}": strict decoding error: unknown field "spec.sise"')
    assert err.value.code == 422
    assert [c["field"] for c in err.value.causes] == ["patch"]


def test_strict_patch_shows_a_strategic_merge_patch_as_go_prints_it(cluster: FakeCluster) -> None:
    cluster.create(cm(data={"a": "1"}))
    with pytest.raises(Invalid) as err:
        cluster.api.patch("configmaps", "c", {"dataz": {"x": 1}}, namespace="default", patch_type="strategic",
                          field_validation="Strict")
    assert err.value.message == (' "" is invalid: patch: Invalid value: "map[dataz:map[x:1]]": strict decoding '
                                 'error: unknown field "dataz"')


@pytest.mark.parametrize(("validation", "outcome"), [
    ("Strict", 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: '
               'unknown field "dataz", unknown field "metadata.labelz"'),
    ("Warn", ['unknown field "dataz"', 'unknown field "metadata.labelz"']),
    ("Ignore", []),
])
def test_a_built_in_kind_with_a_schema_hook_validates_fields(cluster: FakeCluster, validation: str,
                                                             outcome: Any) -> None:
    body = cm(data={"a": "1"}, dataz=1)
    body["metadata"]["labelz"] = {}
    info = WriteInfo()
    if isinstance(outcome, str):
        with pytest.raises(BadRequest, match=f"^{outcome}$"):
            cluster.api.create("configmaps", body, field_validation=validation, info=info)
    else:
        cluster.api.create("configmaps", body, field_validation=validation, info=info)
        assert info.warnings == outcome


@pytest.mark.parametrize("verb", ["update", "patch"])
def test_a_built_in_kind_with_a_schema_hook_warns_on_update_and_patch(cluster: FakeCluster, verb: str) -> None:
    cluster.create(cm(data={"a": "1"}))
    info = WriteInfo()
    write(cluster.api, verb, cm(data={"a": "2"}, dataz=1), None, info)
    assert info.warnings == ['unknown field "dataz"']
    with pytest.raises(BadRequest if verb == "update" else Invalid, match=r'unknown field "dataz"$'):
        write(cluster.api, verb, cm(data={"a": "2"}, dataz=1), "Strict", None)


def test_built_in_kinds_are_checked_against_their_generated_schema(cluster: FakeCluster) -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
               "spec": {"ports": [{"port": 80, "protocl": "TCP"}], "bogus": 1}}
    with pytest.raises(BadRequest) as err:
        cluster.api.create("services", service, field_validation="Strict", info=WriteInfo())
    assert err.value.message == ('Service in version "v1" cannot be handled as a Service: strict decoding error: '
                                 'unknown field "spec.bogus", unknown field "spec.ports[0].protocl"')
    info = WriteInfo()
    cluster.api.create("services", service, field_validation="Warn", info=info)
    assert info.warnings == ['unknown field "spec.bogus"', 'unknown field "spec.ports[0].protocl"']


def test_warnings_are_not_repeated(cluster: FakeCluster) -> None:
    info = WriteInfo()
    info.warn("x")
    info.warn("x")
    assert info.warnings == ["x"]


# --------------------------------------------------------------------------- dryRun

Action = Callable[[ApiServer], dict[str, Any]]


def _update(api: ApiServer) -> dict[str, Any]:
    return api.update("configmaps", {**api.get("configmaps", "c", "default"), "data": {"a": "changed"}},
                      dry_run=True, field_manager="m")


DRY_RUNS: dict[str, tuple[Action, Callable[[dict[str, Any]], bool]]] = {
    "create": (lambda api: api.create("configmaps", cm(metadata={"name": "new"}), dry_run=True, field_manager="m"),
               lambda r: r["metadata"]["name"] == "new" and bool(r["metadata"]["uid"])),
    "create generateName": (lambda api: api.create("configmaps", cm(metadata={"generateName": "g-"}), dry_run=True),
                            lambda r: r["metadata"]["name"].startswith("g-")),
    "update": (_update, lambda r: r["data"] == {"a": "changed"}),
    "update status": (lambda api: api.update("widgets.example.com", {**api.get("widgets.example.com", "w", "default"),
                                                                     "status": {"phase": "Up"}},
                                             subresource="status", dry_run=True),
                      lambda r: r["status"] == {"phase": "Up"}),
    "merge patch": (lambda api: api.patch("configmaps", "c", {"data": {"a": "p"}}, namespace="default", dry_run=True),
                    lambda r: r["data"] == {"a": "p"}),
    "json patch": (lambda api: api.patch("configmaps", "c", [{"op": "add", "path": "/data/b", "value": "x"}],
                                         namespace="default", patch_type="json", dry_run=True),
                   lambda r: r["data"] == {"a": "1", "b": "x"}),
    "apply (update)": (lambda api: api.patch("widgets.example.com", "w", widget(size=9), namespace="default",
                                             patch_type=APPLY, field_manager="m", force=True, dry_run=True),
                       lambda r: r["spec"] == {"size": 9} and r["metadata"]["managedFields"][0]["manager"] == "m"),
    "apply (create)": (lambda api: api.patch("widgets.example.com", "w2", {**widget(size=9), "metadata": {"name": "w2"}},
                                             namespace="default", patch_type=APPLY, field_manager="m", dry_run=True),
                       lambda r: r["metadata"]["name"] == "w2"),
    "delete": (lambda api: api.delete("configmaps", "c", namespace="default", dry_run=True),
               lambda r: r["status"] == "Success"),
    "delete with finalizer": (lambda api: api.delete("widgets.example.com", "w", namespace="default", dry_run=True),
                              lambda r: bool(r["metadata"].get("deletionTimestamp"))),
}


@pytest.mark.parametrize("verb", list(DRY_RUNS))
def test_dry_run_answers_as_the_write_would_and_changes_nothing(cluster: FakeCluster, verb: str) -> None:
    cluster.create(cm(data={"a": "1"}))
    finalized = widget(size=1)
    finalized["metadata"]["finalizers"] = ["example.com/keep"]
    cluster.create(finalized)
    events: list[Any] = []
    for kind in ("configmaps", "widgets.example.com"):
        cluster.api.watch(kind, events.append, namespace="default", resource_version=str(cluster.api.store.rv))
    before = (cluster.api.store.rv, cluster.api.writes, cluster.trace.text(),
              cluster.list("configmaps", "default"), cluster.list("widgets.example.com", "default"))
    action, answered = DRY_RUNS[verb]
    result = action(cluster.api)
    cluster.run_until_idle()
    assert answered(result)
    assert (cluster.api.store.rv, cluster.api.writes, cluster.trace.text(),
            cluster.list("configmaps", "default"), cluster.list("widgets.example.com", "default")) == before
    assert events == []
    result.clear()  # the answer is the caller's own: mutating it leaves the store alone
    assert cluster.list("configmaps", "default") == before[3]
