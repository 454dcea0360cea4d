"""fakekube.cluster: the harness API (its conventions, virtual time in and out, fault injection)."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest

from fakekube import Conflict, FakeCluster, Reactor, UsageError
from fakekube.clock import seconds, to_seconds
from fakekube.testing import make_configmap, make_pod

#: The positional parameters of each harness verb: what names the object (kind, name, namespace)
#: or the one thing the verb acts on. Everything else is an option, keyword-only.
POSITIONAL = {
    "__init__": ["seed"],
    "add_node": ["name"],
    "add_nodes": ["count"],
    "apply": ["obj_or_yaml"],
    "create": ["obj"],
    "get": ["kind", "name", "namespace"],
    "exists": ["kind", "name", "namespace"],
    "list": ["kind", "namespace"],
    "watch": ["kind", "namespace"],
    "patch": ["kind", "name", "patch", "namespace"],
    "delete": ["kind", "name", "namespace"],
    "events": ["involved"],
    "fail_pod": ["name", "namespace"],
    "complete_pod": ["name", "namespace"],
    "delete_pod": ["name", "namespace"],
    "evict_pod": ["name", "namespace"],
    "script_pods": ["label_selector"],
    "run_until": ["predicate"],
    "inject": ["reactor"],
}


@pytest.mark.parametrize("method", sorted(POSITIONAL))
def test_options_are_keyword_only(method: str) -> None:
    params = list(inspect.signature(getattr(FakeCluster, method)).parameters.values())[1:]
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert positional == POSITIONAL[method]


def test_an_option_passed_by_position_is_refused() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    with pytest.raises(TypeError):
        cluster.add_node("n0", {"zone": "a"})  # type: ignore[misc]
    cluster.add_node("n0", labels={"zone": "a"})
    assert cluster.get("nodes", "n0", None)["metadata"]["labels"]["zone"] == "a"  # type: ignore[arg-type]


# ---------------------------------------------------------------------- virtual time


def test_instants_come_out_as_exact_virtual_seconds() -> None:
    cluster = FakeCluster(seed=0)
    cluster.add_nodes(1)
    cluster.create(make_pod("p", annotations={"fakekube.io/run-seconds": "60"}, restartPolicy="Never"))
    held = cluster.run_until(lambda: cluster.get("pods", "p")["status"].get("phase") == "Succeeded", timeout=100)
    assert held == 61.01 and cluster.elapsed == held  # the decimal a test writes, no approx
    cluster.advance(0.1)
    cluster.advance(0.2)
    assert cluster.elapsed == 61.31  # each input is rounded to the nanosecond; no float drift
    cluster.advance_to(100.07)
    assert cluster.elapsed == 100.07


def test_to_seconds_and_seconds_are_inverse() -> None:
    for ns in (0, 1, 10_000_000, 62_010_000_000, 2**51 - 1):
        assert seconds(to_seconds(ns)) == ns
    assert to_seconds(62_010_000_000) == 62.01


@pytest.mark.parametrize(("call", "message"), [
    (lambda c: c.advance(-1), r"advance\(\) takes a non-negative number of virtual seconds, got -1"),
    (lambda c: c.advance(float("nan")), r"got nan"),
    (lambda c: c.advance("10s"), r"got '10s'"),
    (lambda c: c.run_until(lambda: False, timeout=-5), r"run_until\(timeout=...\) takes"),
    (lambda c: c.advance_to(1.0), r"advance_to\(1.0\) is in the past: the cluster is at t=2.5"),
])
def test_bad_time_inputs_are_usage_errors(call: Callable[[FakeCluster], object], message: str) -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    cluster.advance(2.5)
    with pytest.raises(UsageError, match=message):
        call(cluster)


# ---------------------------------------------------------------------- fault injection


def test_inject_takes_a_reactor_and_resolves_the_resource_name() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    reactor = cluster.inject(Reactor(verb="create", resource="ConfigMap", times=1, error=Conflict("injected")))
    assert reactor.resource == "configmaps"  # a kind would never match a request otherwise
    with pytest.raises(Conflict, match="injected"):
        cluster.create(make_configmap("a"))
    cluster.create(make_configmap("a"))
    assert (reactor.matched, reactor.fired) == (2, 1)


def test_a_delay_reactor_postpones_watch_events_by_virtual_seconds() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    stream = cluster.watch("configmaps")
    cluster.inject(Reactor(resource="configmaps", delay_seconds=1.5, times=1))
    cluster.create(make_configmap("a"))
    assert stream.types() == []
    cluster.advance(1.5)
    assert stream.types() == ["ADDED"]


@pytest.mark.parametrize(("call", "message"), [
    (lambda c: c.inject(verb="update", resource="jobs.batch", times=1),
     r"inject\(\) takes one Reactor: write cluster.inject\(Reactor\(verb='update', resource='jobs.batch', times=1\)\)"),
    (lambda c: c.inject({"verb": "update"}), r"inject\(\) takes one Reactor: got \{'verb': 'update'\}"),
    (lambda c: c.inject(Reactor(resource="nopes", delay_seconds=1)), r"unknown resource kind 'nopes'"),
    (lambda c: Reactor(verb="update"), r"needs error=ApiError\(...\) or delay_seconds > 0"),
    (lambda c: Reactor(delay_seconds=-1), r"delay_seconds=...\) takes a non-negative number"),
    (lambda c: Reactor(error="boom"), r"takes an ApiError"),  # type: ignore[arg-type]
    (lambda c: Reactor(error=Conflict("x"), nth=0), r"nth=...\) takes a positive int"),
])
def test_bad_fault_injection_is_a_usage_error(call: Callable[[FakeCluster], object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        call(FakeCluster(seed=0, simulate=False))


# ---------------------------------------------------------------------- the trace


def test_api_writes_and_faults_are_structured_trace_records() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    start = len(cluster.trace)
    cluster.advance(1.5)
    cluster.inject(Reactor(verb="patch", resource="configmaps", times=1, error=Conflict("injected")))
    created = cluster.create(make_configmap("a"))
    with pytest.raises(Conflict):
        cluster.patch("configmaps", "a", {"data": {"k": "v"}})
    cluster.trace.add("a free-form line")
    cluster.delete("configmaps", "a")
    write, fault, note, delete = cluster.trace.records[start:]
    rv = int(created["metadata"]["resourceVersion"])
    assert (write.verb, write.resource, write.kind, write.ref, write.resource_version) == (
        "create", "configmaps", "ConfigMap", "default/a", rv)
    assert write.is_write and not write.is_fault and write.time == seconds(1.5)
    assert (fault.verb, fault.resource, fault.ref, fault.code, fault.reason) == (
        "patch", "configmaps", "default/a", 409, "Conflict")
    assert fault.is_fault and not fault.is_write
    assert (note.note, note.is_write, note.is_fault) == ("a free-form line", False, False)
    assert delete.removed and delete.resource_version == rv + 1
    assert cluster.trace.lines[start:] == [
        f"t=00:00:01.500 create v1 ConfigMap default/a rv={rv}",
        "t=00:00:01.500 fault patch configmaps default/a -> 409 Conflict",
        "t=00:00:01.500 a free-form line",
        f"t=00:00:01.500 delete v1 ConfigMap default/a rv={rv + 1} (removed)",
    ]
    assert cluster.trace.text().endswith("\n".join(cluster.trace.lines[start:]) + "\n")
