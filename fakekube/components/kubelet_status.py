"""What the kubelet keeps for each pod it runs (:class:`PodRun`) and the status it reports from
it: the conditions it owns (``pkg/kubelet/status/generate.go``), ``containerStatuses`` and
``initContainerStatuses`` (states, ``ready``, ``started``, restart counts, image references and
container IDs as container runtimes report them).

Pure functions of a :class:`PodRun`, the pod and the time ``at`` (virtual): the stages of
:mod:`fakekube.components.kubelet` write what they build.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from fakekube._core.clock import SECOND, SimTime, format_time
from fakekube._core.gocompat import go_quote
from fakekube._core.loop import Handle
from fakekube.components.kubelet_scripts import NO_SCRIPT, Script

__all__ = [
    "INITIAL_RESTART_BACKOFF",
    "KUBELET_CONDITIONS",
    "TRUE",
    "Condition",
    "PodKey",
    "PodRun",
    "condition_map",
    "container_status",
    "gates_condition",
    "image_ids",
    "incomplete_inits",
    "init_container_status",
    "is_ready",
    "is_started",
    "pending_status",
    "pod_conditions",
    "probed_containers",
    "running_status",
    "set_conditions",
    "terminated_state",
    "unready_containers",
]

INITIAL_RESTART_BACKOFF: SimTime = 10 * SECOND

KUBELET_CONDITIONS = frozenset({"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady"})

PodKey = tuple[str, str]
# A pod condition the kubelet owns, as (status, reason, message); "" stands for an absent field.
Condition = tuple[str, str, str]


@dataclass(slots=True)
class PodRun:
    """What one node's kubelet tracks for one pod."""

    key: PodKey
    uid: str
    node: str
    stage: str = "accepted"  # accepted, running, backoff, terminating, done
    handles: list[Handle] = field(default_factory=list)
    started_at: SimTime | None = None
    restart_count: int = 0
    last_state: dict[str, Any] = field(default_factory=dict)
    backoff: SimTime = INITIAL_RESTART_BACKOFF
    ready: bool = False
    script: Script = NO_SCRIPT
    probes: dict[tuple[str, str], bool] = field(default_factory=dict)  # (kind, container) -> result
    initialized: bool = False
    init_states: dict[str, dict[str, Any]] = field(default_factory=dict)  # init container -> state
    init_restarts: dict[str, int] = field(default_factory=dict)
    container_ids: dict[tuple[str, int], str] = field(default_factory=dict)  # (container, restarts) -> ID
    # The conditions list of this kubelet's last status write, the (type, status, reason, message)
    # tuples it was built from and the condition maps built from them (``set_conditions``).
    conditions: tuple[list[dict[str, Any]], list[tuple[str, str, str, str]], list[dict[str, Any]]] | None = None

    def container_id(self, name: str, restarts: int) -> str:
        """The runtime's ID of ``name``'s ``restarts``-th run: a hash of the pod's UID, the name and the count."""
        cid = self.container_ids.get((name, restarts))
        if cid is None:
            cid = self.container_ids[(name, restarts)] = f"containerd://{_hex(f'{self.uid}/{name}/{restarts}')}"
        return cid

    def cancel(self) -> None:
        for h in self.handles:
            h.cancel()
        self.handles.clear()


def _image_ref(image: str) -> str:
    """How container runtimes report an image: ``busybox`` → ``docker.io/library/busybox:latest``."""
    name, _, digest = image.partition("@")
    first = name.split("/", 1)[0]
    if "/" not in name:
        name = f"docker.io/library/{name}"
    elif "." not in first and ":" not in first and first != "localhost":
        name = f"docker.io/{name}"
    if digest:
        return f"{name}@{digest}"
    if ":" not in name.rsplit("/", 1)[-1]:
        name += ":latest"
    return name


