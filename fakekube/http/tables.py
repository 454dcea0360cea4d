"""Server-side printing: the ``meta.k8s.io/v1`` ``Table`` that ``kubectl get`` asks for.

kube-apiserver answers ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io`` with a ``Table``:
column definitions (``name``, ``type``, ``format``, ``description``, ``priority``) and one row per
object (``cells``, optional ``conditions``, and ``object``: the object's metadata as a
``PartialObjectMetadata``, or the whole object with ``includeObject=Object``). kubectl prints
priority-0 columns, and the priority-1 ones too with ``-o wide``; the server always fills both.

The printers are those of ``pkg/printers/internalversion/printers.go`` (Kubernetes 1.32) for the
kinds this server serves: Pods (the READY / STATUS / RESTARTS logic of kubectl's pod printer, with
``Init:``, ``CrashLoopBackOff``, ``Completed``, ``Terminating``, ``RESTARTS 3 (2m ago)``), Jobs,
Services, Nodes, Namespaces, Events, ConfigMaps, EndpointSlices, PersistentVolumeClaims,
ServiceAccounts, Secrets, Roles, RoleBindings, ClusterRoles, ClusterRoleBindings, PriorityClasses and
ValidatingAdmissionPolicies (and bindings). Other built-in kinds (CustomResourceDefinitions) get the generic convertor's
``Name`` / ``Created At``; custom resources get ``Name`` plus their CRD's
``additionalPrinterColumns`` (or ``Age`` when it has none), evaluated as the apiextensions-apiserver
does. Ages and durations are ``duration.HumanDuration`` of the virtual clock: pass ``now``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from fakekube._core.clock import SECOND, SimTime, parse_time
from fakekube._core.gocompat import go_float
from fakekube.apiserver import builtin_schemas
from fakekube.apiserver.resources import ResourceType
from fakekube.errors import BadRequest, FieldError, UsageError
from fakekube.http.accept import negotiate_as
from fakekube.http.jsonpath import JsonPath, compile_path
from fakekube.machinery import selectors as sel

__all__ = [
    "INCLUDE_OBJECT",
    "TABLE_VERSIONS",
    "Printer",
    "human_duration",
    "object_table",
    "printer_for",
    "table",
    "table_version",
]

#: ``meta.k8s.io`` versions of ``Table`` served, most preferred first.
TABLE_VERSIONS: Final = ("v1", "v1beta1")
#: The ``includeObject`` values (``TableOptions``); ``Metadata`` is the default.
INCLUDE_OBJECT: Final = ("Metadata", "None", "Object")

Cells = Callable[[dict[str, Any], SimTime], list[Any]]


# --------------------------------------------------------------------------- time

def human_duration(d: SimTime) -> str:
    """``k8s.io/apimachinery/pkg/util/duration.HumanDuration`` of ``d`` nanoseconds."""
    seconds = d // SECOND if d >= 0 else -(-d // SECOND)  # int(d.Seconds()) truncates toward zero
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes = d // (60 * SECOND)
    if minutes < 10:
        s = seconds % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = d // (3600 * SECOND)
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = hours // 24 % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"


_RFC3339: Final = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _parse(ts: Any) -> SimTime | None:
    """A ``metav1.Time`` / ``MicroTime`` value as virtual time; None when absent or not RFC 3339."""
    if not isinstance(ts, str) or not _RFC3339.match(ts):
        return None
    return parse_time(ts.upper())


def _since(ts: Any, now: SimTime) -> str:
    """``translateTimestampSince``: ``<unknown>`` for a zero (absent) time."""
    if not ts:
        return "<unknown>"
    t = _parse(ts)
    return "<invalid>" if t is None else human_duration(now - t)


# --------------------------------------------------------------------------- columns

_META: Final = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_CORE: Final = "io.k8s.api.core.v1."


@dataclass(frozen=True, slots=True)
class _Column:
    """A column; ``doc`` is a literal description or ``(definition, field)`` of the built-in schemas."""

    name: str
    doc: str | tuple[str, str] = ""
    priority: int = 0
    type: str = "string"
    format: str = ""

    def definition(self) -> dict[str, Any]:
        doc = self.doc if isinstance(self.doc, str) else builtin_schemas.description(*self.doc)
        return {"name": self.name, "type": self.type, "format": self.format, "description": doc,
                "priority": self.priority}


_NAME_COLUMN: Final = _Column("Name", (_META, "name"), format="name")
_AGE: Final = _Column("Age", (_META, "creationTimestamp"))
_CONTAINERS: Final = _Column("Containers", "Names of each container in the template.", 1)
_IMAGES: Final = _Column("Images", "Images referenced by each container in the template.", 1)


@dataclass(frozen=True, slots=True)
class Printer:
    """How one kind prints: its columns, its cells, and row conditions (pods only)."""

    columns: tuple[_Column, ...]
    cells: Cells
    conditions: Callable[[dict[str, Any]], list[dict[str, str]]] | None = None

    def column_definitions(self) -> list[dict[str, Any]]:
        return [c.definition() for c in self.columns]


# --------------------------------------------------------------------------- helpers of the printers

def _get(obj: Mapping[str, Any] | None, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def _name(obj: Mapping[str, Any]) -> str:
    return str(_get(obj, "metadata", "name") or "")


def _age(obj: Mapping[str, Any], now: SimTime) -> str:
    return _since(_get(obj, "metadata", "creationTimestamp"), now)


def _format_labels(labels: Mapping[str, str] | None) -> str:
    """``labels.FormatLabels``."""
    text = str(sel.selector_from_set(labels or {}))
    return text or "<none>"


def _format_label_selector(selector: Mapping[str, Any] | None) -> str:
    """``metav1.FormatLabelSelector``."""
    try:
        text = str(sel.selector_from_label_selector_dict(selector))
    except sel.SelectorError:
        return "<error>"
    return text or "<none>"


def _container_cells(containers: Iterable[Mapping[str, Any]] | None) -> list[str]:
    """``layoutContainerCells``: names and images, comma-joined."""
    containers = list(containers or [])
    return [",".join(str(c.get("name") or "") for c in containers),
            ",".join(str(c.get("image") or "") for c in containers)]


def _condition_true(conditions: Iterable[Mapping[str, Any]] | None, ctype: str) -> bool:
    """The first condition of ``ctype`` decides (``hasJobCondition``)."""
    for c in conditions or []:
        if c.get("type") == ctype:
            return bool(c.get("status") == "True")
    return False


def _list_with_more(items: list[str], more: bool, count: int, limit: int) -> str:
    """``listWithMoreString``."""
    text = ",".join(items)
    if more:
        return f"{text} + {count - limit} more..."
    return text or "<unset>"


# --------------------------------------------------------------------------- pods

_POD_SUCCEEDED: Final = [{"type": "Completed", "status": "True", "reason": "Succeeded",
                          "message": "The pod has completed successfully."}]
_POD_FAILED: Final = [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]


def _restartable(container: Mapping[str, Any] | None) -> bool:
    """``podutil.IsRestartableInitContainer``: a sidecar."""
    return container is not None and container.get("restartPolicy") == "Always"


def _later(current: SimTime | None, status: Mapping[str, Any]) -> SimTime | None:
    """The later of ``current`` and the container's last termination."""
    finished = _parse(_get(status, "lastState", "terminated", "finishedAt"))
    if finished is not None and (current is None or finished > current):
        return finished
    return current


