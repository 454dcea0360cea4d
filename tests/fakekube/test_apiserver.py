"""API server semantics, through the harness, with the exact Status objects Kubernetes returns."""

from __future__ import annotations

import pytest

from fakekube import (
    AlreadyExists,
    ApiError,
    ApiWarning,
    BadRequest,
    Conflict,
    FakeCluster,
    Invalid,
    NotFound,
    Reactor,
    UsageError,
)
from fakekube.testing import make_configmap


@pytest.fixture
def cluster() -> FakeCluster:
    return FakeCluster(seed=0, simulate=False)


cm = make_configmap


def pod(name: str = "p", **extra: object) -> dict:
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]}}
    body.update(extra)  # type: ignore[arg-type]
    return body


def job(name: str = "j") -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": {"spec": {"restartPolicy": "Never",
                                           "containers": [{"name": "main", "image": "busybox:1.36"}]}}}}


def test_create_fills_system_fields(cluster: FakeCluster) -> None:
    created = cluster.create(cm())
    meta = created["metadata"]
    assert meta["namespace"] == "default"
    assert meta["creationTimestamp"] == "2030-01-01T00:00:00Z"
    assert len(meta["uid"]) == 36
    assert int(meta["resourceVersion"]) == cluster.api.store.rv


def test_returned_objects_are_copies(cluster: FakeCluster) -> None:
    created = cluster.create(cm(a="1"))
    created["data"]["a"] = "mutated"
    fetched = cluster.get("ConfigMap", "c")
    fetched["data"]["a"] = "mutated too"
    assert cluster.get("configmaps", "c")["data"] == {"a": "1"}


def test_kind_names_resolve_every_way(cluster: FakeCluster) -> None:
    cluster.create(job())
    for name in ("Job", "job", "jobs", "jobs.batch"):
        assert cluster.get(name, "j")["metadata"]["name"] == "j"


def test_unknown_kind_is_a_usage_error_naming_what_is_served(cluster: FakeCluster) -> None:
    with pytest.raises(UsageError, match=r"unknown resource kind 'Widget'.*serves: .*Pod"):
        cluster.get("Widget", "x")


def test_not_found_status_shape(cluster: FakeCluster) -> None:
    with pytest.raises(NotFound) as err:
        cluster.get("Job", "nope")
    assert err.value.status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'jobs.batch "nope" not found', "reason": "NotFound",
        "details": {"name": "nope", "group": "batch", "kind": "jobs"}, "code": 404}


def test_create_collision_is_already_exists(cluster: FakeCluster) -> None:
    cluster.create(pod())
    with pytest.raises(AlreadyExists) as err:
        cluster.create(pod())
    assert err.value.message == 'pods "p" already exists'
    assert err.value.code == 409


def test_stale_update_is_a_conflict_with_the_real_message(cluster: FakeCluster) -> None:
    first = cluster.create(cm(a="1"))
    stale = dict(first, data={"a": "2"})
    cluster.update(dict(first, data={"a": "3"}))
    with pytest.raises(Conflict) as err:
        cluster.update(stale)
    assert err.value.message == ('Operation cannot be fulfilled on configmaps "c": the object has been modified; '
                                 "please apply your changes to the latest version and try again")


