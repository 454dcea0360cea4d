"""What a person sees of Kueue through ``jobset-ref simulate``: timeline lines naming quota
reservation, admission, eviction and requeue with Kueue's reasons; ``--show`` tables with Kueue's
printer columns; the Gantt's queue rows (wait, quota held, preemption). The examples of
``examples/kueue/`` run here and their outcome is asserted."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from jobset_ref.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "kueue"
SETUP = str(EXAMPLES / "setup.yaml")
SVG = "{http://www.w3.org/2000/svg}"


def _simulate(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(["simulate", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _lines(out: str, kind: str) -> list[str]:
    """Timeline lines of one kind (``Workload``, ``ClusterQueue``, ``JobSet``...)."""
    return [line for line in out.splitlines() if line[:2].isdigit() and f"  {kind} " in line]


# ---------------------------------------------------------------------------- the examples


def test_queued_example_second_jobset_waits_for_the_first_ones_quota(capsys: pytest.CaptureFixture[str]) -> None:
    out = _simulate(capsys, SETUP, str(EXAMPLES / "queued-jobsets.yaml"), "--show", "workloads", "--expect",
                    "Completed")
    workloads = _lines(out, "Workload")
    second = [line.split("  ", 2)[2] for line in workloads if "jobset-second-" in line]
    assert second[0] == "created in LocalQueue user-queue"
    assert second[1].startswith("event Warning Pending: couldn't assign flavors to pod set workers: insufficient "
                                "unused quota for cpu in flavor default-flavor, 4 more needed")
    admitted = next(line for line in workloads if "jobset-second-" in line and "QuotaReserved=True" in line)
    assert admitted.startswith("00:01:02.010")
    assert admitted.endswith("QuotaReserved=True (QuotaReserved: Quota reserved in ClusterQueue cluster-queue) "
                             "after 62.01s in the queue; flavors workers: cpu=default-flavor")


def test_cohort_borrowing_example_borrows_two_cpus_from_team_b(capsys: pytest.CaptureFixture[str]) -> None:
    borrowing = str(EXAMPLES / "cohort-borrowing.yaml")
    out = _simulate(capsys, SETUP, borrowing, "--expect", "Completed")
    # team-a's 6-CPU JobSet is admitted at once although its ClusterQueue has 4: it borrows 2
    assert [line.split("  ", 1)[1] for line in _lines(out, "ClusterQueue")] == [
        "ClusterQueue team-a  borrowing cpu 2 of default-flavor from cohort research",
        "ClusterQueue team-a  borrows nothing (within its nominal quota again)"]
    assert _lines(out, "ClusterQueue")[0].startswith("00:00:00.000")
    reserved = [line for line in _lines(out, "Workload") if "QuotaReserved=True" in line]
    assert [line[:12] for line in reserved] == ["00:00:00.000", "00:00:00.000"]
    assert "# JobSet team-a-training: Completed" in out and "# JobSet team-b-eval: Completed" in out
    # while both run, the ClusterQueues' status says so (what kubectl get clusterqueue -o yaml shows)
    data = json.loads(_simulate(capsys, SETUP, borrowing, "--until", "30s", "-o", "json", "--show", "clusterqueues"))
    usage = {cq["metadata"]["name"]: cq["status"]["flavorsUsage"][0]["resources"][0]
             for cq in data["objects"]["clusterqueues"]}
    assert usage["team-a"] == {"name": "cpu", "total": "6", "borrowed": "2"}
    assert usage["team-b"] == {"name": "cpu", "total": "2", "borrowed": "0"}


def test_priority_preemption_example_evicts_training_and_requeues_it(capsys: pytest.CaptureFixture[str]) -> None:
    out = _simulate(capsys, str(EXAMPLES / "priority-preemption.yaml"), "--show", "workloads", "--expect",
                    "Completed")
    training = [line for line in _lines(out, "Workload") if "jobset-training-" in line]
    at_30 = [line.split("  ", 2)[2] for line in training if line.startswith("00:00:30.000")]
    assert at_30[0].startswith("Evicted=True (Preempted: Preempted to accommodate a workload (UID: ")
    assert at_30[0].endswith("due to prioritization in the ClusterQueue; preemptor path: /cluster-queue; "
                             "preemptee path: /cluster-queue)")
    # the eviction's message is not repeated by the conditions that follow it
    assert [line for line in at_30[1:] if "PodsReady" not in line] == [
        "Preempted=True (InClusterQueue)", "QuotaReserved=False (Pending)",
        "Admitted=False (NoReservation: The workload has no reservation)", "Requeued=True (Preempted)",
        "event Warning Pending: couldn't assign flavors to pod set workers: insufficient unused quota for cpu in "
        "flavor default-flavor, 4 more needed"]  # back in the queue, behind urgent
    assert "00:00:30.000  JobSet  default/training  suspend=true" in out
    back = next(line for line in training if "QuotaReserved=True" in line and not line.startswith("00:00:00"))
    assert back.startswith("00:01:32.010") and "after 62.01s in the queue" in back
    assert "00:01:32.010  JobSet  default/urgent  Completed=True" in out
    assert "00:02:34.020  JobSet  default/training  Completed=True" in out
    assert "# JobSet training: Completed (AllJobsCompleted: jobset completed successfully), restarts 0" in out


# ---------------------------------------------------------------------------- --show


def test_show_prints_kueues_printer_columns(capsys: pytest.CaptureFixture[str]) -> None:
    out = _simulate(capsys, SETUP, str(EXAMPLES / "queued-jobsets.yaml"), "--until", "30s",
                    "--show", "workloads,clusterqueues,localqueues")
    tables = out.split("\n\n")[-3:]
    workloads = tables[0].splitlines()
    assert workloads[0] == "$ kubectl get workloads"
    assert workloads[1].split() == ["NAME", "QUEUE", "RESERVED", "IN", "ADMITTED", "FINISHED", "AGE"]
    first, second = (row.split() for row in workloads[2:])
    assert first[0].startswith("jobset-first-") and first[1:] == ["user-queue", "cluster-queue", "True", "30s"]
    assert second[0].startswith("jobset-second-") and second[1:] == ["user-queue", "30s"]  # nothing reserved yet
    assert tables[1].splitlines() == ["$ kubectl get clusterqueues",
                                      "NAME            COHORT   PENDING WORKLOADS",
                                      "cluster-queue            1"]
    assert tables[2].splitlines() == ["$ kubectl get localqueues",
                                      "NAME         CLUSTERQUEUE    PENDING WORKLOADS   ADMITTED WORKLOADS",
                                      "user-queue   cluster-queue   1                   1"]


def test_wide_show_adds_priority_one_columns_and_labels(capsys: pytest.CaptureFixture[str]) -> None:
    out = _simulate(capsys, SETUP, str(EXAMPLES / "queued-jobsets.yaml"), "--until", "30s", "-o", "wide",
                    "--show", "clusterqueues")
    assert out.split("\n\n")[-1].splitlines() == [
        "$ kubectl get clusterqueues -o wide --show-labels",
        "NAME            COHORT   STRATEGY         PENDING WORKLOADS   ADMITTED WORKLOADS   LABELS",
        "cluster-queue            BestEffortFIFO   1                   1                    <none>"]


# ---------------------------------------------------------------------------- the Gantt


def test_gantt_shows_each_jobsets_queue_wait_and_where_it_was_preempted(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    svg = tmp_path / "run.svg"
    _simulate(capsys, str(EXAMPLES / "priority-preemption.yaml"), "--gantt", str(svg))
    root = ET.fromstring(svg.read_text())
    rows = {g.get("data-row"): g for g in root.iter(f"{SVG}g") if g.get("class") == "queuerow"}
    assert list(rows) == ["JobSet training", "JobSet urgent"]
    training = rows["JobSet training"]
    bars = [(r.get("data-state"), (r.findtext(f"{SVG}title") or "")) for r in training.iter(f"{SVG}rect")
            if r.get("class") == "bar queue"]
    assert bars == [("Admitted", "JobSet training: holding quota 0:00-0:30 (0:30)"),
                    ("Queued", "JobSet training: waiting in queue 0:30-1:32 (1:02)"),
                    ("Admitted", "JobSet training: holding quota 1:32-2:34 (1:02)")]
    assert [t.text for t in training.iter(f"{SVG}text") if t.get("class") == "wait"] == ["waited 1:02"]
    evicted = [g for g in training.iter(f"{SVG}g") if g.get("class") == "marker evicted"]
    assert len(evicted) == 1
    tip = evicted[0].findtext(f"{SVG}title") or ""
    assert tip.startswith("JobSet training: evicted at 00:00:30.000 (Preempted, InClusterQueue: Preempted to "
                          "accommodate a workload")
    assert [t.text for t in training.iter(f"{SVG}text") if t.get("class") == "evicted"] == ["preempted"]
    urgent = rows["JobSet urgent"]
    assert [r.get("data-state") for r in urgent.iter(f"{SVG}rect") if r.get("class") == "bar queue"] == ["Admitted"]
    assert not [g for g in urgent.iter(f"{SVG}g") if g.get("class") == "marker evicted"]
    # the queue rows replace the JobSets' Suspended lines; other JobSet conditions stay
    labels = [t.text or "" for t in root.iter(f"{SVG}text") if t.get("class") == "vlabel"]
    assert labels == ["urgent: Completed (1:32)", "training: Completed (2:34)"]


def test_gantt_without_kueue_has_no_queue_rows(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    svg = tmp_path / "run.svg"
    _simulate(capsys, str(ROOT / "examples" / "trainer.yaml"), "--gantt", str(svg))
    text = svg.read_text()
    assert "queuerow" not in text and "Kueue" not in text


STUCK = """
description: pods that never become ready under waitForPodsReady
covers: [kueue.pods-ready-timeout]
cluster:
  kueue: {waitForPodsReady: {timeout: 1m, requeuingStrategy: {backoffLimitCount: 1, backoffBaseSeconds: 10}}}
  nodes: [{count: 1, capacity: {cpu: "4"}}]
