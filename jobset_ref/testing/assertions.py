"""Assertion helpers that read like the domain, for tests of operators and of JobSet behaviour.

    t = wait_for_jobset_condition(cluster, "pytorch", "Completed", timeout=600)
    assert_jobset_jobs(cluster, "pytorch", ["pytorch-workers-0"])
    assert resolve_pod(cluster, "pytorch-workers-0-0.pytorch") == [pod_ip]

All waiting is in virtual time; a condition that never comes raises ``SimulationError`` with
the trace tail.
"""

from __future__ import annotations

from typing import Any

from fakekube import FakeCluster, NotFound, SimulationError, UsageError

__all__ = [
    "assert_jobset_jobs",
    "condition",
    "jobs_of",
    "pods_of",
    "resolve_pod",
    "summary_table",
    "wait_for_jobset_condition",
]

JOBSETS = "jobsets.jobset.x-k8s.io"
JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name"
MAX_PODS = 50


def condition(obj: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    """The condition of type ``ctype`` in ``obj.status.conditions``, or None."""
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return dict(c)
    return None


def _describe_jobset(cluster: FakeCluster, name: str, namespace: str) -> str:
    """What the JobSet looks like now, for timeout messages."""
    try:
        js = cluster.get(JOBSETS, name, namespace)
    except NotFound:
        return f"JobSet {namespace}/{name} does not exist."
    status = js.get("status") or {}
    conds = [f"{c.get('type')}={c.get('status')} ({c.get('reason', '')})" for c in status.get("conditions") or []]
    suspended = (js.get("spec") or {}).get("suspend")
    return (f"It has conditions: {', '.join(conds) or 'none'}; restarts={status.get('restarts', 0)}"
            + ("; spec.suspend=true" if suspended else "")
            + (f"; terminalState={status['terminalState']}" if status.get("terminalState") else "") + ".")


def _require_jobset_api(cluster: FakeCluster, what: str) -> None:
    if not isinstance(cluster, FakeCluster):
        raise UsageError(f"{what}() takes a FakeCluster first, got {type(cluster).__name__}")
    if not cluster.api.registry.by_key(JOBSETS):
        raise UsageError(f"{what}() needs the JobSet API: use the jobset_cluster fixture, or call "
                         "jobset_ref.install(cluster) first")


def wait_for_jobset_condition(cluster: FakeCluster, name: str, ctype: str, *, status: str = "True",
                              namespace: str = "default", timeout: float = 3600) -> float:
    """Advance virtual time until the JobSet has condition ``ctype`` with ``status``.

    Returns the instant it first held, in the harness's one representation of virtual time
    (seconds since the cluster started, compared exactly: ``== 62.01``); if it already holds, the
    clock does not move. Raises ``SimulationError`` describing the JobSet's
    current conditions (and the trace tail) if it does not hold within ``timeout`` virtual
    seconds from now.
    """
    __tracebackhide__ = True
    _require_jobset_api(cluster, "wait_for_jobset_condition")
    if not isinstance(name, str) or not name:
        raise UsageError("wait_for_jobset_condition() needs the JobSet's name as a string")
    if status not in ("True", "False", "Unknown"):
        raise UsageError(f"a condition status is 'True', 'False' or 'Unknown', got {status!r}")
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout < 0:
        raise UsageError(f"timeout= takes a non-negative number of virtual seconds, got {timeout!r}")

    reader = cluster.runtime.shared_client("wait_for_jobset_condition")  # read-only, uncopied

    def holds() -> bool:
        try:
            js = reader.get(JOBSETS, name, namespace)
        except NotFound:
            return False
        found = condition(js, ctype)
        return found is not None and found.get("status") == status

    try:
        return cluster.run_until(holds, timeout=timeout)
    except SimulationError as err:
        raise SimulationError(f"JobSet {namespace}/{name} did not reach {ctype}={status} within {timeout:g}s "
                              f"of virtual time (now t={cluster.elapsed:g}s). "
                              f"{_describe_jobset(cluster, name, namespace)}\n{err}") from None


def jobs_of(cluster: FakeCluster, jobset: str, namespace: str = "default") -> list[dict[str, Any]]:
    """The JobSet's child Jobs, by name."""
    return cluster.list("jobs", namespace, label_selector=f"{JOBSET_NAME_LABEL}={jobset}")


def pods_of(cluster: FakeCluster, jobset: str, namespace: str = "default") -> list[dict[str, Any]]:
    """The JobSet's pods, by name."""
    return cluster.list("pods", namespace, label_selector=f"{JOBSET_NAME_LABEL}={jobset}")


def assert_jobset_jobs(cluster: FakeCluster, jobset: str, expected_names: list[str], *, namespace: str = "default",
                       labels: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Assert the JobSet's live Jobs are exactly ``expected_names`` and each carries ``labels``."""
    jobs = [j for j in jobs_of(cluster, jobset, namespace) if not j["metadata"].get("deletionTimestamp")]
    names = [j["metadata"]["name"] for j in jobs]
    assert names == sorted(expected_names), f"JobSet {jobset} has Jobs {names}, expected {sorted(expected_names)}"
    for job in jobs:
        have = job["metadata"].get("labels") or {}
        missing = {k: v for k, v in (labels or {}).items() if have.get(k) != v}
        assert not missing, f"Job {job['metadata']['name']} lacks labels {missing} (has {have})"
    return jobs


def resolve_pod(cluster: FakeCluster, name: str, namespace: str = "default") -> list[str]:
    """What cluster DNS answers for ``name`` from a pod in ``namespace`` (IPs)."""
    if not cluster.simulate:
        raise UsageError("resolve_pod() needs cluster DNS: use FakeCluster(simulate=True)")
    return cluster.dns.resolve(name, namespace=namespace)


def summary_table(cluster: FakeCluster) -> str:
    """A compact table of JobSets, Jobs and Pods with phases and conditions (for failure reports)."""
    rows: list[tuple[str, str, str]] = []
    for js in cluster.list(JOBSETS) if cluster.api.registry.by_key(JOBSETS) else []:
        conds = ",".join(f"{c['type']}={c['status']}" for c in (js.get("status") or {}).get("conditions") or [])
        rows.append((f"JobSet {js['metadata']['namespace']}/{js['metadata']['name']}",
                     f"restarts={(js.get('status') or {}).get('restarts', 0)}", conds))
    for job in cluster.list("jobs"):
        status = job.get("status") or {}
        conds = ",".join(f"{c['type']}={c['status']}" for c in status.get("conditions") or [])
        rows.append((f"Job {job['metadata']['namespace']}/{job['metadata']['name']}",
                     f"active={status.get('active', 0)} succeeded={status.get('succeeded', 0)} "
                     f"failed={status.get('failed', 0)}", conds))
    pods = cluster.list("pods")
    for pod in pods[:MAX_PODS]:
        status = pod.get("status") or {}
        rows.append((f"Pod {pod['metadata']['namespace']}/{pod['metadata']['name']}", status.get("phase", ""),
                     (pod.get("spec") or {}).get("nodeName", "")))
    if len(pods) > MAX_PODS:
        rows.append((f"... and {len(pods) - MAX_PODS} more Pods", "", ""))
    if not rows:
        return "(no JobSets, Jobs or Pods)"
    width = max(len(r[0]) for r in rows)
    return "\n".join(f"{a.ljust(width)}  {b}  {c}".rstrip() for a, b, c in rows)
