"""A readable timeline of what happened to JobSets and their children, for people and the CLI.

A ``Timeline`` watches JobSets, Jobs, Pods, Services, Nodes and Events (the stored objects, read only) and
turns changes into one line each: created/deleted objects, condition changes with reasons,
restarts, and pod transitions aggregated per Job and instant ("4 pods Running"), so a
12,800-pod JobSet still reads in a screenful.

Causes are spelled out: a container that exits and restarts in place (``restartPolicy:
OnFailure``) is one line with its exit code and restart count, not a phase change; a pod that
ends while being deleted is "Stopped after deletion" (its exit code is the kill's, 137/143), not a
failure; Jobs carry their restart-attempt and job-restart-attempt labels, JobSets their
per-replicatedJob ``jobRestarts``; a pod create an admission webhook denied names the webhook; a
pod that cannot be scheduled says why (``Pending (Unschedulable: ...)``); a node going NotReady
is a line of its own. Pods that begin terminating say why when it is known: their DisruptionTarget
(an eviction, a preemption), the Job controller deleting them (and the condition it then writes:
the Job is failing with BackoffLimitExceeded, or suspended), or their Job being deleted. An in-place
restart of a Job's pod with ``restartPolicy OnFailure`` counts against the Job's backoffLimit: the
restart line and the Job's FailureTarget line say so, and whether the JobSet webhook defaulted the
policy (the JobSet's last-applied configuration has none).

With Kueue installed, Workloads and ClusterQueues are watched too: a ClusterQueue that starts or
stops borrowing from its cohort, and a Workload's creation (queue and priority), quota
reservation (with the flavors assigned and how long the workload waited in its queue), admission,
pods ready, eviction and preemption, requeueing and deactivation, each with Kueue's reason; an
eviction's message is shown once (it comes back in the Preempted, Requeued and QuotaReserved
conditions that follow, and as ``Previously: ...`` when the eviction ends).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import asdict, dataclass, replace
from typing import Any

from fakekube import FakeCluster, WatchEvent
from fakekube.clock import format_offset, parse_time, to_seconds

__all__ = ["Entry", "Timeline"]

JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
JOB_UID_LABEL = "batch.kubernetes.io/controller-uid"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
RESTART_ATTEMPT_LABEL = "jobset.sigs.k8s.io/restart-attempt"
JOB_RESTART_ATTEMPT_LABEL = "jobset.sigs.k8s.io/job-restart-attempt"
WORKLOADS = "workloads.kueue.x-k8s.io"
CLUSTER_QUEUES = "clusterqueues.kueue.x-k8s.io"
#: The Workload conditions the timeline follows (Kueue v0.19.2's condition types).
WORKLOAD_CONDITIONS = ("QuotaReserved", "Admitted", "PodsReady", "Evicted", "Preempted", "Requeued",
                       "DeactivationTarget", "Finished")
_PREVIOUSLY = "Previously: "
_DENIED = re.compile(r'admission webhook "([^"]+)" denied the request: (.*)$', re.S)
_DELETED_POD = re.compile(r"^Deleted pod: (\S+)$")


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the timeline."""

    time: str
    seconds: float
    kind: str
    name: str
    what: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _conditions(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c.get("type", ""): c for c in (obj.get("status") or {}).get("conditions") or []}


