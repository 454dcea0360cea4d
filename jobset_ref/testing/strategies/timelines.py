"""Strategies for fault timelines: timed, JobSet-relative faults (pod and node failures, pod
completions, suspend/resume, deletion, controller restarts, API conflicts, late or broken
watches), each applying the :mod:`fakekube.faults` value it stands for, and
:func:`fault_timelines` that draws them in time order."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

import fakekube.faults as faults
from fakekube import ApiError, FakeCluster, NotFound, Reactor, UsageError
from jobset_ref.api import constants as c
from jobset_ref.testing.strategies._arguments import _check_bounds

__all__ = [
    "FAULT_KINDS",
    "BreakWatch",
    "CompletePod",
    "DelayDelivery",
    "DelayWatch",
    "DeleteJobSet",
    "FailNode",
    "FailPod",
    "Fault",
    "FaultContext",
    "FaultTimeline",
    "InjectConflict",
    "RestartControllers",
    "Resume",
    "Suspend",
    "fault_timelines",
]

# =============================================================================== fault timelines


@dataclass(frozen=True, slots=True)
class FaultContext:
    """What a fault needs to find its target."""

    jobset: str
    namespace: str = "default"


class Fault:
    """A timed event; ``apply`` returns a one-line description of what happened (or was skipped).
    The pod, node and API faults apply the :mod:`fakekube.faults` value they stand for."""

    at: float

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:  # pragma: no cover - interface
        raise NotImplementedError


def _pod_faults(ctx: FaultContext, rjob: str, job_index: int, pod_index: int) -> list[faults.PodTarget]:
    """Targets of pod ``pod_index`` of Job ``<js>-<rjob>-<job_index>``, in order of preference: the
    pod with that completion index, else the ``pod_index``-th (modulo their number) of the Job's pods."""
    selector = (f"{c.JOBSET_NAME_KEY}={ctx.jobset},{c.REPLICATED_JOB_NAME_KEY}={rjob},"
                f"{c.JOB_INDEX_KEY}={job_index}")
    return [faults.PodTarget(selector=f"{selector},{c.JOB_COMPLETION_INDEX_ANNOTATION}={pod_index}",
                             namespace=ctx.namespace),
            faults.PodTarget(selector=selector, namespace=ctx.namespace, pick=pod_index)]


def _apply_pod_fault(cluster: FakeCluster, targets: list[faults.PodTarget],
                     make: Callable[[faults.PodTarget], faults.Fault], what: str) -> str:
    for target in targets:
        try:
            return make(target).apply(cluster)
        except faults.NoTarget:
            continue
        except UsageError as err:  # e.g. its containers are between restarts
            return f"skip {what}: {err}"
    return f"skip {what}: no running pod"


@dataclass(frozen=True, slots=True)
class FailPod(Fault):
    """The containers of pod ``pod_index`` of Job ``<js>-<replicated_job>-<job_index>`` exit non-zero."""

    at: float
    replicated_job: str
    job_index: int = 0
    pod_index: int = 0
    exit_code: int = 1
    reason: str = "Error"

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return _apply_pod_fault(cluster, _pod_faults(ctx, self.replicated_job, self.job_index, self.pod_index),
                                lambda t: faults.FailPod(t, exit_code=self.exit_code, reason=self.reason),
                                f"fail-pod {self.replicated_job}/{self.job_index}/{self.pod_index}")


@dataclass(frozen=True, slots=True)
class CompletePod(Fault):
    """The containers of one pod exit 0 now."""

    at: float
    replicated_job: str
    job_index: int = 0
    pod_index: int = 0

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return _apply_pod_fault(cluster, _pod_faults(ctx, self.replicated_job, self.job_index, self.pod_index),
                                faults.CompletePod,
                                f"complete-pod {self.replicated_job}/{self.job_index}/{self.pod_index}")


@dataclass(frozen=True, slots=True)
class FailNode(Fault):
    """Node number ``node_index`` (in name order, among nodes not yet failed) stops responding."""

    at: float
    node_index: int = 0

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        live = [n["metadata"]["name"] for n in cluster.list("nodes")
                if not any(t.get("key") == "node.kubernetes.io/unreachable"
                           for t in (n.get("spec") or {}).get("taints") or [])]
        if len(live) <= 1:
            return "skip fail-node: keep at least one node"
        return faults.FailNode(name=live[self.node_index % len(live)]).apply(cluster)


