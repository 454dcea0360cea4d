"""The Python equivalents of the Workload CRD's hot CEL rules agree with the CEL interpreter.

Each (old, new) Workload pair is validated by the Workload CRD's schema twice, once with the
native rules and once with the interpreter alone; the errors must be the same. The pairs cover
every branch of each rule: quota reserved or not, before and after, a priorityClassRef added,
removed or changed in each field, the queue name and the maximum execution time changed, the
podSetAssignments count, clusterName set, changed and alongside nominatedClusterNames."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from fakekube.components.kueue.api import WORKLOAD_RULES, WORKLOAD_STATUS_RULES, crds
from fakekube.components.kueue.native_rules import NATIVE, register
from fakekube.machinery.openapi import StructuralSchema
from fakekube.machinery.openapi import cel as celmod

SCHEMA = StructuralSchema.from_crd_version(
    next(crd for crd in crds() if crd["spec"]["names"]["kind"] == "Workload")["spec"]["versions"][0])
RESERVED = {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "m",
            "lastTransitionTime": "2026-01-01T00:00:00Z"}
ADMITTED = {**RESERVED, "type": "Admitted", "reason": "Admitted"}


def workload(*, conditions: tuple[dict[str, Any], ...] = (), queue: str | None = "q", ref: dict[str, str] | None = None,
             max_exec: int | None = None, assignments: int | None = None, pod_sets: int = 1,
             cluster_name: str | None = None, nominated: list[str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"active": True, "podSets": [
        {"name": f"ps{i}", "count": 1, "template": {"spec": {"containers": [{"name": "c"}]}}} for i in range(pod_sets)]}
    if queue is not None:
        spec["queueName"] = queue
    if ref is not None:
        spec["priorityClassRef"] = ref
        spec["priority"] = 1
    if max_exec is not None:
        spec["maximumExecutionTimeSeconds"] = max_exec
    status: dict[str, Any] = {}
    if conditions:
        status["conditions"] = [copy.deepcopy(c) for c in conditions]
    if assignments is not None:
        status["admission"] = {"clusterQueue": "cq", "podSetAssignments": [{"name": f"ps{i}"} for i in range(assignments)]}
    if cluster_name is not None:
        status["clusterName"] = cluster_name
    if nominated is not None:
        status["nominatedClusterNames"] = nominated
    obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
           "metadata": {"name": "w", "namespace": "default"}, "spec": spec}
    if status:
        obj["status"] = status
    return obj


WPC = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"}
PC = {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": "high"}
HELD = (RESERVED,)
RUNNING = (RESERVED, ADMITTED)

PAIRS: list[tuple[str, dict[str, Any] | None, dict[str, Any]]] = [
    ("create", None, workload()),
    ("assignments match", None, workload(conditions=HELD, assignments=1)),
    ("assignments short", None, workload(conditions=HELD, assignments=1, pod_sets=2)),
    ("assignments without quota", None, workload(assignments=1, pod_sets=2)),
    ("ref added while held", workload(conditions=HELD, assignments=1), workload(conditions=HELD, assignments=1, ref=WPC)),
    ("ref removed while held", workload(conditions=HELD, assignments=1, ref=WPC), workload(conditions=HELD, assignments=1)),
    ("ref added while pending", workload(), workload(ref=WPC)),
    ("ref group changed", workload(conditions=HELD, assignments=1, ref=WPC),
     workload(conditions=HELD, assignments=1, ref=PC)),
    ("ref name changed (WorkloadPriorityClass)", workload(conditions=HELD, assignments=1, ref=WPC),
     workload(conditions=HELD, assignments=1, ref={**WPC, "name": "low"})),
    ("ref name changed (PriorityClass)", workload(conditions=HELD, assignments=1, ref=PC),
     workload(conditions=HELD, assignments=1, ref={**PC, "name": "low"})),
    ("queue changed while held", workload(conditions=HELD, assignments=1),
     workload(conditions=HELD, assignments=1, queue="other")),
    ("queue removed while held", workload(conditions=HELD, assignments=1),
     workload(conditions=HELD, assignments=1, queue=None)),
    ("queue changed as quota is released", workload(conditions=HELD, assignments=1), workload(queue="other")),
    ("max exec changed while admitted", workload(conditions=RUNNING, assignments=1, max_exec=10),
     workload(conditions=RUNNING, assignments=1, max_exec=20)),
    ("max exec set while admitted", workload(conditions=RUNNING, assignments=1),
     workload(conditions=RUNNING, assignments=1, max_exec=20)),
    ("max exec changed while held only", workload(conditions=HELD, assignments=1, max_exec=10),
     workload(conditions=HELD, assignments=1, max_exec=20)),
    ("clusterName changed", workload(cluster_name="a"), workload(cluster_name="b")),
    ("clusterName set", workload(), workload(cluster_name="b")),
    ("clusterName with nominated", None, workload(cluster_name="a", nominated=["a"])),
    ("clusterName with no nominated", None, workload(cluster_name="a", nominated=[])),
]


@contextmanager
def interpreter_only() -> Iterator[None]:
    saved = dict(celmod._NATIVE)
    celmod._NATIVE.clear()
    try:
        yield
    finally:
        celmod._NATIVE.update(saved)


def _errors(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    return sorted(str(e) for e in SCHEMA.validate(new, old))


@pytest.mark.parametrize(("old", "new"), [pytest.param(o, n, id=name) for name, o, n in PAIRS])
def test_native_rules_agree_with_the_interpreter(old: dict[str, Any] | None, new: dict[str, Any]) -> None:
    register()
    native = _errors(new, old)
    with interpreter_only():
        interpreted = _errors(new, old)
    assert native == interpreted


def test_every_rule_fails_on_some_pair() -> None:
    """Each native rule's message comes out for at least one pair (the agreement is not vacuous)."""
    register()
    messages = " ".join(msg for _, old, new in PAIRS for msg in _errors(new, old))
    for message in [m for _, m in WORKLOAD_RULES + WORKLOAD_STATUS_RULES]:
        assert message in messages, message
    assert len(NATIVE) == len(WORKLOAD_RULES) + len(WORKLOAD_STATUS_RULES)