def _terminated_reason(term: Mapping[str, Any], prefix: str) -> str:
    if term.get("reason"):
        return prefix + str(term["reason"])
    if term.get("signal"):
        return f"{prefix}Signal:{term['signal']}"
    return f"{prefix}ExitCode:{term.get('exitCode', 0)}"


def _pod_cells(pod: dict[str, Any], now: SimTime) -> list[Any]:
    spec, status, meta = pod.get("spec") or {}, pod.get("status") or {}, pod.get("metadata") or {}
    restarts = restartable_restarts = ready = 0
    total = len(spec.get("containers") or [])
    last_restart: SimTime | None = None
    last_restartable: SimTime | None = None
    phase = str(status.get("phase") or "")
    reason = str(status.get("reason") or phase)
    for c in status.get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    init_specs = spec.get("initContainers") or []
    init_by_name = {c.get("name"): c for c in init_specs}
    total += sum(1 for c in init_specs if _restartable(c))
    initializing = False
    for i, cs in enumerate(status.get("initContainerStatuses") or []):
        restarts += int(cs.get("restartCount") or 0)
        last_restart = _later(last_restart, cs)
        sidecar = _restartable(init_by_name.get(cs.get("name")))
        if sidecar:
            restartable_restarts += int(cs.get("restartCount") or 0)
            last_restartable = _later(last_restartable, cs)
        state = cs.get("state") or {}
        term, waiting = state.get("terminated"), state.get("waiting")
        if term is not None and int(term.get("exitCode") or 0) == 0:
            continue
        if sidecar and cs.get("started"):
            if cs.get("ready"):
                ready += 1
            continue
        if term is not None:
            reason = _terminated_reason(term, "Init:")
        elif waiting is not None and waiting.get("reason") and waiting.get("reason") != "PodInitializing":
            reason = "Init:" + str(waiting["reason"])
        else:
            reason = f"Init:{i}/{len(init_specs)}"
        initializing = True
        break

    if not initializing or _condition_true(status.get("conditions"), "Initialized"):
        restarts, last_restart = restartable_restarts, last_restartable
        has_running = False
        for cs in reversed(status.get("containerStatuses") or []):
            restarts += int(cs.get("restartCount") or 0)
            last_restart = _later(last_restart, cs)
            state = cs.get("state") or {}
            term, waiting = state.get("terminated"), state.get("waiting")
            if waiting is not None and waiting.get("reason"):
                reason = str(waiting["reason"])
            elif term is not None:
                reason = _terminated_reason(term, "")
            elif cs.get("ready") and state.get("running") is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            reason = "Running" if _condition_true(status.get("conditions"), "Ready") else "NotReady"

    if meta.get("deletionTimestamp") and status.get("reason") == "NodeLost":
        reason = "Unknown"
    elif meta.get("deletionTimestamp") and phase not in ("Succeeded", "Failed"):
        reason = "Terminating"

    restarts_text = str(restarts)
    if restarts and last_restart is not None:
        restarts_text = f"{restarts} ({human_duration(now - last_restart)} ago)"

    pod_ips = status.get("podIPs") or []
    gates = spec.get("readinessGates") or []
    readiness = "<none>"
    if gates:
        conditions = status.get("conditions") or []
        true = 0
        for gate in gates:
            for c in conditions:
                if c.get("type") == gate.get("conditionType"):
                    true += c.get("status") == "True"
                    break
        readiness = f"{true}/{len(gates)}"
    return [_name(pod), f"{ready}/{total}", reason, restarts_text, _age(pod, now),
            (pod_ips[0].get("ip") if pod_ips else "") or "<none>", spec.get("nodeName") or "<none>",
            status.get("nominatedNodeName") or "<none>", readiness]