def _set_suspend(cluster: FakeCluster, ctx: FaultContext, value: bool) -> str:
    try:
        cluster.patch("jobsets.jobset.x-k8s.io", ctx.jobset, {"spec": {"suspend": value}}, ctx.namespace)
    except NotFound:
        return f"skip {'suspend' if value else 'resume'}: JobSet gone"
    except ApiError as err:
        return f"{'suspend' if value else 'resume'} rejected: {err.message}"
    return "suspend" if value else "resume"


@dataclass(frozen=True, slots=True)
class Suspend(Fault):
    """``spec.suspend = true``."""

    at: float

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return _set_suspend(cluster, ctx, True)


@dataclass(frozen=True, slots=True)
class Resume(Fault):
    """``spec.suspend = false``."""

    at: float

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return _set_suspend(cluster, ctx, False)


@dataclass(frozen=True, slots=True)
class DeleteJobSet(Fault):
    """Delete the JobSet (children go by owner-reference GC)."""

    at: float
    propagation_policy: str | None = None

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        try:
            cluster.delete("jobsets.jobset.x-k8s.io", ctx.jobset, ctx.namespace,
                           propagation_policy=self.propagation_policy)
        except NotFound:
            return "skip delete-jobset: already gone"
        return f"delete-jobset propagation={self.propagation_policy}"


@dataclass(frozen=True, slots=True)
class RestartControllers(Fault):
    """Every shared informer relists, as after a controller-manager restart."""

    at: float

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        cluster.runtime.restart_informers()
        cluster.run_until_idle()
        return "restart-controllers"


@dataclass(frozen=True, slots=True)
class InjectConflict(Fault):
    """The ``nth`` next matching request fails with 409 Conflict."""

    at: float
    verb: str = "update"
    resource: str = "jobsets.jobset.x-k8s.io"
    nth: int = 1
    subresource: str | None = "*"

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        error = faults.api_error(409, f'Operation cannot be fulfilled on {self.resource} "{ctx.jobset}": '
                                      "injected conflict")
        return faults.Inject(Reactor(verb=self.verb, resource=self.resource, nth=self.nth,
                                     subresource=self.subresource, error=error)).apply(cluster)


@dataclass(frozen=True, slots=True)
class DelayWatch(Fault):
    """The watch events of the next ``times`` matching writes arrive ``seconds`` late."""

    at: float
    verb: str = "*"
    resource: str = "jobs.batch"
    seconds: float = 1.0
    times: int = 3

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return faults.Inject(Reactor(verb=self.verb, resource=self.resource, delay_seconds=self.seconds,
                                     times=self.times)).apply(cluster)


@dataclass(frozen=True, slots=True)
class BreakWatch(Fault):
    """The informers' watch of ``resource`` breaks at their ``nth`` next event; they relist."""

    at: float
    resource: str = "pods"
    nth: int = 1

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return faults.BreakWatch(self.resource, self.nth).apply(cluster)


@dataclass(frozen=True, slots=True)
class DelayDelivery(Fault):
    """The informers of ``resource`` get their ``nth`` next event, and all behind it, ``seconds`` late."""

    at: float
    resource: str = "pods"
    nth: int = 1
    seconds: float = 1.0

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return faults.DelayDelivery(self.resource, self.nth, self.seconds).apply(cluster)


#: Names of the fault kinds :func:`fault_timelines` can draw.
FAULT_KINDS: tuple[str, ...] = ("fail-pod", "complete-pod", "fail-node", "suspend", "resume", "delete-jobset",
                                "restart-controllers", "conflict", "delay-watch", "break-watch", "delay-delivery")


@dataclass(frozen=True, slots=True)
class FaultTimeline:
    """Faults in time order; ``run`` plays them on a cluster and returns what happened."""

    faults: tuple[Fault, ...]

    def run(self, cluster: FakeCluster, jobset: str, *, namespace: str = "default",
            until: float | None = None, after_each: Callable[[Fault, str], None] | None = None) -> list[str]:
        """Advance to each fault's time (relative to now), apply it; finally advance to ``until``."""
        start = cluster.elapsed
        ctx = FaultContext(jobset, namespace)
        log: list[str] = []
        for fault in sorted(self.faults, key=lambda f: f.at):
            if start + fault.at > cluster.elapsed:
                cluster.advance_to(start + fault.at)
            line = fault.apply(cluster, ctx)
            log.append(f"t+{fault.at:g}s {line}")
            if after_each is not None:
                after_each(fault, line)
        if until is not None and start + until > cluster.elapsed:
            cluster.advance_to(start + until)
        return log

    def kinds(self) -> list[str]:
        return [type(f).__name__ for f in self.faults]


