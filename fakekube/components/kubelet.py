"""The kubelets of every node, as one component: pod stages on virtual time (kwok-like).

Timeline of a pod bound to a live node (``spec/kubernetes.md`` §3):

- **bind + 0** (``ACCEPT_DELAY``): the kubelet admits the pod and its sandbox is ready:
  ``startTime``, ``hostIP(s)``, ``podIP(s)`` (from one per-cluster allocator: 10.244.0.1,
  10.244.0.2, … in the order pods reach this stage; ``hostNetwork`` pods get the node IP),
  conditions ``PodReadyToStartContainers=True``, ``Initialized=True`` (``False`` while init
  containers are pending), ``Ready=False`` and ``ContainersReady=False`` (reason
  ``ContainersNotReady``, message ``containers with unready status: [main]``, sidecars first),
  containers ``waiting: ContainerCreating`` (``PodInitializing`` with init containers); phase
  stays ``Pending``.
- **bind + 1 s** (``START_DELAY``): init containers run first, in order (below); then the app
  containers are ``running {startedAt}``, ``started: true``, phase ``Running``.
- **init containers**: while they run the pod stays ``Pending`` with ``Initialized=False``
  (``ContainersNotInitialized``, ``containers with incomplete status: [a b]``) and the app
  containers wait with reason ``PodInitializing``. A regular init container runs
  ``fakekube.io/init-run-seconds`` (default 0: it completes at once) and exits with
  ``fakekube.io/init-exit-code`` (default 0; ``.<container>`` suffixes script one of them). On
  exit 0 it is ``terminated: Completed``, ``ready: true`` and the next one starts; on another
  code the pod fails (``restartPolicy: Never``: phase ``Failed``, app containers still
  ``PodInitializing``) or the init container restarts after the CrashLoopBackOff back-off. A
  sidecar (``restartPolicy: Always``) starts and must be ``started`` (its startup probe passed,
  if it has one) before the next init container; it keeps running beside the app containers,
  does not restart with them and does not keep the pod from completing.
- **+ ready-after** (default 0): containers without a readiness probe are ``ready``; a container
  with probes follows them (below). ``ContainersReady=True`` once every sidecar and app container
  is ready; ``Ready`` is ``ContainersReady`` and then the pod's ``readinessGates``: while a gate's
  condition (written by another client through ``pods/status``; the kubelet keeps conditions it
  does not own) is missing or not ``True``, ``Ready=False`` with reason ``ReadinessGatesNotReady``
  and message ``corresponding condition of pod readiness gate "X" does not exist.`` or
  ``the status of pod readiness gate "X" is not "True", but False`` (joined by ``, ``); the
  kubelet rewrites ``Ready`` when such a condition changes.
- **+ run-seconds** (if scripted; unscripted pods run forever, like ``sleep infinity``): the
  containers exit with the scripted code; ``terminated {exitCode, reason, startedAt,
  finishedAt, containerID}``, reason ``Completed`` (0) or ``Error`` unless scripted. Then, by
  ``restartPolicy``: ``Never`` → phase ``Succeeded``/``Failed``, ``Ready``/``ContainersReady``
  ``False`` with reason ``PodCompleted``/``PodFailed``, ``PodReadyToStartContainers=False``,
  ``Initialized=True`` (reason ``PodCompleted`` when Succeeded); ``OnFailure`` (non-zero) and
  ``Always`` (any exit) → the container restarts in place: ``restartCount+1``,
  ``lastState.terminated``, ``waiting: CrashLoopBackOff`` (``back-off 10s restarting failed
  container=main pod=<pod>_<ns>(<uid>)``) for the back-off, which starts at 10 s and doubles to
  300 s (reset after 10 min of running), then ``running`` again with a new ``startedAt``.
  ``OnFailure`` with exit 0 ends the pod ``Succeeded``.

Probes (``kubelet_probes``): ``startupProbe``, ``readinessProbe`` and ``livenessProbe`` of app
containers and sidecars run on virtual time from the container's start: at
``initialDelaySeconds`` and every ``periodSeconds`` (default 10); a result counts after
``successThreshold`` (default 1) successes or ``failureThreshold`` (default 3) failures in a row.
What a probe returns is scripted with ``fakekube.io/readiness``, ``fakekube.io/liveness`` or
``fakekube.io/startup`` (all containers with that probe; ``fakekube.io/readiness.<container>`` for
one): ``succeed`` (default), ``fail``, ``succeed-after=12s`` and/or ``fail-after=45s`` (relative to
the container's start). A readiness result sets the container's ``ready``; a startup probe keeps
``started: false`` (and readiness/liveness probing) until it succeeds, the other probes then run
from that moment; a failed liveness or startup probe kills the containers (trace ``container X
failed liveness probe, will be restarted``): exit 137, reason ``Error``, then ``restartPolicy`` and
the CrashLoopBackOff back-off as for any exit. Probes restart with each container start.

Graceful deletion (``deletionTimestamp`` set by the API server): the containers get SIGTERM and
exit after ``fakekube.io/termination-seconds`` (default 0) with code 143, or are SIGKILLed at the
end of the grace period (``deletionGracePeriodSeconds``, i.e. ``terminationGracePeriodSeconds``
or the request's) with code 137, reason ``Error``; containers that never started report
``ContainerStatusUnknown`` (137, ``The container could not be located when the pod was
terminated``). The kubelet then writes the terminal phase (``Failed``, or ``Succeeded`` if every
container exited 0) and sends ``DELETE`` with ``gracePeriodSeconds: 0`` and a UID
precondition; pods with finalizers stay until those are removed.

Scripting outcomes (``kubelet_scripts``): pod annotations (``fakekube.io/run-seconds``,
``exit-code``, ``fail-reason``, ``ready-after-seconds``, ``start-seconds``,
``termination-seconds``) and ``script_pods(label_selector, ...)``; and immediate actions:

- ``fail_pod(name, ns, exit_code=1, reason="Error")`` and ``complete_pod(name, ns)`` (running
  containers exit now; ``restartPolicy`` decides what follows), and ``fail_node(name)``: the node turns ``Ready=Unknown`` (``NodeStatusUnknown``,
  ``Kubelet stopped posting node status.``) and gets the ``node.kubernetes.io/unreachable``
  ``NoSchedule`` and ``NoExecute`` taints; every non-terminal pod on it gets
  ``DisruptionTarget=True`` (``DeletionByTaintManager``, ``Taint manager: deleting due to
  NoExecute taint``), phase ``Failed`` with containers ``terminated`` exit 137 (``Error``, or
  ``ContainerStatusUnknown`` if never started), and a ``DELETE`` with grace 0. The dead node's
  kubelet runs nothing afterwards.

The status the kubelet writes is built by ``kubelet_status``.

Not modelled: per-container lifecycles (all app containers share one run, so a probe kill
restarts them all and they share ``restartCount``), probe jitter and the prober's extra run on
status updates (first probe exactly at ``initialDelaySeconds``), probe handlers (``exec``,
``httpGet``, ``tcpSocket``, ``grpc`` are never run: the annotation decides), per-container exit
scripts, sidecar restarts (a sidecar that never passes its startup probe leaves the pod
initializing; a sidecar's readiness/liveness probes are timed from the app containers' start), image pulls and their errors, volumes, ``activeDeadlineSeconds``,
kubelet admission of pods created with ``spec.nodeName``, node-pressure eviction, pod-level
resize, kubelet Events (Pulling/Created/Started/Killing), ``tolerationSeconds`` on node failure
(pods are evicted at once).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from fakekube._core.clock import SECOND, SimTime, format_time, seconds
from fakekube._core.gocompat import go_duration
from fakekube._core.jsonutil import deep_copy
from fakekube._core.multimap import discard
from fakekube.components.kubelet_probes import probe_of, timeline
from fakekube.components.kubelet_scripts import (
    ANNOTATION_START_SECONDS,
    ANNOTATION_TERMINATION_SECONDS,
    Script,
    init_script,
    pod_script,
    probe_outcome,
    seconds_annotation,
)
from fakekube.components.kubelet_status import (
    INITIAL_RESTART_BACKOFF,
    PodKey,
    PodRun,
    container_status,
    incomplete_inits,
    init_container_status,
    pending_status,
    pod_conditions,
    probed_containers,
    running_status,
    set_conditions,
    terminated_state,
    unready_containers,
)
from fakekube.errors import ApiError, Conflict, NotFound, UsageError
from fakekube.machinery import selectors as sel
from fakekube.runtime.context import Runtime

__all__ = [
    "ACCEPT_DELAY",
    "MAX_RESTART_BACKOFF",
    "START_DELAY",
    "Kubelet",
]

ACCEPT_DELAY: SimTime = 0
START_DELAY: SimTime = 1 * SECOND
MAX_RESTART_BACKOFF: SimTime = 300 * SECOND
BACKOFF_RESET: SimTime = 600 * SECOND

UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
UNKNOWN_MESSAGE = "The container could not be located when the pod was terminated"


class Kubelet:
    """Runs bound pods through their stages; offers the scripting and fault-injection API."""

    name = "kubelet"

    def __init__(self, rt: Runtime, *, start_delay: SimTime = START_DELAY) -> None:
        self.rt = rt
        self.client = rt.shared_client("kubelet")
        self.start_delay = start_delay
        self._runs: dict[PodKey, PodRun] = {}
        self._scripts: list[tuple[sel.LabelSelector, Script]] = []
        self._failed_nodes: dict[str, None] = {}
        self._next_ip = 0
        self._running = False
        # node -> keys of the cached pods bound to it (and, after an informer restart dropped its
        # cache silently, keys since gone or moved: _pods_on checks each against the cache)
        self._node_pods: dict[str, dict[PodKey, None]] = {}

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self._running = True
        self._nodes = self.rt.informer("nodes")
        self._pods = self.rt.informer("pods")
        for pod in self._pods.list():
            self._track_node("ADDED", pod, None)
        self._pods.add_handler(self._on_pod)
        self._nodes.add_handler(self._on_node)

    def stop(self) -> None:
        self._running = False
        for run in self._runs.values():
            run.cancel()

    # ------------------------------------------------------------------ public API
    def script_pods(self, label_selector: str, *, duration: float | None = None, exit_code: int = 0,
                    ready_after: float | None = None, reason: str | None = None) -> None:
        """Script pods matching ``label_selector``: run ``duration`` s, then exit ``exit_code``."""
        if not isinstance(label_selector, str):
            raise UsageError(f"script_pods() takes a label selector string such as 'app=web', got {label_selector!r}")
        for what, value in (("duration", duration), ("ready_after", ready_after)):
            if value is not None and (not isinstance(value, int | float) or isinstance(value, bool) or value < 0):
                raise UsageError(f"script_pods({what}=...) takes a non-negative number of seconds, got {value!r}")
        if not isinstance(exit_code, int) or isinstance(exit_code, bool) or not 0 <= exit_code <= 255:
            raise UsageError(f"script_pods(exit_code=...) takes an int in 0..255, got {exit_code!r}")
        self._scripts.append((sel.parse_label_selector(label_selector),
                              Script(duration, exit_code, ready_after, reason)))

    def fail_pod(self, name: str, namespace: str = "default", *, exit_code: int = 1, reason: str = "Error") -> None:
        """The pod's running containers exit now with ``exit_code`` (restartPolicy decides what follows)."""
        run = self._running_run(name, namespace, "fail_pod")
        self._exit(run, exit_code, reason)

    def complete_pod(self, name: str, namespace: str = "default") -> None:
        """The pod's running containers exit 0 now."""
        run = self._running_run(name, namespace, "complete_pod")
        self._exit(run, 0, "Completed")

    def fail_node(self, name: str) -> None:
        """The node stops responding: NotReady + unreachable taints; its pods fail and are deleted."""
        node = deep_copy(self.client.get("nodes", name, None))
        if name in self._failed_nodes:
            raise UsageError(f"node {name!r} has already failed")
        self._failed_nodes[name] = None
        now = format_time(self.rt.now)
        taints = [t for t in (node.get("spec") or {}).get("taints") or [] if t.get("key") != UNREACHABLE_TAINT]
        taints += [{"key": UNREACHABLE_TAINT, "effect": "NoSchedule", "timeAdded": now},
                   {"key": UNREACHABLE_TAINT, "effect": "NoExecute", "timeAdded": now}]
        node.setdefault("spec", {})["taints"] = taints
        node = deep_copy(self.client.update(node))
        status = node.setdefault("status", {})
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "Ready"]
        conditions.append({"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
                           "message": "Kubelet stopped posting node status.", "lastHeartbeatTime": now,
                           "lastTransitionTime": now})
        status["conditions"] = conditions
        self.client.update_status(node)
        self.rt.trace.add(f"kubelet node {name} failed")
        for pod in self._pods_on(name):
            if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                continue
            key = (pod["metadata"]["namespace"], pod["metadata"]["name"])
            run = self._runs.pop(key, None)
            if run is not None:
                run.cancel()
            self._node_failure(pod, run)

    # ------------------------------------------------------------------ helpers
    def _running_run(self, name: str, namespace: str, verb: str) -> PodRun:
        pod = self.client.get("pods", name, namespace)
        run = self._runs.get((namespace, name))
        if run is None or run.uid != pod["metadata"]["uid"] or run.stage != "running":
            phase = (pod.get("status") or {}).get("phase")
            where = f"on node {pod['spec'].get('nodeName')}" if (pod.get("spec") or {}).get("nodeName") else "unscheduled"
            state = run.stage if run is not None else "not started"
            raise UsageError(f"{verb}({name!r}, {namespace!r}): the pod's containers are not running (phase {phase}, "
                             f"{where}, {state}); advance the clock until it runs, or script its outcome with "
                             f"annotations or script_pods()")
        return run

    def _later(self, run: PodRun, delay: SimTime, fn: Any, label: str) -> None:
        run.handles.append(self.rt.loop.call_later(delay, fn, label=f"kubelet {label} {run.key[0]}/{run.key[1]}"))

    def _allocate_ip(self) -> str:
        n = self._next_ip
        self._next_ip += 1
        third, fourth = divmod(n, 254)
        return f"10.{244 + third // 256}.{third % 256}.{fourth + 1}"

    def _host_ip(self, node_name: str) -> str:
        node = self._nodes.get(node_name) or {}
        for addr in (node.get("status") or {}).get("addresses") or []:
            if addr.get("type") == "InternalIP":
                return str(addr.get("address"))
        return ""

    def _malformed(self, pod: dict[str, Any], err: ValueError) -> None:
        self.rt.trace.add(f"kubelet ignores a malformed fakekube.io annotation on "
                          f"{pod['metadata'].get('namespace')}/{pod['metadata']['name']}: {err}")

    # ------------------------------------------------------------------ events
    def _track_node(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        """Keep ``_node_pods`` as the informer's cache changes (every change but a restart's silent
        drop reaches ``_on_pod``): a pod moves only when its ``spec.nodeName`` does."""
        node = None if type_ == "DELETED" else (obj.get("spec") or {}).get("nodeName")
        before = None if old is None else (old.get("spec") or {}).get("nodeName")
        if node == before:
            return
        meta = obj["metadata"]
        key = (meta.get("namespace") or "", meta["name"])
        if before:
            discard(self._node_pods, before, key)
        if node:
            self._node_pods.setdefault(node, {})[key] = None

    def _pods_on(self, node: str) -> list[dict[str, Any]]:
        """The cached pods bound to ``node``, in (namespace, name) order."""
        pods = []
        for namespace, name in sorted(self._node_pods.get(node, ())):
            pod = self._pods.get(name, namespace)
            if pod is not None and (pod.get("spec") or {}).get("nodeName") == node:
                pods.append(pod)
        return pods

    def _on_pod(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        if old is None or type_ == "DELETED" or obj.get("spec") is not old.get("spec"):
            self._track_node(type_, obj, old)  # (a status write shares the stored spec)
        if not self._running:
            return
        meta = obj["metadata"]
        key = (meta.get("namespace") or "", meta["name"])
        run = self._runs.get(key)
        if run is not None:
            if type_ == "DELETED" or run.uid != meta.get("uid"):
                run.cancel()
                del self._runs[key]
                run = None
            elif not meta.get("deletionTimestamp"):
                # A status change of a pod this kubelet already runs: only a readiness gate's
                # condition (set by another client) can change what the kubelet reports.
                if (obj.get("spec") or {}).get("readinessGates") and run.stage == "running":
                    self._sync_gates(run, obj)
                return
        if type_ == "DELETED":
            return
        node = (obj.get("spec") or {}).get("nodeName")
        if not node or node in self._failed_nodes or self._nodes.get(node) is None:
            return
        if run is None:
            if (obj.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                return
            run = self._runs[key] = PodRun(key=key, uid=meta.get("uid", ""), node=node)
            if meta.get("deletionTimestamp"):
                self._terminate(run, obj)
                return
            self._later(run, ACCEPT_DELAY, lambda: self._accept(run), "accept")
            return
        if meta.get("deletionTimestamp") and run.stage not in ("terminating", "done"):
            self._terminate(run, obj)

    def _on_node(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        """A node the cache did not know until now (a relist, a late delivery): the pods already
        bound to it start, as the pod events that came first could not start them."""
        if not self._running or type_ != "ADDED":
            return
        for pod in self._pods_on(obj["metadata"]["name"]):
            self._on_pod("ADDED", pod, None)

    def _sync_gates(self, run: PodRun, pod: dict[str, Any]) -> None:
        """Rewrite the Ready condition when a readiness gate's condition changed what it should say."""
        status = pod.get("status") or {}
        wanted = pod_conditions(pod, status, sandbox=True, unready=unready_containers(run, pod), phase="Running")[2]
        current: dict[str, Any] = next((c for c in status.get("conditions") or [] if c.get("type") == "Ready"), {})
        if all(current.get(k) == (w or None) for k, w in zip(("status", "reason", "message"), wanted[1:], strict=True)):
            return
        self._write(run, lambda p, s: running_status(self.rt.now, run, p, s))

    def _run_pod(self, run: PodRun) -> dict[str, Any] | None:
        """The pod ``run`` belongs to: the informer's copy or, while the cache is behind (a relist, a
        late delivery), the live one. A container's exit or start does not wait for a watch event;
        None once the pod is gone."""
        pod = self._pods.get(run.key[1], run.key[0])
        if pod is not None:
            return pod
        try:
            return self.client.get("pods", run.key[1], run.key[0])
        except NotFound:
            return None

    # ------------------------------------------------------------------ status writes
    def _write(self, run: PodRun, mutate: Any) -> dict[str, Any] | None:
        """Let ``mutate(pod, status)`` change the pod's status and write it back.

        Starts from the informer's copy with its resourceVersion as a precondition (cheap); on a
        conflict (the cache was behind) it reads the live pod and writes once more.
        """
        for attempt in range(2):
            cached = self._pods.get(run.key[1], run.key[0]) if attempt == 0 else None
            if cached is not None:
                # mutate() only assigns status fields (never edits nested values in place), so a
                # shallow copy keeps the frozen cached pod intact.
                pod = {**cached, "metadata": dict(cached["metadata"]), "status": dict(cached.get("status") or {})}
            else:
                try:
                    pod = deep_copy(self.client.get("pods", run.key[1], run.key[0]))
                except NotFound:
                    self._drop(run)
                    return None
            if pod["metadata"].get("uid") != run.uid:
                self._drop(run)
                return None
            mutate(pod, pod.setdefault("status", {}))
            try:
                # The body is ours alone (fresh metadata and status; spec shared with the frozen
                # stored pod), and callers only read the result: no copies either way.
                return self.client.update_status(pod)
            except Conflict:
                continue
            except NotFound:
                self._drop(run)
                return None
        self._drop(run)
        return None

    def _drop(self, run: PodRun) -> None:
        run.cancel()
        if self._runs.get(run.key) is run:
            del self._runs[run.key]

    # ------------------------------------------------------------------ stages
    def _accept(self, run: PodRun) -> None:
        run.handles.clear()

        def mutate(pod: dict[str, Any], status: dict[str, Any]) -> None:
            host_ip = self._host_ip(run.node)
            ip = host_ip if (pod.get("spec") or {}).get("hostNetwork") else self._allocate_ip()
            status["phase"] = "Pending"
            status["hostIP"], status["hostIPs"] = host_ip, [{"ip": host_ip}]
            status["podIP"], status["podIPs"] = ip, [{"ip": ip}]
            status["startTime"] = format_time(self.rt.now)
            pending_status(self.rt.now, run, pod, status)

        pod = self._write(run, mutate)
        if pod is None:
            return
        delay = seconds_annotation(pod, ANNOTATION_START_SECONDS, self.start_delay)
        self._later(run, delay, lambda: self._start(run), "start")

    def _start(self, run: PodRun) -> None:
        run.handles.clear()
        pod = self._run_pod(run)
        if pod is None:
            return
        if not run.initialized and (pod.get("spec") or {}).get("initContainers"):
            run.script = pod_script(self._scripts, pod, self._malformed)
            run.ready = not run.script.ready_after
            run.stage = "initializing"
            self._init_step(run, 0)
            return
        run.initialized = True
        run.script = pod_script(self._scripts, pod, self._malformed)
        run.stage = "running"
        run.started_at = self.rt.now
        run.ready = not run.script.ready_after
        changes, kill = self._probe_plan(run, pod)
        while changes and changes[0][0] == 0:
            _, kind, name, result = changes.pop(0)
            run.probes[(kind, name)] = result
        self._write(run, lambda p, s: running_status(self.rt.now, run, p, s))
        if self._runs.get(run.key) is not run:
            return
        for when in dict.fromkeys(t for t, *_ in changes):
            now = [(kind, name, result) for t, kind, name, result in changes if t == when]
            self._later(run, seconds(when), partial(self._probe_results, run, now), "probe")
        if kill is not None:
            when, name, kind = kill
            self._later(run, seconds(when), lambda: self._probe_kill(run, name, kind), "probe-kill")
        if not run.ready:
            self._later(run, seconds(run.script.ready_after or 0), lambda: self._become_ready(run), "ready")
        if run.script.duration is not None:
            code = run.script.exit_code
            reason = run.script.reason or ("Completed" if code == 0 else "Error")
            self._later(run, seconds(run.script.duration), lambda: self._exit(run, code, reason), "exit")

    # ------------------------------------------------------------------ init containers

    def _init_step(self, run: PodRun, index: int) -> None:
        """Run init containers in order from ``index``: a regular one runs its scripted time and
        exits; a sidecar starts (and, with a startup probe, must pass it) before the next one."""
        pod = self._run_pod(run)
        if pod is None or run.stage != "initializing":
            return
        inits = (pod.get("spec") or {}).get("initContainers") or []
        now = format_time(self.rt.now)
        while index < len(inits):
            c = inits[index]
            name = c["name"]
            if c.get("restartPolicy") == "Always":
                run.init_states[name] = {"running": {"startedAt": now}}
                startup = probe_of(c, "startup")
                if startup is not None:
                    first = timeline(startup, probe_outcome(pod, "startup", name, self._malformed), initial=None)[:1]
                    if not first or not first[0][1] or first[0][0] > 0:
                        run.probes[("startup", name)] = False
                        self._write(run, lambda p, s: pending_status(self.rt.now, run, p, s))
                        if first and first[0][1]:
                            self._later(run, seconds(first[0][0]), partial(self._sidecar_started, run, name, index),
                                        "sidecar-started")
                        else:
                            self.rt.trace.add(f"kubelet {run.key[0]}/{run.key[1]} sidecar {name} never passes its "
                                              f"startup probe; the pod stays initializing")
                        return
                    run.probes[("startup", name)] = True
                index += 1
                continue
            duration, code = init_script(pod, name, self._malformed)
            if duration == 0 and code == 0:
                run.init_states[name] = {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": now,
                                                        "finishedAt": now}}
                index += 1
                continue
            run.init_states[name] = {"running": {"startedAt": now}}
            self._write(run, lambda p, s: pending_status(self.rt.now, run, p, s))
            self._later(run, seconds(duration), partial(self._init_exit, run, index, code, now), "init-exit")
            return
        run.initialized = True
        self._start(run)

    def _sidecar_started(self, run: PodRun, name: str, index: int) -> None:
        run.probes[("startup", name)] = True
        self._init_step(run, index + 1)

    def _init_exit(self, run: PodRun, index: int, code: int, started_at: str) -> None:
        """A regular init container exited: go on, fail the pod (``Never``), or restart it after a back-off."""
        pod = self._run_pod(run)
        if pod is None or run.stage != "initializing":
            return
        c = ((pod.get("spec") or {}).get("initContainers") or [])[index]
        name, ns, uid = c["name"], run.key[0], run.uid
        term = {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error",
                               "startedAt": started_at, "finishedAt": format_time(self.rt.now)}}
        if code == 0:
            run.init_states[name] = term
            self._init_step(run, index + 1)
            return
        if ((pod.get("spec") or {}).get("restartPolicy") or "Always") == "Never":
            run.init_states[name] = term
            self._finish(run, pod, code, "Error", apps={"waiting": {"reason": "PodInitializing"}})
            return
        delay = run.backoff
        run.backoff = min(run.backoff * 2, MAX_RESTART_BACKOFF)
        run.last_state[name] = term
        run.init_restarts[name] = run.init_restarts.get(name, 0) + 1
        run.init_states[name] = {"waiting": {
            "reason": "CrashLoopBackOff",
            "message": f"back-off {go_duration(delay)} restarting failed container={name} pod={run.key[1]}_{ns}({uid})"}}
        self.rt.trace.add(f"kubelet {ns}/{run.key[1]} init container {name} exited {code} (Error); restart "
                          f"#{run.init_restarts[name]} in {go_duration(delay)}")
        self._write(run, lambda p, s: pending_status(self.rt.now, run, p, s))
        self._later(run, delay, partial(self._init_step, run, index), "init-restart")

    # ------------------------------------------------------------------ probes

    def _probe_plan(self, run: PodRun, pod: dict[str, Any]) -> tuple[list[tuple[float, str, str, bool]],
                                                                   tuple[float, str, str] | None]:
        """At a container start: every change of a startup/readiness result (seconds after the start,
        kind, container, result), and the first probe failure that kills the containers, if any."""
        run.probes = {k: v for k, v in run.probes.items() if k[0] == "startup" and k[1] in run.init_states and v}
        changes: list[tuple[float, str, str, bool]] = []
        kills: list[tuple[float, str, str]] = []
        for c in probed_containers(pod):
            if "startupProbe" not in c and "readinessProbe" not in c and "livenessProbe" not in c:
                continue  # (probe_of would find none of the three)
            name, after = c["name"], 0.0
            startup = probe_of(c, "startup")
            if startup is not None and not run.probes.get(("startup", name)):
                run.probes[("startup", name)] = False
                first = timeline(startup, probe_outcome(pod, "startup", name, self._malformed), initial=None)[:1]
                if first and not first[0][1]:
                    kills.append((first[0][0], name, "startup"))
                    continue
                if not first:
                    continue
                after = first[0][0]
                changes.append((after, "startup", name, True))
            readiness = probe_of(c, "readiness")
            if readiness is not None:
                run.probes[("readiness", name)] = False
                changes += [(t, "readiness", name, ok) for t, ok in
                            timeline(readiness, probe_outcome(pod, "readiness", name, self._malformed), initial=False, after=after)]
            liveness = probe_of(c, "liveness")
            if liveness is not None:
                kills += [(t, name, "liveness") for t, ok in
                          timeline(liveness, probe_outcome(pod, "liveness", name, self._malformed), initial=True, after=after)[:1]]
        changes.sort(key=lambda change: change[0])
        return changes, min(kills, key=lambda kill: kill[0], default=None)

    def _probe_results(self, run: PodRun, results: list[tuple[str, str, bool]]) -> None:
        if run.stage != "running":
            return
        for kind, name, result in results:
            run.probes[(kind, name)] = result
        self._write(run, lambda p, s: running_status(self.rt.now, run, p, s))

    def _probe_kill(self, run: PodRun, name: str, kind: str) -> None:
        """``kuberuntime``: a failed liveness/startup probe kills the container (SIGKILL after the
        grace period: exit 137, ``Error``); restartPolicy decides what follows."""
        if run.stage != "running":
            return
        self.rt.trace.add(f"kubelet {run.key[0]}/{run.key[1]} container {name} failed {kind} probe, "
                          f"will be restarted")
        self._exit(run, 137, "Error")

    def _become_ready(self, run: PodRun) -> None:
        if run.stage != "running":
            return
        run.ready = True
        self._write(run, lambda p, s: running_status(self.rt.now, run, p, s))

    def _exit(self, run: PodRun, code: int, reason: str) -> None:
        """The app containers exited with ``code``: restart in place or finish the pod."""
        run.cancel()
        pod = self._run_pod(run)
        if pod is None:
            return
        policy = (pod.get("spec") or {}).get("restartPolicy") or "Always"
        restart = policy == "Always" or (policy == "OnFailure" and code != 0)
        if not restart:
            self._finish(run, pod, code, reason)
            return
        ran = self.rt.now - (run.started_at or self.rt.now)
        if ran >= BACKOFF_RESET:
            run.backoff = INITIAL_RESTART_BACKOFF
        delay = run.backoff
        run.backoff = min(run.backoff * 2, MAX_RESTART_BACKOFF)
        term = terminated_state(self.rt.now, run, code, reason)
        for c in (pod.get("spec") or {}).get("containers") or []:
            run.last_state[c["name"]] = term
        run.restart_count += 1
        run.stage = "backoff"
        run.ready = False
        name, ns, uid = run.key[1], run.key[0], run.uid

        def mutate(p: dict[str, Any], status: dict[str, Any]) -> None:
            set_conditions(self.rt.now, run, status, pod_conditions(
                p, status, sandbox=True, unready=unready_containers(run, p), phase="Running"))
            status["containerStatuses"] = [
                container_status(run, c, {"waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off {go_duration(delay)} restarting failed container={c['name']} "
                               f"pod={name}_{ns}({uid})"}}, ready=False, started=False, created=True)
                for c in (p.get("spec") or {}).get("containers") or []]

        self.rt.trace.add(f"kubelet {ns}/{name} exited {code} ({reason}); restart #{run.restart_count} "
                          f"in {go_duration(delay)}")
        self._write(run, mutate)
        if self._runs.get(run.key) is run:
            self._later(run, delay, lambda: self._start(run), "restart")

    def _finish(self, run: PodRun, pod: dict[str, Any], code: int, reason: str, *,
                message: str = "", extra: Any = None, apps: dict[str, Any] | None = None) -> None:
        """Containers terminated with ``code``; write the terminal phase."""
        run.cancel()
        run.stage = "done"
        phase = "Succeeded" if code == 0 else "Failed"
        created = run.started_at is not None

        def mutate(p: dict[str, Any], status: dict[str, Any]) -> None:
            spec = p.get("spec") or {}
            status["phase"] = phase
            if extra is not None:
                extra(status)
            set_conditions(self.rt.now, run, status, pod_conditions(
                p, status, sandbox=False, unready=[], phase=phase, incomplete=incomplete_inits(run, p)))
            term = terminated_state(self.rt.now, run, code, reason, message=message)
            if spec.get("initContainers") and run.init_states:
                status["initContainerStatuses"] = [init_container_status(run, c, final=term)
                                                   for c in spec["initContainers"]]
            app = term if apps is None else apps
            status["containerStatuses"] = [
                container_status(run, c, app, ready=False, started=False, created=created)
                for c in spec.get("containers") or []]

        self.rt.trace.add(f"kubelet {run.key[0]}/{run.key[1]} {phase} (exit {code}, {reason})")
        self._write(run, mutate)

    def _terminate(self, run: PodRun, pod: dict[str, Any]) -> None:
        """Graceful deletion: SIGTERM now, SIGKILL at the end of the grace period."""
        previous = run.stage
        run.cancel()
        run.stage = "terminating"
        grace = seconds(int(pod["metadata"].get("deletionGracePeriodSeconds") or 0))
        if previous == "done" or (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            self._delete(run)
            return
        if previous not in ("running", "initializing"):
            self._finish(run, pod, 137, "ContainerStatusUnknown", message=UNKNOWN_MESSAGE)
            self._delete(run)
            return
        stop = seconds_annotation(pod, ANNOTATION_TERMINATION_SECONDS, 0)
        code = 143 if stop < grace else 137
        self.rt.trace.add(f"kubelet {run.key[0]}/{run.key[1]} killing containers (grace "
                          f"{grace // SECOND}s, exit {code} in {min(stop, grace) / SECOND:g}s)")

        def kill() -> None:
            live = self._pods.get(run.key[1], run.key[0]) or pod
            # App containers an init container kept from starting were never created.
            unknown = None if previous == "running" else {"terminated": {
                "exitCode": 137, "reason": "ContainerStatusUnknown", "message": UNKNOWN_MESSAGE,
                "finishedAt": format_time(self.rt.now)}}
            self._finish(run, live, code, "Error", apps=unknown)
            self._delete(run)

        self._later(run, min(stop, grace), kill, "kill")

    def _delete(self, run: PodRun) -> None:
        try:
            self.client.delete("pods", run.key[1], run.key[0], grace_period_seconds=0,
                               preconditions={"uid": run.uid})
        except (NotFound, Conflict):
            pass
        except ApiError as err:
            self.rt.trace.add(f"kubelet delete {run.key[0]}/{run.key[1]} failed: {err.message}")

    def _node_failure(self, pod: dict[str, Any], run: PodRun | None) -> None:
        meta = pod["metadata"]
        if run is None:
            run = PodRun(key=(meta["namespace"], meta["name"]), uid=meta.get("uid", ""),
                       node=(pod.get("spec") or {}).get("nodeName", ""))
        started = run.started_at is not None and run.stage in ("running", "backoff", "terminating")

        def disruption(status: dict[str, Any]) -> None:
            now = format_time(self.rt.now)
            conditions = [c for c in status.get("conditions") or [] if c.get("type") != "DisruptionTarget"]
            conditions.append({"type": "DisruptionTarget", "status": "True", "lastProbeTime": None,
                               "lastTransitionTime": now, "reason": "DeletionByTaintManager",
                               "message": "Taint manager: deleting due to NoExecute taint"})
            status["conditions"] = conditions

        if started:
            self._finish(run, pod, 137, "Error", extra=disruption)
        else:
            self._finish(run, pod, 137, "ContainerStatusUnknown", message=UNKNOWN_MESSAGE, extra=disruption)
        self._delete(run)
