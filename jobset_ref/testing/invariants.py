"""Invariants of a JobSet and its children, reusable by property tests and the conformance runner.

Two kinds:

* **Snapshot checks** read one consistent view of the cluster (:class:`Snapshot`) and return
  a list of :class:`Violation` (empty = fine): naming, hostnames and DNS limits, the upstream
  label/annotation set, job keys, global/group index bijections, owner references, DNS answers,
  status counters vs a recount, suspension, exclusive placement, stale restart attempts.
  Those marked *settled* hold only once the controllers have caught up (the loop is idle at
  this instant and no requeue or delayed watch event is pending); :func:`check_jobset` takes
  ``settled=``.
* **History checks** (:class:`Monitor`) watch JobSets and Jobs from the start and replay every
  event in resourceVersion order: terminalState never changes once set, restarts never
  decrease, at most one Job per (replicatedJob, index, attempt), no Job of an older attempt
  exists when a restart is reported finished (``RestartingJobSet=False``/``JobsReady``), and
  InOrder / dependsOn never start a later ReplicatedJob early.

:func:`assert_invariants` runs everything and raises ``AssertionError`` listing every violation
with the object it concerns.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fakekube import FakeCluster, NotFound
from fakekube.machinery.endpoints import CLUSTER_DOMAIN, endpoint_address, endpoint_ready, in_endpoints
from jobset_ref.api import constants as c

__all__ = [
    "JOBSETS",
    "Monitor",
    "Snapshot",
    "Violation",
    "assert_invariants",
    "assert_no_violations",
    "check_dns",
    "check_exclusive_placement",
    "check_global_index",
    "check_jobset",
    "check_labels",
    "check_naming",
    "check_owners",
    "check_stale_attempts",
    "check_status_recount",
    "check_suspended",
    "check_terminal_state",
    "expected_job_labels",
    "job_key",
]

JOBSETS = "jobsets.jobset.x-k8s.io"
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_POD_SUFFIX = re.compile(r"^[bcdfghjklmnpqrstvwxz2456789]{5}$")

#: Keys every child Job and pod carries, as labels and as annotations (coordinator and
#: job-restart-attempt are conditional).
JOBSET_KEYS: tuple[str, ...] = (
    c.JOBSET_NAME_KEY, c.JOBSET_UID_KEY, c.REPLICATED_JOB_NAME_KEY, c.REPLICATED_JOB_REPLICAS,
    c.GLOBAL_REPLICAS_KEY, c.JOB_INDEX_KEY, c.JOB_GLOBAL_INDEX_KEY, c.JOB_KEY, c.GROUP_NAME_KEY,
    c.GROUP_REPLICAS_KEY, c.JOB_GROUP_INDEX_KEY, c.RESTARTS_KEY,
)


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


# =============================================================================== snapshot


def job_key(namespace: str, job_name: str) -> str:
    """``jobset.sigs.k8s.io/job-key``: lowercase hex SHA-1 of ``<namespace>/<jobName>``."""
    return hashlib.sha1(f"{namespace}/{job_name}".encode()).hexdigest()


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
    count = int(spec.get("parallelism") if spec.get("parallelism") is not None else 1)
    if spec.get("completions") is not None and int(spec["completions"]) < count:
        count = int(spec["completions"])
    return count


def _job_is_ready(job: Mapping[str, Any]) -> bool:
    status = job.get("status") or {}
    return int(status.get("succeeded") or 0) + int(status.get("ready") or 0) >= _pods_count(job)


# =============================================================================== expected labels


def expected_job_labels(js: Mapping[str, Any], rjob_name: str, index: int) -> dict[str, str]:
    """The JobSet label set of Job ``index`` of ``rjob_name`` (without restart attempts)."""
    spec = js.get("spec") or {}
    meta = js["metadata"]
    ns = meta.get("namespace") or "default"
    rjobs = list(spec.get("replicatedJobs") or [])
    global_replicas = sum(int(r.get("replicas", 1)) for r in rjobs)
    before = 0
    target: dict[str, Any] | None = None
    for r in rjobs:
        if r["name"] == rjob_name:
            target = r
            break
        before += int(r.get("replicas", 1))
    if target is None:
        return {}
    group = target.get("groupName", "default")
    group_replicas = sum(int(r.get("replicas", 1)) for r in rjobs if r.get("groupName", "default") == group)
    group_before = 0
    for r in rjobs:
        if r["name"] == rjob_name:
            break
        if r.get("groupName", "default") == group:
            group_before += int(r.get("replicas", 1))
    job_name = f"{meta['name']}-{rjob_name}-{index}"
    labels = {
        c.JOBSET_NAME_KEY: meta["name"],
        c.JOBSET_UID_KEY: str(meta.get("uid", "")),
        c.REPLICATED_JOB_NAME_KEY: rjob_name,
        c.REPLICATED_JOB_REPLICAS: str(int(target.get("replicas", 1))),
        c.GLOBAL_REPLICAS_KEY: str(global_replicas),
        c.JOB_INDEX_KEY: str(index),
        c.JOB_GLOBAL_INDEX_KEY: str(before + index),
        c.JOB_KEY: job_key(ns, job_name),
        c.GROUP_NAME_KEY: group,
        c.GROUP_REPLICAS_KEY: str(group_replicas),
        c.JOB_GROUP_INDEX_KEY: str(group_before + index),
    }
    coord = spec.get("coordinator")
    if coord is not None:
        sub = (spec.get("network") or {}).get("subdomain") or meta["name"]
        labels[c.COORDINATOR_KEY] = (f"{meta['name']}-{coord['replicatedJob']}-{int(coord.get('jobIndex', 0))}-"
                                     f"{int(coord.get('podIndex', 0))}.{sub}")
    return labels


def _expected_exclusive(js: Mapping[str, Any], rjob: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    jsa = _annotations(js)
    if c.EXCLUSIVE_KEY in jsa:
        out[c.EXCLUSIVE_KEY] = jsa[c.EXCLUSIVE_KEY]
        if c.NODE_SELECTOR_STRATEGY_KEY in jsa:
            out[c.NODE_SELECTOR_STRATEGY_KEY] = jsa[c.NODE_SELECTOR_STRATEGY_KEY]
    ra = dict(((rjob.get("template") or {}).get("metadata") or {}).get("annotations") or {})
    if c.EXCLUSIVE_KEY in ra:
        out[c.EXCLUSIVE_KEY] = ra[c.EXCLUSIVE_KEY]
        if c.NODE_SELECTOR_STRATEGY_KEY in ra:
            out[c.NODE_SELECTOR_STRATEGY_KEY] = ra[c.NODE_SELECTOR_STRATEGY_KEY]
    return out


# =============================================================================== snapshot checks


def check_owners(snap: Snapshot) -> list[Violation]:
    """Each child Job has exactly one controller ownerReference, to this JobSet (matching UID)."""
    out: list[Violation] = []
    if snap.jobset is None:
        return out
    uid = snap.jobset["metadata"]["uid"]
    for job in snap.jobs:
        ctrl = [o for o in job["metadata"].get("ownerReferences") or [] if o.get("controller")]
        if len(ctrl) != 1:
            out.append(Violation("owner", f"Job {_name(job)}", f"{len(ctrl)} controller ownerReferences"))
            continue
        ref = ctrl[0]
        want = {"apiVersion": c.API_VERSION, "kind": c.KIND, "name": snap.name, "uid": uid,
                "controller": True, "blockOwnerDeletion": True}
        got = {k: ref.get(k) for k in want}
        if got != want:
            out.append(Violation("owner", f"Job {_name(job)}", f"controller ownerReference {got}, expected {want}"))
    return out


def check_naming(snap: Snapshot) -> list[Violation]:
    """Job ``<js>-<rjob>-<i>`` with ``i < replicas``; Indexed pods ``<job>-<k>-<5 chars>`` with
    hostname ``<job>-<k>`` (a DNS-1123 label ≤ 63), subdomain = the JobSet's when DNS hostnames
    are on, FQDN ≤ 253; every generated name ≤ 63."""
    out: list[Violation] = []
    if snap.jobset is None:
        return out
    replicas = {r["name"]: int(r.get("replicas", 1)) for r in snap.rjobs}
    for job in snap.jobs:
        labels = _labels(job)
        rjob, idx = labels.get(c.REPLICATED_JOB_NAME_KEY, ""), _int(labels.get(c.JOB_INDEX_KEY))
        want = f"{snap.name}-{rjob}-{idx}"
        subject = f"Job {_name(job)}"
        if _name(job) != want:
            out.append(Violation("naming", subject, f"name should be {want!r} (<jobset>-<replicatedJob>-<index>)"))
        if rjob not in replicas:
            out.append(Violation("naming", subject, f"replicatedJob {rjob!r} is not in the spec"))
        elif not 0 <= idx < replicas[rjob]:
            out.append(Violation("naming", subject, f"job index {idx} outside 0..{replicas[rjob] - 1}"))
        if len(_name(job)) > 63 or not _DNS1035_LABEL.match(_name(job)):
            out.append(Violation("naming", subject, "Job name is not a DNS-1035 label of at most 63 characters"))
        tmpl_spec = (((job.get("spec") or {}).get("template") or {}).get("spec") or {})
        if snap.dns_enabled and tmpl_spec.get("subdomain") != snap.subdomain:
            out.append(Violation("naming", subject,
                                 f"pod template subdomain {tmpl_spec.get('subdomain')!r}, expected {snap.subdomain!r}"))
        indexed = (job.get("spec") or {}).get("completionMode") == c.INDEXED_COMPLETION
        for pod in snap.pods_of(job):
            psub = f"Pod {_name(pod)}"
            pname = _name(pod)
            if len(pname) > 63:
                out.append(Violation("naming", psub, f"pod name longer than 63 characters ({len(pname)})"))
            if not indexed:
                continue
            k = (pod["metadata"].get("annotations") or {}).get(c.JOB_COMPLETION_INDEX_ANNOTATION)
            host = (pod.get("spec") or {}).get("hostname")
            want_host = f"{_name(job)}-{k}"
            prefix, _, suffix = pname.rpartition("-")
            if prefix != want_host or not _POD_SUFFIX.match(suffix):
                out.append(Violation("naming", psub, f"pod name should be {want_host}-<5 random chars>"))
            if host != want_host:
                out.append(Violation("naming", psub, f"hostname {host!r}, expected {want_host!r}"))
            if host and (len(host) > 63 or not _DNS1123_LABEL.match(host)):
                out.append(Violation("dns-limits", psub, f"hostname {host!r} is not a DNS-1123 label <= 63"))
            psubdomain = (pod.get("spec") or {}).get("subdomain")
            if snap.dns_enabled:
                if psubdomain != snap.subdomain:
                    out.append(Violation("naming", psub, f"subdomain {psubdomain!r}, expected {snap.subdomain!r}"))
                fqdn = f"{host}.{snap.subdomain}.{snap.namespace}.svc.{CLUSTER_DOMAIN}"
                if len(fqdn) > 253 or any(len(part) > 63 for part in fqdn.split(".")):
                    out.append(Violation("dns-limits", psub, f"FQDN {fqdn!r} breaks DNS length limits"))
    return out


def check_labels(snap: Snapshot) -> list[Violation]:
    """The full upstream label and annotation set, with consistent values, on every Job, its
    pod template and its pods; exclusive-placement keys as annotations only; job-key = SHA-1."""
    out: list[Violation] = []
    js = snap.jobset
    if js is None:
        return out
    by_name = {r["name"]: r for r in snap.rjobs}
    restart_job_gate = bool(snap.feature_gates.get(c.FEATURE_RESTART_JOB))
    for job in snap.jobs:
        labels = _labels(job)
        subject = f"Job {_name(job)}"
        rjob_name = labels.get(c.REPLICATED_JOB_NAME_KEY, "")
        rjob = by_name.get(rjob_name)
        if rjob is None:
            out.append(Violation("labels", subject, f"label {c.REPLICATED_JOB_NAME_KEY}={rjob_name!r} names no "
                                                    "replicatedJob"))
            continue
        expected = expected_job_labels(js, rjob_name, _int(labels.get(c.JOB_INDEX_KEY)))
        attempt = labels.get(c.RESTARTS_KEY)
        if attempt is None or not attempt.isdigit() or int(attempt) > snap.restarts:
            out.append(Violation("labels", subject, f"{c.RESTARTS_KEY}={attempt!r} is not an integer in "
                                                    f"0..status.restarts ({snap.restarts})"))
        if labels.get(c.JOB_KEY) != job_key(snap.namespace, _name(job)):
            out.append(Violation("job-key", subject, f"{c.JOB_KEY}={labels.get(c.JOB_KEY)!r}, expected SHA-1 of "
                                                     f"'{snap.namespace}/{_name(job)}'"))
        full = {**expected, c.RESTARTS_KEY: attempt or ""}
        if restart_job_gate:
            full[c.JOB_RESTART_ATTEMPT_KEY] = labels.get(c.JOB_RESTART_ATTEMPT_KEY, "<missing>")
        exclusive = _expected_exclusive(js, rjob)
        pod_template_meta = ((job.get("spec") or {}).get("template") or {}).get("metadata") or {}
        places: list[tuple[str, dict[str, str], dict[str, str]]] = [
            ("Job", labels, _annotations(job)),
            ("pod template", dict(pod_template_meta.get("labels") or {}),
             dict(pod_template_meta.get("annotations") or {})),
        ]
        for pod in snap.pods_of(job):
            places.append((f"Pod {_name(pod)}", _labels(pod), _annotations(pod)))
        for where, have_labels, have_ann in places:
            for key, value in full.items():
                if have_labels.get(key) != value:
                    out.append(Violation("labels", f"{subject} ({where})",
                                         f"label {key}={have_labels.get(key)!r}, expected {value!r}"))
                if have_ann.get(key) != value:
                    out.append(Violation("labels", f"{subject} ({where})",
                                         f"annotation {key}={have_ann.get(key)!r}, expected {value!r}"))
            if not restart_job_gate and c.JOB_RESTART_ATTEMPT_KEY in have_labels:
                out.append(Violation("labels", f"{subject} ({where})",
                                     f"{c.JOB_RESTART_ATTEMPT_KEY} set although gate RestartJob is off"))
            if c.COORDINATOR_KEY not in expected and c.COORDINATOR_KEY in have_labels:
                out.append(Violation("labels", f"{subject} ({where})", "coordinator label without spec.coordinator"))
            for key, value in exclusive.items():
                if have_ann.get(key) != value:
                    out.append(Violation("labels", f"{subject} ({where})",
                                         f"annotation {key}={have_ann.get(key)!r}, expected {value!r}"))
            for key in (c.EXCLUSIVE_KEY, c.NODE_SELECTOR_STRATEGY_KEY):
                if key in have_labels:
                    out.append(Violation("labels", f"{subject} ({where})", f"{key} must be an annotation only"))
    return out


def check_global_index(snap: Snapshot) -> list[Violation]:
    """Among current-attempt Jobs, ``job-global-index`` is injective into 0..N-1 (N = Σ replicas)
    and onto it once every Job exists; ``job-group-index`` likewise within each group."""
    out: list[Violation] = []
    if snap.jobset is None:
        return out
    total = sum(int(r.get("replicas", 1)) for r in snap.rjobs)
    seen: dict[int, str] = {}
    groups: dict[str, dict[int, str]] = {}
    group_sizes: dict[str, int] = {}
    for r in snap.rjobs:
        g = r.get("groupName", "default")
        group_sizes[g] = group_sizes.get(g, 0) + int(r.get("replicas", 1))
    current = snap.current_jobs()
    for job in current:
        labels = _labels(job)
        gi = _int(labels.get(c.JOB_GLOBAL_INDEX_KEY))
        if not 0 <= gi < total:
            out.append(Violation("global-index", f"Job {_name(job)}", f"global index {gi} outside 0..{total - 1}"))
        elif gi in seen:
            out.append(Violation("global-index", f"Job {_name(job)}", f"global index {gi} also used by {seen[gi]}"))
        seen[gi] = _name(job)
        g = labels.get(c.GROUP_NAME_KEY, "")
        gx = _int(labels.get(c.JOB_GROUP_INDEX_KEY))
        used = groups.setdefault(g, {})
        if not 0 <= gx < group_sizes.get(g, 0):
            out.append(Violation("global-index", f"Job {_name(job)}", f"group index {gx} outside group {g!r}"))
        elif gx in used:
            out.append(Violation("global-index", f"Job {_name(job)}", f"group index {gx} also used by {used[gx]}"))
        used[gx] = _name(job)
    names = {_name(j) for j in current}
    every = {f"{snap.name}-{r['name']}-{i}" for r in snap.rjobs for i in range(int(r.get("replicas", 1)))}
    if every <= names and set(seen) != set(range(total)):
        out.append(Violation("global-index", f"JobSet {snap.name}",
                             f"global indices {sorted(seen)} are not exactly 0..{total - 1}"))
    return out


def check_terminal_state(snap: Snapshot) -> list[Violation]:
    """``terminalState`` is set exactly when a Completed/Failed condition is True, and matches it."""
    js = snap.jobset
    if js is None or not snap.managed_here:
        return []
    state = snap.status.get("terminalState") or ""
    completed, failed = _true(js, c.JOBSET_COMPLETED), _true(js, c.JOBSET_FAILED)
    out: list[Violation] = []
    if completed and failed:
        out.append(Violation("terminal-state", f"JobSet {snap.name}", "both Completed and Failed are True"))
    want = "Completed" if completed else "Failed" if failed else ""
    if state != want:
        out.append(Violation("terminal-state", f"JobSet {snap.name}",
                             f"terminalState {state!r} but conditions say {want!r}"))
    return out


def check_status_recount(snap: Snapshot) -> list[Violation]:
    """*Settled*: ``replicatedJobsStatus`` equals a recount of the current-attempt child Jobs (§3.4)."""
    js = snap.jobset
    if js is None or not snap.managed_here or js["metadata"].get("deletionTimestamp"):
        return []
    counts: dict[str, dict[str, int]] = {r["name"]: dict.fromkeys(("ready", "succeeded", "failed", "active",
                                                                     "suspended"), 0) for r in snap.rjobs}
    for job in snap.current_jobs():
        rjob = _labels(job).get(c.REPLICATED_JOB_NAME_KEY, "")
        if rjob not in counts:
            continue
        bucket = _bucket(job)
        if bucket == "successful":
            counts[rjob]["succeeded"] += 1
        elif bucket == "failed":
            counts[rjob]["failed"] += 1
        else:
            counts[rjob]["ready"] += int(_job_is_ready(job))
            counts[rjob]["active"] += int(int((job.get("status") or {}).get("active") or 0) > 0)
            counts[rjob]["suspended"] += int((job.get("spec") or {}).get("suspend") is True)
    stored = {rs["name"]: {k: int(rs.get(k) or 0) for k in ("ready", "succeeded", "failed", "active", "suspended")}
              for rs in snap.status.get("replicatedJobsStatus") or []}
    if not stored and not snap.status:
        return [Violation("status-recount", f"JobSet {snap.name}", "no status written yet")]
    out: list[Violation] = []
    for rjob, want in counts.items():
        have = stored.get(rjob)
        if have != want:
            out.append(Violation("status-recount", f"JobSet {snap.name}",
                                 f"replicatedJobsStatus[{rjob}] = {have}, recount of child Jobs = {want}"))
    extra = set(stored) - set(counts)
    if extra:
        out.append(Violation("status-recount", f"JobSet {snap.name}", f"status for unknown replicatedJobs {extra}"))
    return out


def check_suspended(snap: Snapshot) -> list[Violation]:
    """*Settled*: a suspended JobSet (``spec.suspend`` and ``Suspended=True``) has every active
    current Job suspended and no pod Pending/Running that is not being deleted."""
    js = snap.jobset
    if js is None or not snap.managed_here or snap.spec.get("suspend") is not True or not _true(js, c.JOBSET_SUSPENDED):
        return []
    if _true(js, c.JOBSET_COMPLETED) or _true(js, c.JOBSET_FAILED):
        return []
    out: list[Violation] = []
    for job in snap.current_jobs():
        if _bucket(job) == "active" and (job.get("spec") or {}).get("suspend") is not True:
            out.append(Violation("suspended", f"Job {_name(job)}", "active Job of a suspended JobSet is not suspended"))
    for pod in snap.pods:
        phase = (pod.get("status") or {}).get("phase")
        if phase in ("Pending", "Running", None) and not pod["metadata"].get("deletionTimestamp"):
            out.append(Violation("suspended", f"Pod {_name(pod)}", f"phase {phase} while the JobSet is suspended"))
    return out


def check_stale_attempts(snap: Snapshot) -> list[Violation]:
    """Once a restart has finished (``RestartingJobSet=False``, reason ``JobsReady``), no Job of an
    older restart attempt survives (not even one being deleted)."""
    js = snap.jobset
    if js is None:
        return []
    cond = _cond(js, c.JOBSET_RESTARTING)
    if cond is None or cond.get("status") != "False" or cond.get("reason") != c.RESTARTING_JOBSET_REASON_JOBS_READY:
        return []
    return [Violation("stale-attempt", f"Job {_name(j)}",
                      f"restart-attempt {_labels(j).get(c.RESTARTS_KEY)} survives the finished restart to attempt "
                      f"{snap.restarts}")
            for j in snap.jobs if _int(_labels(j).get(c.RESTARTS_KEY)) < snap.restarts]


def _live(pod: Mapping[str, Any]) -> bool:
    return ((pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
            and not pod["metadata"].get("deletionTimestamp"))


def check_exclusive_placement(snap: Snapshot) -> list[Violation]:
    """*Settled*: for Jobs annotated ``alpha.jobset.sigs.k8s.io/exclusive-topology: <key>``, the
    scheduled live pods of one Job share one ``<key>`` domain and no two Jobs share a domain."""
    out: list[Violation] = []
    owner_of_domain: dict[tuple[str, str], str] = {}
    for job in snap.current_jobs():
        key = _annotations(job).get(c.EXCLUSIVE_KEY)
        if not key:
            continue
        domains: set[str] = set()
        for pod in snap.pods_of(job):
            node = (pod.get("spec") or {}).get("nodeName")
            if not node or not _live(pod):
                continue
            value = _labels(snap.nodes.get(node) or {"metadata": {}}).get(key)
            if value is None:
                out.append(Violation("exclusive", f"Pod {_name(pod)}", f"node {node} has no label {key}"))
                continue
            domains.add(value)
        if len(domains) > 1:
            out.append(Violation("exclusive", f"Job {_name(job)}", f"pods span {key} domains {sorted(domains)}"))
        for value in sorted(domains):
            other = owner_of_domain.get((key, value))
            if other is not None and other != _name(job):
                out.append(Violation("exclusive", f"Job {_name(job)}", f"shares {key}={value} with Job {other}"))
            owner_of_domain[(key, value)] = _name(job)
    return out


def check_dns(cluster: FakeCluster, snap: Snapshot) -> list[Violation]:
    """*Settled*: with DNS hostnames on, the headless Service ``<subdomain>`` exists as upstream
    builds it, and every pod FQDN ``<host>.<subdomain>.<ns>.svc.cluster.local`` and its short form
    ``<host>.<subdomain>`` resolve to exactly the IPs of the pods with that hostname that are in
    the endpoints and ready (or any, with publishNotReadyAddresses). With DNS hostnames off the
    controller creates no Service and no pod name resolves."""
    js = snap.jobset
    out: list[Violation] = []
    if js is None or not snap.managed_here or not cluster.simulate:
        return out
    svc = snap.services.get(snap.subdomain)
    hosts = sorted({(p.get("spec") or {}).get("hostname") for p in snap.pods if (p.get("spec") or {}).get("hostname")})
    if not snap.dns_enabled:
        owned = svc is not None and any(o.get("uid") == js["metadata"]["uid"]
                                        for o in svc["metadata"].get("ownerReferences") or [])
        if owned:
            out.append(Violation("dns", f"Service {snap.subdomain}", "created although enableDNSHostnames is off"))
        for host in hosts:
            got = cluster.dns.resolve(f"{host}.{snap.subdomain}", namespace=snap.namespace)
            if got and not owned and svc is None:
                out.append(Violation("dns", f"host {host}", f"resolves to {got} although DNS hostnames are off"))
        return out
    if svc is None:
        if snap.status:  # reconciled at least once
            out.append(Violation("dns", f"JobSet {snap.name}", f"headless Service {snap.subdomain!r} missing"))
        return out
    sspec = svc.get("spec") or {}
    pnra_want = (snap.spec.get("network") or {}).get("publishNotReadyAddresses")
    pnra_want = True if pnra_want is None else pnra_want
    owned = any(o.get("uid") == js["metadata"]["uid"] and o.get("controller")
                for o in svc["metadata"].get("ownerReferences") or [])
    if owned:
        if sspec.get("clusterIP") != "None":
            out.append(Violation("dns", f"Service {snap.subdomain}", f"clusterIP {sspec.get('clusterIP')!r}, not None"))
        if sspec.get("selector") != {c.JOBSET_NAME_KEY: snap.name}:
            out.append(Violation("dns", f"Service {snap.subdomain}", f"selector {sspec.get('selector')}"))
        if bool(sspec.get("publishNotReadyAddresses")) != pnra_want:
            out.append(Violation("dns", f"Service {snap.subdomain}",
                                 f"publishNotReadyAddresses {sspec.get('publishNotReadyAddresses')}, want {pnra_want}"))
    pnra = bool(sspec.get("publishNotReadyAddresses"))
    selector = dict(sspec.get("selector") or {})
    for host in hosts:
        expected = sorted({
            str(endpoint_address(p)) for p in snap.pods
            if (p.get("spec") or {}).get("hostname") == host and (p.get("spec") or {}).get("subdomain") == snap.subdomain
            and all(_labels(p).get(k) == v for k, v in selector.items()) and in_endpoints(p)
            and endpoint_ready(p, pnra)})
        for query in (f"{host}.{snap.subdomain}.{snap.namespace}.svc.{CLUSTER_DOMAIN}", f"{host}.{snap.subdomain}"):
            got = sorted(cluster.dns.resolve(query, namespace=snap.namespace))
            if got != expected:
                out.append(Violation("dns", query, f"resolves to {got}, expected {expected} "
                                                   f"(publishNotReadyAddresses={pnra})"))
    return out


def check_jobset(cluster: FakeCluster, name: str, namespace: str = "default", *, settled: bool = True,
                 feature_gates: Mapping[str, bool] | None = None) -> list[Violation]:
    """Every snapshot invariant of one JobSet (the *settled* ones only when ``settled``)."""
    snap = Snapshot.take(cluster, name, namespace, feature_gates=feature_gates)
    out = (check_owners(snap) + check_naming(snap) + check_labels(snap) + check_global_index(snap)
           + check_terminal_state(snap) + check_stale_attempts(snap))
    if settled:
        out += (check_status_recount(snap) + check_suspended(snap) + check_exclusive_placement(snap)
                + check_dns(cluster, snap))
    return out


# =============================================================================== history


@dataclass
class _JobHistory:
    name: str
    rjob: str
    index: int
    attempt: int
    job_attempt: str
    ever_ready: bool = False
    ever_complete: bool = False
    ever_failed: bool = False


class Monitor:
    """Watches JobSets, Jobs and Pods from the moment it is made and checks history invariants.

    Call :meth:`check` after each step; it replays the newly delivered events in
    resourceVersion order and returns the violations found (each reported once). Injected
    watch delays can reorder delivery: call :meth:`check` only once delayed events are due.
    """

    def __init__(self, cluster: FakeCluster, *, namespace: str | None = None) -> None:
        self.cluster = cluster
        self._streams = [cluster.watch(JOBSETS, namespace), cluster.watch("jobs", namespace)]
        self._consumed = [0, 0]
        self._terminal: dict[str, str] = {}
        self._finished_conds: dict[str, set[str]] = {}
        self._restarts: dict[str, tuple[int, int]] = {}
        self._specs: dict[str, dict[str, Any]] = {}
        self._suspended: dict[str, bool] = {}
        self._slots: dict[tuple[str, str, int, int, str], str] = {}
        self._jobs: dict[str, _JobHistory] = {}  # job uid → history
        self._job_suspended: dict[str, bool] = {}
        self._live: dict[str, dict[str, tuple[str, int]]] = {}  # jobset uid → job uid → (name, attempt)
        self.events_seen = 0

    def _new_events(self) -> list[tuple[int, int, str, dict[str, Any]]]:
        batch: list[tuple[int, int, str, dict[str, Any]]] = []
        for i, stream in enumerate(self._streams):
            events = stream.events
            for ev in events[self._consumed[i]:]:
                if ev.type in ("ADDED", "MODIFIED", "DELETED"):
                    rv = _int(ev.object["metadata"].get("resourceVersion"), 0)
                    batch.append((rv, i, ev.type, ev.object))
            self._consumed[i] = len(events)
        batch.sort(key=lambda e: (e[0], e[1]))
        return batch

    def check(self) -> list[Violation]:
        out: list[Violation] = []
        for _rv, stream, etype, obj in self._new_events():
            self.events_seen += 1
            if stream == 0:
                out += self._on_jobset(etype, obj)
            else:
                out += self._on_job(etype, obj)
        return out

    def stop(self) -> None:
        for s in self._streams:
            s.stop()

    # ---- JobSets
    def _on_jobset(self, etype: str, js: dict[str, Any]) -> list[Violation]:
        uid = js["metadata"]["uid"]
        subject = f"JobSet {js['metadata'].get('namespace')}/{js['metadata']['name']} (uid {uid[:8]})"
        out: list[Violation] = []
        self._specs[uid] = js
        status = js.get("status") or {}
        state = status.get("terminalState") or ""
        prev = self._terminal.get(uid, "")
        if prev and state != prev:
            out.append(Violation("terminal-state-stable", subject, f"terminalState changed {prev!r} -> {state!r}"))
        if state and not prev:
            self._terminal[uid] = state
        finished = {t for t in (c.JOBSET_COMPLETED, c.JOBSET_FAILED) if _true(js, t)}
        lost = self._finished_conds.get(uid, set()) - finished
        if lost and etype != "DELETED":
            out.append(Violation("terminal-state-stable", subject, f"condition(s) {sorted(lost)} no longer True"))
        self._finished_conds[uid] = self._finished_conds.get(uid, set()) | finished
        restarts = (int(status.get("restarts") or 0), int(status.get("restartsCountTowardsMax") or 0))
        before = self._restarts.get(uid, (0, 0))
        if restarts[0] < before[0] or restarts[1] < before[1]:
            out.append(Violation("restarts-monotonic", subject,
                                 f"(restarts, restartsCountTowardsMax) went {before} -> {restarts}"))
        self._restarts[uid] = (max(before[0], restarts[0]), max(before[1], restarts[1]))
        self._suspended[uid] = (js.get("spec") or {}).get("suspend") is True
        restarting = _cond(js, c.JOBSET_RESTARTING)
        if (etype != "DELETED" and restarting is not None and restarting.get("status") == "False"
                and restarting.get("reason") == c.RESTARTING_JOBSET_REASON_JOBS_READY):
            for name, attempt in sorted((self._live.get(uid) or {}).values()):
                if attempt < restarts[0]:
                    out.append(Violation("stale-attempt", subject,
                                         f"restart to attempt {restarts[0]} reported finished (JobsReady) while "
                                         f"Job {name} of attempt {attempt} still exists"))
        return out

    # ---- Jobs
    def _on_job(self, etype: str, job: dict[str, Any]) -> list[Violation]:
        labels = _labels(job)
        js_uid = labels.get(c.JOBSET_UID_KEY)
        if not js_uid:
            return []
        uid = job["metadata"]["uid"]
        out: list[Violation] = []
        hist = self._jobs.get(uid)
        if hist is None:
            hist = _JobHistory(_name(job), labels.get(c.REPLICATED_JOB_NAME_KEY, ""), _int(labels.get(c.JOB_INDEX_KEY)),
                               _int(labels.get(c.RESTARTS_KEY)), labels.get(c.JOB_RESTART_ATTEMPT_KEY, ""))
            self._jobs[uid] = hist
            slot = (js_uid, hist.rjob, hist.index, hist.attempt, hist.job_attempt)
            other = self._slots.get(slot)
            if other is not None and other != uid:
                out.append(Violation("one-job-per-attempt", f"Job {_name(job)}",
                                     f"a second Job (uid {uid[:8]}, first {other[:8]}) for replicatedJob {hist.rjob} "
                                     f"index {hist.index} attempt {hist.attempt}/{hist.job_attempt or '-'}"))
            self._slots[slot] = uid
        live = self._live.setdefault(js_uid, {})
        if etype == "DELETED":
            live.pop(uid, None)
            return out
        live[uid] = (hist.name, hist.attempt)
        bucket = _bucket(job)
        hist.ever_complete |= bucket == "successful"
        hist.ever_failed |= bucket == "failed"
        hist.ever_ready |= bucket == "active" and _job_is_ready(job) and (job.get("spec") or {}).get("suspend") is not True
        suspended = (job.get("spec") or {}).get("suspend") is True
        was = self._job_suspended.get(uid)
        self._job_suspended[uid] = suspended
        starting = not suspended and (was is None or was)
        creating = was is None
        if creating or starting:
            out += self._check_order(js_uid, job, hist, starting=starting)
        return out

    def _check_order(self, js_uid: str, job: dict[str, Any], hist: _JobHistory, *, starting: bool) -> list[Violation]:
        js = self._specs.get(js_uid)
        if js is None:
            return []
        spec = js.get("spec") or {}
        rjobs = list(spec.get("replicatedJobs") or [])
        names = [r["name"] for r in rjobs]
        if hist.rjob not in names:
            return []
        pos = names.index(hist.rjob)
        replicas = {r["name"]: int(r.get("replicas", 1)) for r in rjobs}

        def reached(dep: str, status: str) -> int:
            done: set[str] = set()
            for h in self._jobs.values():
                if h.rjob != dep or h.attempt != hist.attempt:
                    continue
                ok = h.ever_complete if status == "Complete" else (h.ever_ready or h.ever_complete or h.ever_failed)
                if ok:
                    done.add(h.name)
            return len(done)

        out: list[Violation] = []
        subject = f"Job {_name(job)}"
        in_order = (spec.get("startupPolicy") or {}).get("startupPolicyOrder") == "InOrder"
        if in_order and starting:
            for earlier in names[:pos]:
                n = reached(earlier, "Ready")
                if n < replicas[earlier]:
                    out.append(Violation("in-order", subject,
                                         f"started while only {n}/{replicas[earlier]} Jobs of earlier replicatedJob "
                                         f"{earlier!r} had started (InOrder)"))
        for dep in rjobs[pos].get("dependsOn") or []:
            n = reached(dep["name"], dep["status"])
            if n < replicas.get(dep["name"], 0):
                out.append(Violation("depends-on", subject,
                                     f"{'started' if starting else 'created'} while only {n}/"
                                     f"{replicas.get(dep['name'], 0)} Jobs of {dep['name']!r} were {dep['status']}"))
        return out


def assert_invariants(cluster: FakeCluster, name: str, namespace: str = "default", *, monitor: Monitor | None = None,
                      settled: bool = True, feature_gates: Mapping[str, bool] | None = None,
                      context: str = "") -> None:
    """Run :func:`check_jobset` (and ``monitor.check()``) and raise ``AssertionError`` on any violation."""
    found = check_jobset(cluster, name, namespace, settled=settled, feature_gates=feature_gates)
    if monitor is not None:
        found = monitor.check() + found
    assert_no_violations(found, context=context or f"at t={cluster.elapsed:g}s")