def _hex(text: str, n: int = 64) -> str:
    return hashlib.blake2b(text.encode(), digest_size=n // 2).hexdigest()


_IMAGE_IDS: dict[str, tuple[str, str]] = {}


def image_ids(image: str) -> tuple[str, str]:
    """(``image``, ``imageID``) as reported in a container status; memoized per spec image (pure)."""
    ids = _IMAGE_IDS.get(image)
    if ids is None:
        if len(_IMAGE_IDS) >= 4096:
            _IMAGE_IDS.clear()
        ref = _image_ref(image)
        ids = _IMAGE_IDS[image] = (ref, f"{ref.split('@')[0].rsplit(':', 1)[0]}@sha256:{_hex(ref)}")
    return ids


def probed_containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    """Restartable init containers (sidecars), then app containers: those that run and are probed."""
    spec = pod.get("spec") or {}
    inits = spec.get("initContainers")
    if not inits:
        return spec.get("containers") or []
    return [*(c for c in inits if c.get("restartPolicy") == "Always"), *(spec.get("containers") or [])]


TRUE: Condition = ("True", "", "")


def gates_condition(pod: dict[str, Any], status: dict[str, Any]) -> Condition:
    """The Ready condition of a pod whose containers are ready: True unless a readiness gate's
    condition (owned by whoever sets it through ``pods/status``) is missing or not True."""
    gates = (pod.get("spec") or {}).get("readinessGates") or []
    if not gates:
        return TRUE
    current = {c.get("type"): c.get("status") for c in status.get("conditions") or []}
    messages = []
    for gate in gates:
        ctype = gate.get("conditionType")
        if ctype not in current:
            messages.append(f"corresponding condition of pod readiness gate {go_quote(str(ctype or ''))} does not exist.")
        elif current[ctype] != "True":
            messages.append(f"the status of pod readiness gate {go_quote(str(ctype or ''))} is not \"True\", but {current[ctype]}")
    if messages:
        return "False", "ReadinessGatesNotReady", ", ".join(messages)
    return TRUE


def condition_map(wanted: tuple[str, str, str, str], transition: Any) -> dict[str, Any]:
    """The condition map of ``(type, status, reason, message)`` ("" for an absent field)."""
    ctype, cstatus, reason, message = wanted
    cond = {"type": ctype, "status": cstatus, "lastProbeTime": None, "lastTransitionTime": transition}
    if reason:
        cond["reason"] = reason
    if message:
        cond["message"] = message
    return cond


def set_conditions(at: SimTime, run: PodRun, status: dict[str, Any],
                   wanted: list[tuple[str, str, str, str]]) -> None:
    """Kubelet-owned conditions ``(type, status, reason, message)`` first, in the kubelet's
    order; others (PodScheduled, …) after. A condition keeps its lastTransitionTime while its
    status stays the same.

    While the pod's conditions are still the list of this kubelet's last write (a stored
    object is the body written, frozen), they are rebuilt from what that write was made of:
    an unchanged condition is the very map written before, and the others follow it."""
    now = format_time(at)
    conditions = status.get("conditions") or []
    mine = run.conditions
    out: list[dict[str, Any]] = []
    if mine is not None and mine[0] is conditions:
        _, before, built = mine
        for w, was, prev in zip(wanted, before, built, strict=True):
            out.append(prev if w == was else condition_map(w, prev["lastTransitionTime"] if w[1] == was[1] else now))
        others = conditions[len(built):]
    else:
        old = {c.get("type"): c for c in conditions}
        for w in wanted:
            prior = old.get(w[0])
            out.append(condition_map(w, prior.get("lastTransitionTime") if prior is not None
                                     and prior.get("status") == w[1] else now))
        others = [c for c in conditions if c.get("type") not in KUBELET_CONDITIONS]
    status["conditions"] = written = out + others
    run.conditions = (written, wanted, out)


def pod_conditions(pod: dict[str, Any], status: dict[str, Any], *, sandbox: bool, unready: list[str],
                    phase: str, incomplete: list[str] | None = None) -> list[tuple[str, str, str, str]]:
    """``pkg/kubelet/status/generate.go``: Ready is ContainersReady, then the readiness gates.
    Each condition is ``(type, status, reason, message)``, "" for an absent field."""
    ready_c: Condition
    if phase in ("Succeeded", "Failed"):
        ready_c = ("False", "PodCompleted" if phase == "Succeeded" else "PodFailed", "")
        pod_ready = ready_c
    elif not unready:
        ready_c = TRUE
        pod_ready = gates_condition(pod, status)
    else:
        ready_c = ("False", "ContainersNotReady", f"containers with unready status: [{' '.join(unready)}]")
        pod_ready = ready_c
    init: Condition = TRUE
    if phase == "Succeeded":
        init = ("True", "PodCompleted", "")
    elif incomplete:
        init = ("False", "ContainersNotInitialized", f"containers with incomplete status: [{' '.join(incomplete)}]")
    return [("PodReadyToStartContainers", "True" if sandbox else "False", "", ""), ("Initialized", *init),
            ("Ready", *pod_ready), ("ContainersReady", *ready_c)]


def unready_containers(run: PodRun, pod: dict[str, Any]) -> list[str]:
    """Names of the sidecars and app containers that are not ready, in upstream's order."""
    return [c["name"] for c in probed_containers(pod) if not is_ready(run, c["name"])]


def incomplete_inits(run: PodRun, pod: dict[str, Any]) -> list[str]:
    """Init containers that have not completed (sidecars: not started) while the pod initializes."""
    if run.initialized:
        return []
    out = []
    for c in (pod.get("spec") or {}).get("initContainers") or []:
        state = run.init_states.get(c["name"], {})
        done = is_started(run, c["name"]) if c.get("restartPolicy") == "Always" else (
            (state.get("terminated") or {}).get("exitCode") == 0)
        if not done:
            out.append(c["name"])
    return out


def is_started(run: PodRun, name: str) -> bool:
    """The container runs and passed its startup probe (if it has one); a sidecar keeps running
    while the app containers restart."""
    if name in run.init_states:
        return (run.stage in ("initializing", "running", "backoff") and "running" in run.init_states[name]
                and run.probes.get(("startup", name), True))
    return run.stage == "running" and run.probes.get(("startup", name), True)


def init_container_status(run: PodRun, c: dict[str, Any], *,
                          final: dict[str, Any] | None = None) -> dict[str, Any]:
    """An ``initContainerStatuses`` entry from what the init container did (``final``: the pod's
    containers were stopped with that state)."""
    name = c["name"]
    state = run.init_states.get(name)
    created = state is not None
    if state is None:
        state = {"waiting": {"reason": "PodInitializing"}}
    elif final is not None and "running" in state:
        term = {k: v for k, v in final["terminated"].items() if k not in ("startedAt", "finishedAt")}
        state = {"terminated": {**term, "startedAt": state["running"]["startedAt"],
                                "finishedAt": final["terminated"]["finishedAt"]}}
    sidecar = c.get("restartPolicy") == "Always"
    if final is not None:
        ready, started = (False, False) if sidecar else ((state.get("terminated") or {}).get("exitCode") == 0,
                                                         False)
    elif sidecar:
        ready, started = is_ready(run, name), is_started(run, name)
    else:
        ready, started = (state.get("terminated") or {}).get("exitCode") == 0, "running" in state
    return container_status(run, c, state, ready=ready, started=started, created=created,
                            restarts=run.init_restarts.get(name, 0))


def is_ready(run: PodRun, name: str) -> bool:
    """Started, and ready by its readiness probe, or (without one) after the scripted delay."""
    return is_started(run, name) and run.probes.get(("readiness", name), run.ready)


def container_status(run: PodRun, c: dict[str, Any], state: dict[str, Any], *, ready: bool,
                      started: bool, created: bool, restarts: int | None = None) -> dict[str, Any]:
    image, image_id = image_ids(str(c.get("image", "")))
    count = run.restart_count if restarts is None else restarts
    status: dict[str, Any] = {"name": c["name"], "state": state, "lastState": run.last_state.get(c["name"], {}),
                              "ready": ready, "restartCount": count, "image": image,
                              "imageID": "", "started": started}
    if created:
        status["imageID"] = image_id
        status["containerID"] = run.container_id(c["name"], count)
    return status


def running_status(at: SimTime, run: PodRun, pod: dict[str, Any], status: dict[str, Any]) -> None:
    spec = pod.get("spec") or {}
    started = format_time(run.started_at or at)
    status["phase"] = "Running"
    set_conditions(at, run, status, pod_conditions(pod, status, sandbox=True,
                                                   unready=unready_containers(run, pod), phase="Running"))
    if spec.get("initContainers"):
        status["initContainerStatuses"] = [init_container_status(run, c) for c in spec["initContainers"]]
    status["containerStatuses"] = [
        container_status(run, c, {"running": {"startedAt": started}}, ready=is_ready(run, c["name"]),
                         started=is_started(run, c["name"]), created=True)
        for c in spec.get("containers") or []]


def pending_status(at: SimTime, run: PodRun, pod: dict[str, Any], status: dict[str, Any]) -> None:
    """Phase Pending: init containers as far as they got, app containers waiting for them."""
    spec = pod.get("spec") or {}
    status["phase"] = "Pending"
    set_conditions(at, run, status, pod_conditions(pod, status, sandbox=True,
                                                   unready=unready_containers(run, pod), phase="Pending",
                                                   incomplete=incomplete_inits(run, pod)))
    if spec.get("initContainers"):
        status["initContainerStatuses"] = [init_container_status(run, c) for c in spec["initContainers"]]
    waiting = {"waiting": {"reason": "PodInitializing" if spec.get("initContainers") else "ContainerCreating"}}
    status["containerStatuses"] = [container_status(run, c, waiting, ready=False, started=False,
                                                    created=False) for c in spec.get("containers") or []]


def terminated_state(at: SimTime, run: PodRun, code: int, reason: str, *, message: str = "") -> dict[str, Any]:
    term: dict[str, Any] = {"exitCode": code, "reason": reason}
    if message:
        term["message"] = message
    if run.started_at is not None:
        term["startedAt"] = format_time(run.started_at)
    term["finishedAt"] = format_time(at)
    return {"terminated": term}