manifests:
  - file: SETUP
  - inline:
      apiVersion: jobset.x-k8s.io/v1alpha2
      kind: JobSet
      metadata: {name: stuck, labels: {kueue.x-k8s.io/queue-name: user-queue}}
      spec:
        replicatedJobs:
        - name: workers
          template: {spec: {parallelism: 2, completions: 2, template: {spec: {
            nodeSelector: {pool: absent}, restartPolicy: Never,
            containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]}}}}
"""


def test_a_pods_ready_timeout_is_an_eviction_then_a_backoff_then_a_deactivation(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    scenario = tmp_path / "stuck.yaml"
    scenario.write_text(STUCK.replace("SETUP", SETUP))
    svg = tmp_path / "run.svg"
    out = _simulate(capsys, str(scenario), "--until", "5m", "--gantt", str(svg))
    lines = [line.split("  ", 2)[0] + "  " + line.split("  ", 2)[2] for line in _lines(out, "Workload")
             if any(t in line for t in ("Evicted", "Requeued", "active=", "DeactivationTarget"))]
    assert lines == [
        "00:01:00.000  Evicted=True (PodsReadyTimeout: Exceeded the PodsReady timeout default/"
        + lines[0].rsplit("/", 1)[1],
        "00:01:00.000  Requeued=False (PodsReadyTimeout) until 00:01:10.000 (requeue 1)",
        "00:01:10.000  Requeued=True (BackoffFinished: The workload backoff was finished)",
        "00:01:10.000  Evicted=False (QuotaReserved)",
        "00:02:10.000  DeactivationTarget=True (RequeuingLimitExceeded: exceeding the maximum number of re-queuing "
        "retries)",
        "00:02:10.000  active=false",
        "00:02:10.000  Evicted=True (DeactivatedDueToRequeuingLimitExceeded: The workload is deactivated due to "
        "exceeding the maximum number of re-queuing retries)",
        "00:02:10.000  Requeued=False (DeactivatedDueToRequeuingLimitExceeded)"]
    root = ET.fromstring(svg.read_text())
    row = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "queuerow")
    assert [t.text for t in row.iter(f"{SVG}text") if t.get("class") == "evicted"] == [
        "PodsReadyTimeout", "DeactivatedDueToRequeuingLimitExceeded"]
    assert [r.get("data-state") for r in row.iter(f"{SVG}rect") if r.get("class") == "bar queue"] == [
        "Admitted", "Queued", "Admitted", "Inactive"]


def test_follow_a_workload_shows_its_admission_and_eviction(capsys: pytest.CaptureFixture[str]) -> None:
    out = _simulate(capsys, str(EXAMPLES / "priority-preemption.yaml"), "--follow", "workload/jobset-training",
                    "--show", "workloads")
    history = out.split("# history of workload/jobset-training ", 1)[1].split("\n\n", 1)[0]
    assert history.startswith("(1 object(s), ")
    assert "\n00:00:00.000  ADDED    workload/jobset-training-" in history
    assert "      spec.priorityClassRef.name: 'low'" in history
    assert "    + status.admission.podSetAssignments[0].flavors.cpu: 'default-flavor'" in history
    assert "    + status.conditions[3].reason: 'InClusterQueue'" in history  # Preempted, at 30 s
    assert "    - status.admission.clusterQueue" in history  # the quota given back


def test_follow_of_a_kueue_kind_without_kueue_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", str(ROOT / "examples" / "trainer.yaml"), "--follow", "workload/x"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.strip() == ("jobset-ref: --follow 'workload/x': Kueue is not installed (it is when a manifest holds "
                           "a kueue.x-k8s.io object, or with --kueue)")