def _pod_conditions(pod: dict[str, Any]) -> list[dict[str, str]]:
    phase = _get(pod, "status", "phase")
    return _POD_SUCCEEDED if phase == "Succeeded" else _POD_FAILED if phase == "Failed" else []


_POD: Final = Printer((
    _NAME_COLUMN,
    _Column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
    _Column("Status", "The aggregate status of the containers in this pod."),
    _Column("Restarts", "The number of times the containers in this pod have been restarted and when the last "
                        "container in this pod has restarted."),
    _AGE,
    _Column("IP", (_CORE + "PodStatus", "podIP"), 1),
    _Column("Node", (_CORE + "PodSpec", "nodeName"), 1),
    _Column("Nominated Node", (_CORE + "PodStatus", "nominatedNodeName"), 1),
    _Column("Readiness Gates", (_CORE + "PodSpec", "readinessGates"), 1),
), _pod_cells, _pod_conditions)


# --------------------------------------------------------------------------- jobs

def _job_cells(job: dict[str, Any], now: SimTime) -> list[Any]:
    spec, status = job.get("spec") or {}, job.get("status") or {}
    succeeded = int(status.get("succeeded") or 0)
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{spec['completions']}"
    elif int(spec.get("parallelism") or 0) > 1:
        completions = f"{succeeded}/1 of {spec['parallelism']}"
    else:
        completions = f"{succeeded}/1"
    start, end = _parse(status.get("startTime")), _parse(status.get("completionTime"))
    duration = "" if start is None else human_duration((now if end is None else end) - start)
    conditions = status.get("conditions")
    if _condition_true(conditions, "Complete"):
        state = "Complete"
    elif _condition_true(conditions, "Failed"):
        state = "Failed"
    elif _get(job, "metadata", "deletionTimestamp"):
        state = "Terminating"
    elif _condition_true(conditions, "Suspended"):
        state = "Suspended"
    elif _condition_true(conditions, "FailureTarget"):
        state = "FailureTarget"
    else:
        state = "Running"
    return [_name(job), state, completions, duration, _age(job, now),
            *_container_cells(_get(spec, "template", "spec", "containers")),
            _format_label_selector(spec.get("selector"))]


_JOB: Final = Printer((
    _NAME_COLUMN,
    _Column("Status", "Status of the job."),
    _Column("Completions", ("io.k8s.api.batch.v1.JobStatus", "succeeded")),
    _Column("Duration", "Time required to complete the job."),
    _AGE, _CONTAINERS, _IMAGES,
    _Column("Selector", ("io.k8s.api.batch.v1.JobSpec", "selector"), 1),
), _job_cells)


