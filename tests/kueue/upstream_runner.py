"""Runs a table case of upstream's scheduler and preemption tests against the fake.

The cases (``tests/kueue/upstream/*.json``) are upstream's table entries translated from their Go
builders (``pkg/util/testing/v1beta2``) into the wire objects those builders make: flavors,
ClusterQueues, Cohorts, LocalQueues, Workloads (some already holding quota, their ``status``
written as upstream's ``ReserveQuotaAt``/``AdmittedAt`` set it), and the expectations
(``wantAssignments``, ``wantLeft``, ``wantInadmissibleLeft``, ``wantWorkloads``). Times are
seconds after the test's ``now``.

:func:`run_one_cycle` drives the fake as upstream's tests drive their scheduler: every object goes
through the API (the CRD defaulting and validation, the webhooks); the scheduler's own loop is
stopped so that exactly one admission cycle runs (``scheduler.schedule(ctx)`` upstream), then the
writes it made settle. Creation times are reproduced by creating the workloads in that order
while the virtual clock stands at their ``Creation`` time.
"""

from __future__ import annotations

import copy
import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from fakekube import FakeCluster
from fakekube._core.clock import SECOND, format_time
from fakekube.components.kueue import KueueCore, install_core
from fakekube.components.kueue import workload as wlutil
from fakekube.components.kueue.config import FEATURE_GATES
from fakekube.machinery.quantity import format_quantity, parse_quantity

DATA = Path(__file__).with_name("upstream")
#: The test's ``now`` (upstream: ``time.Now().Truncate(time.Second)``).
START = 1_000_000 * SECOND
#: How long before ``now`` the cluster starts: the zero creation time of upstream's builders
#: (well within the 30-minute PodsReady timeout, which runs from the Admitted condition).
EARLIEST = 600 * SECOND

NAMESPACES = {"default": {}, "eng-alpha": {"dep": "eng"}, "eng-beta": {"dep": "eng"},
              "eng-gamma": {"dep": "eng"}, "sales": {"dep": "sales"}, "lend": {"dep": "lend"}}


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _time(offset: Any) -> str:
    return format_time(START + round(float(offset) * SECOND))


