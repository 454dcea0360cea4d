"""A Gantt chart of a simulated run: one row per pod across virtual time, as hand-written SVG
(standalone, or embedded in a small HTML page).

``GanttRecorder(cluster)`` watches Pods, JobSets and Nodes (stored objects, read only) while the
cluster runs; ``render_svg(recorder.chart())`` draws:

- one row per pod *slot* (its hostname, e.g. ``trainer-slice-1-3``: the pod each restart
  recreates lands in the same row), grouped by Job (header: the Job, its node pool(s) and restart
  attempts); above :data:`MAX_POD_ROWS` pods, one row per Job instead, coloured by the state most
  of its pods are in;
- bars coloured by phase (Pending, Scheduled, Running, Ready, Terminating), a thin tail while a
  finished pod lingers, and markers: a green tick where a pod succeeded, a red cross where it
  failed (tooltip: exit code and reason), a red ring where a container exited and restarted in place (``OnFailure``), a grey tick
  where a pod stopped because it was deleted;
- JobSet condition changes (RestartingJobSet, Completed, Failed, Suspended...) and nodes going
  NotReady as vertical lines with labels; each JobSet restart window (RestartingJobSet until the
  Jobs are back) as a translucent band;
- a header line that names the JobSet restarts (with the first failed Job) and the first failures
  or in-place restarts that set them in motion.

The SVG scales to the width of the window or page it is shown in (``width="100%"`` and a viewBox).

With Kueue installed, a first group has one row per Workload (its JobSet or Job): how long it
waited in its queue (labelled with the wait), when it held quota, and a triangle where it was
evicted (preempted, or a pods-ready timeout), with Kueue's reason and message as tooltip.

Same run, same bytes: no wall clock, no randomness, sorted iteration, fixed number formatting.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fakekube import FakeCluster, UsageError, WatchEvent
from fakekube.clock import format_offset, to_seconds

__all__ = ["COLOURS", "MAX_POD_ROWS", "QUEUE_COLOURS", "Chart", "GanttRecorder", "QueueLife", "Restart",
           "check_path", "render_html", "render_svg"]

#: Above this many pod rows, the chart draws one row per Job.
MAX_POD_ROWS = 600
#: Bar colours by pod state (and of the markers), colour-blind-safe where it matters (blue/orange).
COLOURS = {
    "Pending": "#c7c7c7",
    "Scheduled": "#9ecae1",
    "Running": "#6baed6",
    "Ready": "#2166ac",
    "Terminating": "#f4a582",
    "Succeeded": "#1a9850",
    "Failed": "#d73027",
    "Restarted": "#d73027",
    "Stopped": "#8c8c8c",
}
#: Colours of a Kueue Workload's row: waiting in its queue, holding quota, deactivated, evicted.
QUEUE_COLOURS = {"Queued": "#fec44f", "Admitted": "#c7e9c0", "Inactive": "#bdbdbd", "Evicted": "#e08214"}
_WORKLOADS = "workloads.kueue.x-k8s.io"
_QUEUE_NAME = "kueue.x-k8s.io/queue-name"
_CONDITION_COLOURS = {"Completed": "#1a9850", "Failed": "#d73027", "RestartingJobSet": "#e08214",
                      "Suspended": "#7f7f7f", "StartupPolicyCompleted": "#5e3c99", "StartupPolicyInProgress": "#5e3c99"}
_LIVE_STATES = ("Pending", "Scheduled", "Running", "Ready", "Terminating")
_BAND = "#e08214"  # a JobSet restart window (the RestartingJobSet colour)
_BAND_OPACITY = "0.22"
_JOB_NAME = "batch.kubernetes.io/job-name"
_JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
_RESTART_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"
_EXCLUSIVE = "alpha.jobset.sigs.k8s.io/exclusive-topology"
_POOL_LABELS = ("cloud.google.com/gke-nodepool", "topology.kubernetes.io/zone")


def check_path(path: str) -> None:
    """``--gantt PATH`` must end in .html or .svg."""
    if not path.endswith((".html", ".htm", ".svg")):
        raise UsageError(f"--gantt {path}: the file name must end in .html or .svg")


def _natural(text: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def _state(pod: dict[str, Any]) -> str:
    status = pod.get("status") or {}
    phase: str = status.get("phase", "Pending")
    if phase in ("Succeeded", "Failed"):
        return phase
    if pod["metadata"].get("deletionTimestamp"):
        return "Terminating"
    if phase == "Running":
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
        return "Ready" if ready else "Running"
    return "Scheduled" if (pod.get("spec") or {}).get("nodeName") else "Pending"


def _exit_detail(pod: dict[str, Any]) -> str:
    status = pod.get("status") or {}
    codes = sorted({str(((c.get("state") or {}).get("terminated") or {}).get("exitCode"))
                    for c in status.get("containerStatuses") or [] if (c.get("state") or {}).get("terminated")})
    return ", ".join(x for x in [f"exit {'/'.join(codes)}" if codes else "", status.get("reason") or ""] if x)


@dataclass
class PodLife:
    """One pod from creation to deletion."""

    name: str
    row: str
    group: str
    attempt: str
    created: int
    states: list[tuple[int, str]] = field(default_factory=list)
    node: str = ""
    ended: int | None = None
    outcome: tuple[int, str, str] | None = None  # (time, Succeeded|Failed|Stopped, detail)
    restarts: list[int] = field(default_factory=list)
    restart_count: int = 0


@dataclass
class Restart:
    """One JobSet restart: when it began (RestartingJobSet), when the Jobs were back (None: not yet)."""

    jobset: str
    number: int
    start: int
    end: int | None
    why: str


@dataclass
class QueueLife:
    """A Kueue Workload from creation to deletion: its states (``Queued``: waiting for quota,
    ``Admitted``: holding quota, ``Inactive``: deactivated, ``Finished``) and its evictions."""

    name: str
    owner: str  # "JobSet first"
    queue: str
    created: int
    states: list[tuple[int, str]] = field(default_factory=list)
    evictions: list[tuple[int, str, str]] = field(default_factory=list)  # (time, reason, message)
    ended: int | None = None

    def waits(self, end: int) -> list[tuple[int, int]]:
        """The (start, stop) spans spent ``Queued``."""
        stop_at = self.ended if self.ended is not None else end
        return [(t, self.states[i + 1][0] if i + 1 < len(self.states) else stop_at)
                for i, (t, state) in enumerate(self.states) if state == "Queued"]


@dataclass
class Chart:
    """What a run looked like: pods, JobSet condition changes, node failures, the time span, and
    with Kueue the Workloads' queue waits and evictions."""

    pods: list[PodLife]
    lines: list[tuple[int, str, str]]  # (time, label, colour)
    end: int
    pools: dict[str, str]  # node -> pool (topology domain) it belongs to
    title: str = ""
    restarts: list[Restart] = field(default_factory=list)
    queues: list[QueueLife] = field(default_factory=list)


