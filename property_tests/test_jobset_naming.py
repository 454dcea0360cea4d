"""Naming, labels, job keys, global indices, DNS and exclusive placement of any admitted JobSet,
checked while it runs (every invariant of ``jobset_ref.testing.invariants`` at several instants)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jobset_ref
from fakekube import FakeCluster
from jobset_ref.api import constants as c
from jobset_ref.testing import invariants as inv
from jobset_ref.testing import strategies as s

pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")

GATE_CHOICES = st.sampled_from([{}, {c.FEATURE_RESTART_JOB: True}])


def _run_and_check(js: dict[str, Any], shape: s.ClusterShape, scripts: s.PodScripts, gates: dict[str, bool],
                   *, steps: tuple[float, ...] = (0, 1, 2, 5, 15, 40)) -> FakeCluster:
    cluster = FakeCluster(seed=0)
    shape.apply(cluster)
    jobset_ref.install(cluster, feature_gates=gates or None)
    monitor = inv.Monitor(cluster)
    scripts.apply(cluster)
    cluster.apply(js)
    name = js["metadata"]["name"]
    now = 0.0
    for t in steps:
        cluster.advance(t - now)
        now = t
        inv.assert_invariants(cluster, name, monitor=monitor, feature_gates=gates, context=f"at t={t}s")
    return cluster


@settings(max_examples=30)
@given(GATE_CHOICES, st.data())
def test_any_jobset_keeps_naming_label_dns_invariants(gates: dict[str, bool], data: st.DataObject) -> None:
    js = data.draw(s.jobsets(feature_gates=gates), "jobset")
    shape = data.draw(s.cluster_shapes(), "shape")
    scripts = data.draw(s.pod_scripts(js, max_duration=30), "scripts")
    _run_and_check(js, shape, scripts, gates)


@settings(max_examples=20)
@given(st.data())
def test_long_names_near_the_dns_budget(data: st.DataObject) -> None:
    """JobSet names at the edge of the 63-character budget still give valid names and FQDNs."""
    js = data.draw(s.jobsets(names=s.dns_labels(min_size=18, max_size=24), network=True, max_replicas=2,
                             suspend=st.none(), managed_by=st.none(), exclusive_placement=False), "jobset")
    scripts = s.PodScripts((s.PodScript(f"{c.JOBSET_NAME_KEY}={js['metadata']['name']}", None, 0, 1.0),))
    cluster = _run_and_check(js, s.ClusterShape((s.NodeShape("n0"), s.NodeShape("n1"))), scripts, {},
                             steps=(0, 3))
    for job in cluster.list("jobs"):
        assert len(job["metadata"]["name"]) <= 63


@settings(max_examples=25)
@given(st.data())
def test_dns_answers_follow_readiness_and_publish_not_ready(data: st.DataObject) -> None:
    """Pods become ready only after a delay: before it, only publishNotReadyAddresses publishes them."""
    js = data.draw(s.jobsets(network=True, suspend=st.none(), managed_by=st.none(), exclusive_placement=False,
                             completion_modes=st.just("Indexed")), "jobset")
    name = js["metadata"]["name"]
    scripts = s.PodScripts((s.PodScript(f"{c.JOBSET_NAME_KEY}={name}", None, 0, 10.0),))
    cluster = _run_and_check(js, s.ClusterShape(tuple(s.NodeShape(f"n{i}") for i in range(3))), scripts, {},
                             steps=(0, 3))
    net = js["spec"].get("network") or {}
    if net.get("enableDNSHostnames") is False:
        return
    pnra = net.get("publishNotReadyAddresses", True)
    sub = net.get("subdomain") or name
    for ready in (False, True):
        pods = [p for p in inv.Snapshot.take(cluster, name).pods
                if p["spec"].get("hostname") and p["status"].get("phase") == "Running"]
        for pod in pods:
            want = [pod["status"]["podIP"]] if (ready or pnra) else []
            assert cluster.dns.resolve(f"{pod['spec']['hostname']}.{sub}") == want, (ready, pnra)
        cluster.advance(9)
        inv.assert_invariants(cluster, name, context="after readiness")


@settings(max_examples=20)
@given(st.data())
def test_exclusive_placement_gives_each_job_its_own_domain(data: st.DataObject) -> None:
    shape = data.draw(s.cluster_shapes(min_pools=2, max_pools=5), "shape")
    js = data.draw(s.jobsets(exclusive_placement=True, suspend=st.none(), managed_by=st.none(),
                             topology_keys=shape.topology_keys[:1]), "jobset")
    scripts = s.PodScripts((s.PodScript(f"{c.JOBSET_NAME_KEY}={js['metadata']['name']}", None, 0, 0.0),))
    cluster = _run_and_check(js, shape, scripts, {}, steps=(0, 2, 5))
    snap = inv.Snapshot.take(cluster, js["metadata"]["name"])
    pools = len(shape.domains(shape.topology_keys[0]))
    exclusive_jobs = [j for j in snap.current_jobs() if c.EXCLUSIVE_KEY in (j["metadata"].get("annotations") or {})]
    placed = [j for j in exclusive_jobs if any(p["spec"].get("nodeName") for p in snap.pods_of(j))]
    assert len(placed) <= pools


@settings(max_examples=25)
@given(st.sampled_from(["InOrder", "dependsOn"]), st.data())
def test_in_order_and_depends_on_never_start_a_later_replicated_job_early(order: str, data: st.DataObject) -> None:
    """Pods become ready a few seconds after they start, so a too-early start is visible."""
    js = data.draw(s.jobsets(startup_policy=order == "InOrder", depends_on=order == "dependsOn", min_replicas=1,
                             min_replicated_jobs=2, suspend=st.sampled_from([None, True]), managed_by=st.none(),
                             exclusive_placement=False), "jobset")
    name = js["metadata"]["name"]
    scripts = s.PodScripts((s.PodScript(f"{c.JOBSET_NAME_KEY}={name}", float(data.draw(st.integers(5, 20))), 0,
                                        float(data.draw(st.integers(0, 3)))),))
    cluster = _run_and_check(js, s.ClusterShape(tuple(s.NodeShape(f"n{i}") for i in range(3))), scripts, {},
                             steps=(0, 1, 2, 4, 8))
    if js["spec"].get("suspend"):
        cluster.patch(inv.JOBSETS, name, {"spec": {"suspend": False}})
        for _ in range(4):
            cluster.advance(3)
            inv.assert_invariants(cluster, name, context="after resume")