def test_no_op_update_keeps_the_resource_version_and_sends_no_event(cluster: FakeCluster) -> None:
    created = cluster.create(cm(a="1"))
    watch = cluster.watch("configmaps", resource_version=created["metadata"]["resourceVersion"])
    again = cluster.update(created)
    cluster.run_until_idle()
    assert again["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert watch.events == []


def test_create_with_resource_version_is_refused(cluster: FakeCluster) -> None:
    body = cm()
    body["metadata"]["resourceVersion"] = "5"
    with pytest.raises(ApiError, match="resourceVersion should not be set on objects to be created"):
        cluster.create(body)


def test_missing_namespace_is_not_found(cluster: FakeCluster) -> None:
    body = cm()
    body["metadata"]["namespace"] = "ghost"
    with pytest.raises(NotFound, match='namespaces "ghost" not found'):
        cluster.create(body)


def test_namespace_mismatch_is_bad_request(cluster: FakeCluster) -> None:
    body = cm()
    body["metadata"]["namespace"] = "kube-system"
    with pytest.raises(BadRequest, match="does not match the namespace sent on the request"):
        cluster.api.create("configmaps", body, namespace="default")


def test_invalid_name_is_422_with_causes(cluster: FakeCluster) -> None:
    with pytest.raises(Invalid) as err:
        cluster.create(cm("Bad_Name"))
    assert err.value.code == 422
    assert err.value.message.startswith('ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": '
                                        "a lowercase RFC 1123 subdomain")
    assert err.value.causes[0]["field"] == "metadata.name"
    assert err.value.causes[0]["reason"] == "FieldValueInvalid"


def test_generate_name_uses_the_kubernetes_alphabet_and_is_seeded() -> None:
    names = []
    for _ in range(2):
        c = FakeCluster(seed=3, simulate=False)
        body = cm("")
        body["metadata"] = {"generateName": "worker-"}
        names.append(c.create(body)["metadata"]["name"])
    assert names[0] == names[1]
    assert names[0].startswith("worker-") and len(names[0]) == len("worker-") + 5


def test_generation_bumps_only_on_spec_changes(cluster: FakeCluster) -> None:
    created = cluster.create(job())
    assert created["metadata"]["generation"] == 1
    labelled = cluster.patch("jobs", "j", {"metadata": {"labels": {"x": "y"}}})
    assert labelled["metadata"]["generation"] == 1
    scaled = cluster.patch("jobs", "j", {"spec": {"parallelism": 3}})
    assert scaled["metadata"]["generation"] == 2
    status = cluster.patch("jobs", "j", {"status": {"active": 1}}, subresource="status")
    assert status["metadata"]["generation"] == 2


def test_spec_changed_sees_every_field_outside_metadata_and_status() -> None:
    """What bumps ``generation``: any top-level field but metadata and status that differs,
    appears or goes."""
    from fakekube.apiserver.strategy import Strategy

    rule = Strategy()
    base = {"metadata": {"name": "a"}, "spec": {"x": 1}, "status": {}}
    assert not rule.spec_changed({**base, "metadata": {"name": "b"}, "status": {"y": 2}}, base)
    assert not rule.spec_changed({"spec": {"x": 1}}, base)
    assert rule.spec_changed({**base, "spec": {"x": 2}}, base)
    assert rule.spec_changed({**base, "data": 1}, base)
    assert rule.spec_changed(base, {**base, "data": 1})
    assert rule.spec_changed({"metadata": {}, "spec": {"x": 1}, "data": None}, {**base, "extra": None})


def test_status_subresource_separation(cluster: FakeCluster) -> None:
    created = cluster.create(job())
    created["status"] = {"active": 5}
    after_main = cluster.update(created)
    assert after_main["status"] == {}
    after_main["status"] = {"active": 1}
    after_main["spec"]["parallelism"] = 9
    after_status = cluster.update_status(after_main)
    assert after_status["status"] == {"active": 1}
    assert after_status["spec"]["parallelism"] == 1


def test_merge_patch_replaces_lists_and_json_patch_edits_them(cluster: FakeCluster) -> None:
    cluster.create(pod())
    merged = cluster.patch("pods", "p", {"metadata": {"finalizers": ["a.io/x"]}})
    assert merged["metadata"]["finalizers"] == ["a.io/x"]
    patched = cluster.patch("pods", "p", [{"op": "add", "path": "/metadata/finalizers/-", "value": "a.io/y"}],
                            patch_type="json")
    assert patched["metadata"]["finalizers"] == ["a.io/x", "a.io/y"]


def test_patch_with_stale_resource_version_conflicts(cluster: FakeCluster) -> None:
    created = cluster.create(cm())
    cluster.patch("configmaps", "c", {"data": {"a": "1"}})
    with pytest.raises(Conflict):
        cluster.patch("configmaps", "c", {"metadata": {"resourceVersion": created["metadata"]["resourceVersion"]},
                                          "data": {"a": "2"}})


def test_label_and_field_selectors(cluster: FakeCluster) -> None:
    for name, app in [("a", "x"), ("b", "y"), ("c", "x")]:
        body = pod(name)
        body["metadata"]["labels"] = {"app": app}
        cluster.create(body)
    assert [p["metadata"]["name"] for p in cluster.list("pods", label_selector="app=x")] == ["a", "c"]
    assert [p["metadata"]["name"] for p in cluster.list("pods", label_selector="app notin (x)")] == ["b"]
    assert [p["metadata"]["name"] for p in cluster.list("pods", field_selector="metadata.name!=a,status.phase=Pending")] == ["b", "c"]
    with pytest.raises(BadRequest, match=r"field label not supported: spec\.bogus"):
        cluster.list("pods", field_selector="spec.bogus=1")


def test_finalizers_hold_deletion_and_the_last_removal_deletes(cluster: FakeCluster) -> None:
    body = cm()
    body["metadata"]["finalizers"] = ["example.com/hold"]
    cluster.create(body)
    lingering = cluster.delete("configmaps", "c")
    assert lingering["metadata"]["deletionTimestamp"] == "2030-01-01T00:00:00Z"
    with pytest.raises(Invalid, match=r'no new finalizers can be added if the object is being deleted, found new '
                                      r'finalizers \[\]string\{"example.com/more"\}'):
        cluster.patch("configmaps", "c", {"metadata": {"finalizers": ["example.com/hold", "example.com/more"]}})
    cluster.patch("configmaps", "c", {"metadata": {"finalizers": None}})
    assert not cluster.exists("configmaps", "c")


def test_job_delete_defaults_to_orphan(cluster: FakeCluster) -> None:
    cluster.create(job())
    result = cluster.delete("jobs", "j")
    assert result["metadata"]["finalizers"] == ["orphan"]


def test_custom_resources_refuse_unconditional_update(cluster: FakeCluster) -> None:
    cluster.create(CRD)
    cluster.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}})
    with pytest.raises(Invalid, match=r'widgets.example.com "w" is invalid: metadata.resourceVersion: Invalid value: 0: '
                                      "must be specified for an update"):
        cluster.update({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 2}})


