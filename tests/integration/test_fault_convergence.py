"""Every timing fault of ``fakekube.faults`` converges (issue #15): a JobSet whose informers get
their k-th event of a kind late, or whose watch of a kind breaks there (and relists), ends as it
does without the fault: the same terminal state, the same Job counts, the same pods, and not
one pod created more. The default suite checks a few (kind, k); ``-m slow`` sweeps every k a
calm run delivers for each kind, with two delays."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from fakekube import FakeCluster
from fakekube.faults import BreakWatch, DelayDelivery
from jobset_ref import install
from jobset_ref.api import constants as c
from jobset_ref.testing.builders import make_job_template, make_jobset, make_replicated_job

KINDS = ("pods", "jobs.batch", "jobsets.jobset.x-k8s.io", "services", "endpointslices.discovery.k8s.io", "nodes")
JOBSETS = "jobsets.jobset.x-k8s.io"
Fault = BreakWatch | DelayDelivery


@dataclass(frozen=True)
class Outcome:
    terminal_state: str | None
    restarts: int | None
    jobs: tuple[Any, ...]        # (name, succeeded, failed, completedIndexes, True conditions)
    pods: tuple[Any, ...]        # ((restart attempt, phase), count)
    created: int                 # SuccessfulCreate events: pods ever created
    deliveries: tuple[tuple[str, int], ...] = ()


def _template(pods: int) -> Any:
    return (make_job_template().completion_mode("Indexed").parallelism(pods).completions(pods)
            .backoff_limit(0).set_pod_annotations({"fakekube.io/run-seconds": "10"}))


def run(scenario: str, fault: Fault | None = None) -> tuple[Outcome, FakeCluster]:
    """``completes``: a leader (1 pod) and 2 worker Jobs (2 pods each) run 10 s. ``restarts``: the
    same with maxRestarts 1, and worker Job 1 fails 5 s into its first attempt."""
    cluster = FakeCluster(seed=0)
    counts: Counter[str] = Counter()

    def arm(kinds: set[str]) -> None:
        """Count deliveries to the informers of ``kinds`` (the calm run's numbers) and arm the fault."""
        for informer in cluster.runtime.informers():
            if informer.kind in kinds:
                informer.intercept = lambda event, kind=informer.kind: counts.update([kind]) and False
        if fault is not None and fault.kind in kinds:  # the sweep names kinds by their resource key
            fault.apply(cluster)

    arm(set(KINDS) - {JOBSETS})  # before the nodes come: their events count too
    cluster.add_nodes(3)
    install(cluster)
    arm({JOBSETS})
    js = (make_jobset("js").replicated_job(make_replicated_job("leader").replicas(1).job(_template(1)))
          .replicated_job(make_replicated_job("workers").replicas(2).job(_template(2))))
    if scenario == "restarts":
        js = js.failure_policy(max_restarts=1)
        cluster.script_pods(f"{c.RESTARTS_KEY}=0,{c.REPLICATED_JOB_NAME_KEY}=workers,{c.JOB_INDEX_KEY}=1",
                            duration=5, exit_code=1)
    cluster.apply(js)
    cluster.advance(120)
    status = cluster.get("JobSet", "js").get("status") or {}
    jobs = []
    for job in cluster.list("jobs"):
        st = job.get("status") or {}
        jobs.append((job["metadata"]["name"], st.get("succeeded"), st.get("failed"), st.get("completedIndexes"),
                     tuple(x["type"] for x in st.get("conditions", []) if x["status"] == "True")))
    pods = Counter((p["metadata"]["labels"].get(c.RESTARTS_KEY), p["status"].get("phase")) for p in cluster.list("pods"))
    created = sum(1 for e in cluster.events() if e["reason"] == "SuccessfulCreate"
                  and e["involvedObject"]["kind"] == "Job")
    return Outcome(status.get("terminalState"), status.get("restarts"), tuple(jobs), tuple(sorted(pods.items())),
                   created, tuple(sorted(counts.items()))), cluster


@cache
def calm(scenario: str) -> Outcome:
    return run(scenario)[0]


def check(scenario: str, fault: Fault) -> None:
    expected = calm(scenario)
    outcome, cluster = run(scenario, fault)
    fired = cluster.trace.grep(f"{fault.verb} {fault.kind}:")
    assert len(fired) == 1, f"{fault} never fired: the calm run delivers {dict(expected.deliveries)}"
    assert (outcome.terminal_state, outcome.restarts, outcome.jobs, outcome.pods, outcome.created) == (
        expected.terminal_state, expected.restarts, expected.jobs, expected.pods, expected.created), fired


def test_the_calm_runs_are_what_the_sweep_compares_with() -> None:
    done = calm("completes")
    assert (done.terminal_state, done.restarts, done.pods, done.created) == ("Completed", 0, ((("0", "Succeeded"), 5),), 5)
    assert all(job[1:] == (len(job[3].split(",")), None, job[3], ("SuccessCriteriaMet", "Complete"))
               for job in done.jobs)
    restarted = calm("restarts")
    assert (restarted.terminal_state, restarted.restarts, restarted.pods, restarted.created) == (
        "Completed", 1, ((("1", "Succeeded"), 5),), 10)
    # Every kind the sweep hits has deliveries to hit.
    assert {kind for kind, n in done.deliveries if n} >= set(KINDS)


# (kind, k) pairs of the default suite: the first event, one in the middle, a late one.
SAMPLE = [("pods", 1), ("pods", 9), ("pods", 24), ("jobs.batch", 1), ("jobs.batch", 7), ("jobs.batch", 14),
          (JOBSETS, 1), (JOBSETS, 4), ("services", 1), ("endpointslices.discovery.k8s.io", 3), ("nodes", 2)]


@pytest.mark.parametrize(("kind", "k"), SAMPLE)
def test_a_broken_watch_converges(kind: str, k: int) -> None:
    check("completes", BreakWatch(kind, k))


@pytest.mark.parametrize(("kind", "k"), SAMPLE)
def test_a_late_delivery_converges(kind: str, k: int) -> None:
    check("completes", DelayDelivery(kind, k, 2.0))


@pytest.mark.parametrize("fault", [BreakWatch("pods", 40), DelayDelivery("jobs.batch", 20, 2.0),
                                   DelayDelivery("pods", 10, 7.0)], ids=str)
def test_faults_during_a_restart_converge(fault: Fault) -> None:
    check("restarts", fault)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["completes", "restarts"])
def test_every_delivery_fault_at_every_k_converges(scenario: str) -> None:
    for kind, n in calm(scenario).deliveries:
        for k in range(1, n + 1):
            for fault in (BreakWatch(kind, k), DelayDelivery(kind, k, 2.0), DelayDelivery(kind, k, 7.0)):
                check(scenario, fault)
