"""fakekube.components.kubelet: pod stages on virtual time, scripting, deletion, node failure (spec §3)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.cluster import FakeCluster
from fakekube.components.kubelet import Kubelet
from fakekube.components.scheduler import Scheduler
from fakekube.errors import NotFound, UsageError


def make_cluster(nodes: int = 1) -> tuple[FakeCluster, Kubelet]:
    cluster = FakeCluster(seed=0, simulate=False)
    cluster.add_component(Scheduler(cluster.runtime))
    kubelet = Kubelet(cluster.runtime)
    cluster.add_component(kubelet)
    for i in range(nodes):
        cluster.add_node(f"n{i}")
    return cluster, kubelet


def pod(name: str, *, annotations: dict[str, str] | None = None, labels: dict[str, str] | None = None,
        restart: str = "Never", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": labels or {"app": "x"}, "annotations": annotations or {}},
            "spec": {"restartPolicy": restart, "containers": [{"name": "main", "image": "busybox"}], **spec}}


def status(cluster: FakeCluster, name: str) -> dict[str, Any]:
    return cluster.get("pods", name)["status"]


def phase(cluster: FakeCluster, name: str) -> str:
    return str(status(cluster, name).get("phase"))


def conditions(cluster: FakeCluster, name: str) -> dict[str, tuple[str, str | None]]:
    return {c["type"]: (c["status"], c.get("reason")) for c in status(cluster, name).get("conditions") or []}


def main_state(cluster: FakeCluster, name: str) -> dict[str, Any]:
    return (status(cluster, name).get("containerStatuses") or [{}])[0]


def test_timeline_pending_running_ready_succeeded() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", annotations={"fakekube.io/run-seconds": "60", "fakekube.io/ready-after-seconds": "5"}))
    assert cluster.run_until(lambda: bool(status(cluster, "p").get("podIP")), timeout=5) == 0.010
    st = status(cluster, "p")
    assert (st["phase"], st["podIP"], st["hostIP"]) == ("Pending", "10.244.0.1", "10.0.0.2")
    assert [c["type"] for c in st["conditions"]] == ["PodReadyToStartContainers", "Initialized", "Ready",
                                                     "ContainersReady", "PodScheduled"]
    ready = next(c for c in st["conditions"] if c["type"] == "Ready")
    assert (ready["reason"], ready["message"]) == ("ContainersNotReady", "containers with unready status: [main]")
    assert st["containerStatuses"][0]["state"] == {"waiting": {"reason": "ContainerCreating"}}
    assert cluster.run_until(lambda: phase(cluster, "p") == "Running", timeout=5) == 1.010
    c = main_state(cluster, "p")
    assert c["state"] == {"running": {"startedAt": "2030-01-01T00:00:01Z"}}
    assert (c["started"], c["ready"], c["image"]) == (True, False, "docker.io/library/busybox:latest")
    assert c["containerID"].startswith("containerd://")
    assert cluster.run_until(lambda: conditions(cluster, "p")["Ready"][0] == "True", timeout=10) == 6.010
    assert cluster.run_until(lambda: phase(cluster, "p") == "Succeeded", timeout=100) == 61.010
    c = main_state(cluster, "p")
    assert c["state"] == {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": "2030-01-01T00:00:01Z",
                                         "finishedAt": "2030-01-01T00:01:01Z"}}
    assert conditions(cluster, "p") == {"PodReadyToStartContainers": ("False", None),
                                        "Initialized": ("True", "PodCompleted"), "Ready": ("False", "PodCompleted"),
                                        "ContainersReady": ("False", "PodCompleted"), "PodScheduled": ("True", None)}


def test_unscripted_pod_runs_forever_and_ips_are_sequential() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("a"))
    cluster.create(pod("b", hostNetwork=True))
    cluster.create(pod("c"))
    cluster.advance(3600)
    assert [phase(cluster, n) for n in "abc"] == ["Running"] * 3
    assert conditions(cluster, "a")["Ready"] == ("True", None)
    assert [status(cluster, n)["podIP"] for n in "abc"] == ["10.244.0.1", "10.0.0.2", "10.244.0.2"]


def test_never_fails_with_scripted_exit_code_and_reason() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", annotations={"fakekube.io/run-seconds": "2", "fakekube.io/exit-code": "137",
                                         "fakekube.io/fail-reason": "OOMKilled"}))
    assert cluster.run_until(lambda: phase(cluster, "p") == "Failed", timeout=10) == 3.010
    term = main_state(cluster, "p")["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (137, "OOMKilled")
    assert conditions(cluster, "p")["Ready"] == ("False", "PodFailed")
    assert conditions(cluster, "p")["Initialized"] == ("True", None)


def test_on_failure_restarts_in_place_with_crash_loop_backoff() -> None:
    cluster, kubelet = make_cluster()
    kubelet.script_pods("app=crash", duration=2, exit_code=1)
    cluster.create(pod("p", labels={"app": "crash"}, restart="OnFailure"))
    uid = cluster.get("pods", "p")["metadata"]["uid"]
    cluster.run_until(lambda: main_state(cluster, "p").get("restartCount") == 1, timeout=10)
    assert cluster.elapsed == 3.010
    c = main_state(cluster, "p")
    assert c["state"] == {"waiting": {"reason": "CrashLoopBackOff",
                                      "message": f"back-off 10s restarting failed container=main pod=p_default({uid})"}}
    assert c["lastState"]["terminated"]["exitCode"] == 1
    assert phase(cluster, "p") == "Running" and conditions(cluster, "p")["Ready"][0] == "False"
    assert cluster.run_until(lambda: "running" in main_state(cluster, "p")["state"], timeout=20) == \
        13.010
    cluster.run_until(lambda: main_state(cluster, "p")["restartCount"] == 2, timeout=20)
    assert cluster.elapsed == 15.010
    assert "back-off 20s" in main_state(cluster, "p")["state"]["waiting"]["message"]
    kubelet.script_pods("app=crash", duration=1, exit_code=0)  # the next (re)start picks it up
    assert cluster.run_until(lambda: phase(cluster, "p") == "Succeeded", timeout=60) == 36.010
    assert main_state(cluster, "p")["restartCount"] == 2


def test_always_restarts_even_after_success_and_backoff_caps() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", restart="Always", annotations={"fakekube.io/run-seconds": "0"}))
    cluster.advance(2000)
    # exits at 1.01 and at each restart: 11.01, 31.01, 71.01, 151.01, 311.01, 611.01 (capped: +300 s), ...
    assert phase(cluster, "p") == "Running"
    assert main_state(cluster, "p")["restartCount"] == 11
    assert "back-off 5m0s" in main_state(cluster, "p")["state"]["waiting"]["message"]


def test_conditions_keep_their_transition_times_and_foreign_conditions_across_status_writes() -> None:
    """Each status write rebuilds the kubelet's conditions: a condition whose status stays keeps
    its lastTransitionTime, one that changes gets the write's instant, and conditions another
    client wrote in between (here ``example.com/lb``) are kept after the kubelet's own."""
    cluster, kubelet = make_cluster()
    cluster.create(pod("p", restart="Always", annotations={"fakekube.io/ready-after-seconds": "2"}))

    def seen() -> list[tuple[str, str, str, str | None]]:
        return [(c["type"], c["status"], c["lastTransitionTime"][-9:], c.get("reason"))
                for c in status(cluster, "p")["conditions"]]

    cluster.advance(0.5)  # accepted at t=0.01
    assert seen() == [("PodReadyToStartContainers", "True", "00:00:00Z", None),
                      ("Initialized", "True", "00:00:00Z", None),
                      ("Ready", "False", "00:00:00Z", "ContainersNotReady"),
                      ("ContainersReady", "False", "00:00:00Z", "ContainersNotReady"),
                      ("PodScheduled", "True", "00:00:00Z", None)]
    cluster.advance(3)  # started at t=1.01, ready at t=3.01
    assert seen()[:4] == [("PodReadyToStartContainers", "True", "00:00:00Z", None),
                          ("Initialized", "True", "00:00:00Z", None),
                          ("Ready", "True", "00:00:03Z", None), ("ContainersReady", "True", "00:00:03Z", None)]
    live = cluster.get("pods", "p")
    foreign = {"type": "example.com/lb", "status": "True", "lastProbeTime": None,
               "lastTransitionTime": "2030-01-01T00:00:04Z"}
    cluster.update_status({**live, "status": {**live["status"], "conditions": [*live["status"]["conditions"], foreign]}})
    cluster.advance(2)
    kubelet.fail_pod("p")  # t=5.51: restart in place after a back-off, unready meanwhile
    assert seen() == [("PodReadyToStartContainers", "True", "00:00:00Z", None),
                      ("Initialized", "True", "00:00:00Z", None),
                      ("Ready", "False", "00:00:05Z", "ContainersNotReady"),
                      ("ContainersReady", "False", "00:00:05Z", "ContainersNotReady"),
                      ("PodScheduled", "True", "00:00:00Z", None), ("example.com/lb", "True", "00:00:04Z", None)]
    cluster.advance(20)  # running again at t=15.51, ready at t=17.51
    assert seen()[2:] == [("Ready", "True", "00:00:17Z", None), ("ContainersReady", "True", "00:00:17Z", None),
                          ("PodScheduled", "True", "00:00:00Z", None), ("example.com/lb", "True", "00:00:04Z", None)]
    # A reason that changes with the same status keeps the transition time (completed before ready).
    cluster.create(pod("q", annotations={"fakekube.io/run-seconds": "3", "fakekube.io/ready-after-seconds": "9"}))
    cluster.advance(10)
    assert [(c["type"], c["status"], c["lastTransitionTime"][-9:], c.get("reason"))
            for c in status(cluster, "q")["conditions"]] == [
        ("PodReadyToStartContainers", "False", "00:00:29Z", None), ("Initialized", "True", "00:00:25Z", "PodCompleted"),
        ("Ready", "False", "00:00:25Z", "PodCompleted"), ("ContainersReady", "False", "00:00:25Z", "PodCompleted"),
        ("PodScheduled", "True", "00:00:25Z", None)]