def test_an_update_of_a_custom_resource_keeps_the_system_fields(cluster: FakeCluster) -> None:
    """A PUT body without uid/creationTimestamp (as ``kubectl replace`` sends): the server's values stay."""
    cluster.create(CRD)
    created = cluster.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                              "spec": {"size": 1}})
    meta = created["metadata"]
    updated = cluster.update({"apiVersion": "example.com/v1", "kind": "Widget",
                              "metadata": {"name": "w", "resourceVersion": meta["resourceVersion"]}, "spec": {"size": 2}})
    assert updated["spec"] == {"size": 2}
    for key in ("uid", "creationTimestamp"):
        assert updated["metadata"][key] == cluster.get("widgets", "w")["metadata"][key] == meta[key]


def test_crd_schema_defaults_and_validation(cluster: FakeCluster) -> None:
    cluster.create(CRD)
    with pytest.warns(ApiWarning, match='^unknown field "spec.unknown"$'):  # pruned, with kube-apiserver's warning
        created = cluster.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                                  "spec": {"unknown": True}})
    assert created["spec"] == {"size": 3}
    with pytest.raises(Invalid) as err:
        cluster.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "v"},
                        "spec": {"size": -1}})
    assert "spec.size in body should be greater than or equal to 0" in err.value.message
    assert cluster.get("wd", "w")["metadata"]["name"] == "w"


def test_strategic_merge_patch_on_custom_resource_is_415(cluster: FakeCluster) -> None:
    cluster.create(CRD)
    cluster.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {}})
    with pytest.raises(ApiError) as err:
        cluster.patch("widgets", "w", {"spec": {"size": 1}}, patch_type="strategic")
    assert err.value.code == 415


def test_watch_from_resource_version_replays_and_gone_when_compacted(cluster: FakeCluster) -> None:
    first = cluster.create(cm("a"))
    cluster.create(cm("b"))
    cluster.delete("configmaps", "a")
    stream = cluster.watch("configmaps", resource_version=first["metadata"]["resourceVersion"])
    cluster.run_until_idle()
    assert [(e.type, e.object["metadata"]["name"]) for e in stream.events] == [("ADDED", "b"), ("DELETED", "a")]
    cluster.api.store.compact()
    gone = cluster.watch("configmaps", resource_version=first["metadata"]["resourceVersion"])
    cluster.run_until_idle()
    assert gone.types() == ["ERROR"]
    assert gone.events[0].object["code"] == 410
    assert gone.events[0].object["reason"] == "Expired"


