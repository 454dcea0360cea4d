"""Namespace lifecycle: the Namespace registry (``pkg/registry/core/namespace``), the
NamespaceLifecycle admission plugin, the ``/finalize`` subresource, and (simulated clusters) the
namespace controller (``pkg/controller/namespace``), with upstream's exact messages and times."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakekube import FakeCluster, Reactor
from fakekube.errors import ApiError, InternalError

WIDGETS = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "properties": {"spec": {"type": "object", "properties": {
                     "size": {"type": "integer"}}}}}}}]},
}
TERMINATING_CAUSE = {"reason": "NamespaceTerminating", "message": "namespace team is being terminated",
                     "field": "metadata.namespace"}


def namespace(name: str, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}, **extra}


def configmap(name: str, ns: str = "team", **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns, **meta}}


def error_of(call: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    with pytest.raises(ApiError) as info:
        call(*args, **kwargs)
    return info.value.status


def finalize(cluster: FakeCluster, name: str, finalizers: list[str]) -> dict[str, Any]:
    """``PUT /api/v1/namespaces/<name>/finalize`` with the live object and ``finalizers``."""
    body = cluster.get("Namespace", name)
    body["spec"] = {"finalizers": finalizers}
    result = cluster.api.update("namespaces", body, subresource="finalize")
    cluster.run_until_idle()
    return result


@pytest.fixture
def cluster() -> FakeCluster:
    """An API server only (as envtest): nobody removes content or the ``kubernetes`` finalizer."""
    c = FakeCluster(seed=0, simulate=False)
    c.create(namespace("team"))
    return c


# ---------------------------------------------------------------------- the Namespace registry
def test_a_namespace_is_created_active_with_the_kubernetes_finalizer(cluster: FakeCluster) -> None:
    ns = cluster.get("Namespace", "team")
    assert ns["spec"] == {"finalizers": ["kubernetes"]}
    assert ns["status"] == {"phase": "Active"}
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team"}
    # PrepareForCreate appends the kubernetes finalizer to the ones asked for.
    other = cluster.create(namespace("other", spec={"finalizers": ["example.com/hold"]}, status={"phase": "X"}))
    assert other["spec"] == {"finalizers": ["example.com/hold", "kubernetes"]}
    assert other["status"] == {"phase": "Active"}


def test_spec_finalizers_must_be_standard_or_qualified(cluster: FakeCluster) -> None:
    status = error_of(cluster.create, namespace("bad", spec={"finalizers": ["hold"]}))
    assert status["code"] == 422
    assert status["message"] == ('Namespace "bad" is invalid: spec.finalizers: Invalid value: "hold": '
                                 "name is neither a standard finalizer name nor is it fully qualified")


def test_delete_marks_the_namespace_terminating_and_keeps_it(cluster: FakeCluster) -> None:
    cluster.create(configmap("settings"))
    cluster.advance(10)
    returned = cluster.delete("Namespace", "team")
    stored = cluster.get("Namespace", "team")
    assert returned == stored  # ReturnDeletedObject: the namespace itself, not a Status
    assert stored["metadata"]["deletionTimestamp"] == "2030-01-01T00:00:10Z"
    assert "deletionGracePeriodSeconds" not in stored["metadata"]
    assert "finalizers" not in stored["metadata"]
    assert stored["spec"] == {"finalizers": ["kubernetes"]}
    assert stored["status"] == {"phase": "Terminating"}
    # Without the namespace controller (simulate=False, as under envtest) it stays Terminating.
    cluster.advance(3600)
    assert cluster.get("Namespace", "team")["status"] == {"phase": "Terminating"}
    assert cluster.exists("ConfigMap", "settings", "team")
    assert cluster.trace.grep("Namespace team") == [
        "t=00:00:00.000 create v1 Namespace team rv=5",
        "t=00:00:10.000 delete v1 Namespace team rv=7",
    ]


def test_a_second_delete_changes_nothing_while_spec_finalizers_remain(cluster: FakeCluster) -> None:
    first = cluster.delete("Namespace", "team")
    cluster.advance(5)
    again = cluster.delete("Namespace", "team", propagation_policy="Foreground")
    assert again == first
    assert cluster.get("Namespace", "team")["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


def test_propagation_policy_sets_the_metadata_finalizers_of_the_first_delete(cluster: FakeCluster) -> None:
    marked = cluster.delete("Namespace", "team", propagation_policy="Orphan")
    assert marked["metadata"]["finalizers"] == ["orphan"]
    assert marked["status"]["phase"] == "Terminating"


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
def test_the_immortal_namespaces_cannot_be_deleted(cluster: FakeCluster, name: str) -> None:
    status = error_of(cluster.delete, "Namespace", name)
    assert status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "message": f'namespaces "{name}" is forbidden: this namespace may not be deleted',
                      "reason": "Forbidden", "details": {"name": name, "kind": "namespaces"}, "code": 403}
    assert cluster.get("Namespace", name)["status"] == {"phase": "Active"}


def test_kube_node_lease_is_not_immortal(cluster: FakeCluster) -> None:
    assert cluster.delete("Namespace", "kube-node-lease")["status"] == {"phase": "Terminating"}


# ---------------------------------------------------------------------- NamespaceLifecycle admission
def test_no_new_content_in_a_terminating_namespace(cluster: FakeCluster) -> None:
    cluster.delete("Namespace", "team")
    status = error_of(cluster.create, configmap("late"))
    assert status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'configmaps "late" is forbidden: unable to create new content in namespace team because it '
                   "is being terminated",
        "reason": "Forbidden", "details": {"name": "late", "kind": "configmaps", "causes": [TERMINATING_CAUSE]},
        "code": 403}
    # Before a name is generated the message names the generateName; events are not exempt.
    generated = error_of(cluster.create, {"apiVersion": "v1", "kind": "ConfigMap",
                                          "metadata": {"generateName": "late-", "namespace": "team"}})
    assert generated["message"].startswith('configmaps "late-" is forbidden: unable to create new content')
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "team"},
             "involvedObject": {"kind": "Namespace", "name": "team"}, "reason": "R", "message": "m"}
    assert error_of(cluster.create, event)["details"]["causes"] == [TERMINATING_CAUSE]
    # A dry run is admitted the same way.
    assert error_of(cluster.client.create, configmap("dry"), dry_run=True)["code"] == 403


def test_updates_and_deletes_of_existing_content_are_allowed(cluster: FakeCluster) -> None:
    cluster.create(configmap("settings"))
    cluster.delete("Namespace", "team")
    cm = cluster.get("ConfigMap", "settings", "team")
    cm["data"] = {"k": "v"}
    assert cluster.update(cm)["data"] == {"k": "v"}
    cluster.delete("ConfigMap", "settings", "team")
    assert not cluster.exists("ConfigMap", "settings", "team")


def test_subresource_creates_are_content_too() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    cluster.create(namespace("team"))
    cluster.add_node("node-0")
    cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "team"},
                    "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    cluster.delete("Namespace", "team")
    status = error_of(cluster.client.bind, "p", "node-0", "team")
    assert status["message"] == ('pods "p" is forbidden: unable to create new content in namespace team because '
                                 "it is being terminated")
    assert status["details"]["causes"] == [TERMINATING_CAUSE]


def test_content_needs_an_existing_namespace(cluster: FakeCluster) -> None:
    status = error_of(cluster.create, configmap("x", ns="nowhere"))
    assert (status["code"], status["message"]) == (404, 'namespaces "nowhere" not found')


# ---------------------------------------------------------------------- spec.finalizers and /finalize
def test_only_finalize_changes_spec_finalizers(cluster: FakeCluster) -> None:
    ns = cluster.get("Namespace", "team")
    ns["spec"] = {"finalizers": []}
    ns["metadata"]["labels"]["tier"] = "a"
    updated = cluster.update(ns)
    assert updated["spec"] == {"finalizers": ["kubernetes"]}  # PrepareForUpdate keeps them
    assert updated["metadata"]["labels"]["tier"] == "a"
    status = error_of(cluster.patch, "Namespace", "team", {"spec": {"finalizers": []}}, subresource="finalize")
    assert (status["code"], status["reason"]) == (405, "MethodNotAllowed")


def test_finalize_validates_each_finalizer(cluster: FakeCluster) -> None:
    status = error_of(finalize, cluster, "team", ["kubernetes", "hold"])
    assert status["message"] == ('Namespace "team" is invalid: spec.finalizers[1]: Invalid value: "hold": '
                                 "name is neither a standard finalizer name nor is it fully qualified")


def test_finalize_keeps_status_and_removes_the_namespace_once_empty(cluster: FakeCluster) -> None:
    cluster.create(namespace("held", spec={"finalizers": ["example.com/hold"]}))
    cluster.advance(7)
    cluster.delete("Namespace", "held")
    after = finalize(cluster, "held", ["example.com/hold"])  # the kubernetes finalizer goes
    assert after["spec"] == {"finalizers": ["example.com/hold"]}
    assert after["status"] == {"phase": "Terminating"}
    removed = finalize(cluster, "held", [])
    assert removed["spec"] == {}  # omitempty
    assert not cluster.exists("Namespace", "held")
    assert cluster.trace.grep("Namespace/finalize held") == ["t=00:00:07.000 update v1 Namespace/finalize held rv=8"]
    assert cluster.trace.lines[-1] == "t=00:00:07.000 delete v1 Namespace held rv=9 (removed)"


def test_metadata_finalizers_still_hold_a_finalized_namespace(cluster: FakeCluster) -> None:
    cluster.create(namespace("held", metadata={"name": "held", "finalizers": ["example.com/hold"]}))
    cluster.delete("Namespace", "held")
    finalize(cluster, "held", [])
    ns = cluster.get("Namespace", "held")
    assert ns["spec"] == {} and ns["metadata"]["finalizers"] == ["example.com/hold"]
    ns["metadata"]["finalizers"] = []
    cluster.update(ns)
    assert not cluster.exists("Namespace", "held")


def test_a_namespace_finalized_while_active_needs_a_second_delete(cluster: FakeCluster) -> None:
    finalize(cluster, "team", [])
    assert cluster.get("Namespace", "team")["status"] == {"phase": "Active"}
    assert cluster.delete("Namespace", "team")["status"] == {"phase": "Terminating"}  # REST.Delete only marks
    assert cluster.delete("Namespace", "team")["metadata"]["name"] == "team"  # the removed object
    assert not cluster.exists("Namespace", "team")


def test_status_phase_follows_the_deletion_timestamp(cluster: FakeCluster) -> None:
    ns = cluster.get("Namespace", "team")
    ns["status"] = {"phase": "Terminating"}
    status = error_of(cluster.update_status, ns)
    assert status["message"] == ('Namespace "team" is invalid: status.Phase: Invalid value: "Terminating": '
                                 "may only be 'Active' if `deletionTimestamp` is empty")
    cluster.delete("Namespace", "team")
    ns = cluster.get("Namespace", "team")
    ns["status"] = {}  # defaulted to Active
    status = error_of(cluster.update_status, ns)
    assert status["message"] == ('Namespace "team" is invalid: status.Phase: Invalid value: "Active": '
                                 "may only be 'Terminating' if `deletionTimestamp` is not empty")


def test_finalize_over_http(cluster: FakeCluster) -> None:
    cluster.delete("Namespace", "team")
    with cluster.serve() as server:
        conn = server.connect(timeout=10)
        body = cluster.get("Namespace", "team")
        body["spec"] = {"finalizers": []}
        conn.request("PUT", "/api/v1/namespaces/team/finalize", body=json.dumps(body),
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        answer = json.loads(resp.read())
        conn.close()
    assert resp.status == 200
    assert answer["metadata"]["name"] == "team" and answer["spec"] == {}
    assert not cluster.exists("Namespace", "team")


# ---------------------------------------------------------------------- the namespace controller
T = "2030-01-01T00:00:{:02d}Z".format
OK = {  # the conditions of a deletion that has nothing left to wait for, as of t=15
    "NamespaceDeletionDiscoveryFailure": ("False", "ResourcesDiscovered", "All resources successfully discovered"),
    "NamespaceDeletionGroupVersionParsingFailure": ("False", "ParsedGroupVersions",
                                                    "All legacy kube types successfully parsed"),
    "NamespaceDeletionContentFailure": ("False", "ContentDeleted",
                                        "All content successfully deleted, may be waiting on finalization"),
    "NamespaceContentRemaining": ("False", "ContentRemoved", "All content successfully removed"),
    "NamespaceFinalizersRemaining": ("False", "ContentRemoved", "All content successfully removed"),
}


def conditions(**changed: tuple[str, str, str, int]) -> list[dict[str, Any]]:
    """The five deletion conditions in upstream's order: OK ones set at t=15, ``changed`` as
    ``Type=(status, reason, message, lastTransition second)``."""
    out = []
    for ctype, (status, reason, message) in OK.items():
        second = 15
        if ctype in changed:
            status, reason, message, second = changed[ctype]
        out.append({"type": ctype, "status": status, "lastTransitionTime": T(second), "reason": reason,
                    "message": message})
    return out


def status_writes(cluster: FakeCluster, watch: Any, name: str = "team") -> list[dict[str, Any]]:
    """Each distinct status with conditions the namespace had, in order (once the watch caught up)."""
    cluster.run_until_idle()
    seen: list[dict[str, Any]] = []
    for event in watch:
        status = event.object.get("status") or {}
        if event.object["metadata"]["name"] == name and status.get("conditions") and status not in seen:
            seen.append(status)
    return seen


def namespace_lines(cluster: FakeCluster) -> list[str]:
    return [line for line in cluster.trace.lines if ("Namespace" in line and " team" in line)
            or "namespace-controller" in line]


@pytest.fixture
def simulated() -> FakeCluster:
    c = FakeCluster(seed=0)
    c.add_nodes(1)
    c.create(namespace("team"))
    return c


def test_an_emptied_namespace_goes_5_seconds_after_its_deletion(simulated: FakeCluster) -> None:
    simulated.create(configmap("settings"))
    simulated.advance(10)
    watch = simulated.watch("Namespace")
    simulated.delete("Namespace", "team")
    assert simulated.run_until(lambda: not simulated.exists("Namespace", "team"), timeout=60) == 15.0
    assert not simulated.exists("ConfigMap", "settings", "team")
    assert status_writes(simulated, watch) == [{"phase": "Terminating", "conditions": conditions()}]
    assert namespace_lines(simulated) == [
        "t=00:00:00.000 create v1 Namespace team rv=6",
        "t=00:00:10.000 delete v1 Namespace team rv=8",
        "t=00:00:15.000 update v1 Namespace/status team rv=10",  # the conditions, then PUT /finalize
        "t=00:00:15.000 delete v1 Namespace team rv=11 (removed)",
    ]


def test_pods_terminate_gracefully_and_the_namespace_waits_for_them(simulated: FakeCluster) -> None:
    # A pod that ignores SIGTERM: killed at the end of its 30 s grace period.
    simulated.create({"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": "p", "namespace": "team",
                                   "annotations": {"fakekube.io/termination-seconds": "40"}},
                      "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    simulated.advance(10)
    watch = simulated.watch("Namespace")
    simulated.delete("Namespace", "team")
    assert simulated.run_until(lambda: not simulated.exists("Namespace", "team"), timeout=600) == 52.0
    remaining = ("True", "SomeResourcesRemain", "Some resources are remaining: pods. has 1 resource instances", 15)
    assert status_writes(simulated, watch) == [
        {"phase": "Terminating", "conditions": conditions(NamespaceContentRemaining=remaining)},
        {"phase": "Terminating", "conditions": conditions(
            NamespaceContentRemaining=("False", "ContentRemoved", "All content successfully removed", 52))},
    ]
    # Waits of 30 / 2 + 1 s, or 5 s after the namespace changed, whichever comes first.
    waiting = ("namespace-controller sync /team: some content remains in the namespace, estimate 30 seconds "
               "before it is removed (retry in 16s)")
    assert [line for line in simulated.trace.lines if "team" in line and "t=00:00:0" not in line] == [
        "t=00:00:10.000 delete v1 Namespace team rv=12",
        "t=00:00:15.000 delete v1 Event team/p.1a46e833366d9680 rv=13 (removed)",
        "t=00:00:15.000 delete v1 Pod team/p rv=14",
        "t=00:00:15.000 update v1 Namespace/status team rv=15",
        f"t=00:00:15.000 {waiting}",
        "t=00:00:15.000 kubelet team/p killing containers (grace 30s, exit 137 in 30s)",
        f"t=00:00:20.000 {waiting}",
        f"t=00:00:36.000 {waiting}",
        "t=00:00:45.000 kubelet team/p Failed (exit 137, Error)",
        "t=00:00:45.000 update v1 Pod/status team/p rv=16",
        "t=00:00:45.000 delete v1 Pod team/p rv=17 (removed)",
        "t=00:00:52.000 update v1 Namespace/status team rv=18",
        "t=00:00:52.000 delete v1 Namespace team rv=19 (removed)",
    ]


def test_the_same_seed_gives_the_same_namespace_deletion() -> None:
    def run() -> str:
        c = FakeCluster(seed=3)
        c.add_nodes(1)
        c.create(namespace("team"))
        c.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "p-", "namespace": "team"},
                  "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
        c.advance(3)
        c.delete("Namespace", "team")
        c.advance(60)
        return c.trace.text()

    first = run()
    assert "delete v1 Namespace team" in first and first == run()


def test_finalizers_on_content_hold_the_namespace(simulated: FakeCluster) -> None:
    simulated.create(configmap("held", finalizers=["example.com/hold"]))
    simulated.advance(10)
    watch = simulated.watch("Namespace")
    simulated.delete("Namespace", "team")
    simulated.advance_to(100)
    ns = simulated.get("Namespace", "team")
    assert ns["status"] == {"phase": "Terminating", "conditions": conditions(
        NamespaceContentRemaining=("True", "SomeResourcesRemain",
                                   "Some resources are remaining: configmaps. has 1 resource instances", 15),
        NamespaceFinalizersRemaining=("True", "SomeFinalizerRemain",
                                      "Some finalizers are remaining: example.com/hold in 1 resource instances", 15))}
    syncs = [line[2:14] for line in simulated.trace.lines if "namespace-controller sync" in line]
    assert syncs[:4] == ["00:00:15.000", "00:00:20.000", "00:00:28.000", "00:00:36.000"]  # 15 / 2 + 1 = 8 s
    assert all("estimate 15 seconds" in line for line in simulated.trace.grep("namespace-controller sync"))
    held = simulated.get("ConfigMap", "held", "team")
    held["metadata"]["finalizers"] = []
    simulated.update(held)  # at t=100, after the sync of t=100
    assert simulated.run_until(lambda: not simulated.exists("Namespace", "team"), timeout=60) == 108.0
    assert len(status_writes(simulated, watch)) == 2


def test_a_failed_deletion_is_reported_and_retried_with_backoff(simulated: FakeCluster) -> None:
    simulated.create(configmap("settings"))
    simulated.inject(Reactor(verb="delete", resource="configmaps", times=2, error=InternalError("etcd is sad")))
    simulated.advance(10)
    watch = simulated.watch("Namespace")
    simulated.delete("Namespace", "team")
    assert simulated.run_until(lambda: not simulated.exists("Namespace", "team"), timeout=60) == 15.015
    failed = ("True", "ContentDeletionFailed", "Failed to delete all resource types, 1 remaining: etcd is sad", 15)
    assert status_writes(simulated, watch) == [
        {"phase": "Terminating", "conditions": conditions(NamespaceDeletionContentFailure=failed)},
        {"phase": "Terminating", "conditions": conditions()},
    ]
    assert simulated.trace.grep("namespace-controller") == [
        "t=00:00:15.000 namespace-controller sync /team error: etcd is sad (retry in 0.005s)",
        "t=00:00:15.005 namespace-controller sync /team error: etcd is sad (retry in 0.01s)",
    ]


def test_custom_resources_are_content_too(simulated: FakeCluster) -> None:
    simulated.create(WIDGETS)
    simulated.create({"apiVersion": "example.com/v1", "kind": "Widget",
                      "metadata": {"name": "w", "namespace": "team"}, "spec": {"size": 1}})
    simulated.delete("Namespace", "team")
    assert simulated.run_until(lambda: not simulated.exists("Namespace", "team"), timeout=60) == 5.0
    assert simulated.trace.grep("Widget") == [
        "t=00:00:00.000 create example.com/v1 Widget team/w rv=8",
        "t=00:00:05.000 delete example.com/v1 Widget team/w rv=10 (removed)",
    ]


def test_the_controller_removes_only_the_kubernetes_finalizer(simulated: FakeCluster) -> None:
    simulated.create(namespace("held", spec={"finalizers": ["example.com/b", "example.com/a"]}))
    simulated.delete("Namespace", "held")
    simulated.advance(60)
    ns = simulated.get("Namespace", "held")
    assert ns["spec"] == {"finalizers": ["example.com/a", "example.com/b"]}  # a sorted set, as upstream
    assert ns["status"]["phase"] == "Terminating"
    assert simulated.trace.grep("Namespace/finalize held") == ["t=00:00:05.000 update v1 Namespace/finalize held rv=10"]
    finalize(simulated, "held", [])
    assert not simulated.exists("Namespace", "held")


def test_a_namespace_with_a_running_job_is_emptied(simulated: FakeCluster) -> None:
    simulated.create({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "work", "namespace": "team"},
                      "spec": {"parallelism": 2, "completions": 2, "template": {"spec": {
                          "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}})
    simulated.advance(10)
    simulated.delete("Namespace", "team")
    assert simulated.run_until(lambda: not simulated.exists("Namespace", "team"), timeout=600) == 20.0
    assert simulated.list("Pod", "team") == [] and simulated.list("Job", "team") == []