# --------------------------------------------------------------------------- services

def _external_ip(svc: Mapping[str, Any]) -> str:
    """``getServiceExternalIP`` (wide: load-balancer addresses are never clipped)."""
    spec = svc.get("spec") or {}
    external = [str(ip) for ip in spec.get("externalIPs") or []]
    svc_type = spec.get("type")
    if svc_type in ("ClusterIP", "NodePort"):
        return ",".join(external) or "<none>"
    if svc_type == "LoadBalancer":
        ingress = _get(svc, "status", "loadBalancer", "ingress") or []
        lb = sorted({str(i.get("ip") or i.get("hostname")) for i in ingress if i.get("ip") or i.get("hostname")})
        if external:
            return ",".join(lb + external)
        return ",".join(lb) or "<pending>"
    if svc_type == "ExternalName":
        return str(spec.get("externalName") or "")
    return "<unknown>"


def _service_cells(svc: dict[str, Any], now: SimTime) -> list[Any]:
    spec = svc.get("spec") or {}
    cluster_ips = spec.get("clusterIPs") or []
    ports = []
    for p in spec.get("ports") or []:
        protocol = p.get("protocol") or ""
        node_port = int(p.get("nodePort") or 0)
        port = int(p.get("port") or 0)
        ports.append(f"{port}:{node_port}/{protocol}" if node_port > 0 else f"{port}/{protocol}")
    return [_name(svc), str(spec.get("type") or ""), cluster_ips[0] if cluster_ips else "<none>",
            _external_ip(svc), ",".join(ports) or "<none>", _age(svc, now), _format_labels(spec.get("selector"))]


_SERVICE: Final = Printer((
    _NAME_COLUMN,
    _Column("Type", (_CORE + "ServiceSpec", "type")),
    _Column("Cluster-IP", (_CORE + "ServiceSpec", "clusterIP")),
    _Column("External-IP", (_CORE + "ServiceSpec", "externalIPs")),
    _Column("Port(s)", (_CORE + "ServiceSpec", "ports")),
    _AGE,
    _Column("Selector", (_CORE + "ServiceSpec", "selector"), 1),
), _service_cells)


# --------------------------------------------------------------------------- nodes

def _node_address(node: Mapping[str, Any], kind: str) -> str:
    for address in _get(node, "status", "addresses") or []:
        if address.get("type") == kind:
            return str(address.get("address") or "")
    return "<none>"


def _node_cells(node: dict[str, Any], now: SimTime) -> list[Any]:
    by_type = {c.get("type"): c for c in _get(node, "status", "conditions") or []}  # the last one wins, as in Go
    ready = by_type.get("Ready")
    status = ["Unknown"] if ready is None else ["Ready" if ready.get("status") == "True" else "NotReady"]
    if _get(node, "spec", "unschedulable"):
        status.append("SchedulingDisabled")
    roles: set[str] = set()
    for key, value in (_get(node, "metadata", "labels") or {}).items():
        if key.startswith("node-role.kubernetes.io/") and key != "node-role.kubernetes.io/":
            roles.add(key.removeprefix("node-role.kubernetes.io/"))
        elif key == "kubernetes.io/role" and value:
            roles.add(value)
    info = _get(node, "status", "nodeInfo") or {}
    return [_name(node), ",".join(status), ",".join(sorted(roles)) or "<none>", _age(node, now),
            str(info.get("kubeletVersion") or ""), _node_address(node, "InternalIP"),
            _node_address(node, "ExternalIP"), info.get("osImage") or "<unknown>",
            info.get("kernelVersion") or "<unknown>", info.get("containerRuntimeVersion") or "<unknown>"]


_NODE: Final = Printer((
    _NAME_COLUMN,
    _Column("Status", "The status of the node"),
    _Column("Roles", "The roles of the node"),
    _AGE,
    _Column("Version", (_CORE + "NodeSystemInfo", "kubeletVersion")),
    _Column("Internal-IP", (_CORE + "NodeStatus", "addresses"), 1),
    _Column("External-IP", (_CORE + "NodeStatus", "addresses"), 1),
    _Column("OS-Image", (_CORE + "NodeSystemInfo", "osImage"), 1),
    _Column("Kernel-Version", (_CORE + "NodeSystemInfo", "kernelVersion"), 1),
    _Column("Container-Runtime", (_CORE + "NodeSystemInfo", "containerRuntimeVersion"), 1),
), _node_cells)


# --------------------------------------------------------------------------- events