class GanttRecorder:
    """Records pod lives and JobSet/Node changes while the cluster runs."""

    def __init__(self, cluster: FakeCluster) -> None:
        self.cluster = cluster
        self.pods: dict[str, PodLife] = {}
        self.lines: list[tuple[int, str, str]] = []
        self._conditions: dict[tuple[str, str], str] = {}
        self.restarts: list[Restart] = []
        self._node_ready: dict[str, str] = {}
        self._topology_keys: set[str] = set()
        self.queues: dict[str, QueueLife] = {}
        self._evicted: dict[str, str] = {}  # workload -> status of its Evicted condition
        self.kueue = cluster.api.registry.by_key(_WORKLOADS) is not None
        client = cluster.runtime.shared_client("gantt")
        self._job_failed: dict[tuple[str, str], str] = {}  # (namespace, Job) -> why it failed
        self._watches = [client.watch("pods", self._on_pod), client.watch("nodes", self._on_node),
                         client.watch("jobs.batch", self._on_job)]
        if cluster.api.registry.by_key("jobsets.jobset.x-k8s.io") is not None:  # installed: JobSet conditions too
            self._watches.append(client.watch("jobsets.jobset.x-k8s.io", self._on_jobset))
        if self.kueue:  # Kueue installed: queue waits and evictions
            self._watches.append(client.watch(_WORKLOADS, self._on_workload))

    def stop(self) -> None:
        for w in self._watches:
            w.stop()

    # ------------------------------------------------------------------ recording
    def _on_pod(self, event: WatchEvent) -> None:
        pod = event.object
        meta = pod["metadata"]
        now = self.cluster.loop.now
        key = f"{meta.get('namespace', '')}/{meta['name']}/{meta.get('uid', '')}"
        life = self.pods.get(key)
        if life is None:
            labels = meta.get("labels") or {}
            spec = pod.get("spec") or {}
            row = spec.get("hostname") or (meta["name"][: -6] if meta.get("generateName") else meta["name"])
            group = labels.get(_JOB_NAME) or labels.get(_JOBSET_NAME) or "(no Job)"
            life = self.pods[key] = PodLife(meta["name"], row, group, labels.get(_RESTART_ATTEMPT, ""), now)
        if event.type == "DELETED":
            life.ended = now
            return
        state = _state(pod)
        if not life.states or life.states[-1][1] != state:
            life.states.append((now, state))
            if state in ("Succeeded", "Failed") and life.outcome is None:
                stopped = state == "Failed" and len(life.states) > 1 and life.states[-2][1] == "Terminating"
                life.outcome = (now, "Stopped" if stopped else state, _exit_detail(pod))
        node = (pod.get("spec") or {}).get("nodeName")
        if node:
            life.node = node
        count = sum(int(c.get("restartCount") or 0) for c in (pod.get("status") or {}).get("containerStatuses") or [])
        if count > life.restart_count:
            life.restarts.append(now)
            life.restart_count = count

    def _on_jobset(self, event: WatchEvent) -> None:
        js = event.object
        key = js["metadata"]["annotations"].get(_EXCLUSIVE) if js["metadata"].get("annotations") else None
        if key:
            self._topology_keys.add(key)
        name = js["metadata"]["name"]
        queued = _QUEUE_NAME in (js["metadata"].get("labels") or {})
        for cond in (js.get("status") or {}).get("conditions") or []:
            ctype, status = str(cond.get("type")), str(cond.get("status"))
            before = self._conditions.get((name, ctype))
            self._conditions[(name, ctype)] = status
            if before == status or (before is None and status != "True"):
                continue
            if ctype == "RestartingJobSet":
                self._restart_window(js, cond, status == "True")
            if queued and ctype == "Suspended" and self.kueue:  # Kueue's rows show its suspensions
                continue
            label = f"{name}: {ctype}" if status == "True" else f"{name}: {ctype} ended"
            colour = _CONDITION_COLOURS.get(ctype, "#333333") if status == "True" else "#999999"
            self.lines.append((self.cluster.loop.now, label, colour))

    def _on_job(self, event: WatchEvent) -> None:
        job = event.object
        for cond in (job.get("status") or {}).get("conditions") or []:
            if cond.get("type") == "Failed" and cond.get("status") == "True":
                self._job_failed[(job["metadata"].get("namespace", ""), job["metadata"]["name"])] = \
                    str(cond.get("reason") or "")

    def _restart_window(self, js: dict[str, Any], cond: dict[str, Any], began: bool) -> None:
        name, now = js["metadata"]["name"], self.cluster.loop.now
        if began:
            message = str(cond.get("message") or "")
            first = re.search(r"first failed job: ([^)]+)\)", message)
            failed = self._job_failed.get((js["metadata"].get("namespace", ""), first.group(1))) if first else None
            why = (f"Job {first.group(1)} failed: {failed}" if failed else f"first failed job: {first.group(1)}") \
                if first else str(cond.get("reason") or "")
            number = int((js.get("status") or {}).get("restarts") or 0)
            self.restarts.append(Restart(name, number, now, None, why))
            return
        for restart in reversed(self.restarts):
            if restart.jobset == name and restart.end is None:
                restart.end = now
                break


    def _on_workload(self, event: WatchEvent) -> None:
        wl = event.object
        meta = wl["metadata"]
        now = self.cluster.loop.now
        key = f"{meta.get('namespace', '')}/{meta['name']}/{meta.get('uid', '')}"
        life = self.queues.get(key)
        if life is None:
            owner = next((o for o in meta.get("ownerReferences") or [] if o.get("controller")), None)
            label = f"{owner.get('kind')} {owner.get('name')}" if owner else f"Workload {meta['name']}"
            life = self.queues[key] = QueueLife(meta["name"], label, str((wl.get("spec") or {}).get("queueName", "")),
                                                now)
        if event.type == "DELETED":
            life.ended = now
            return
        conditions = {str(c.get("type")): c for c in (wl.get("status") or {}).get("conditions") or []}

        def true(ctype: str) -> bool:
            return bool(conditions.get(ctype, {}).get("status") == "True")

        if true("Finished"):
            state = "Finished"
        elif true("QuotaReserved"):
            state = "Admitted"
        elif (wl.get("spec") or {}).get("active", True) is False:
            state = "Inactive"
        else:
            state = "Queued"
        if not life.states or life.states[-1][1] != state:
            life.states.append((now, state))
        evicted = conditions.get("Evicted", {})
        was = self._evicted.get(key)
        self._evicted[key] = str(evicted.get("status", ""))
        if evicted.get("status") == "True" and was != "True":
            reason = str(evicted.get("reason", ""))
            preempted = conditions.get("Preempted", {})
            if preempted.get("status") == "True" and preempted.get("reason"):
                reason += f", {preempted['reason']}"
            life.evictions.append((now, reason, str(evicted.get("message", ""))))

    def _on_node(self, event: WatchEvent) -> None:
        node = event.object
        name = node["metadata"]["name"]
        ready = next((str(c.get("status")) for c in (node.get("status") or {}).get("conditions") or []
                      if c.get("type") == "Ready"), "")
        before = self._node_ready.get(name)
        self._node_ready[name] = ready
        if before == "True" and ready != "True":
            self.lines.append((self.cluster.loop.now, f"node {name} NotReady", "#762a83"))

    # ------------------------------------------------------------------ the chart
    def _pools(self) -> dict[str, str]:
        keys = [*sorted(self._topology_keys), *_POOL_LABELS]
        pools = {}
        for node in self.cluster.list("nodes"):
            labels = node["metadata"].get("labels") or {}
            pools[node["metadata"]["name"]] = next((labels[k] for k in keys if k in labels), "")
        return pools

    def chart(self, title: str = "") -> Chart:
        return Chart(pods=list(self.pods.values()), lines=list(self.lines), end=self.cluster.loop.now,
                     pools=self._pools(), title=title, restarts=list(self.restarts),
                     queues=list(self.queues.values()))

    def write(self, path: str, *, title: str = "") -> None:
        check_path(path)
        chart = self.chart(title)
        text = render_svg(chart) if path.endswith(".svg") else render_html(chart)
        try:
            Path(path).write_text(text)
        except OSError as err:
            raise UsageError(f"--gantt {path}: cannot write: {err.strerror or err}") from None