def test_script_pods_applies_to_not_yet_started_pods_latest_wins_annotations_beat_scripts() -> None:
    cluster, kubelet = make_cluster()
    cluster.create(pod("early", labels={"role": "w"}))
    cluster.create(pod("annotated", labels={"role": "w"}, annotations={"fakekube.io/exit-code": "4"}))
    kubelet.script_pods("role=w", duration=10, exit_code=2)
    kubelet.script_pods("role in (w, v)", duration=5, exit_code=3, ready_after=1)
    cluster.advance(30)
    assert main_state(cluster, "early")["state"]["terminated"]["exitCode"] == 3
    assert main_state(cluster, "early")["state"]["terminated"]["finishedAt"] == "2030-01-01T00:00:06Z"
    assert main_state(cluster, "annotated")["state"]["terminated"]["exitCode"] == 4
    with pytest.raises(UsageError, match="non-negative number of seconds"):
        kubelet.script_pods("role=w", duration=-1)


def test_fail_pod_and_complete_pod() -> None:
    cluster, kubelet = make_cluster()
    cluster.create(pod("a"))
    cluster.create(pod("b"))
    with pytest.raises(UsageError, match="containers are not running"):
        kubelet.fail_pod("a", "default")
    cluster.advance(5)
    kubelet.fail_pod("a", "default", exit_code=42, reason="Error")
    kubelet.complete_pod("b", "default")
    cluster.run_until_idle()
    assert (phase(cluster, "a"), main_state(cluster, "a")["state"]["terminated"]["exitCode"]) == ("Failed", 42)
    assert (phase(cluster, "b"), main_state(cluster, "b")["state"]["terminated"]["reason"]) == \
        ("Succeeded", "Completed")
    with pytest.raises(NotFound, match='pods "nope" not found'):
        kubelet.complete_pod("nope", "default")
    with pytest.raises(UsageError, match="phase Failed"):
        kubelet.fail_pod("a", "default")


