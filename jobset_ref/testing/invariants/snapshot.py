"""What the JobSet invariants read and return: a :class:`Snapshot` of one JobSet with its Jobs,
pods, Services and nodes at one instant (with the object accessors the checks share), and the
:class:`Violation` each broken invariant is reported as."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fakekube import FakeCluster, NotFound
from jobset_ref.api import constants as c

__all__ = ["JOBSETS", "Snapshot", "Violation", "assert_no_violations"]

JOBSETS = "jobsets.jobset.x-k8s.io"


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant: which, about what, and how."""

    invariant: str
    subject: str
    message: str

    def __str__(self) -> str:
        return f"[{self.invariant}] {self.subject}: {self.message}"


def assert_no_violations(violations: Iterable[Violation], *, context: str = "") -> None:
    """Raise ``AssertionError`` listing every violation (no-op when there are none)."""
    found = list(violations)
    if found:
        head = f"{len(found)} JobSet invariant violation(s)" + (f" {context}" if context else "")
        raise AssertionError(head + ":\n  " + "\n  ".join(str(v) for v in found))


def _labels(obj: Mapping[str, Any]) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("labels") or {})


def _annotations(obj: Mapping[str, Any]) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("annotations") or {})


def _name(obj: Mapping[str, Any]) -> str:
    return str(obj["metadata"]["name"])


def _cond(obj: Mapping[str, Any], ctype: str) -> dict[str, Any] | None:
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if cond.get("type") == ctype:
            return dict(cond)
    return None


def _true(obj: Mapping[str, Any], ctype: str) -> bool:
    cond = _cond(obj, ctype)
    return cond is not None and cond.get("status") == "True"


def _int(value: Any, default: int = -1) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


@dataclass
class Snapshot:
    """One JobSet with its Jobs, pods, Service and the nodes, read at one instant."""

    namespace: str
    name: str
    jobset: dict[str, Any] | None
    jobs: list[dict[str, Any]]
    pods: list[dict[str, Any]]
    services: dict[str, dict[str, Any]]
    nodes: dict[str, dict[str, Any]]
    feature_gates: Mapping[str, bool] = field(default_factory=dict)

    @classmethod
    def take(cls, cluster: FakeCluster, name: str, namespace: str = "default", *,
             feature_gates: Mapping[str, bool] | None = None) -> Snapshot:
        try:
            js: dict[str, Any] | None = cluster.get(JOBSETS, name, namespace)
        except NotFound:
            js = None
        selector = f"{c.JOBSET_NAME_KEY}={name}"
        jobs = cluster.list("jobs", namespace, label_selector=selector)
        if js is not None:
            uid = js["metadata"]["uid"]
            jobs = [j for j in jobs if any(o.get("uid") == uid for o in j["metadata"].get("ownerReferences") or [])
                    or _labels(j).get(c.JOBSET_UID_KEY) == uid]
        pods = cluster.list("pods", namespace, label_selector=selector)
        if js is not None:
            pods = [p for p in pods if _labels(p).get(c.JOBSET_UID_KEY) == js["metadata"]["uid"]]
        services = {_name(s): s for s in cluster.list("services", namespace)}
        nodes = {_name(n): n for n in cluster.list("nodes")}
        return cls(namespace, name, js, jobs, pods, services, nodes, dict(feature_gates or {}))

    # ---- derived views
    @property
    def spec(self) -> dict[str, Any]:
        return dict((self.jobset or {}).get("spec") or {})

    @property
    def status(self) -> dict[str, Any]:
        return dict((self.jobset or {}).get("status") or {})

    @property
    def rjobs(self) -> list[dict[str, Any]]:
        return list(self.spec.get("replicatedJobs") or [])

    @property
    def restarts(self) -> int:
        return int(self.status.get("restarts") or 0)

    @property
    def managed_here(self) -> bool:
        manager = self.spec.get("managedBy")
        return manager in (None, c.JOBSET_CONTROLLER_NAME)

    @property
    def dns_enabled(self) -> bool:
        net = self.spec.get("network")
        return net is not None and net.get("enableDNSHostnames") is True

    @property
    def subdomain(self) -> str:
        return (self.spec.get("network") or {}).get("subdomain") or self.name

    def job_restarts(self, rjob: str) -> list[int]:
        for rs in self.status.get("replicatedJobsStatus") or []:
            if rs.get("name") == rjob:
                return list(rs.get("jobRestarts") or [])
        return []

    def is_current(self, job: Mapping[str, Any]) -> bool:
        """Not a previous-attempt Job (§3.3)."""
        labels = _labels(job)
        if _int(labels.get(c.RESTARTS_KEY)) < self.restarts:
            return False
        if self.feature_gates.get(c.FEATURE_RESTART_JOB) and c.JOB_RESTART_ATTEMPT_KEY in labels:
            arr = self.job_restarts(labels.get(c.REPLICATED_JOB_NAME_KEY, ""))
            idx = _int(labels.get(c.JOB_INDEX_KEY))
            target = arr[idx] if 0 <= idx < len(arr) else 0
            if _int(labels.get(c.JOB_RESTART_ATTEMPT_KEY)) < target:
                return False
        return True

    def current_jobs(self) -> list[dict[str, Any]]:
        return [j for j in self.jobs if self.is_current(j)]

    def pods_of(self, job: Mapping[str, Any]) -> list[dict[str, Any]]:
        uid = job["metadata"].get("uid")
        return [p for p in self.pods
                if any(o.get("uid") == uid and o.get("controller") for o in p["metadata"].get("ownerReferences") or [])]


def _bucket(job: Mapping[str, Any]) -> str:
    for cond in (job.get("status") or {}).get("conditions") or []:
        if cond.get("status") == "True" and cond.get("type") in ("Complete", "Failed"):
            return "successful" if cond["type"] == "Complete" else "failed"
    return "active"


def _pods_count(job: Mapping[str, Any]) -> int:
    spec = job.get("spec") or {}
    parallelism = spec.get("parallelism")
    count = int(parallelism if parallelism is not None else 1)
    if spec.get("completions") is not None and int(spec["completions"]) < count:
        count = int(spec["completions"])
    return count


def _job_is_ready(job: Mapping[str, Any]) -> bool:
    status = job.get("status") or {}
    return int(status.get("succeeded") or 0) + int(status.get("ready") or 0) >= _pods_count(job)

