"""History invariants: a :class:`Monitor` replays every JobSet and Job event in resourceVersion
order and checks what no snapshot can see (terminalState never changes, restarts never
decrease, one Job per attempt, no stale attempt when a restart finishes, InOrder and dependsOn
never start a later ReplicatedJob early)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakekube import FakeCluster
from jobset_ref.api import constants as c
from jobset_ref.testing.invariants.snapshot import (
    JOBSETS,
    Violation,
    _bucket,
    _cond,
    _int,
    _job_is_ready,
    _labels,
    _name,
    _true,
)

__all__ = ["Monitor"]

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

    def __init__(self, cluster: FakeCluster, *, namespace: str | None = None, cached_controller: bool = False) -> None:
        """``cached_controller``: the controller reads from informer caches in another process, so
        a Job it creates for a JobSet already being deleted (its cache had not seen the deletion:
        two watch streams have no common order) is not a second Job of the slot; the garbage
        collector removes it at once, as with upstream's controller."""
        self.cluster = cluster
        self._cached_controller = cached_controller
        self._deleted: set[str] = set()  # uids of JobSets deleted or being deleted
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
        if etype == "DELETED" or js["metadata"].get("deletionTimestamp"):
            self._deleted.add(uid)
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
        if hist is None and self._cached_controller and js_uid in self._deleted:
            return []
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