def _event_cells(event: dict[str, Any], now: SimTime) -> list[Any]:
    first = _since(event.get("firstTimestamp"), now)
    if not event.get("firstTimestamp"):
        first = _since(event.get("eventTime"), now)
    last = _since(event.get("lastTimestamp"), now) if event.get("lastTimestamp") else first
    count = int(event.get("count") or 0)
    series = event.get("series")
    if series is not None:
        last = _since(series.get("lastObservedTime"), now)
        count = int(series.get("count") or 0)
    elif count == 0:
        count = 1
    involved = event.get("involvedObject") or {}
    kind = str(involved.get("kind") or "").lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    source = event.get("source") or {}
    component = source.get("component") or event.get("reportingComponent") or ""
    instance = source.get("host") or event.get("reportingInstance") or ""
    return [last, str(event.get("type") or ""), str(event.get("reason") or ""), target,
            str(involved.get("fieldPath") or ""), f"{component}, {instance}" if instance else component,
            str(event.get("message") or "").strip(), first, count, _name(event)]


_EVENT: Final = Printer((
    _Column("Last Seen", (_CORE + "Event", "lastTimestamp")),
    _Column("Type", (_CORE + "Event", "type")),
    _Column("Reason", (_CORE + "Event", "reason")),
    _Column("Object", (_CORE + "Event", "involvedObject")),
    _Column("Subobject", (_CORE + "ObjectReference", "fieldPath"), 1),
    _Column("Source", (_CORE + "Event", "source"), 1),
    _Column("Message", (_CORE + "Event", "message")),
    _Column("First Seen", (_CORE + "Event", "firstTimestamp"), 1),
    _Column("Count", (_CORE + "Event", "count"), 1),
    _Column("Name", (_META, "name"), 1, format="name"),
), _event_cells)


# --------------------------------------------------------------------------- the small ones

_NAMESPACE: Final = Printer(
    (_NAME_COLUMN, _Column("Status", "The status of the namespace"), _AGE),
    lambda ns, now: [_name(ns), str(_get(ns, "status", "phase") or ""), _age(ns, now)])

_CONFIGMAP: Final = Printer(
    (_NAME_COLUMN, _Column("Data", (_CORE + "ConfigMap", "data")), _AGE),
    lambda cm, now: [_name(cm), len(cm.get("data") or {}) + len(cm.get("binaryData") or {}), _age(cm, now)])

_SERVICE_ACCOUNT: Final = Printer(
    (_NAME_COLUMN, _Column("Secrets", (_CORE + "ServiceAccount", "secrets")), _AGE),
    lambda sa, now: [_name(sa), len(sa.get("secrets") or []), _age(sa, now)])


def _endpoint_slice_cells(eps: dict[str, Any], now: SimTime) -> list[Any]:
    ports: list[str] = []
    more, count = False, 0
    for port in eps.get("ports") or []:
        if len(ports) < 3:
            number = port.get("port")
            ports.append(str(number) if number is not None else
                         str(port["name"]) if port.get("name") is not None else "*")
        else:
            more = True
        count += 1
    addresses: list[str] = []
    more_addresses, address_count = False, 0
    for endpoint in eps.get("endpoints") or []:
        for address in endpoint.get("addresses") or []:
            if len(addresses) < 3:
                addresses.append(str(address))
            else:
                more_addresses = True
            address_count += 1
    return [_name(eps), str(eps.get("addressType") or ""), _list_with_more(ports, more, count, 3),
            _list_with_more(addresses, more_addresses, address_count, 3), _age(eps, now)]


_ENDPOINT_SLICE: Final = Printer((
    _NAME_COLUMN,
    _Column("AddressType", ("io.k8s.api.discovery.v1.EndpointSlice", "addressType")),
    _Column("Ports", ("io.k8s.api.discovery.v1.EndpointSlice", "ports")),
    _Column("Endpoints", ("io.k8s.api.discovery.v1.EndpointSlice", "endpoints")),
    _AGE,
), _endpoint_slice_cells)

_ACCESS_MODES: Final = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                        ("ReadWriteOncePod", "RWOP"))


def _pvc_cells(pvc: dict[str, Any], now: SimTime) -> list[Any]:
    spec, status = pvc.get("spec") or {}, pvc.get("status") or {}
    phase = "Terminating" if _get(pvc, "metadata", "deletionTimestamp") else str(status.get("phase") or "")
    capacity = access = ""
    if spec.get("volumeName"):
        modes = status.get("accessModes") or []
        access = ",".join(short for mode, short in _ACCESS_MODES if mode in modes)
        capacity = str((status.get("capacity") or {}).get("storage", "0"))
    annotations = _get(pvc, "metadata", "annotations") or {}
    storage_class = annotations.get("volume.beta.kubernetes.io/storage-class", spec.get("storageClassName") or "")
    return [_name(pvc), phase, str(spec.get("volumeName") or ""), capacity, access, storage_class,
            spec.get("volumeAttributesClassName") or "<unset>", _age(pvc, now), spec.get("volumeMode") or "<unset>"]