_JOBSET_RESOURCES = ("jobsets.jobset.x-k8s.io", "jobs.batch", "services", "pods")
_WATCHED_RESOURCES = (*_JOBSET_RESOURCES, "endpointslices.discovery.k8s.io", "nodes")


def fault_timelines(jobset: Mapping[str, Any], *, min_size: int = 0, max_size: int = 5, horizon: float = 60,
                    kinds: Sequence[str] = FAULT_KINDS, nodes: int = 4) -> SearchStrategy[FaultTimeline]:
    """Timelines of up to ``max_size`` faults within ``horizon`` virtual seconds against ``jobset``:
    pod failures (exit codes and reasons), pod completions, node failures (``node_index`` among
    ``nodes``), suspend/resume, JobSet deletion, controller restarts, injected API conflicts,
    delayed watch events, broken watches and late deliveries to the informers (of the JobSet's
    resources, EndpointSlices or Nodes, at their 1st to 20th next event). ``kinds`` picks from
    :data:`FAULT_KINDS`.
    """
    _check_bounds("size", min_size, max_size)
    wanted = list(kinds)
    unknown = [k for k in wanted if k not in FAULT_KINDS]
    if unknown:
        raise UsageError(f"unknown fault kind(s) {unknown}; known: {', '.join(FAULT_KINDS)}")
    if not wanted and min_size > 0:
        raise UsageError("fault_timelines(kinds=[]) cannot draw min_size > 0 faults")
    if horizon <= 0:
        raise UsageError(f"horizon must be > 0 seconds, got {horizon}")
    rjobs = [(r["name"], max(int(r.get("replicas", 1)), 1),
              max(int(((r.get("template") or {}).get("spec") or {}).get("parallelism", 1) or 1), 1))
             for r in (jobset.get("spec") or {}).get("replicatedJobs") or []]
    pod_kinds = {"fail-pod", "complete-pod"}
    if not rjobs:
        wanted = [k for k in wanted if k not in pod_kinds]
    times = st.integers(0, int(horizon * 2)).map(lambda h: h / 2)

    @st.composite
    def pod_target(draw: st.DrawFn) -> tuple[str, int, int]:
        name, replicas, parallelism = draw(st.sampled_from(rjobs))
        return name, draw(st.integers(0, replicas - 1)), draw(st.integers(0, parallelism - 1))

    @st.composite
    def one(draw: st.DrawFn) -> Fault:
        kind = draw(st.sampled_from(wanted))
        at = draw(times)
        if kind == "fail-pod":
            rjob, ji, pi = draw(pod_target())
            code, reason = draw(st.sampled_from([(1, "Error"), (137, "OOMKilled"), (2, "Error"), (143, "Error")]))
            return FailPod(at, rjob, ji, pi, code, reason)
        if kind == "complete-pod":
            rjob, ji, pi = draw(pod_target())
            return CompletePod(at, rjob, ji, pi)
        if kind == "fail-node":
            return FailNode(at, draw(st.integers(0, max(nodes - 1, 0))))
        if kind == "suspend":
            return Suspend(at)
        if kind == "resume":
            return Resume(at)
        if kind == "delete-jobset":
            return DeleteJobSet(at, draw(st.sampled_from([None, "Foreground", "Background"])))
        if kind == "restart-controllers":
            return RestartControllers(at)
        if kind == "conflict":
            verb, resource, sub = draw(st.sampled_from([
                ("update", "jobsets.jobset.x-k8s.io", "status"), ("create", "jobs.batch", None),
                ("update", "jobs.batch", None), ("create", "services", None), ("delete", "jobs.batch", None)]))
            return InjectConflict(at, verb, resource, draw(st.integers(1, 3)), sub)
        if kind == "break-watch":
            return BreakWatch(at, draw(st.sampled_from(_WATCHED_RESOURCES)), draw(st.integers(1, 20)))
        if kind == "delay-delivery":
            return DelayDelivery(at, draw(st.sampled_from(_WATCHED_RESOURCES)), draw(st.integers(1, 20)),
                                 draw(st.sampled_from([0.5, 2.0, 7.0])))
        resource = draw(st.sampled_from(_JOBSET_RESOURCES))
        return DelayWatch(at, "*", resource, draw(st.sampled_from([0.5, 1.0, 5.0])), draw(st.integers(1, 5)))

    if not wanted:
        return st.just(FaultTimeline(()))
    return st.lists(one(), min_size=min_size, max_size=max_size).map(
        lambda fs: FaultTimeline(tuple(sorted(fs, key=lambda f: f.at))))