# ---------------------------------------------------------------------- drawing

LABEL_W = 250
WIDTH = 1280  # the viewBox's width: the drawing scales to the window (at 1,024 px, text is 8 px)
ROW_H = 11
GROUP_H = 18
TOP = 134
BOTTOM = 30


def _nice_step(span_s: float, target_ticks: int = 10) -> float:
    raw = max(span_s / target_ticks, 1e-9)
    for step in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400):
        if step >= raw:
            return float(step)
    return 86400.0 * (int(raw // 86400) + 1)


def _clock(seconds: float) -> str:
    s = round(seconds)
    h, m, sec = s // 3600, (s % 3600) // 60, s % 60
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def _segments(life: PodLife, end: int) -> list[tuple[int, int, str]]:
    """(start, stop, state) bars of a pod's live states, and a terminal tail until deletion."""
    out = []
    stop_at = life.ended if life.ended is not None else end
    for i, (t, state) in enumerate(life.states):
        nxt = life.states[i + 1][0] if i + 1 < len(life.states) else stop_at
        if nxt > t or state in _LIVE_STATES:
            out.append((t, max(nxt, t), state))
    return out


@dataclass
class _Row:
    label: str
    lives: list[PodLife]
    tip: str = ""


@dataclass
class _Group:
    title: str  # "" draws no header
    rows: list[_Row]


def _group_rows(chart: Chart) -> tuple[list[_Group], bool]:
    by_group: dict[str, dict[str, list[PodLife]]] = {}
    for life in chart.pods:
        by_group.setdefault(life.group, {}).setdefault(life.row, []).append(life)
    per_job = len({(g, r) for g, rows in by_group.items() for r in rows}) > MAX_POD_ROWS
    groups = []
    for name in sorted(by_group, key=_natural):
        rows = by_group[name]
        lives = [life for r in rows.values() for life in r]
        pooled = {chart.pools.get(life.node, "") for life in lives if life.node} - {""}
        word = "pool" if pooled else "node"
        pools = sorted(pooled or {life.node for life in lives if life.node}, key=_natural)
        attempts = sorted({life.attempt for life in lives if life.attempt}, key=_natural)
        title = f"Job {name}" + (f"  ·  {len(rows)} pods" if per_job else "")
        if pools:
            shown = ", ".join(pools[:4]) + (f" +{len(pools) - 4}" if len(pools) > 4 else "")
            title += f"  ·  {word if len(pools) == 1 else word + 's'} {shown}"
        if attempts and attempts != ["0"]:
            title += f"  ·  restart attempts {attempts[0]}-{attempts[-1]}"
        if per_job:
            label = name + (f" · {pools[0]}" if len(pools) == 1 else f" · {len(pools)} {word}s" if pools else "")
            groups.append(_Group("", [_Row(label, lives, title)]))
        else:
            groups.append(_Group(title, [_Row(r, sorted(rows[r], key=lambda x: x.created))
                                         for r in sorted(rows, key=_natural)]))
    return groups, per_job


def _majority_segments(lives: list[PodLife], end: int) -> list[tuple[int, int, str]]:
    """For a Job row: at each change instant, the live state most of its pods are in."""
    instants = sorted({t for life in lives for t, _ in life.states} | {life.ended for life in lives if life.ended})
    out: list[tuple[int, int, str]] = []
    for i, t in enumerate(instants):
        counts: dict[str, int] = {}
        for life in lives:
            if life.created > t or (life.ended is not None and life.ended <= t):
                continue
            state = next((s for when, s in reversed(life.states) if when <= t), None)
            if state in _LIVE_STATES:
                counts[state] = counts.get(state, 0) + 1
        nxt = instants[i + 1] if i + 1 < len(instants) else end
        if counts and nxt > t:
            state = max(_LIVE_STATES, key=lambda s: (counts.get(s, 0), -_LIVE_STATES.index(s)))
            if out and out[-1][2] == state and out[-1][1] == t:
                out[-1] = (out[-1][0], nxt, state)
            else:
                out.append((t, nxt, state))
    return out


def render_svg(chart: Chart) -> str:
    """The chart as a standalone SVG document."""
    groups, per_job = _group_rows(chart)
    end_s = max(to_seconds(chart.end), 1.0)
    plot_w = WIDTH - LABEL_W - 20
    scale = plot_w / end_s

    def x(ns: int) -> str:
        return f"{LABEL_W + to_seconds(ns) * scale:.2f}"

    def w(start: int, stop: int) -> str:
        return f"{max((to_seconds(stop) - to_seconds(start)) * scale, 0.8):.2f}"

    n_rows = sum(len(g.rows) for g in groups)
    queue_h = GROUP_H + len(chart.queues) * ROW_H if chart.queues else 0
    height = TOP + queue_h + sum(GROUP_H for g in groups if g.title) + n_rows * ROW_H + BOTTOM
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="100%" viewBox="0 0 {WIDTH} {height}" '
        f'preserveAspectRatio="xMinYMin meet" style="display:block;height:auto" '
        f'font-family="DejaVu Sans, Arial, sans-serif" font-size="10">',
        "<style>.row:hover{fill:#fff3bf}.lbl{fill:#222}.grp{font-weight:bold;fill:#111}"
        ".tick{stroke:#e3e3e3}.vline{stroke-width:1.5;stroke-dasharray:5,3}</style>",
        f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>',
    ]
    title = chart.title or "jobset-ref simulate"
    pods_n = len(chart.pods)
    rows_what = (f"one row per Job ({n_rows} Jobs, {pods_n} pods; colour: the state most of its pods are in)"
                 if per_job else f"one row per pod hostname ({n_rows} rows, {pods_n} pods: a restart's new pod "
                                 f"takes its predecessor's row)")
    out.append(f'<text x="10" y="18" font-size="14" font-weight="bold">{html.escape(title)}</text>')
    out.append(f'<text x="10" y="34" fill="#555">{rows_what}; virtual time 0-{_clock(end_s)}</text>')
    causes = _causes(chart)
    if causes:
        out.append(f'<text class="causes" x="10" y="50" font-size="11" fill="{COLOURS["Failed"]}">'
                   f'{html.escape(causes)}</text>')
    # legend
    lx, ly = 10, 58
    for state in (*_LIVE_STATES,):
        out.append(f'<rect class="legend" x="{lx}" y="{ly}" width="14" height="9" fill="{COLOURS[state]}"/>'
                   f'<text x="{lx + 18}" y="{ly + 8}">{state}</text>')
        lx += 26 + 7 * len(state)
    out.append(f'<path d="M{lx} {ly + 4} l4 4 l7 -8" stroke="{COLOURS["Succeeded"]}" stroke-width="2" fill="none"/>'
               f'<text x="{lx + 16}" y="{ly + 8}">succeeded</text>')
    lx += 80
    out.append(_cross(lx + 5, ly + 4, 4) + f'<text x="{lx + 16}" y="{ly + 8}">failed</text>')
    lx += 62
    out.append(_stop(lx + 5, ly + 4) + f'<text x="{lx + 12}" y="{ly + 8}">stopped (deleted while running)</text>')
    lx += 180
    out.append(f'<circle cx="{lx + 5}" cy="{ly + 4}" r="3.5" fill="#ffffff" stroke="{COLOURS["Restarted"]}" '
               f'stroke-width="2"/><text x="{lx + 14}" y="{ly + 8}">container exited, restarted in place</text>')
    lx += 215
    out.append(f'<rect x="{lx}" y="{ly}" width="14" height="9" fill="{_BAND}" fill-opacity="{_BAND_OPACITY}" '
               f'stroke="{_BAND}"/><text x="{lx + 18}" y="{ly + 8}">JobSet restart window</text>')
    if chart.queues:
        lx += 215
        for state, text in (("Queued", "waiting in its Kueue queue"), ("Admitted", "holding quota")):
            out.append(f'<rect class="legend" x="{lx}" y="{ly}" width="14" height="9" fill="{QUEUE_COLOURS[state]}"/>'
                       f'<text x="{lx + 18}" y="{ly + 8}">{text}</text>')
            lx += 26 + 6 * len(text)
        out.append(_triangle(lx + 5, ly, 9) + f'<text x="{lx + 14}" y="{ly + 8}">evicted (preempted, timed out)</text>')
    # time axis
    step = _nice_step(end_s)
    axis_y = TOP - 8
    t = 0.0
    while t <= end_s + 1e-9:
        tx = LABEL_W + t * scale
        out.append(f'<line class="tick" x1="{tx:.2f}" y1="{axis_y}" x2="{tx:.2f}" y2="{height - BOTTOM}"/>'
                   f'<text x="{tx:.2f}" y="{axis_y - 3}" text-anchor="middle" fill="#555">{_clock(t)}</text>'
                   f'<text x="{tx:.2f}" y="{height - BOTTOM + 12}" text-anchor="middle" fill="#555">{_clock(t)}</text>')
        t += step
    # rows
    y = TOP
    if chart.queues:
        y = _queue_rows(chart, out, y, x, w)
    for group in groups:
        if group.title:
            out.append(f'<rect x="0" y="{y}" width="{WIDTH}" height="{GROUP_H}" fill="#eef1f5"/>'
                       f'<text class="grp" x="6" y="{y + 13}">{html.escape(group.title)}</text>')
            y += GROUP_H
        for i, row in enumerate(group.rows):
            fill = "#ffffff" if i % 2 == 0 else "#f7f7f7"
            out.append(f'<g class="podrow" data-row="{html.escape(row.label)}">'
                       f'<rect class="row" x="0" y="{y}" width="{WIDTH}" height="{ROW_H}" fill="{fill}"/>'
                       f'<text class="lbl" x="14" y="{y + ROW_H - 2}">{html.escape(_short(row.label))}'
                       + (f'<title>{html.escape(row.tip)}</title>' if row.tip else "") + "</text>")
            segments = ([(*seg, row.label) for seg in _majority_segments(row.lives, chart.end)] if per_job
                        else [(*seg, _who(life, chart)) for life in row.lives for seg in _segments(life, chart.end)])
            for start, stop, state, who in segments:
                live = state in _LIVE_STATES
                bar_h = ROW_H - 3 if live else 2
                bar_y = y + 1.5 if live else y + ROW_H / 2 - 1
                tip = f"{who}: {state} {_clock(to_seconds(start))}-{_clock(to_seconds(stop))}"
                out.append(f'<rect class="bar" data-state="{state}" x="{x(start)}" y="{bar_y}" width="{w(start, stop)}" '
                           f'height="{bar_h}" fill="{COLOURS[state]}"><title>{html.escape(tip)}</title></rect>')
            for life in row.lives:
                cy = y + ROW_H / 2
                for when in life.restarts:
                    out.append(f'<circle class="marker restart" cx="{x(when)}" cy="{cy}" r="3" fill="#ffffff" '
                               f'stroke="{COLOURS["Restarted"]}" stroke-width="2"><title>{html.escape(life.name)}: container restarted '
                               f'at {format_offset(when)}</title></circle>')
                if life.outcome is not None and (not per_job or life.outcome[1] == "Failed"):
                    when, outcome, detail = life.outcome
                    tip = html.escape(f"{life.name}: {outcome}{' (' + detail + ')' if detail else ''} at "
                                      f"{format_offset(when)} on {life.node or 'no node'}")
                    cx = float(x(when))
                    if outcome == "Failed":
                        out.append(f'<g class="marker failed">{_cross(cx, cy, 3.5)}<title>{tip}</title></g>')
                    elif outcome == "Stopped":
                        out.append(f'<g class="marker stopped">{_stop(cx, cy)}<title>{tip}</title></g>')
                    else:
                        out.append(f'<path class="marker succeeded" d="M{cx - 3:.2f} {cy:.2f} l3 3 l5 -6" '
                                   f'stroke="{COLOURS["Succeeded"]}" stroke-width="1.6" fill="none">'
                                   f'<title>{tip}</title></path>')
            out.append("</g>")
            y += ROW_H
    # JobSet restart windows: from RestartingJobSet until the Jobs are back
    for restart in chart.restarts:
        stop = restart.end if restart.end is not None else chart.end
        tip = (f"JobSet {restart.jobset} restart {restart.number} ({restart.why}): "
               f"{format_offset(restart.start)}-{format_offset(stop)}")
        out.append(f'<rect class="band restart" x="{x(restart.start)}" y="{TOP}" '
                   f'width="{max((to_seconds(stop) - to_seconds(restart.start)) * scale, 4):.2f}" '
                   f'height="{height - BOTTOM - TOP}" fill="{_BAND}" fill-opacity="{_BAND_OPACITY}">'
                   f'<title>{html.escape(tip)}</title></rect>')
    # JobSet conditions and node failures
    label_slots: list[float] = []
    for when, label, colour in sorted(chart.lines, key=lambda line: line[0]):
        lx_ = float(x(when))
        level = sum(1 for s in label_slots if abs(s - lx_) < 170) % 4
        label_slots.append(lx_)
        label_y = 82 + level * 10
        right = lx_ > WIDTH - 200
        anchor = f'x="{lx_ - 3:.2f}" text-anchor="end"' if right else f'x="{lx_ + 3:.2f}"'
        out.append(f'<line class="vline" x1="{lx_:.2f}" y1="{label_y - 8}" x2="{lx_:.2f}" y2="{height - BOTTOM}" '
                   f'stroke="{colour}"><title>{html.escape(label)} at {format_offset(when)}</title></line>'
                   f'<text class="vlabel" {anchor} y="{label_y}" fill="{colour}" '
                   f'font-size="9">{html.escape(label)} ({_clock(to_seconds(when))})</text>')
    out.append(f'<text x="{WIDTH - 10}" y="{height - 2}" text-anchor="end" fill="#777">virtual time '
               f'(h:mm:ss); hover a bar or marker for details</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _queue_rows(chart: Chart, out: list[str], y: int, x: Any, w: Any) -> int:
    """The Kueue group: one row per Workload (queue wait, quota held, evictions); returns the next y."""
    out.append(f'<rect x="0" y="{y}" width="{WIDTH}" height="{GROUP_H}" fill="#fdf3dc"/>'
               f'<text class="grp" x="6" y="{y + 13}">Kueue  ·  one row per Workload: time waiting in its queue, '
               f'holding quota, evictions</text>')
    y += GROUP_H
    for i, life in enumerate(sorted(chart.queues, key=lambda q: (q.created, _natural(q.owner)))):
        fill = "#ffffff" if i % 2 == 0 else "#f7f7f7"
        waits = [(a, b) for a, b in life.waits(chart.end) if b > a]
        waited = sum(to_seconds(b) - to_seconds(a) for a, b in waits)
        tip = (f"Workload {life.name} in LocalQueue {life.queue}: waited {_clock(waited)} in all"
               + (f", evicted {len(life.evictions)} time(s)" if life.evictions else ""))
        out.append(f'<g class="queuerow" data-row="{html.escape(life.owner)}">'
                   f'<rect class="row" x="0" y="{y}" width="{WIDTH}" height="{ROW_H}" fill="{fill}"/>'
                   f'<text class="lbl" x="14" y="{y + ROW_H - 2}">{html.escape(_short(f"{life.owner} · {life.queue}"))}'
                   f'<title>{html.escape(tip)}</title></text>')
        stop_at = life.ended if life.ended is not None else chart.end
        for j, (start, state) in enumerate(life.states):
            stop = life.states[j + 1][0] if j + 1 < len(life.states) else stop_at
            if state not in QUEUE_COLOURS or stop <= start:
                continue
            what = {"Queued": "waiting in queue", "Admitted": "holding quota", "Inactive": "deactivated"}[state]
            bar_tip = (f"{life.owner}: {what} {_clock(to_seconds(start))}-{_clock(to_seconds(stop))} "
                       f"({_clock(to_seconds(stop) - to_seconds(start))})")
            out.append(f'<rect class="bar queue" data-state="{state}" x="{x(start)}" y="{y + 1.5}" '
                       f'width="{w(start, stop)}" height="{ROW_H - 3}" fill="{QUEUE_COLOURS[state]}">'
                       f'<title>{html.escape(bar_tip)}</title></rect>')
        labels: list[tuple[float, int, str]] = []  # (wanted x, order, svg text with {x} to fill in)
        for when, reason, message in life.evictions:
            cx = float(x(when))
            word = "preempted" if reason.startswith("Preempted") else reason.split(",")[0]
            evict_tip = f"{life.owner}: evicted at {format_offset(when)} ({reason}: {message})"
            out.append(f'<g class="marker evicted">{_triangle(cx, y + 1, ROW_H - 2)}'
                       f'<title>{html.escape(evict_tip)}</title></g>')
            labels.append((cx + 6, 0, f'<text class="evicted" x="{{x:.2f}}" y="{y + ROW_H - 2}" font-size="8" '
                                      f'font-weight="bold" fill="#8c4a00">{html.escape(word)}</text>'))
        for start, stop in waits:
            still = stop == stop_at and life.states[-1][1] == "Queued"
            text = f"{'still waiting' if still else 'waited'} {_clock(to_seconds(stop) - to_seconds(start))}"
            width = _text_width(text)
            inside = float(w(start, stop)) >= width + 90  # right-aligned in the bar, clear of an eviction's word
            wanted = float(x(stop)) - 3 - width if inside else float(x(stop)) + 2
            labels.append((wanted, 1, f'<text class="wait" x="{{x:.2f}}" y="{y + ROW_H - 2}" font-size="8" '
                                      f'fill="#5c4300">{text}</text>'))
        cursor = 0.0  # labels left to right, each after the previous one's end: no overlaps
        for wanted, _, svg in sorted(labels, key=lambda label: (label[0], label[1])):
            at = max(wanted, cursor)
            out.append(svg.format(x=at))
            cursor = at + _text_width(re.sub(r"<[^>]+>", "", svg)) + 6
        out.append("</g>")
        y += ROW_H
    return y


def _text_width(text: str) -> float:
    """About how wide ``text`` is at font size 8 (for laying labels out side by side)."""
    return 4.9 * len(text)


def _triangle(cx: float, top: float, height: float) -> str:
    """A downward triangle (an eviction) whose tip is at ``top + height``."""
    half = height / 2
    return (f'<path d="M{cx - half:.2f} {top:.2f} L{cx + half:.2f} {top:.2f} L{cx:.2f} {top + height:.2f} Z" '
            f'fill="{QUEUE_COLOURS["Evicted"]}"/>')


def _who(life: PodLife, chart: Chart) -> str:
    """A pod for a tooltip: its name, restart attempt and node (and pool)."""
    where = f" on {life.node}" + (f" ({chart.pools[life.node]})" if chart.pools.get(life.node) else "") \
        if life.node else " (not scheduled)"
    attempt = f", restart-attempt {life.attempt}" if life.attempt else ""
    return f"{life.name}{attempt}{where}"


def _causes(chart: Chart, limit: int = 3) -> str:
    """The JobSet restarts, then the first failures and in-place restarts (what set them in motion),
    for the header."""
    parts = []
    if chart.restarts:
        first = chart.restarts[0]
        more = len(chart.restarts) - 1
        parts.append(f"JobSet {first.jobset} restart {first.number} at {_clock(to_seconds(first.start))} "
                     f"({first.why})" + (f" (+{more} more restart{'s' if more > 1 else ''})" if more else ""))
    found = sorted([(life.outcome[0], f"{life.row} failed at {_clock(to_seconds(life.outcome[0]))}")
                    for life in chart.pods if life.outcome is not None and life.outcome[1] == "Failed"]
                   + [(when, f"{life.row} restarted in place at {_clock(to_seconds(when))}")
                      for life in chart.pods for when in life.restarts])
    if found:
        more_found = f" (+{len(found) - limit} more)" if len(found) > limit else ""
        parts.append("first failures: " + "; ".join(text for _, text in found[:limit]) + more_found)
    return "; ".join(parts)


def _cross(cx: float, cy: float, r: float) -> str:
    c = COLOURS["Failed"]
    return (f'<path d="M{cx - r:.2f} {cy - r:.2f} L{cx + r:.2f} {cy + r:.2f} M{cx - r:.2f} {cy + r:.2f} '
            f'L{cx + r:.2f} {cy - r:.2f}" stroke="{c}" stroke-width="2"/>')


def _stop(cx: float, cy: float) -> str:
    return (f'<rect x="{cx - 1:.2f}" y="{cy - 4:.2f}" width="2" height="8" fill="{COLOURS["Stopped"]}"/>')


def _short(label: str, limit: int = 38) -> str:
    return label if len(label) <= limit else "…" + label[-(limit - 1):]


def render_html(chart: Chart) -> str:
    """The SVG in a minimal HTML page (no scripts, no external resources)."""
    title = html.escape(chart.title or "jobset-ref simulate")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{title}</title><style>body{{margin:8px;background:#fff}}</style></head>\n<body>\n"
            f"{render_svg(chart)}</body></html>\n")
