"""Invariants of the names and labels of a JobSet's children: controller owner references, Job,
pod and host names within DNS limits, the upstream label and annotation set (job-key included),
and the global and group job indices."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from fakekube.machinery.endpoints import CLUSTER_DOMAIN
from jobset_ref.api import constants as c
from jobset_ref.testing.invariants.snapshot import Snapshot, Violation, _annotations, _int, _labels, _name

__all__ = [
    "JOBSET_KEYS",
    "check_global_index",
    "check_labels",
    "check_naming",
    "check_owners",
    "expected_job_labels",
    "job_key",
]

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


def job_key(namespace: str, job_name: str) -> str:
    """``jobset.sigs.k8s.io/job-key``: lowercase hex SHA-1 of ``<namespace>/<jobName>``."""
    return hashlib.sha1(f"{namespace}/{job_name}".encode()).hexdigest()


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