def test_label_selector_watch_sees_objects_enter_and_leave(cluster: FakeCluster) -> None:
    stream = cluster.watch("configmaps", label_selector="team=a")
    body = cm("x")
    cluster.create(body)
    cluster.patch("configmaps", "x", {"metadata": {"labels": {"team": "a"}}})
    cluster.patch("configmaps", "x", {"data": {"k": "v"}})
    cluster.patch("configmaps", "x", {"metadata": {"labels": {"team": "b"}}})
    cluster.run_until_idle()
    assert stream.types() == ["ADDED", "MODIFIED", "DELETED"]


def test_reactor_injects_a_conflict_on_the_nth_call(cluster: FakeCluster) -> None:
    cluster.create(cm())
    reactor = cluster.inject(Reactor(verb="patch", resource="configmaps", nth=2,
                                     error=Conflict("Operation cannot be fulfilled on configmaps \"c\": injected")))
    cluster.patch("configmaps", "c", {"data": {"a": "1"}})
    with pytest.raises(Conflict, match="injected"):
        cluster.patch("configmaps", "c", {"data": {"a": "2"}})
    cluster.patch("configmaps", "c", {"data": {"a": "3"}})
    assert (reactor.matched, reactor.fired) == (3, 1)


def test_apply_creates_then_updates_from_yaml(cluster: FakeCluster) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: '1'\n  b: '2'\n"
    cluster.apply(text)
    cluster.apply(text.replace("  b: '2'\n", ""))
    assert cluster.get("configmaps", "c")["data"] == {"a": "1"}


def test_apply_reports_malformed_yaml_as_usage_error(cluster: FakeCluster) -> None:
    with pytest.raises(UsageError, match="malformed YAML at line 2"):
        cluster.apply("kind: ConfigMap\n  bad: [\n")
    with pytest.raises(UsageError, match="apiVersion"):
        cluster.apply({"kind": "ConfigMap", "metadata": {"name": "x"}})


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com", "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
        "versions": [{
            "name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"size": {"type": "integer", "minimum": 0, "default": 3}}},
                "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}},
        }],
    },
}


def test_services_get_cluster_ips_in_allocation_order_and_headless_stays_none(cluster: FakeCluster) -> None:
    def svc(name: str, **spec: object) -> dict:
        return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
                "spec": {"selector": {"app": name}, "ports": [{"port": 80}], **spec}}

    first = cluster.create(svc("a"))
    second = cluster.create(svc("b"))
    headless = cluster.create(svc("c", clusterIP="None"))
    assert (first["spec"]["clusterIP"], second["spec"]["clusterIP"]) == ("10.96.0.10", "10.96.0.11")
    assert headless["spec"]["clusterIPs"] == ["None"]
    assert first["spec"]["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]


def test_kind_and_api_version_mismatch_are_bad_requests(cluster: FakeCluster) -> None:
    with pytest.raises(BadRequest, match=r"^the kind in the data \(Pod\) does not match the expected kind \(ConfigMap\)$"):
        cluster.api.create("configmaps", {"kind": "Pod", "metadata": {"name": "x"}})
    with pytest.raises(BadRequest, match=r"^the API version in the data \(v2\) does not match the expected API "
                                         r"version \(v1\)$"):
        cluster.api.create("configmaps", {"apiVersion": "v2", "metadata": {"name": "x"}})


def test_node_ips_are_never_reused_after_a_node_is_removed(cluster: FakeCluster) -> None:
    first = cluster.add_node("a")
    cluster.delete("nodes", "a", None)  # type: ignore[arg-type]
    second = cluster.add_node("b")
    ip = lambda n: n["status"]["addresses"][0]["address"]  # noqa: E731
    assert (ip(first), ip(second)) == ("10.0.0.2", "10.0.0.3")