@pytest.mark.parametrize(("annotations", "grace", "killed_at", "code"), [
    ({}, 30, 10.0, 143),
    ({"fakekube.io/termination-seconds": "4"}, 30, 14.0, 143),
    ({"fakekube.io/termination-seconds": "60"}, 20, 30.0, 137),
])
def test_graceful_deletion(annotations: dict[str, str], grace: int, killed_at: float, code: int) -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", annotations=annotations, terminationGracePeriodSeconds=grace))
    live = cluster.get("pods", "p")
    live["metadata"]["finalizers"] = ["example.com/keep"]
    cluster.update(live)
    cluster.advance(10)
    cluster.delete("pods", "p")
    assert cluster.trace.grep(f"killing containers (grace {grace}s")
    cluster.run_until(lambda: phase(cluster, "p") == "Failed", timeout=100)
    assert cluster.elapsed == killed_at
    term = main_state(cluster, "p")["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (code, "Error")
    meta = cluster.get("pods", "p")["metadata"]
    assert meta["deletionGracePeriodSeconds"] == 0  # the kubelet's final DELETE; the finalizer holds it
    live = cluster.get("pods", "p")
    live["metadata"]["finalizers"] = []
    cluster.update(live)
    assert not cluster.exists("pods", "p")


def test_deleting_a_pod_that_never_started() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", annotations={"fakekube.io/start-seconds": "30"}))
    live = cluster.get("pods", "p")
    live["metadata"]["finalizers"] = ["example.com/keep"]
    cluster.update(live)
    cluster.advance(5)
    cluster.delete("pods", "p")
    term = main_state(cluster, "p")["state"]["terminated"]
    assert (phase(cluster, "p"), term["exitCode"], term["reason"]) == ("Failed", 137, "ContainerStatusUnknown")
    assert term["message"] == "The container could not be located when the pod was terminated"


def test_fail_node() -> None:
    cluster, kubelet = make_cluster(nodes=1)
    cluster.create(pod("p"))
    cluster.create(pod("q"))
    live = cluster.get("pods", "q")
    live["metadata"]["finalizers"] = ["batch.kubernetes.io/job-tracking"]
    cluster.update(live)
    cluster.advance(5)
    kubelet.fail_node("n0")
    cluster.run_until_idle()
    node = cluster.get("nodes", "n0", None)  # type: ignore[arg-type]
    assert [(t["key"], t["effect"]) for t in node["spec"]["taints"]] == [
        ("node.kubernetes.io/unreachable", "NoSchedule"), ("node.kubernetes.io/unreachable", "NoExecute")]
    ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"]) == ("Unknown", "NodeStatusUnknown")
    assert not cluster.exists("pods", "p")
    q = cluster.get("pods", "q")
    assert q["status"]["phase"] == "Failed" and q["metadata"]["deletionTimestamp"]
    target = next(c for c in q["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert (target["status"], target["reason"], target["message"]) == (
        "True", "DeletionByTaintManager", "Taint manager: deleting due to NoExecute taint")
    assert q["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 137
    cluster.create(pod("r"))
    cluster.advance(1)
    cond = next(c for c in cluster.get("pods", "r")["status"]["conditions"] if c["type"] == "PodScheduled")
    assert cond["message"].startswith(
        "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.")
    with pytest.raises(NotFound, match='nodes "ghost" not found'):
        kubelet.fail_node("ghost")
    with pytest.raises(UsageError, match="already failed"):
        kubelet.fail_node("n0")


def test_init_containers_and_sidecars() -> None:
    cluster, _ = make_cluster()
    spec_pod = pod("p", annotations={"fakekube.io/run-seconds": "3"},
                   initContainers=[{"name": "setup", "image": "busybox"},
                                   {"name": "proxy", "image": "envoy", "restartPolicy": "Always"}])
    cluster.create(spec_pod)
    cluster.run_until(lambda: phase(cluster, "p") == "Running", timeout=5)
    inits = {c["name"]: c for c in status(cluster, "p")["initContainerStatuses"]}
    assert inits["setup"]["state"]["terminated"]["reason"] == "Completed"
    assert "running" in inits["proxy"]["state"]
    cluster.run_until(lambda: phase(cluster, "p") == "Succeeded", timeout=10)
    assert cluster.elapsed == 4.010


def test_fail_node_after_the_pod_informer_restarted() -> None:
    """A restart drops the informer's cache without DELETED deliveries and lists again: the
    kubelet still fails exactly the pods bound to the node, including those moved or gone since."""
    cluster, kubelet = make_cluster(nodes=2)
    for name, node in (("a", "n0"), ("b", "n1"), ("c", "n0"), ("d", "n1")):
        cluster.create(pod(name, nodeName=node))
    cluster.advance(5)
    informer = cluster.runtime.informer("pods")
    informer.stop()  # deliveries stop: the deletion of c reaches no handler
    cluster.delete("pods", "c", grace_period_seconds=0)
    informer.restart()
    cluster.run_until_idle()
    kubelet.fail_node("n0")
    cluster.run_until_idle()
    assert not cluster.exists("pods", "a") and not cluster.exists("pods", "c")
    assert [phase(cluster, name) for name in ("b", "d")] == ["Running", "Running"]
    assert [line.split(" ", 1)[1] for line in cluster.trace.grep("Failed (exit")] == [
        "kubelet default/a Failed (exit 137, Error)"]