_PVC: Final = Printer((
    _NAME_COLUMN,
    _Column("Status", (_CORE + "PersistentVolumeClaimStatus", "phase")),
    _Column("Volume", (_CORE + "PersistentVolumeClaimSpec", "volumeName")),
    _Column("Capacity", (_CORE + "PersistentVolumeClaimStatus", "capacity")),
    _Column("Access Modes", (_CORE + "PersistentVolumeClaimStatus", "accessModes")),
    _Column("StorageClass", "StorageClass of the pvc"),
    _Column("VolumeAttributesClass", "VolumeAttributesClass of the pvc"),
    _AGE,
    _Column("VolumeMode", (_CORE + "PersistentVolumeClaimSpec", "volumeMode"), 1),
), _pvc_cells)

_SECRET: Final = Printer(
    (_NAME_COLUMN, _Column("Type", (_CORE + "Secret", "type")), _Column("Data", (_CORE + "Secret", "data")), _AGE),
    lambda s, now: [_name(s), str(s.get("type") or ""), len(s.get("data") or {}), _age(s, now)])

_CREATED_AT: Final = _Column("Created At", (_META, "creationTimestamp"), type="date")

#: Roles and ClusterRoles (``printRole``): the creation time as RFC 3339.
_ROLE: Final = Printer(
    (_NAME_COLUMN, _CREATED_AT),
    lambda r, now: [_name(r), _get(r, "metadata", "creationTimestamp") or "0001-01-01T00:00:00Z"])


def _binding_cells(binding: dict[str, Any], now: SimTime) -> list[Any]:
    """``printRoleBinding`` (wide): ``Kind/name`` of the role, then the subjects by kind
    (``rbac.SubjectsStrings``; service accounts as ``namespace/name``)."""
    ref = binding.get("roleRef") or {}
    users: list[str] = []
    groups: list[str] = []
    accounts: list[str] = []
    for subject in binding.get("subjects") or []:
        kind, name = subject.get("kind"), str(subject.get("name") or "")
        if kind == "ServiceAccount":
            accounts.append(f"{subject.get('namespace') or ''}/{name}")
        elif kind == "User":
            users.append(name)
        elif kind == "Group":
            groups.append(name)
    return [_name(binding), f"{ref.get('kind') or ''}/{ref.get('name') or ''}", _age(binding, now),
            ", ".join(users), ", ".join(groups), ", ".join(accounts)]


#: ``rbacv1beta1.<kind>{}.SwaggerDoc()["roleRef"]``, which the printers use.
_ROLE_REF_DOC: Final = {
    "RoleBinding": "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. "
                   "If the RoleRef cannot be resolved, the Authorizer must return an error.",
    "ClusterRoleBinding": "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot "
                          "be resolved, the Authorizer must return an error.",
}


def _binding_printer(kind: str) -> Printer:
    return Printer((
        _NAME_COLUMN,
        _Column("Role", _ROLE_REF_DOC[kind]),
        _AGE,
        _Column("Users", f"Users in the {kind[0].lower() + kind[1:]}", 1),
        _Column("Groups", f"Groups in the {kind[0].lower() + kind[1:]}", 1),
        _Column("ServiceAccounts", f"ServiceAccounts in the {kind[0].lower() + kind[1:]}", 1),
    ), _binding_cells)


_PRIORITY_CLASS: Final = Printer((
    _NAME_COLUMN,
    _Column("Value", ("io.k8s.api.scheduling.v1.PriorityClass", "value"), type="integer"),
    _Column("Global-Default", ("io.k8s.api.scheduling.v1.PriorityClass", "globalDefault"), type="boolean"),
    _AGE,
    _Column("PreemptionPolicy", ("io.k8s.api.scheduling.v1.PriorityClass", "preemptionPolicy")),
), lambda pc, now: [_name(pc), pc.get("value", 0), bool(pc.get("globalDefault")), _age(pc, now),
                    str(pc.get("preemptionPolicy") or "")])

def _param_ref(ref: Mapping[str, Any] | None) -> str:
    if not ref:
        return "<unset>"
    name = str(ref.get("name") or "") or ("*" if ref.get("selector") is not None else "")
    return f"{ref['namespace']}/{name}" if ref.get("namespace") else name


