"""A readable timeline of what happened to JobSets and their children, for people and the CLI.

A ``Timeline`` watches JobSets, Jobs, Pods, Services and Events (the stored objects, read only) and
turns changes into one line each: created/deleted objects, condition changes with reasons,
restarts, and pod transitions aggregated per Job and instant ("4 pods Running"), so a
12,800-pod JobSet still reads in a screenful.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any

from fakekube import FakeCluster, WatchEvent
from fakekube.clock import format_offset, to_seconds

__all__ = ["Entry", "Timeline"]

JOB_NAME_LABEL = "batch.kubernetes.io/job-name"


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


def _pod_state(pod: dict[str, Any]) -> str:
    status = pod.get("status") or {}
    phase = status.get("phase", "Pending")
    if pod["metadata"].get("deletionTimestamp") and phase not in ("Succeeded", "Failed"):
        return "Terminating"
    if phase == "Pending":
        return "Scheduled" if (pod.get("spec") or {}).get("nodeName") else "Pending"
    if phase == "Running":
        ready = _conditions(pod).get("Ready", {}).get("status") == "True"
        return "Ready" if ready else "Running"
    if phase == "Failed":
        codes = sorted({str(((c.get("state") or {}).get("terminated") or {}).get("exitCode"))
                        for c in status.get("containerStatuses") or [] if (c.get("state") or {}).get("terminated")})
        reason = status.get("reason") or ""
        detail = ", ".join(x for x in [f"exit {'/'.join(codes)}" if codes else "", reason] if x)
        return f"Failed ({detail})" if detail else "Failed"
    return phase


class Timeline:
    """Collects entries while the cluster runs; ``entries`` are in virtual-time order."""

    def __init__(self, cluster: FakeCluster) -> None:
        self.cluster = cluster
        self.entries: list[Entry] = []
        self._pod_states: dict[tuple[str, str], str] = {}
        self._pending_pods: dict[tuple[int, str, str], list[str]] = defaultdict(list)
        client = cluster.runtime.shared_client("timeline")  # read-only: the stored objects, uncopied
        self._watches = [
            client.watch("jobsets.jobset.x-k8s.io", self._on_jobset),
            client.watch("jobs.batch", self._on_job),
            client.watch("services", self._on_service),
            client.watch("pods", self._on_pod),
            client.watch("events", self._on_event),
        ]
        self._old: dict[tuple[str, str, str], dict[str, Any]] = {}

    def stop(self) -> None:
        self.flush()
        for watch in self._watches:
            watch.stop()

    # ------------------------------------------------------------------ helpers
    def _add(self, kind: str, name: str, what: str) -> None:
        self.flush()
        now = self.cluster.loop.now
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
                           types: tuple[str, ...] | None = None) -> None:
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
            self._add(kind, _ref(obj), f"{ctype}={cond.get('status')}" + (f" ({detail})" if detail else ""))

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
        if bool((obj.get("spec") or {}).get("suspend")) != bool(((old or {}).get("spec") or {}).get("suspend")) \
                and old is not None:
            self._add("JobSet", _ref(obj), "suspend=" + str(bool(obj["spec"].get("suspend"))).lower())
        self._condition_changes("JobSet", obj, old)

    def _on_job(self, event: WatchEvent) -> None:
        obj = event.object
        old = self._previous("Job", event)
        labels = obj["metadata"].get("labels") or {}
        if event.type == "ADDED":
            attempt = labels.get("jobset.sigs.k8s.io/restart-attempt")
            suffix = f" (restart-attempt {attempt})" if attempt is not None else ""
            if (obj.get("spec") or {}).get("suspend"):
                suffix += " suspended"
            self._add("Job", _ref(obj), "created" + suffix)
        elif event.type == "DELETED":
            self._add("Job", _ref(obj), "deleted")
            return
        elif obj["metadata"].get("deletionTimestamp") and not (old or {}).get("metadata", {}).get("deletionTimestamp"):
            self._add("Job", _ref(obj), "deleting")
        self._condition_changes("Job", obj, old, ("Complete", "Failed", "Suspended"))

    def _on_service(self, event: WatchEvent) -> None:
        if event.type in ("ADDED", "DELETED"):
            obj = event.object
            headless = " (headless)" if (obj.get("spec") or {}).get("clusterIP") == "None" else ""
            self._add("Service", _ref(obj), ("created" if event.type == "ADDED" else "deleted") + headless)

    def _on_pod(self, event: WatchEvent) -> None:
        pod = event.object
        meta = pod["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        state = "Deleted" if event.type == "DELETED" else _pod_state(pod)
        if self._pod_states.get(key) == state:
            return
        if event.type == "DELETED":
            self._pod_states.pop(key, None)
        else:
            self._pod_states[key] = state
        job = (meta.get("labels") or {}).get(JOB_NAME_LABEL, "")
        owner = f"{meta.get('namespace', '')}/{job}" if job else _ref(pod)
        self._pending_pods[(self.cluster.loop.now, owner, state)].append(meta["name"])
        node = (pod.get("spec") or {}).get("nodeName")
        if state == "Scheduled" and node:
            self._pending_pods[(self.cluster.loop.now, owner, state)][-1] += f"→{node}"

    def _on_event(self, event: WatchEvent) -> None:
        ev = event.object
        if event.type != "ADDED" or ev.get("type") != "Warning":
            return
        io = ev.get("involvedObject") or {}
        if io.get("kind") == "Pod":
            return
        name = f"{io.get('namespace', '')}/{io.get('name', '')}" if io.get("namespace") else io.get("name", "")
        self._add(io.get("kind", "Event"), name, f"event Warning {ev.get('reason')}: {ev.get('message')}")

    def flush(self) -> None:
        """Turn buffered pod transitions into aggregated entries (one per Job, state and instant)."""
        if not self._pending_pods:
            return
        pending, self._pending_pods = self._pending_pods, defaultdict(list)
        for (now, owner, state), names in pending.items():  # arrival order
            if len(names) == 1:
                what = f"pod {names[0]} {state}"
            else:
                what = f"{len(names)} pods {state}"
            self.entries.append(Entry(format_offset(now), to_seconds(now), "Pods", owner, what))

    # ------------------------------------------------------------------ output
    def lines(self) -> list[str]:
        self.flush()
        return [f"{e.time}  {e.kind:<7} {e.name}  {e.what}" for e in self.entries]