def _ref(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace', '')}/{meta['name']}" if meta.get("namespace") else meta["name"]


def _exit_codes(status: dict[str, Any], key: str = "state") -> list[str]:
    return sorted({str(((c.get(key) or {}).get("terminated") or {}).get("exitCode"))
                   for c in status.get("containerStatuses") or [] if (c.get(key) or {}).get("terminated")})


def _restart_count(pod: dict[str, Any]) -> int:
    return sum(int(c.get("restartCount") or 0) for c in (pod.get("status") or {}).get("containerStatuses") or [])


def _per_job(counts: Any) -> str:
    """``jobRestarts`` (one count per Job index) as ``1`` or ``1,0,2``."""
    return ",".join(str(n) for n in counts) if isinstance(counts, list) else str(counts)


def _pod_state(pod: dict[str, Any], previous: str | None = None) -> str:
    status = pod.get("status") or {}
    phase: str = status.get("phase", "Pending")
    if pod["metadata"].get("deletionTimestamp") and phase not in ("Succeeded", "Failed"):
        return "Terminating"
    if phase == "Pending":
        if (pod.get("spec") or {}).get("nodeName"):
            return "Scheduled"
        unscheduled = _conditions(pod).get("PodScheduled", {})
        if unscheduled.get("status") == "False" and unscheduled.get("reason"):
            why = ": ".join(x for x in (unscheduled.get("reason"), unscheduled.get("message")) if x)
            return f"Pending ({why})"
        return "Pending"
    if phase == "Running":
        ready = _conditions(pod).get("Ready", {}).get("status") == "True"
        return "Ready" if ready else "Running"
    if phase == "Failed":
        codes = _exit_codes(status)
        reason = status.get("reason") or ""
        detail = ", ".join(x for x in [f"exit {'/'.join(codes)}" if codes else "", reason] if x)
        if previous == "Terminating" or (previous or "").startswith("Stopped"):
            return f"Stopped after deletion ({detail})" if detail else "Stopped after deletion"
        return f"Failed ({detail})" if detail else "Failed"
    return phase


class Timeline:
    """Collects entries while the cluster runs; ``entries`` are in virtual-time order."""

    def __init__(self, cluster: FakeCluster) -> None:
        self.cluster = cluster
        self.entries: list[Entry] = []
        self._pod_states: dict[tuple[str, str], str] = {}
        self._pod_restarts: dict[tuple[str, str], int] = {}
        self._pending_pods: dict[tuple[int, str, str], list[str]] = defaultdict(list)
        # why pods terminate: read when the instant is over (the Job controller deletes pods first,
        # then writes the condition that says why)
        self._terminating: list[tuple[int, int, list[tuple[str, str]]]] = []  # (entry index, instant, pods)
        self._pod_why: dict[tuple[str, str], str] = {}  # pod -> its DisruptionTarget, as it began terminating
        self._pod_job: dict[tuple[str, str], str] = {}  # pod -> uid of the Job that owns it
        self._deleted_by: dict[tuple[str, str], str] = {}  # pod -> uid of the Job whose controller deleted it
        self._job_why: dict[str, str] = {}  # Job uid -> why its controller deletes pods / it is going away
        self._job_restarts: dict[str, int] = defaultdict(int)  # Job uid -> in-place restarts of its pods
        self._explained: set[str] = set()  # Jobs whose backoff-limit failure has been explained
        client = cluster.runtime.shared_client("timeline")  # read-only: the stored objects, uncopied
        self._watches = [
            client.watch("jobsets.jobset.x-k8s.io", self._on_jobset),
            client.watch("jobs.batch", self._on_job),
            client.watch("services", self._on_service),
            client.watch("pods", self._on_pod),
            client.watch("events", self._on_event),
            client.watch("nodes", self._on_node),
        ]
        self._old: dict[tuple[str, str, str], dict[str, Any]] = {}
        self._workload_messages: dict[str, set[str]] = {}  # eviction messages shown, per workload
        self._queued_since: dict[str, int] = {}
        if cluster.api.registry.by_key(WORKLOADS) is not None:  # Kueue is installed
            self._watches.append(client.watch(WORKLOADS, self._on_workload))
            self._watches.append(client.watch(CLUSTER_QUEUES, self._on_cluster_queue))

    def stop(self) -> None:
        self.flush()
        self._explain_terminating(None)
        for watch in self._watches:
            watch.stop()

    def note(self, kind: str, name: str, what: str) -> None:
        """A line of the caller's own at the current instant (e.g. why a what-if changed nothing)."""
        self._add(kind, name, what)

    # ------------------------------------------------------------------ helpers
    def _add(self, kind: str, name: str, what: str) -> None:
        self.flush()
        now = self.cluster.loop.now
        self._explain_terminating(now)
        self.entries.append(Entry(format_offset(now), to_seconds(now), kind, name, what))

    def _previous(self, kind: str, event: WatchEvent) -> dict[str, Any] | None:
        key = (kind, event.object["metadata"].get("namespace", ""), event.object["metadata"]["name"])
        old = self._old.get(key)
        if event.type == "DELETED":
            self._old.pop(key, None)
        else:
            self._old[key] = event.object
        return old

    def _condition_changes(self, kind: str, obj: dict[str, Any], old: dict[str, Any] | None,
                           types: tuple[str, ...] | None = None, why: Any = None) -> None:
        before = _conditions(old) if old else {}
        for ctype, cond in _conditions(obj).items():
            if types is not None and ctype not in types:
                continue
            prev = before.get(ctype)
            if prev is not None and prev.get("status") == cond.get("status"):
                continue
            if prev is None and cond.get("status") != "True":
                continue
            detail = ": ".join(x for x in (cond.get("reason"), cond.get("message")) if x)
            extra = why(cond) if why is not None else ""
            self._add(kind, _ref(obj), f"{ctype}={cond.get('status')}" + (f" ({detail})" if detail else "") + extra)

    # ------------------------------------------------------------------ handlers
    def _on_jobset(self, event: WatchEvent) -> None:
        obj = event.object
        old = self._previous("JobSet", event)
        if event.type == "ADDED":
            self._add("JobSet", _ref(obj), "created")
        elif event.type == "DELETED":
            self._add("JobSet", _ref(obj), "deleted")
            return
        restarts = (obj.get("status") or {}).get("restarts", 0)
        old_restarts = ((old or {}).get("status") or {}).get("restarts", 0)
        if restarts != old_restarts:
            self._add("JobSet", _ref(obj), f"restarts={restarts}")
        before = {r.get("name"): r.get("jobRestarts") for r in ((old or {}).get("status") or {})
                  .get("replicatedJobsStatus") or []}
        for rjob in (obj.get("status") or {}).get("replicatedJobsStatus") or []:
            if rjob.get("jobRestarts") and rjob.get("jobRestarts") != before.get(rjob.get("name")):
                counted = rjob.get("jobRestartsCountTowardsMax")
                self._add("JobSet", _ref(obj), f"replicatedJob {rjob.get('name')} jobRestarts={_per_job(rjob['jobRestarts'])}"
                          + (f" (counting towards maxRestarts: {_per_job(counted)})" if counted else ""))
        if bool((obj.get("spec") or {}).get("suspend")) != bool(((old or {}).get("spec") or {}).get("suspend")) \
                and old is not None:
            self._add("JobSet", _ref(obj), "suspend=" + str(bool(obj["spec"].get("suspend"))).lower())
        self._condition_changes("JobSet", obj, old)

    def _on_job(self, event: WatchEvent) -> None:
        obj = event.object
        old = self._previous("Job", event)
        labels = obj["metadata"].get("labels") or {}
        if event.type == "ADDED":
            attempt = labels.get(RESTART_ATTEMPT_LABEL)
            job_attempt = labels.get(JOB_RESTART_ATTEMPT_LABEL)
            attempts = [f"restart-attempt {attempt}" if attempt is not None else "",
                        f"job-restart-attempt {job_attempt}" if job_attempt not in (None, "0") else ""]
            suffix = f" ({', '.join(a for a in attempts if a)})" if any(attempts) else ""
            if (obj.get("spec") or {}).get("suspend"):
                suffix += " suspended"
            self._add("Job", _ref(obj), "created" + suffix)
        elif event.type == "DELETED":
            self._add("Job", _ref(obj), "deleted")
            return
        elif obj["metadata"].get("deletionTimestamp") and not (old or {}).get("metadata", {}).get("deletionTimestamp"):
            self._job_why[obj["metadata"].get("uid", "")] = "their Job is being deleted"
            self._add("Job", _ref(obj), "deleting")
        elif old is not None:
            before, after = old.get("spec") or {}, obj.get("spec") or {}
            scaled = [f"{f} {before.get(f)}→{after.get(f)}" for f in ("parallelism", "completions")
                      if before.get(f) != after.get(f)]
            if scaled:
                self._add("Job", _ref(obj), "scaled: " + ", ".join(scaled))
        uid = obj["metadata"].get("uid", "")
        for cond in (obj.get("status") or {}).get("conditions") or []:
            if cond.get("status") == "True" and cond.get("type") in ("FailureTarget", "Failed", "Suspended") \
                    and not obj["metadata"].get("deletionTimestamp"):
                self._job_why[uid] = ("deleted by the Job controller: the Job is suspended"
                                      if cond["type"] == "Suspended" else
                                      f"deleted by the Job controller: the Job is failing, {cond.get('reason')}")
        self._condition_changes("Job", obj, old, ("FailureTarget", "Complete", "Failed", "Suspended"),
                                why=lambda cond: self._backoff_cause(obj, cond))

    def _backoff_cause(self, job: dict[str, Any], cond: dict[str, Any]) -> str:
        """Why a Job exceeded its backoffLimit when in-place restarts counted (restartPolicy OnFailure)."""
        uid = job["metadata"].get("uid", "")
        restarts = self._job_restarts.get(uid, 0)
        if cond.get("reason") != "BackoffLimitExceeded" or cond.get("status") != "True" or not restarts \
                or uid in self._explained:
            return ""
        self._explained.add(uid)
        limit = (job.get("spec") or {}).get("backoffLimit")
        return (f": {restarts} in-place container restart{'s' if restarts != 1 else ''} of its pods counted "
                f"against backoffLimit {limit} ({self._restart_policy(job)})")

    def _restart_policy(self, job: dict[str, Any]) -> str:
        """``restartPolicy OnFailure``, and whether the JobSet webhook defaulted it (the JobSet's
        last-applied configuration, as the user wrote it, has none)."""
        policy = ((((job.get("spec") or {}).get("template") or {}).get("spec") or {}).get("restartPolicy")
                  or "unset")
        labels = job["metadata"].get("labels") or {}
        jobset = self._old.get(("JobSet", job["metadata"].get("namespace", ""),
                                labels.get("jobset.sigs.k8s.io/jobset-name", "")))
        applied = ((jobset or {}).get("metadata") or {}).get("annotations", {}).get(LAST_APPLIED)
        if not applied:
            return f"restartPolicy {policy}"
        try:
            written = json.loads(applied)
            rjob = next(r for r in written["spec"]["replicatedJobs"]
                        if r.get("name") == labels.get("jobset.sigs.k8s.io/replicatedjob-name"))
            given = rjob["template"]["spec"]["template"]["spec"].get("restartPolicy")
        except (ValueError, KeyError, TypeError, AttributeError, StopIteration):
            return f"restartPolicy {policy}"
        return f"restartPolicy {policy}" + ("" if given else ", which the JobSet webhook defaulted")

    def _on_node(self, event: WatchEvent) -> None:
        old = self._previous("Node", event)
        if event.type == "MODIFIED" and old is not None:  # nodes going NotReady (or back), not their creation
            self._condition_changes("Node", event.object, old, ("Ready",))

    def _on_service(self, event: WatchEvent) -> None:
        if event.type in ("ADDED", "DELETED"):
            obj = event.object
            headless = " (headless)" if (obj.get("spec") or {}).get("clusterIP") == "None" else ""
            self._add("Service", _ref(obj), ("created" if event.type == "ADDED" else "deleted") + headless)

    def _on_pod(self, event: WatchEvent) -> None:
        pod = event.object
        meta = pod["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        job = (meta.get("labels") or {}).get(JOB_NAME_LABEL, "")
        owner = f"{meta.get('namespace', '')}/{job}" if job else _ref(pod)
        restarts = _restart_count(pod)
        if event.type != "DELETED" and restarts > self._pod_restarts.get(key, 0):
            job_uid = (meta.get("labels") or {}).get(JOB_UID_LABEL, "")
            self._job_restarts[job_uid] += restarts - self._pod_restarts.get(key, 0)
            self._pod_restarts[key] = restarts
            self._add("Pods", owner, f"pod {meta['name']} {self._in_place(pod)}, restarted in place "
                                     f"(restartCount {restarts})" + self._counts_against(pod, job))
        elif event.type == "DELETED":
            self._pod_restarts.pop(key, None)
        state = "Deleted" if event.type == "DELETED" else _pod_state(pod, self._pod_states.get(key))
        if self._pod_states.get(key) == state:
            return
        if event.type == "DELETED":
            self._pod_states.pop(key, None)
        else:
            self._pod_states[key] = state
        if state == "Terminating":
            self._pod_job[key] = (meta.get("labels") or {}).get(JOB_UID_LABEL, "")
            disruption = _conditions(pod).get("DisruptionTarget", {})
            if disruption.get("status") == "True":
                self._pod_why[key] = ": ".join(x for x in (disruption.get("reason"), disruption.get("message")) if x)
        self._pending_pods[(self.cluster.loop.now, owner, state)].append(meta["name"])
        node = (pod.get("spec") or {}).get("nodeName")
        if state == "Scheduled" and node:
            self._pending_pods[(self.cluster.loop.now, owner, state)][-1] += f"→{node}"

    def _counts_against(self, pod: dict[str, Any], job: str) -> str:
        """For a pod of a Job with restartPolicy OnFailure: an in-place restart counts against the backoffLimit."""
        if (pod.get("spec") or {}).get("restartPolicy") != "OnFailure" or not job:
            return ""
        stored = self._old.get(("Job", pod["metadata"].get("namespace", ""), job))
        if stored is None:
            return ""
        limit = (stored.get("spec") or {}).get("backoffLimit")
        return f"; counts against the Job's backoffLimit {limit} ({self._restart_policy(stored)})"

    @staticmethod
    def _in_place(pod: dict[str, Any]) -> str:
        """What the last in-place container exit was: ``container c exited 1 (Error)``."""
        parts = []
        for c in (pod.get("status") or {}).get("containerStatuses") or []:
            last = (c.get("lastState") or {}).get("terminated")
            if last:
                parts.append(f"container {c.get('name')} exited {last.get('exitCode')}"
                             + (f" ({last['reason']})" if last.get("reason") else ""))
        return "; ".join(parts) or "a container exited"

    def _on_workload(self, event: WatchEvent) -> None:
        """Kueue's view of a JobSet: queued, quota reserved, admitted, evicted, requeued, finished."""
        obj = event.object
        ref = _ref(obj)
        old = self._previous("Workload", event)
        now = self.cluster.loop.now
        spec = obj.get("spec") or {}
        if event.type == "ADDED":
            priority = spec.get("priority")
            klass = (spec.get("priorityClassRef") or {}).get("name")
            detail = f", priority {priority}" + (f" ({klass})" if klass else "") if priority or klass else ""
            self._add("Workload", ref, f"created in LocalQueue {spec.get('queueName', '')}{detail}")
            self._queued_since[ref] = now
        elif event.type == "DELETED":
            self._add("Workload", ref, "deleted")
            self._workload_messages.pop(ref, None)
            self._queued_since.pop(ref, None)
            return
        if old is not None and (old.get("spec") or {}).get("active", True) != spec.get("active", True):
            self._add("Workload", ref, f"active={str(spec.get('active', True)).lower()}")
        seen = self._workload_messages.setdefault(ref, set())
        before = _conditions(old) if old else {}
        for ctype, cond in sorted(_conditions(obj).items(), key=lambda c: WORKLOAD_CONDITIONS.index(c[0])
                                  if c[0] in WORKLOAD_CONDITIONS else len(WORKLOAD_CONDITIONS)):
            if ctype not in WORKLOAD_CONDITIONS:
                continue
            prev = before.get(ctype)
            status = cond.get("status")
            if prev is not None and prev.get("status") == status:
                continue
            if prev is None and status != "True" and ctype != "Requeued":  # Requeued=False: in backoff
                continue
            message = str(cond.get("message") or "")
            repeated = message.removeprefix(_PREVIOUSLY) in seen
            if ctype == "Evicted" and status == "True":
                seen.add(message)
            detail = ": ".join(x for x in (cond.get("reason"), "" if repeated else message) if x)
            what = f"{ctype}={status}" + (f" ({detail})" if detail else "")
            if ctype == "QuotaReserved" and status == "True":
                what += self._admission(obj, now - self._queued_since.get(ref, now))
            elif ctype == "QuotaReserved":
                self._queued_since[ref] = now
            elif ctype == "Requeued" and status == "False":
                what += self._backoff(obj)
            self._add("Workload", ref, what)

    def _on_cluster_queue(self, event: WatchEvent) -> None:
        """A ClusterQueue starting or stopping to borrow quota from its cohort (``status.flavorsUsage``)."""
        old = self._previous("ClusterQueue", event)
        if event.type == "DELETED":
            return

        def borrowed(cq: dict[str, Any] | None) -> str:
            return ", ".join(f"{r.get('name')} {r.get('borrowed')} of {f.get('name')}"
                             for f in ((cq or {}).get("status") or {}).get("flavorsUsage") or []
                             for r in f.get("resources") or [] if str(r.get("borrowed", "0")) != "0")

        now, before = borrowed(event.object), borrowed(old)
        if now != before:
            cohort = (event.object.get("spec") or {}).get("cohortName", "")
            self._add("ClusterQueue", _ref(event.object), f"borrowing {now} from cohort {cohort}" if now
                      else "borrows nothing (within its nominal quota again)")

    @staticmethod
    def _backoff(obj: dict[str, Any]) -> str:
        """`` until 00:01:10.000 (requeue 1)``: when a workload in backoff goes back to its queue."""
        state = (obj.get("status") or {}).get("requeueState") or {}
        if not state.get("requeueAt"):
            return ""
        return f" until {format_offset(parse_time(state['requeueAt']))} (requeue {state.get('count', 0)})"

    @staticmethod
    def _admission(obj: dict[str, Any], waited: int) -> str:
        """`` after 1m2s in the queue; flavors workers: cpu=default-flavor``."""
        parts = []
        for psa in ((obj.get("status") or {}).get("admission") or {}).get("podSetAssignments") or []:
            flavors = psa.get("flavors") or {}
            if flavors:
                parts.append(f"{psa.get('name')}: " + ",".join(f"{r}={f}" for r, f in sorted(flavors.items())))
        waited_text = f" after {to_seconds(waited):g}s in the queue" if waited else ""
        return waited_text + (f"; flavors {'; '.join(parts)}" if parts else "")

    def _on_event(self, event: WatchEvent) -> None:
        ev = event.object
        io = ev.get("involvedObject") or {}
        if event.type == "ADDED" and ev.get("reason") == "SuccessfulDelete" and io.get("kind") == "Job":
            deleted = _DELETED_POD.match(str(ev.get("message") or ""))
            if deleted is not None:  # the Job controller deleted this pod
                self._deleted_by[(io.get("namespace", ""), deleted.group(1))] = io.get("uid", "")
        if event.type != "ADDED" or ev.get("type") != "Warning":
            return
        if io.get("kind") == "Pod":
            return
        name = f"{io.get('namespace', '')}/{io.get('name', '')}" if io.get("namespace") else io.get("name", "")
        message = str(ev.get("message") or "")
        denied = _DENIED.search(message)
        if denied is not None:
            webhook = f'denied by admission webhook "{denied.group(1)}": {denied.group(2)}'
            if ev.get("reason") == "FailedCreate":  # the Job controller's pod creates
                what = f"pod create {webhook} (event FailedCreate; the Job controller retries)"
            else:
                what = f"event Warning {ev.get('reason')}: {webhook}"
            self._add(io.get("kind", "Event"), name, what)
            return
        self._add(io.get("kind", "Event"), name, f"event Warning {ev.get('reason')}: {message}")

    def flush(self) -> None:
        """Turn buffered pod transitions into aggregated entries (one per Job, state and instant)."""
        if not self._pending_pods:
            return
        pending, self._pending_pods = self._pending_pods, defaultdict(list)
        for (now, owner, state), names in pending.items():  # arrival order
            if state == "Terminating":
                namespace = owner.split("/", 1)[0] if "/" in owner else ""
                self._terminating.append((len(self.entries), now, [(namespace, n) for n in names]))
            if len(names) == 1:
                what = f"pod {names[0]} {state}"
            else:
                what = f"{len(names)} pods {state}"
            self.entries.append(Entry(format_offset(now), to_seconds(now), "Pods", owner, what))

    def _explain_terminating(self, now: int | None) -> None:
        """Say why pods began terminating, once the instant they did is over (``now``; None: all)."""
        keep = []
        for index, at, pods in self._terminating:
            if now is not None and at >= now:
                keep.append((index, at, pods))
                continue
            causes = [self._why_terminating(pod) for pod in pods]
            known = list(dict.fromkeys(c for c in causes if c))
            if known:
                entry = self.entries[index]
                self.entries[index] = replace(entry, what=f"{entry.what} ({'; '.join(known)})")
            for pod in pods:
                for table in (self._pod_why, self._pod_job, self._deleted_by):
                    table.pop(pod, None)
        self._terminating = keep

    def _why_terminating(self, pod: tuple[str, str]) -> str:
        if pod in self._pod_why:
            return self._pod_why[pod]
        job = self._pod_job.get(pod, "")
        if pod in self._deleted_by:
            return self._job_why.get(self._deleted_by[pod]) or "deleted by the Job controller"
        why = self._job_why.get(job, "")
        return why if why == "their Job is being deleted" else ""

    # ------------------------------------------------------------------ output
    def lines(self) -> list[str]:
        self.flush()
        self._explain_terminating(None)
        return [f"{e.time}  {e.kind:<7} {e.name}  {e.what}" for e in self.entries]