_VALIDATING_ADMISSION_POLICY: Final = Printer((
    _NAME_COLUMN,
    _Column("Validations", "Validations indicates the number of validation rules defined in this configuration",
            type="integer"),
    _Column("ParamKind", "ParamKind specifies the kind of resources used to parameterize this policy"),
    _AGE,
), lambda p, now: [_name(p), len(_get(p, "spec", "validations") or []),
                   (f"{_get(p, 'spec', 'paramKind', 'apiVersion') or ''}/{_get(p, 'spec', 'paramKind', 'kind') or ''}"
                    if _get(p, "spec", "paramKind") else "<unset>"), _age(p, now)])

_VALIDATING_ADMISSION_POLICY_BINDING: Final = Printer((
    _NAME_COLUMN,
    _Column("PolicyName", "PolicyName indicates the policy definition which the policy binding binded to"),
    _Column("ParamRef", "ParamRef indicates the param resource which sets the configration param"),
    _AGE,
), lambda b, now: [_name(b), str(_get(b, "spec", "policyName") or ""), _param_ref(_get(b, "spec", "paramRef")),
                   _age(b, now)])

_WEBHOOK_CONFIGURATION: Final = Printer((
    _NAME_COLUMN,
    _Column("Webhooks", "Webhooks indicates the number of webhooks defined in this configuration",
            type="integer"),
    _AGE,
), lambda w, now: [_name(w), len(w.get("webhooks") or []), _age(w, now)])

#: ``rest.NewDefaultTableConvertor``: built-in kinds without a printer (CRDs).
_DEFAULT: Final = Printer(
    (_NAME_COLUMN, _Column("Created At", (_META, "creationTimestamp"), type="date")),
    lambda obj, now: [_name(obj), _get(obj, "metadata", "creationTimestamp") or "0001-01-01T00:00:00Z"])

_PRINTERS: Final[dict[tuple[str, str], Printer]] = {
    ("", "Pod"): _POD, ("batch", "Job"): _JOB, ("", "Service"): _SERVICE, ("", "Node"): _NODE,
    ("", "Event"): _EVENT, ("", "Namespace"): _NAMESPACE, ("", "ConfigMap"): _CONFIGMAP,
    ("", "ServiceAccount"): _SERVICE_ACCOUNT, ("discovery.k8s.io", "EndpointSlice"): _ENDPOINT_SLICE,
    ("", "PersistentVolumeClaim"): _PVC, ("", "Secret"): _SECRET,
    ("rbac.authorization.k8s.io", "Role"): _ROLE, ("rbac.authorization.k8s.io", "ClusterRole"): _ROLE,
    ("rbac.authorization.k8s.io", "RoleBinding"): _binding_printer("RoleBinding"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): _binding_printer("ClusterRoleBinding"),
    ("scheduling.k8s.io", "PriorityClass"): _PRIORITY_CLASS,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): _VALIDATING_ADMISSION_POLICY,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): _VALIDATING_ADMISSION_POLICY_BINDING,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): _WEBHOOK_CONFIGURATION,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): _WEBHOOK_CONFIGURATION,
}


# --------------------------------------------------------------------------- custom resources

def _go_text(value: Any) -> str:
    """What client-go's ``JSONPath.PrintResults`` prints for one value: objects and lists as compact
    JSON, strings bare, other scalars as Go's ``fmt`` prints them."""
    if isinstance(value, dict | list):
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    if value is None:
        return "<nil>"
    return str(value)


def _cell(column_type: str, value: Any, now: SimTime) -> Any:
    """``cellForJSONValue`` (and the ``string`` branch of the CRD table convertor)."""
    if value is None:
        return None
    if column_type == "string":
        return _go_text(value)
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if column_type == "integer":
        return int(value) if numeric else None
    if column_type == "number":
        return float(value) if numeric else None
    if column_type == "boolean":
        return value if isinstance(value, bool) else None
    if column_type == "date" and isinstance(value, str):
        t = _parse(value)
        return "<invalid>" if t is None else human_duration(now - t)
    return None


def _custom_printer(crd: Mapping[str, Any], version: str) -> Printer:
    """The CRD table convertor: ``Name`` then the version's ``additionalPrinterColumns``."""
    served = next((v for v in _get(crd, "spec", "versions") or [] if v.get("name") == version), {})
    specs = served.get("additionalPrinterColumns") or [
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp",
         "description": builtin_schemas.description(_META, "creationTimestamp")}]
    columns = [_NAME_COLUMN]
    paths: list[tuple[str, JsonPath]] = []
    for spec in specs:
        path = str(spec.get("jsonPath") or "")
        columns.append(_Column(str(spec.get("name") or ""),
                               spec.get("description") or f"Custom resource definition column (in JSONPath "
                                                          f"format): {path}",
                               int(spec.get("priority") or 0), str(spec.get("type") or ""),
                               str(spec.get("format") or "")))
        paths.append((str(spec.get("type") or ""), compile_path(path)))

    def cells(obj: dict[str, Any], now: SimTime) -> list[Any]:
        return [_name(obj), *(_cell(t, p.first(obj), now) for t, p in paths)]

    return Printer(tuple(columns), cells)


