"""Upstream's ``TestAssignFlavors`` (``pkg/scheduler/flavorassigner/flavorassigner_test.go``,
v0.19.2), case by case.

Upstream builds a cache snapshot, adds usage to it and asks the flavor assigner for an
assignment. Here the ClusterQueue (and the secondary one of its cohort) is created through the
API, each flavor's usage is held by an admitted Workload, the workload under test is queued, and
the scheduler's flavor assigner is asked what it would decide (``Scheduler.assignment_for``, on a
snapshot of the cache as a cycle takes it). Checked as upstream checks: the representative mode,
and per pod set the flavor and mode of each resource, the count and the reasons. Upstream's
``TriedFlavorIdx`` and attempt lists are not compared (the scan-progress feature is left out)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.kueue import upstream_runner as r

DATA = r.load("flavorassigner")

#: Cases skipped, and why.
_MOCKED_ORACLE = ("upstream's test oracle answers that preemption is possible for every flavor; here the "
                  "preemption simulation runs, and the ClusterQueue's policy (withinClusterQueue: Never) leaves no "
                  "candidates, so whenCanPreempt=MayStopSearch does not stop at the first flavor")
SKIPPED: dict[str, str] = {
    "preempt before try next flavor": _MOCKED_ORACLE,
    "preempt before try next flavor; using WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch": _MOCKED_ORACLE,
}


def _params() -> list[Any]:
    out = []
    for case in DATA["cases"]:
        reason = SKIPPED.get(case["name"])
        if case.get("untranslated"):
            reason = r.skip_reason(case["untranslated"])
        out.append(pytest.param(case, id=case["name"], marks=[pytest.mark.skip(reason=reason)] if reason else []))
    return out


def _quantity(resource: str, amount: int) -> str:
    return f"{amount}m" if resource == "cpu" else str(amount)


def usage_workloads(cq: str, usage: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """One admitted Workload per flavor holding the case's usage of ``cq`` (``cq.AddUsage``)."""
    by_flavor: dict[str, dict[str, str]] = {}
    for entry in usage or []:
        by_flavor.setdefault(entry["flavor"], {})[entry["resource"]] = _quantity(entry["resource"], entry["amount"])
    out = []
    for flavor, amounts in sorted(by_flavor.items()):
        out.append({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": f"usage-{cq}-{flavor}".replace("_", "-").lower(), "namespace": "default"},
            "spec": {"podSets": [{"name": "main", "count": 1, "template": {"spec": {
                "containers": [{"name": "c", "resources": {"requests": {}}}]}}}]},
            "status": {"admission": {"clusterQueue": cq, "podSetAssignments": [
                {"name": "main", "count": 1, "flavors": dict.fromkeys(amounts, flavor), "resourceUsage": amounts}]},
                "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                "message": f"Quota reserved in ClusterQueue {cq}", "lastTransitionTime": 0}]}})
    return out


@pytest.mark.parametrize("case", _params())
def test_assign_flavors(case: dict[str, Any]) -> None:
    cq = case["clusterQueue"]
    cqs = [cq] + ([case["secondaryClusterQueue"]] if case.get("secondaryClusterQueue") else [])
    cohort = (cq.get("spec") or {}).get("cohortName")
    cohorts = [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": cohort},
                "spec": {}}] if cohort else []
    workloads = usage_workloads(cq["metadata"]["name"], case.get("clusterQueueUsage"))
    if case.get("secondaryClusterQueue"):
        workloads += usage_workloads(case["secondaryClusterQueue"]["metadata"]["name"],
                                     case.get("secondaryClusterQueueUsage"))
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
          "metadata": {"name": "lq", "namespace": "default"}, "spec": {"clusterQueue": cq["metadata"]["name"]}}
    try:
        fc, core, _ = r.setup(DATA["base"]["flavors"], cqs, cohorts, [lq], workloads, case.get("featureGates"))
    except r.Unsupported as err:
        pytest.skip(str(err))
    incoming = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                "metadata": {"name": "incoming", "namespace": "default"},
                "spec": {"queueName": "lq", "podSets": case["wlPods"]}}
    stored = fc.client.create(r.prepare_workload(incoming))
    if case.get("wlReclaimablePods"):
        stored["status"] = {"reclaimablePods": case["wlReclaimablePods"]}
        fc.client.update_status(stored)
    fc.run_until_idle()
    got = core.scheduler.assignment_for(fc.get("Workload", "incoming"))
    assert got is not None
    assert got["mode"] == case.get("wantRepMode", "NoFit")  # the zero FlavorAssignmentMode
    want_sets = (case.get("wantAssignment") or {}).get("podSets") or []
    assert [ps["name"] for ps in got["podSets"]] == [ps["name"] for ps in want_sets]
    for have, want in zip(got["podSets"], want_sets, strict=True):
        assert have["flavors"] == want["flavors"], have["name"]
        assert have["count"] == want["count"], have["name"]
        assert have["reasons"] == sorted(want["reasons"]), have["name"]