def _fix_times(obj: Any) -> Any:
    """Offsets (numbers) in ``lastTransitionTime`` fields become RFC 3339 times."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k == "lastTransitionTime" and isinstance(v, int | float):
                out[k] = _time(v)
            elif isinstance(v, dict) and "$time" in v:
                out[k] = _time(v["$time"])
            elif isinstance(v, dict) and "$mul" in v:
                q, n = v["$mul"]
                out[k] = format_quantity(parse_quantity(q) * n)
            else:
                out[k] = _fix_times(v)
        return out
    if isinstance(obj, list):
        return [_fix_times(x) for x in obj]
    return obj


def _creation(wl: dict[str, Any]) -> float:
    """Seconds after ``now``; a workload without ``Creation`` (the zero time upstream) comes first."""
    stamp = wl["metadata"].get("creationTimestamp")
    return -EARLIEST / SECOND if stamp is None else float(stamp)


def _drop_limits_without_cohort(cq: dict[str, Any]) -> dict[str, Any]:
    """Upstream's unit tests put ClusterQueues in the cache directly; a borrowingLimit without a
    cohort (which the API refuses and which means nothing without one) is dropped."""
    spec = cq.get("spec") or {}
    if spec.get("cohortName"):
        return cq
    for rg in spec.get("resourceGroups") or []:
        for fq in rg.get("flavors") or []:
            for rq in fq.get("resources") or []:
                rq.pop("borrowingLimit", None)
                rq.pop("lendingLimit", None)
    return cq


def prepare_workload(wl: dict[str, Any]) -> dict[str, Any]:
    """The case's Workload as a create request: times resolved, namespace defaulted (upstream's
    ``""``), and what the API server sets itself (uid, creationTimestamp) dropped."""
    wl = _fix_times(copy.deepcopy(wl))
    meta = wl["metadata"]
    meta["namespace"] = meta.get("namespace") or "default"
    meta.pop("uid", None)
    meta.pop("creationTimestamp", None)
    return wl


#: Why a case could not be translated (the first construct the translation met that the core leaves out).
_UNTRANSLATED = (
    ("kueue.AdmissionCheckState", "admission checks are left out"),
    ("kueue.PreemptionGate", "preemption gates are left out"),
    ("admissionError", "it injects an error into the admission write through upstream's fake-client interceptor"),
    ("objects:", "LimitRange validation (ValidateLimitRange) is left out"),
    ("workloadslicing", "elastic workload slices are left out"),
    ("preemptWorkloadSlice", "elastic workload slices are left out"),
    ("PodSetGroup", "PodSet groups (podSetGroupName) are left out"),
    ("topologies", "Topology-aware scheduling is left out"),
    ("simulationResult", "it mocks the preemption oracle's answers, which the fake computes from the cluster's state"),
)


def skip_reason(untranslated: str) -> str:
    for marker, reason in _UNTRANSLATED:
        if marker in untranslated:
            return reason
    return f"the translation cannot express {untranslated}"


class Unsupported(Exception):
    """The case needs something the core leaves out (the message says what)."""


def gates_config(gates: dict[str, bool] | None) -> dict[str, Any] | None:
    if not gates:
        return None
    for name in gates:
        if name not in FEATURE_GATES:
            raise Unsupported(f"feature gate {name} is not known to v0.19.2's table")
        default, locked = FEATURE_GATES[name]
        if locked and gates[name] != default:
            raise Unsupported(f"feature gate {name} is locked")
    return {"featureGates": dict(gates)}


def setup(flavors: list[dict[str, Any]], cluster_queues: list[dict[str, Any]], cohorts: list[dict[str, Any]],
          local_queues: list[dict[str, Any]], workloads: list[dict[str, Any]], gates: dict[str, bool] | None,
          ) -> tuple[FakeCluster, KueueCore, dict[tuple[str, str], str]]:
    """A cluster holding the case's objects, the scheduler stopped. Returns the upstream UIDs by key."""
    fc = FakeCluster(seed=0)
    fc.runtime.loop.now = START - EARLIEST
    core = install_core(fc, gates_config(gates))
    core.scheduler.stop()
    client = fc.client
    for ns, labels in NAMESPACES.items():
        if ns != "default":
            client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": labels}})
    for obj in flavors + [_drop_limits_without_cohort(copy.deepcopy(cq)) for cq in cluster_queues] + cohorts:
        client.create(copy.deepcopy(obj))
    for lq in local_queues:
        client.create(copy.deepcopy(lq))
    uids: dict[tuple[str, str], str] = {}
    ordered = sorted(workloads, key=_creation)
    for wl in ordered:
        created_at = _creation(wl)
        uid = wl["metadata"].get("uid", "")
        wl = prepare_workload(wl)
        meta = wl["metadata"]
        uids[(meta["namespace"], meta["name"])] = uid
        fc.runtime.loop.now = max(fc.runtime.loop.now, START + round(created_at * SECOND))
        status = wl.pop("status", None)
        stored = client.create(wl)
        if status:
            stored["status"] = status
            client.update_status(stored)
    fc.runtime.loop.now = max(fc.runtime.loop.now, START)
    fc.run_until_idle()
    return fc, core, uids


def run_one_cycle(fc: FakeCluster, core: KueueCore) -> None:
    """``scheduler.schedule(ctx)``: one admission cycle, then its writes settle."""
    core.scheduler.schedule()
    fc.run_until_idle()


# ------------------------------------------------------------------------------ observations
def _quantity(text: Any) -> Fraction:
    return parse_quantity(str(text))


def normalize_admission(adm: dict[str, Any], *, with_count: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"clusterQueue": adm.get("clusterQueue")}
    psas = []
    for psa in adm.get("podSetAssignments") or []:
        entry: dict[str, Any] = {"name": psa.get("name"), "flavors": dict(psa.get("flavors") or {}),
                                 "resourceUsage": {k: _quantity(v) for k, v in (psa.get("resourceUsage") or {}).items()}}
        if with_count:
            entry["count"] = psa.get("count")
        psas.append(entry)
    out["podSetAssignments"] = psas
    return out


def assignments(fc: FakeCluster) -> dict[str, dict[str, Any]]:
    """Workloads holding quota (in the cache) and their admission."""
    out = {}
    for wl in fc.list("Workload"):
        if wlutil.has_quota_reservation(wl) and not wlutil.is_finished(wl) and (wl.get("status") or {}).get("admission"):
            out[f"{wl['metadata']['namespace']}/{wl['metadata']['name']}"] = wl["status"]["admission"]
    return out