_CUSTOM: dict[tuple[str, str, str], Printer] = {}


def printer_for(rt: ResourceType, crd: Mapping[str, Any] | None = None) -> Printer:
    """The printer of a resource; custom resources need the CRD that serves them."""
    if not rt.custom:
        return _PRINTERS.get((rt.group, rt.kind), _DEFAULT)
    if crd is None:
        raise UsageError(f"printing {rt.key} needs its CustomResourceDefinition")
    meta = crd.get("metadata") or {}
    key = (str(meta.get("uid") or meta.get("name")), str(meta.get("resourceVersion") or ""), rt.version)
    printer = _CUSTOM.get(key)
    if printer is None:
        if len(_CUSTOM) >= 256:
            _CUSTOM.clear()
        printer = _CUSTOM[key] = _custom_printer(crd, rt.version)
    return printer


# --------------------------------------------------------------------------- the Table

def table_version(accept: str | None) -> str | None:
    """``meta.k8s.io/v1`` or ``meta.k8s.io/v1beta1`` when ``accept`` asks for a Table first
    (kubectl get: ``application/json;as=Table;v=v1;g=meta.k8s.io,...``), else None."""
    version = negotiate_as(accept, group="meta.k8s.io", kind="Table", versions=TABLE_VERSIONS)
    return None if version is None else f"meta.k8s.io/{version}"


def table(rt: ResourceType, objects: Iterable[dict[str, Any]], *, now: SimTime,
          crd: Mapping[str, Any] | None = None, include_object: str = "Metadata", headers: bool = True,
          list_metadata: Mapping[str, Any] | None = None, api_version: str = "meta.k8s.io/v1") -> dict[str, Any]:
    """The ``Table`` of ``objects`` (wire form, with ``kind`` / ``apiVersion``).

    ``list_metadata`` is the list's ``metadata`` (``resourceVersion``, ``continue``,
    ``remainingItemCount``); without it a one-object table carries that object's resourceVersion.
    ``headers=False`` omits the column definitions, as the server does after the first event of a
    watch. ``include_object`` is ``Metadata`` (rows carry a ``PartialObjectMetadata``), ``Object``
    or ``None``; anything else is a 400 ``BadRequest``, as on a real server.
    """
    if include_object == "":
        include_object = "Metadata"
    if include_object not in INCLUDE_OBJECT:
        raise BadRequest(str(FieldError.not_supported("includeObject", include_object, list(INCLUDE_OBJECT))))
    printer = printer_for(rt, crd)
    rows = []
    items = list(objects)
    for obj in items:
        row: dict[str, Any] = {"cells": printer.cells(obj, now)}
        conditions = printer.conditions(obj) if printer.conditions is not None else []
        if conditions:
            row["conditions"] = [dict(c) for c in conditions]
        if include_object == "Object":
            row["object"] = obj
        elif include_object == "Metadata":
            row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": api_version,
                             "metadata": obj.get("metadata") or {}}
        rows.append(row)
    if list_metadata is not None:
        metadata = dict(list_metadata)
    elif len(items) == 1 and _get(items[0], "metadata", "resourceVersion"):
        metadata = {"resourceVersion": items[0]["metadata"]["resourceVersion"]}
    else:
        metadata = {}
    return {"kind": "Table", "apiVersion": api_version, "metadata": metadata,
            "columnDefinitions": printer.column_definitions() if headers else None, "rows": rows}


def object_table(rt: ResourceType, obj: dict[str, Any], *, now: SimTime, crd: Mapping[str, Any] | None = None,
                 headers: bool = True, include_object: str = "Metadata",
                 api_version: str = "meta.k8s.io/v1") -> dict[str, Any]:
    """One object as a one-row ``Table`` (with the object's resourceVersion): the answer to a GET
    of one object, or the ``object`` of a watch event when the watch asked for tables. The server
    sends the column definitions with a watch's first event only: pass ``headers=False`` after it."""
    return table(rt, [obj], now=now, crd=crd, include_object=include_object, headers=headers,
                 api_version=api_version)
