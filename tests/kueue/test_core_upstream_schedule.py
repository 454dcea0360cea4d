"""Upstream's ``TestSchedule`` (``pkg/scheduler/scheduler_test.go``, v0.19.2), case by case.

Each case (translated from upstream's table into ``upstream/schedule.json``) builds its flavors,
ClusterQueues, Cohorts, LocalQueues and Workloads through the API, runs one admission cycle of
the fake's scheduler, and checks what upstream checks: the workloads holding quota and their
admissions (``wantAssignments``), the workloads left in each ClusterQueue's heap
(``wantLeft``) and among its inadmissible ones (``wantInadmissibleLeft``), and the conditions the
scheduler wrote (``wantWorkloads``: QuotaReserved, Admitted, Evicted, Preempted, with their
reasons and messages, as with UnadmittedWorkloadsObservability off). Cases that need what the
core leaves out are skipped with the reason (:data:`SKIPPED`)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.kueue import upstream_runner as r

DATA = r.load("schedule")

#: Cases skipped, and why (beyond those whose translation needs a left-out feature).
SKIPPED: dict[str, str] = {
    "partial admission multiple variable pod sets":
        "its Workload has two pod sets with minCount, which the Workload webhook refuses "
        "(\"at most one podSet can use minCount\"); upstream's unit test puts it in the cache directly",
    "multiple preemptions skip preemption when shared limited resource":
        "its ClusterQueues set borrowWithinCohort without reclaimWithinCohort, which the CRD's rule refuses "
        "(\"reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never\"); upstream's unit test puts them in "
        "the cache directly",
}


def _params() -> list[Any]:
    out = []
    for case in DATA["cases"]:
        reason = SKIPPED.get(case["name"])
        if case.get("untranslated"):
            reason = r.skip_reason(case["untranslated"])
        marks = [pytest.mark.skip(reason=reason)] if reason else []
        out.append(pytest.param(case, id=case["name"], marks=marks))
    return out


@pytest.mark.parametrize("case", _params())
def test_schedule(case: dict[str, Any]) -> None:
    base = DATA["base"]
    try:
        fc, core, _ = r.setup(base["resourceFlavors"], base["clusterQueues"] + case.get("additionalClusterQueues", []),
                              case.get("cohorts", []), base["queues"] + case.get("additionalLocalQueues", []),
                              case.get("workloads", []), case.get("featureGates"))
    except r.Unsupported as err:
        pytest.skip(str(err))
    before = r.conditions_by_workload(fc)
    r.run_one_cycle(fc, core)
    r.compare_assignments(r.assignments(fc), case.get("wantAssignments"))
    heap, inadmissible = r.queue_dump(core)
    r.compare_dump(heap, case.get("wantLeft"), "left in the heaps")
    r.compare_dump(inadmissible, case.get("wantInadmissibleLeft"), "left inadmissible")
    r.compare_workload_conditions(fc, before, case.get("workloads", []), case.get("wantWorkloads"))
