"""fakekube.components.kubelet: readiness gates, probes on virtual time, init containers (spec §3.2)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube._core.jsonutil import deep_copy
from fakekube.cluster import FakeCluster
from fakekube.components.dns import Dns
from fakekube.components.kubelet import Kubelet
from fakekube.components.kubelet_probes import Outcome, Probe, parse_outcome, probe_of, timeline
from fakekube.components.scheduler import Scheduler
from fakekube.errors import NotFound

GATE = "example.com/lb-registered"


def make_cluster() -> tuple[FakeCluster, Kubelet]:
    cluster = FakeCluster(seed=0, simulate=False)
    cluster.add_component(Scheduler(cluster.runtime))
    kubelet = Kubelet(cluster.runtime)
    cluster.add_component(kubelet)
    cluster.add_node("n0")
    return cluster, kubelet


def pod(name: str, *, annotations: dict[str, str] | None = None, containers: list[dict[str, Any]] | None = None,
        restart: str = "Never", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "x"}, "annotations": annotations or {}},
            "spec": {"restartPolicy": restart, "hostname": name, "subdomain": "svc",
                     "containers": containers or [{"name": "main", "image": "busybox"}], **spec}}


def status(cluster: FakeCluster, name: str) -> dict[str, Any]:
    return cluster.get("pods", name)["status"]


def condition(cluster: FakeCluster, name: str, ctype: str) -> dict[str, Any]:
    return next((c for c in status(cluster, name).get("conditions") or [] if c["type"] == ctype), {})


def brief(cluster: FakeCluster, name: str, ctype: str) -> tuple[str, str | None, str | None]:
    c = condition(cluster, name, ctype)
    return c.get("status", ""), c.get("reason"), c.get("message")


def set_condition(cluster: FakeCluster, name: str, ctype: str, value: str) -> None:
    """What a load-balancer controller does: write its own condition through pods/status."""
    p = deep_copy(cluster.get("pods", name))
    conds = [c for c in p["status"]["conditions"] if c["type"] != ctype]
    conds.append({"type": ctype, "status": value, "lastProbeTime": None,
                  "lastTransitionTime": "2030-01-01T00:00:00Z", "reason": "LBSynced"})
    p["status"]["conditions"] = conds
    cluster.update_status(p)


# ---------------------------------------------------------------------------- readiness gates
def test_ready_waits_for_every_readiness_gate_while_containers_ready_follows_the_containers() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", readinessGates=[{"conditionType": GATE}, {"conditionType": "example.com/two"}]))
    cluster.advance(1.5)
    assert brief(cluster, "p", "ContainersReady") == ("True", None, None)
    assert brief(cluster, "p", "Ready") == (
        "False", "ReadinessGatesNotReady",
        'corresponding condition of pod readiness gate "example.com/lb-registered" does not exist., '
        'corresponding condition of pod readiness gate "example.com/two" does not exist.')
    set_condition(cluster, "p", GATE, "False")
    cluster.advance(0.1)
    assert brief(cluster, "p", "Ready") == (
        "False", "ReadinessGatesNotReady",
        'the status of pod readiness gate "example.com/lb-registered" is not "True", but False, '
        'corresponding condition of pod readiness gate "example.com/two" does not exist.')
    cluster.advance(2)
    set_condition(cluster, "p", GATE, "True")
    set_condition(cluster, "p", "example.com/two", "True")
    cluster.advance(0.1)
    ready = condition(cluster, "p", "Ready")
    assert (ready["status"], ready.get("reason"), ready["lastTransitionTime"]) == ("True", None,
                                                                                   "2030-01-01T00:00:03Z")
    # The gate conditions are the client's: the kubelet keeps them as written.
    gate = condition(cluster, "p", GATE)
    assert (gate["status"], gate["reason"]) == ("True", "LBSynced")


def test_unready_containers_win_over_gates_and_the_kubelet_keeps_foreign_conditions() -> None:
    cluster, kubelet = make_cluster()
    cluster.create(pod("p", restart="Always", readinessGates=[{"conditionType": GATE}]))
    cluster.advance(1.5)
    set_condition(cluster, "p", GATE, "True")
    cluster.advance(0.1)
    assert brief(cluster, "p", "Ready") == ("True", None, None)
    kubelet.fail_pod("p", "default")  # restart in place: containers unready during the back-off
    cluster.advance(0.1)
    assert brief(cluster, "p", "Ready") == ("False", "ContainersNotReady", "containers with unready status: [main]")
    assert brief(cluster, "p", "ContainersReady") == ("False", "ContainersNotReady",
                                                      "containers with unready status: [main]")
    assert brief(cluster, "p", GATE) == ("True", "LBSynced", None)
    cluster.advance(10)
    assert brief(cluster, "p", "Ready") == ("True", None, None)


def test_endpoints_and_dns_follow_ready_not_containers_ready() -> None:
    cluster, _ = make_cluster()
    dns = Dns(cluster.runtime)
    cluster.add_component(dns)
    cluster.apply({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
                   "spec": {"clusterIP": "None", "selector": {"app": "x"}}})
    cluster.create(pod("p", readinessGates=[{"conditionType": GATE}]))
    cluster.advance(5)
    assert dns.resolve("p.svc") == []
    set_condition(cluster, "p", GATE, "True")
    cluster.advance(1)
    assert dns.resolve("p.svc") == ["10.244.0.1"]


# ---------------------------------------------------------------------------- probes
def main(cluster: FakeCluster, name: str, index: int = 0) -> dict[str, Any]:
    return (status(cluster, name).get("containerStatuses") or [{"restartCount": -1, "state": {}, "started": None}])[index]


def when(cluster: FakeCluster, predicate: Any, timeout: float = 1000) -> float:
    return cluster.run_until(predicate, timeout=timeout)


def test_probe_timeline_counts_thresholds_from_the_initial_delay() -> None:
    probe = probe_of({"readinessProbe": {"initialDelaySeconds": 5, "successThreshold": 2}}, "readiness")
    assert probe == Probe(initial_delay=5, period=10, failure_threshold=3, success_threshold=2)
    outcome = parse_outcome("succeed-after=12s, fail-after=0.5m")
    assert timeline(probe, outcome, initial=False) == [(25.0, True), (55.0, False)]
    assert timeline(Probe(), Outcome(), initial=True) == []  # a passing liveness probe never changes
    assert timeline(Probe(period=5), parse_outcome("fail"), initial=None) == [(10.0, False)]
    assert timeline(Probe(initial_delay=3), Outcome(), initial=False, after=12.5) == [(12.5, True)]
    assert probe_of({"name": "c"}, "liveness") is None
    for bad in ("fail-after=soon", "sometimes", "succeed-after=-1s", "fail-after=1d"):
        with pytest.raises(ValueError, match="is not"):
            parse_outcome(bad)


def test_readiness_probe_flips_ready_with_its_thresholds() -> None:
    cluster, _ = make_cluster()
    probe = {"exec": {"command": ["true"]}, "initialDelaySeconds": 5, "successThreshold": 2}
    cluster.create(pod("p", annotations={"fakekube.io/readiness": "succeed-after=12s,fail-after=40s"},
                       containers=[{"name": "main", "image": "busybox", "readinessProbe": probe}]))
    assert when(cluster, lambda: status(cluster, "p").get("phase") == "Running") == 1.010
    assert (main(cluster, "p")["started"], main(cluster, "p")["ready"]) == (True, False)
    assert when(cluster, lambda: brief(cluster, "p", "Ready")[0] == "True") == 26.010
    assert main(cluster, "p")["ready"] is True
    assert brief(cluster, "p", "ContainersReady") == ("True", None, None)
    # Probes at 35 (pass), 45, 55, 65 s (fail): the third failure in a row counts.
    assert when(cluster, lambda: brief(cluster, "p", "Ready")[0] == "False") == 66.010
    assert brief(cluster, "p", "ContainersReady") == ("False", "ContainersNotReady",
                                                      "containers with unready status: [main]")
    assert main(cluster, "p")["ready"] is False and main(cluster, "p")["restartCount"] == 0


def test_initial_delay_alone_still_makes_the_pod_ready_after_it() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", containers=[
        {"name": "a", "image": "busybox", "readinessProbe": {"exec": {"command": ["true"]}, "initialDelaySeconds": 30}},
        {"name": "b", "image": "busybox"}]))
    cluster.advance(2)
    assert brief(cluster, "p", "Ready") == ("False", "ContainersNotReady", "containers with unready status: [a]")
    assert [c["ready"] for c in status(cluster, "p")["containerStatuses"]] == [False, True]
    assert when(cluster, lambda: brief(cluster, "p", "Ready")[0] == "True") == 31.010


def test_per_container_probe_annotation_beats_the_pod_wide_one() -> None:
    cluster, _ = make_cluster()
    probe = {"exec": {"command": ["true"]}, "periodSeconds": 1}
    cluster.create(pod("p", annotations={"fakekube.io/readiness": "succeed-after=5s",
                                         "fakekube.io/readiness.b": "succeed-after=20s"},
                       containers=[{"name": "a", "image": "busybox", "readinessProbe": probe},
                                   {"name": "b", "image": "busybox", "readinessProbe": probe}]))
    cluster.advance(10)
    assert brief(cluster, "p", "Ready") == ("False", "ContainersNotReady", "containers with unready status: [b]")
    assert when(cluster, lambda: brief(cluster, "p", "Ready")[0] == "True") == 21.010


def test_liveness_failure_kills_with_137_and_restarts_with_back_off() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", restart="Always", annotations={"fakekube.io/liveness": "fail-after=45s"},
                       containers=[{"name": "main", "image": "busybox",
                                    "livenessProbe": {"exec": {"command": ["true"]}}}]))
    # Probes every 10 s from the start; failures at 50, 60, 70 s: killed at 1.010 + 70.
    assert when(cluster, lambda: main(cluster, "p")["restartCount"] == 1) == 71.010
    c = main(cluster, "p")
    assert c["lastState"] == {"terminated": {"exitCode": 137, "reason": "Error", "startedAt": "2030-01-01T00:00:01Z",
                                             "finishedAt": "2030-01-01T00:01:11Z"}}
    assert c["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert status(cluster, "p")["phase"] == "Running"
    assert ("t=00:01:11.010 kubelet default/p container main failed liveness probe, will be restarted"
            in cluster.trace.lines)
    assert when(cluster, lambda: "running" in main(cluster, "p")["state"]) == 81.010
    assert when(cluster, lambda: main(cluster, "p")["restartCount"] == 2) == 151.010
    assert when(cluster, lambda: "running" in main(cluster, "p")["state"]) == 171.010  # back-off 20 s


def test_liveness_failure_under_restart_policy_never_fails_the_pod() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", annotations={"fakekube.io/liveness": "fail"},
                       containers=[{"name": "main", "image": "busybox",
                                    "livenessProbe": {"exec": {"command": ["true"]}, "initialDelaySeconds": 3,
                                                      "periodSeconds": 2, "failureThreshold": 2}}]))
    assert when(cluster, lambda: status(cluster, "p")["phase"] == "Failed") == 6.010
    assert main(cluster, "p")["state"]["terminated"]["exitCode"] == 137


def test_startup_probe_gates_started_readiness_and_liveness() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", restart="Always", annotations={"fakekube.io/startup": "succeed-after=12s",
                                                           "fakekube.io/liveness": "fail-after=20s"},
                       containers=[{"name": "main", "image": "busybox",
                                    "startupProbe": {"exec": {"command": ["true"]}, "periodSeconds": 5,
                                                     "failureThreshold": 4},
                                    "readinessProbe": {"exec": {"command": ["true"]}},
                                    "livenessProbe": {"exec": {"command": ["true"]}, "failureThreshold": 1}}]))
    cluster.advance(10)
    c = main(cluster, "p")
    assert ("running" in c["state"], c["started"], c["ready"]) == (True, False, False)
    assert brief(cluster, "p", "Ready") == ("False", "ContainersNotReady", "containers with unready status: [main]")
    # Startup probes at 0, 5, 10, 15 s: started (and readiness probed at once) at 1.010 + 15.
    assert when(cluster, lambda: main(cluster, "p")["started"]) == 16.010
    assert main(cluster, "p")["ready"] is True
    # Liveness from the startup success: probes at 15 (pass) and 25 s (fail, threshold 1).
    assert when(cluster, lambda: main(cluster, "p")["restartCount"] == 1, timeout=100) == 26.010


def test_failing_startup_probe_kills_the_container() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", restart="OnFailure", annotations={"fakekube.io/startup": "fail"},
                       containers=[{"name": "main", "image": "busybox",
                                    "startupProbe": {"exec": {"command": ["true"]}, "periodSeconds": 5}}]))
    assert when(cluster, lambda: main(cluster, "p")["restartCount"] == 1) == 11.010
    assert ("t=00:00:11.010 kubelet default/p container main failed startup probe, will be restarted"
            in cluster.trace.lines)


def test_malformed_probe_annotation_is_traced_and_ignored() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", annotations={"fakekube.io/readiness": "sometimes"},
                       containers=[{"name": "main", "image": "busybox",
                                    "readinessProbe": {"exec": {"command": ["true"]}}}]))
    assert when(cluster, lambda: brief(cluster, "p", "Ready")[0] == "True") == 1.010
    assert any("malformed fakekube.io annotation on default/p: 'sometimes' is not one of" in line
               for line in cluster.trace.lines)


# ---------------------------------------------------------------------------- init containers
def inits(cluster: FakeCluster, name: str) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in status(cluster, name).get("initContainerStatuses") or []}


def at(cluster: FakeCluster, t: float) -> None:
    cluster.advance(t - cluster.elapsed)


def test_init_containers_run_in_order_before_the_app_containers() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", annotations={"fakekube.io/init-run-seconds.a": "3", "fakekube.io/init-run-seconds.b": "2"},
                       initContainers=[{"name": "a", "image": "busybox"}, {"name": "b", "image": "busybox"}]))
    at(cluster, 0.5)
    assert brief(cluster, "p", "Initialized") == ("False", "ContainersNotInitialized",
                                                  "containers with incomplete status: [a b]")
    assert main(cluster, "p")["state"] == {"waiting": {"reason": "PodInitializing"}}
    assert inits(cluster, "p")["a"]["state"] == {"waiting": {"reason": "PodInitializing"}}
    at(cluster, 2)
    assert inits(cluster, "p")["a"]["state"] == {"running": {"startedAt": "2030-01-01T00:00:01Z"}}
    assert (inits(cluster, "p")["a"]["started"], status(cluster, "p")["phase"]) == (True, "Pending")
    at(cluster, 5)
    a, b = inits(cluster, "p")["a"], inits(cluster, "p")["b"]
    assert a["state"] == {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": "2030-01-01T00:00:01Z",
                                         "finishedAt": "2030-01-01T00:00:04Z"}}
    assert (a["ready"], a["started"], b["state"]) == (True, False, {"running": {"startedAt": "2030-01-01T00:00:04Z"}})
    assert brief(cluster, "p", "Initialized") == ("False", "ContainersNotInitialized",
                                                  "containers with incomplete status: [b]")
    assert when(cluster, lambda: status(cluster, "p")["phase"] == "Running") == 6.010
    assert brief(cluster, "p", "Initialized") == ("True", None, None)
    assert main(cluster, "p")["state"] == {"running": {"startedAt": "2030-01-01T00:00:06Z"}}


def test_failing_init_container_fails_the_pod_under_restart_policy_never() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", annotations={"fakekube.io/init-run-seconds": "2", "fakekube.io/init-exit-code": "1"},
                       initContainers=[{"name": "a", "image": "busybox"}]))
    assert when(cluster, lambda: status(cluster, "p")["phase"] == "Failed") == 3.010
    assert inits(cluster, "p")["a"]["state"]["terminated"] == {
        "exitCode": 1, "reason": "Error", "startedAt": "2030-01-01T00:00:01Z", "finishedAt": "2030-01-01T00:00:03Z"}
    assert main(cluster, "p")["state"] == {"waiting": {"reason": "PodInitializing"}}
    assert brief(cluster, "p", "Initialized") == ("False", "ContainersNotInitialized",
                                                  "containers with incomplete status: [a]")
    assert brief(cluster, "p", "Ready") == ("False", "PodFailed", None)


def test_failing_init_container_restarts_with_back_off_under_on_failure() -> None:
    cluster, _ = make_cluster()
    created = cluster.create(pod("p", restart="OnFailure", annotations={"fakekube.io/init-run-seconds": "2",
                                                                        "fakekube.io/init-exit-code": "1"},
                                 initContainers=[{"name": "a", "image": "busybox"}]))
    assert when(cluster, lambda: inits(cluster, "p").get("a", {}).get("restartCount") == 1) == 3.010
    a = inits(cluster, "p")["a"]
    assert a["state"] == {"waiting": {"reason": "CrashLoopBackOff", "message": (
        f"back-off 10s restarting failed container=a pod=p_default({created['metadata']['uid']})")}}
    assert a["lastState"]["terminated"]["exitCode"] == 1
    assert (status(cluster, "p")["phase"], main(cluster, "p")["restartCount"]) == ("Pending", 0)
    assert when(cluster, lambda: "running" in inits(cluster, "p")["a"]["state"]) == 13.010
    assert when(cluster, lambda: inits(cluster, "p")["a"]["restartCount"] == 2) == 15.010
    assert "back-off 20s" in inits(cluster, "p")["a"]["state"]["waiting"]["message"]


def test_sidecar_must_start_before_the_next_init_container_and_does_not_block_completion() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", annotations={"fakekube.io/startup.proxy": "succeed-after=7s",
                                         "fakekube.io/run-seconds": "10"},
                       initContainers=[{"name": "proxy", "image": "envoy", "restartPolicy": "Always",
                                        "startupProbe": {"exec": {"command": ["true"]}, "periodSeconds": 5,
                                                         "failureThreshold": 5}},
                                       {"name": "setup", "image": "busybox"}]))
    at(cluster, 5)
    proxy = inits(cluster, "p")["proxy"]
    assert (proxy["state"], proxy["started"]) == ({"running": {"startedAt": "2030-01-01T00:00:01Z"}}, False)
    assert inits(cluster, "p")["setup"]["state"] == {"waiting": {"reason": "PodInitializing"}}
    assert brief(cluster, "p", "Initialized") == ("False", "ContainersNotInitialized",
                                                  "containers with incomplete status: [proxy setup]")
    assert brief(cluster, "p", "ContainersReady") == ("False", "ContainersNotReady",
                                                      "containers with unready status: [proxy main]")
    # Startup probes at 0, 5, 10 s after the sidecar started: setup and main start at 11.010.
    assert when(cluster, lambda: status(cluster, "p")["phase"] == "Running") == 11.010
    assert (inits(cluster, "p")["proxy"]["started"], inits(cluster, "p")["proxy"]["ready"]) == (True, True)
    assert inits(cluster, "p")["setup"]["state"]["terminated"]["finishedAt"] == "2030-01-01T00:00:11Z"
    assert brief(cluster, "p", "Ready") == ("True", None, None)
    assert when(cluster, lambda: status(cluster, "p")["phase"] == "Succeeded") == 21.010
    assert "terminated" in inits(cluster, "p")["proxy"]["state"]


def test_deleting_an_initializing_pod_stops_its_init_container_and_removes_the_pod() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", annotations={"fakekube.io/init-run-seconds": "100"},
                       initContainers=[{"name": "a", "image": "busybox"}]))
    at(cluster, 5)
    stream = cluster.watch("pods")
    cluster.delete("pods", "p")
    cluster.advance(1)
    final = next(e.object["status"] for e in reversed(stream.events) if e.object["status"].get("phase") == "Failed")
    # SIGTERM: the running init container exits 143; the app container was never created.
    assert final["initContainerStatuses"][0]["state"]["terminated"] == {
        "exitCode": 143, "reason": "Error", "startedAt": "2030-01-01T00:00:01Z", "finishedAt": "2030-01-01T00:00:05Z"}
    assert final["containerStatuses"][0]["state"]["terminated"] == {
        "exitCode": 137, "reason": "ContainerStatusUnknown", "finishedAt": "2030-01-01T00:00:05Z",
        "message": "The container could not be located when the pod was terminated"}
    assert "t=00:00:05.000 kubelet default/p Failed (exit 143, Error)" in cluster.trace.lines
    with pytest.raises(NotFound):
        cluster.get("pods", "p")