def compare_assignments(got: dict[str, dict[str, Any]], want: dict[str, dict[str, Any]] | None) -> None:
    want = want or {}
    assert sorted(got) == sorted(want), f"assigned workloads: got {sorted(got)}, want {sorted(want)}"
    for key, adm in want.items():
        with_count = all("count" in psa for psa in adm.get("podSetAssignments") or [])
        assert normalize_admission(got[key], with_count=with_count) == normalize_admission(adm, with_count=with_count), \
            f"admission of {key}"


def queue_dump(core: KueueCore) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``qManager.Dump()`` and ``DumpInadmissible()``: the keys in each ClusterQueue's heap, and
    among its inadmissible workloads (empty queues left out)."""
    heap: dict[str, list[str]] = {}
    inadmissible: dict[str, list[str]] = {}
    for name, cq in core.manager.queues.cluster_queues.items():
        active = sorted(f"{k[0]}/{k[1]}" for k in cq.entries)
        parked = sorted(f"{k[0]}/{k[1]}" for k in cq.inadmissible)
        if active:
            heap[name] = active
        if parked:
            inadmissible[name] = parked
    return heap, inadmissible


def compare_dump(got: dict[str, list[str]], want: dict[str, list[str]] | None, what: str) -> None:
    want = {k: sorted(v) for k, v in (want or {}).items() if v}
    assert got == want, f"{what}: got {got}, want {want}"


_UID = re.compile(r"UID: [^,)]*")

#: Conditions the scheduler (or preemption) writes, compared with upstream's.
SCHEDULER_CONDITIONS = ("QuotaReserved", "Admitted", "Evicted", "Preempted")


def adjust_for_disabled_observability(conditions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``AdjustConditionsForDisabledObservabilityInScheduler``: legacy reasons; no Admitted=False."""
    out = []
    for cond in conditions:
        if cond["type"] == "Admitted" and cond["status"] == "False":
            continue
        if cond["type"] == "QuotaReserved" and cond["status"] == "False":
            cond = {**cond, "reason": "Waiting" if cond["reason"] == "WaitingForPodsReady" else "Pending"}
        out.append(cond)
    return out


def _conditions(wl: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    out = {}
    for cond in (wl.get("status") or {}).get("conditions") or []:
        if cond["type"] in SCHEDULER_CONDITIONS and not (cond["type"] == "Admitted" and cond["status"] == "False"):
            out[cond["type"]] = (cond["status"], cond.get("reason", ""), _UID.sub("UID: <uid>", cond.get("message", "")))
    return out


def conditions_by_workload(fc: FakeCluster) -> dict[str, dict[str, tuple[str, str, str]]]:
    return {f"{wl['metadata']['namespace']}/{wl['metadata']['name']}": _conditions(wl) for wl in fc.list("Workload")}


def compare_workload_conditions(fc: FakeCluster, before: dict[str, dict[str, tuple[str, str, str]]],
                                inputs: list[dict[str, Any]], want_workloads: list[dict[str, Any]] | None,
                                types: tuple[str, ...] = SCHEDULER_CONDITIONS) -> None:
    """The conditions the cycle wrote, against upstream's (type, status, reason, message; UIDs,
    which the API server assigns here, masked). Upstream's tests run no workload controller: a
    condition upstream expects unchanged from the case's input is not compared (here the workload
    controller may have synced it), and one the cycle did not change here is compared only when
    upstream expects the cycle to change it."""
    given = {f"{w['metadata'].get('namespace') or 'default'}/{w['metadata']['name']}":
             _conditions(_fix_times(w)) for w in inputs}
    after = conditions_by_workload(fc)
    for want in want_workloads or []:
        meta = want["metadata"]
        key = f"{meta.get('namespace') or 'default'}/{meta['name']}"
        conds = adjust_for_disabled_observability(copy.deepcopy((want.get("status") or {}).get("conditions") or []))
        expected = _conditions({"status": {"conditions": conds}})
        got, was, inp = after.get(key, {}), before.get(key, {}), given.get(key, {})
        for type_ in types:
            changed_here = got.get(type_) != was.get(type_)
            expected_change = expected.get(type_) != inp.get(type_)
            if changed_here or expected_change:
                assert got.get(type_) == expected.get(type_), \
                    f"{type_} condition of {key}: got {got.get(type_)}, want {expected.get(type_)}"
