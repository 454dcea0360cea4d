"""fakekube.faults: the fault vocabulary shared by conformance timelines and hypothesis strategies."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import ApiError, Conflict, FakeCluster, NotFound, Reactor, UsageError
from fakekube.faults import (
    BreakWatch,
    ClearFaults,
    CompletePod,
    DelayDelivery,
    DeletePod,
    EvictPod,
    FailNode,
    FailPod,
    Inject,
    NoTarget,
    PodTarget,
    api_error,
    parse_fault,
)
from fakekube.testing import make_pod


def running_cluster() -> FakeCluster:
    """Pods a-0, a-1 (hostnames h0, h1, label app=a) running; b pending forever (no node fits)."""
    cluster = FakeCluster(seed=0)
    cluster.add_node("n0")
    for i in range(2):
        cluster.create(make_pod(f"a-{i}", labels={"app": "a"}, hostname=f"h{i}", restartPolicy="Never"))
    cluster.create(make_pod("b", labels={"app": "b"}, nodeSelector={"pool": "none"}))
    cluster.advance(2)
    return cluster


def phase(cluster: FakeCluster, name: str) -> str:
    return str(cluster.get("pods", name)["status"].get("phase"))


@pytest.mark.parametrize(("action", "spec", "expected"), [
    ("failPod", "h1", FailPod(PodTarget(name="h1"))),
    ("failPod", {"selector": "app=a", "all": True, "exitCode": 137, "reason": "OOMKilled"},
     FailPod(PodTarget(selector="app=a", all=True), exit_code=137, reason="OOMKilled")),
    ("completePod", {"hostname": "h0", "namespace": "team"}, CompletePod(PodTarget(hostname="h0", namespace="team"))),
    ("evictPod", {"selector": "app=a", "pick": 1}, EvictPod(PodTarget(selector="app=a", pick=1))),
    ("deletePod", "b", DeletePod(PodTarget(name="b"))),
    ("failNode", "n0", FailNode(name="n0")),
    ("failNode", {"pod": "h0"}, FailNode(pod=PodTarget(name="h0"))),
    ("breakWatch", {"kind": "Pod", "nth": 3}, BreakWatch("Pod", 3)),
    ("delayDelivery", {"kind": "jobs", "delaySeconds": "1m"}, DelayDelivery("jobs", 1, 60.0)),
    ("clearFaults", True, ClearFaults()),
])
def test_parse_fault_reads_the_timeline_vocabulary(action: str, spec: Any, expected: object) -> None:
    assert parse_fault(action, spec) == expected


def test_parse_inject_builds_a_reactor() -> None:
    fault = parse_fault("inject", {"verb": "update", "resource": "jobs", "times": 2,
                                   "error": {"code": 409, "message": "injected"}})
    assert isinstance(fault, Inject)
    r = fault.reactor
    assert (r.verb, r.resource, r.times, type(r.error), r.error.code if r.error else None) == (
        "update", "jobs", 2, Conflict, 409)
    delay = parse_fault("inject", {"resource": "pods", "delaySeconds": "1m30s"})
    assert isinstance(delay, Inject) and delay.reactor.delay_seconds == 90


@pytest.mark.parametrize(("action", "spec", "message"), [
    ("failPod", {"nmae": "x"}, r"failPod: unknown key\(s\) 'nmae'"),
    ("completePod", {"name": "x", "exitCode": 1}, r"unknown key\(s\) 'exitCode'"),
    ("failPod", {"selector": "a in"}, r"bad label selector 'a in'"),
    ("failPod", {"name": "x", "exitCode": "one"}, r"failPod.exitCode: expected an integer"),
    ("failNode", 3, r"failNode takes the name of an existing node"),
    ("inject", {"verb": "update"}, r"needs error=ApiError"),
    ("inject", {"error": {"code": 500}}, r"inject.error: missing required key\(s\) 'message'"),
    ("inject", {"delaySeconds": "soon"}, r"inject.delaySeconds: expected seconds"),
    ("breakWatch", {"nth": 2}, r"breakWatch: missing required key\(s\) 'kind'"),
    ("breakWatch", {"kind": "Pod", "nth": 0}, r"BreakWatch\(nth=...\) takes a positive int, got 0"),
    ("delayDelivery", {"kind": "Pod"}, r"delayDelivery: missing required key\(s\) 'delaySeconds'"),
    ("delayDelivery", {"kind": "Pod", "delaySeconds": 0}, r"takes a positive number of virtual seconds, got 0"),
    ("delayDelivery", {"kind": "Pod", "delaySeconds": "soon"}, r"delayDelivery.delaySeconds: expected seconds"),
    ("meteor", {}, r"unknown fault 'meteor'; known: failPod"),
])
def test_a_malformed_fault_is_a_usage_error(action: str, spec: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_fault(action, spec)


def test_api_error_is_the_class_of_the_code() -> None:
    assert type(api_error(404, "gone")) is NotFound
    assert (api_error(None, "boom").code, api_error(None, "boom").reason) == (500, "InternalError")
    assert type(api_error(418, "teapot")) is ApiError and api_error(418, "teapot").code == 418
    assert api_error(429, "slow down", "TooManyRequests").reason == "TooManyRequests"


def test_pod_targets_pick_running_or_live_pods_in_name_order() -> None:
    cluster = running_cluster()
    names = lambda target, running: [p["metadata"]["name"] for p in target.pods(cluster, running=running)]  # noqa: E731
    assert names(PodTarget(name="h1"), True) == ["a-1"]                    # a hostname when no pod has the name
    assert names(PodTarget(selector="app=a", pick=3), True) == ["a-1"]     # pick modulo the pods there are
    assert names(PodTarget(selector="app in (a,b)", all=True), False) == ["a-0", "a-1", "b"]
    with pytest.raises(NoTarget, match=r"no running pod matches \{'name': 'b'\}") as info:
        PodTarget(name="b").pods(cluster, running=True)                     # pending: nothing runs yet
    assert info.value.seen == ["b"]


def test_a_target_that_matches_no_pod_names_the_candidates_and_the_closest() -> None:
    cluster = running_cluster()
    with pytest.raises(NoTarget, match=r"no running pod matches \{'name': 'hh1'\}; did you mean 'h1'\?$") as info:
        PodTarget(name="hh1").pods(cluster, running=True)
    assert info.value.seen == []
    assert info.value.candidates == [("a-0", "h0"), ("a-1", "h1")]      # running pods: name and hostname
    with pytest.raises(NoTarget, match=r"\{'name': 'zzz'\}$"):           # nothing near: no guess
        PodTarget(name="zzz").pods(cluster, running=True)


def test_pod_faults_act_on_their_targets() -> None:
    cluster = running_cluster()
    assert FailPod(PodTarget(name="h0"), exit_code=3).apply(cluster) == "fail-pod a-0 exit=3 reason=Error"
    assert CompletePod(PodTarget(name="a-1")).apply(cluster) == "complete-pod a-1"
    cluster.advance(1)
    assert (phase(cluster, "a-0"), phase(cluster, "a-1")) == ("Failed", "Succeeded")
    with pytest.raises(NoTarget):
        FailPod(PodTarget(selector="app=a")).apply(cluster)               # nothing runs any more
    assert DeletePod(PodTarget(name="b")).apply(cluster) == "delete-pod b"
    assert not cluster.exists("pods", "b")


def test_fail_node_by_name_or_by_a_pod_on_it() -> None:
    cluster = running_cluster()
    with pytest.raises(NoTarget, match="pod b is not scheduled on a node"):
        FailNode(pod=PodTarget(name="b")).apply(cluster)
    with pytest.raises(NoTarget, match="no node named 'n9'"):
        FailNode(name="n9").apply(cluster)
    assert FailNode(pod=PodTarget(name="h0")).apply(cluster) == "fail-node n0"
    ready = [c for c in cluster.get("nodes", "n0", None)["status"]["conditions"] if c["type"] == "Ready"]  # type: ignore[arg-type]
    assert ready[0]["status"] != "True"


def test_inject_applies_a_fresh_reactor_each_time() -> None:
    fault = Inject(Reactor(verb="create", resource="ConfigMap", times=1, error=api_error(409, "injected")))
    clusters = [FakeCluster(seed=0, simulate=False) for _ in range(2)]
    for cluster in clusters:
        assert fault.apply(cluster) == "inject create configmaps error 409 Conflict x1"
        with pytest.raises(Conflict):
            cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    assert fault.reactor.fired == 0 and [c.api.reactors[0].fired for c in clusters] == [1, 1]
    assert ClearFaults().apply(clusters[0]) == "clear-faults" and clusters[0].api.reactors == []


def test_a_delivery_fault_needs_an_informer_of_its_kind() -> None:
    cluster = FakeCluster(seed=0, simulate=False)  # no component, no informer
    with pytest.raises(NoTarget, match="no informer watches pods"):
        BreakWatch("pods").apply(cluster)
    with pytest.raises(UsageError, match="ConfigMapz"):
        DelayDelivery("ConfigMapz").apply(cluster)


def test_clear_faults_disarms_delivery_faults_that_have_not_fired() -> None:
    cluster = running_cluster()
    assert DelayDelivery("Pod", nth=1, seconds=30).apply(cluster) == "delay-delivery pods nth=1 30s"
    assert ClearFaults().apply(cluster) == "clear-faults"
    cluster.delete_pod("b")
    cluster.advance(1)
    assert cluster.trace.grep("delay-delivery pods:") == []
    assert cluster.runtime.informer("pods").get("b", "default") is None
