"""``jobset-ref controller``: the reference reconcilers in a subprocess, over HTTP, against a served
cluster with only the CRD and webhooks installed, give the JobSet the in-process controller does."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import jobset_ref
from fakekube import FakeCluster

ROOT = Path(__file__).resolve().parents[2]
JOBSETS = "jobsets.jobset.x-k8s.io"
UID_LABELS = ("jobset.sigs.k8s.io/jobset-uid", "jobset.sigs.k8s.io/job-key")  # differ per cluster run


def _jobset(name: str = "js") -> dict[str, Any]:
    pod = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": name},
            "spec": {"replicatedJobs": [
                {"name": "leader", "replicas": 1, "template": {"spec": {"backoffLimit": 0, "template": pod}}},
                {"name": "workers", "replicas": 2, "template": {"spec": {"parallelism": 2, "completions": 2,
                                                                          "backoffLimit": 0, "template": pod}}}]}}


def _cluster(controller: bool) -> FakeCluster:
    cluster = FakeCluster(seed=0)
    cluster.add_nodes(8)
    jobset_ref.install(cluster, controller=controller)
    cluster.script_pods("", duration=30, exit_code=0)
    return cluster


def _outcome(cluster: FakeCluster) -> dict[str, Any]:
    jobs = {}
    for job in cluster.client.list("jobs.batch"):
        labels = {k: v for k, v in job["metadata"]["labels"].items() if k not in UID_LABELS}
        jobs[job["metadata"]["name"]] = (labels, job["metadata"].get("annotations"))
    status = cluster.client.get(JOBSETS, "js")["status"]
    conditions = [(c["type"], c["status"], c["reason"], c["message"]) for c in status["conditions"]]
    events = sorted((e["reason"], e["message"]) for e in cluster.client.list("events")
                    if e["involvedObject"]["kind"] == "JobSet")
    return {"jobs": jobs, "conditions": conditions, "terminal": status.get("terminalState"),
            "restarts": status["restarts"], "services": [s["metadata"]["name"] for s in cluster.client.list("services")],
            "events": events, "replicated": status["replicatedJobsStatus"]}


def _start_controller(kubeconfig: str, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "jobset_ref.cli", "controller", "--kubeconfig", kubeconfig, *extra],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_the_controller_out_of_process_completes_a_jobset_as_in_process() -> None:
    local = _cluster(controller=True)
    local.create(_jobset())
    local.run_until(lambda: bool(local.get(JOBSETS, "js").get("status", {}).get("terminalState")), timeout=600)
    expected = _outcome(local)

    remote = _cluster(controller=False)
    with remote.serve(clock="quiescent", quiet_ms=30) as server:
        proc = _start_controller(server.kubeconfig)
        try:
            with remote.lock:
                remote.create(_jobset())
            server.wait_for(lambda: remote.api.store.get(JOBSETS, "default", "js").get("status", {}).get(
                "terminalState") and remote.api.store.list("events", "default"), timeout=60)
            server.wait_for(lambda: _outcome(remote)["events"], timeout=30)  # recorded after the status write
            with remote.lock:
                actual = _outcome(remote)
                finished_at = remote.elapsed
        finally:
            proc.send_signal(signal.SIGTERM)
            _out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err.decode()
    # Out of process, a reconcile can run before the controller's informer has seen a Job it just
    # created (its watch is a separate HTTP stream), so a second create may fail with AlreadyExists
    # and record JobCreationFailed, as any out-of-process controller without expectations can.
    # That race aside, the outcome is the in-process one.
    actual["events"] = [e for e in actual["events"]
                        if not (e[0] == "JobCreationFailed" and e[1].endswith("already exists"))]
    assert actual == expected
    assert expected["terminal"] == "Completed"
    assert abs(finished_at - local.elapsed) <= 2  # the controller's clock follows the server's


def test_a_missing_kubeconfig_is_a_usage_error(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "jobset_ref.cli", "controller", "--kubeconfig",
                           str(tmp_path / "nope")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("jobset-ref: no kubeconfig at")


def test_an_unknown_break_is_a_usage_error(tmp_path: Path) -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    jobset_ref.install(cluster, controller=False)
    with cluster.serve() as server:
        proc = subprocess.run([sys.executable, "-m", "jobset_ref.cli", "controller", "--kubeconfig",
                               server.kubeconfig, "--break", "everything"], cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr == ("jobset-ref: unknown mistake 'everything'; `jobset-ref conformance --mutants --list` "
                           "lists them\n")
