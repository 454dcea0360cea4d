"""kubectl's printers of the built-in kinds (``pkg/printers/internalversion/printers.go``,
Kubernetes 1.32): the columns and cells of Pods (the READY / STATUS / RESTARTS logic of kubectl's
pod printer, with ``Init:``, ``CrashLoopBackOff``, ``Completed``, ``Terminating``,
``RESTARTS 3 (2m ago)``), Jobs, Services, Nodes, Namespaces, Events, ConfigMaps, EndpointSlices,
PersistentVolumeClaims, ServiceAccounts, Secrets, Roles, RoleBindings, ClusterRoles,
ClusterRoleBindings, PriorityClasses, ValidatingAdmissionPolicies (and bindings) and webhook
configurations; :data:`DEFAULT_PRINTER` for the other built-in kinds. The ``Table`` they fill:
:mod:`fakekube.http.tables`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from fakekube._core.clock import SimTime
from fakekube.http.printing import (
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    CORE,
    IMAGES_COLUMN,
    META,
    NAME_COLUMN,
    Column,
    Printer,
    get_path,
    human_duration,
    object_age,
    object_name,
    parse_timestamp,
    since,
)
from fakekube.machinery import selectors as sel

__all__ = ["BUILTIN_PRINTERS", "DEFAULT_PRINTER"]


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
    finished = parse_timestamp(get_path(status, "lastState", "terminated", "finishedAt"))
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
    return [object_name(pod), f"{ready}/{total}", reason, restarts_text, object_age(pod, now),
            (pod_ips[0].get("ip") if pod_ips else "") or "<none>", spec.get("nodeName") or "<none>",
            status.get("nominatedNodeName") or "<none>", readiness]


def _pod_conditions(pod: dict[str, Any]) -> list[dict[str, str]]:
    phase = get_path(pod, "status", "phase")
    return _POD_SUCCEEDED if phase == "Succeeded" else _POD_FAILED if phase == "Failed" else []


_POD: Final = Printer((
    NAME_COLUMN,
    Column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
    Column("Status", "The aggregate status of the containers in this pod."),
    Column("Restarts", "The number of times the containers in this pod have been restarted and when the last "
                        "container in this pod has restarted."),
    AGE_COLUMN,
    Column("IP", (CORE + "PodStatus", "podIP"), 1),
    Column("Node", (CORE + "PodSpec", "nodeName"), 1),
    Column("Nominated Node", (CORE + "PodStatus", "nominatedNodeName"), 1),
    Column("Readiness Gates", (CORE + "PodSpec", "readinessGates"), 1),
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
    start, end = parse_timestamp(status.get("startTime")), parse_timestamp(status.get("completionTime"))
    duration = "" if start is None else human_duration((now if end is None else end) - start)
    conditions = status.get("conditions")
    if _condition_true(conditions, "Complete"):
        state = "Complete"
    elif _condition_true(conditions, "Failed"):
        state = "Failed"
    elif get_path(job, "metadata", "deletionTimestamp"):
        state = "Terminating"
    elif _condition_true(conditions, "Suspended"):
        state = "Suspended"
    elif _condition_true(conditions, "FailureTarget"):
        state = "FailureTarget"
    else:
        state = "Running"
    return [object_name(job), state, completions, duration, object_age(job, now),
            *_container_cells(get_path(spec, "template", "spec", "containers")),
            _format_label_selector(spec.get("selector"))]


_JOB: Final = Printer((
    NAME_COLUMN,
    Column("Status", "Status of the job."),
    Column("Completions", ("io.k8s.api.batch.v1.JobStatus", "succeeded")),
    Column("Duration", "Time required to complete the job."),
    AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN,
    Column("Selector", ("io.k8s.api.batch.v1.JobSpec", "selector"), 1),
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
        ingress = get_path(svc, "status", "loadBalancer", "ingress") or []
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
    return [object_name(svc), str(spec.get("type") or ""), cluster_ips[0] if cluster_ips else "<none>",
            _external_ip(svc), ",".join(ports) or "<none>", object_age(svc, now), _format_labels(spec.get("selector"))]


_SERVICE: Final = Printer((
    NAME_COLUMN,
    Column("Type", (CORE + "ServiceSpec", "type")),
    Column("Cluster-IP", (CORE + "ServiceSpec", "clusterIP")),
    Column("External-IP", (CORE + "ServiceSpec", "externalIPs")),
    Column("Port(s)", (CORE + "ServiceSpec", "ports")),
    AGE_COLUMN,
    Column("Selector", (CORE + "ServiceSpec", "selector"), 1),
), _service_cells)


# --------------------------------------------------------------------------- nodes

def _node_address(node: Mapping[str, Any], kind: str) -> str:
    for address in get_path(node, "status", "addresses") or []:
        if address.get("type") == kind:
            return str(address.get("address") or "")
    return "<none>"


def _node_cells(node: dict[str, Any], now: SimTime) -> list[Any]:
    by_type = {c.get("type"): c for c in get_path(node, "status", "conditions") or []}  # the last one wins, as in Go
    ready = by_type.get("Ready")
    status = ["Unknown"] if ready is None else ["Ready" if ready.get("status") == "True" else "NotReady"]
    if get_path(node, "spec", "unschedulable"):
        status.append("SchedulingDisabled")
    roles: set[str] = set()
    for key, value in (get_path(node, "metadata", "labels") or {}).items():
        if key.startswith("node-role.kubernetes.io/") and key != "node-role.kubernetes.io/":
            roles.add(key.removeprefix("node-role.kubernetes.io/"))
        elif key == "kubernetes.io/role" and value:
            roles.add(value)
    info = get_path(node, "status", "nodeInfo") or {}
    return [object_name(node), ",".join(status), ",".join(sorted(roles)) or "<none>", object_age(node, now),
            str(info.get("kubeletVersion") or ""), _node_address(node, "InternalIP"),
            _node_address(node, "ExternalIP"), info.get("osImage") or "<unknown>",
            info.get("kernelVersion") or "<unknown>", info.get("containerRuntimeVersion") or "<unknown>"]


_NODE: Final = Printer((
    NAME_COLUMN,
    Column("Status", "The status of the node"),
    Column("Roles", "The roles of the node"),
    AGE_COLUMN,
    Column("Version", (CORE + "NodeSystemInfo", "kubeletVersion")),
    Column("Internal-IP", (CORE + "NodeStatus", "addresses"), 1),
    Column("External-IP", (CORE + "NodeStatus", "addresses"), 1),
    Column("OS-Image", (CORE + "NodeSystemInfo", "osImage"), 1),
    Column("Kernel-Version", (CORE + "NodeSystemInfo", "kernelVersion"), 1),
    Column("Container-Runtime", (CORE + "NodeSystemInfo", "containerRuntimeVersion"), 1),
), _node_cells)


# --------------------------------------------------------------------------- events

def _event_cells(event: dict[str, Any], now: SimTime) -> list[Any]:
    first = since(event.get("firstTimestamp"), now)
    if not event.get("firstTimestamp"):
        first = since(event.get("eventTime"), now)
    last = since(event.get("lastTimestamp"), now) if event.get("lastTimestamp") else first
    count = int(event.get("count") or 0)
    series = event.get("series")
    if series is not None:
        last = since(series.get("lastObservedTime"), now)
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
            str(event.get("message") or "").strip(), first, count, object_name(event)]


_EVENT: Final = Printer((
    Column("Last Seen", (CORE + "Event", "lastTimestamp")),
    Column("Type", (CORE + "Event", "type")),
    Column("Reason", (CORE + "Event", "reason")),
    Column("Object", (CORE + "Event", "involvedObject")),
    Column("Subobject", (CORE + "ObjectReference", "fieldPath"), 1),
    Column("Source", (CORE + "Event", "source"), 1),
    Column("Message", (CORE + "Event", "message")),
    Column("First Seen", (CORE + "Event", "firstTimestamp"), 1),
    Column("Count", (CORE + "Event", "count"), 1),
    Column("Name", (META, "name"), 1, format="name"),
), _event_cells)


# --------------------------------------------------------------------------- the small ones

_NAMESPACE: Final = Printer(
    (NAME_COLUMN, Column("Status", "The status of the namespace"), AGE_COLUMN),
    lambda ns, now: [object_name(ns), str(get_path(ns, "status", "phase") or ""), object_age(ns, now)])

_CONFIGMAP: Final = Printer(
    (NAME_COLUMN, Column("Data", (CORE + "ConfigMap", "data")), AGE_COLUMN),
    lambda cm, now: [object_name(cm), len(cm.get("data") or {}) + len(cm.get("binaryData") or {}), object_age(cm, now)])

_SERVICE_ACCOUNT: Final = Printer(
    (NAME_COLUMN, Column("Secrets", (CORE + "ServiceAccount", "secrets")), AGE_COLUMN),
    lambda sa, now: [object_name(sa), len(sa.get("secrets") or []), object_age(sa, now)])


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
    return [object_name(eps), str(eps.get("addressType") or ""), _list_with_more(ports, more, count, 3),
            _list_with_more(addresses, more_addresses, address_count, 3), object_age(eps, now)]


_ENDPOINT_SLICE: Final = Printer((
    NAME_COLUMN,
    Column("AddressType", ("io.k8s.api.discovery.v1.EndpointSlice", "addressType")),
    Column("Ports", ("io.k8s.api.discovery.v1.EndpointSlice", "ports")),
    Column("Endpoints", ("io.k8s.api.discovery.v1.EndpointSlice", "endpoints")),
    AGE_COLUMN,
), _endpoint_slice_cells)

_ACCESS_MODES: Final = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                        ("ReadWriteOncePod", "RWOP"))


def _pvc_cells(pvc: dict[str, Any], now: SimTime) -> list[Any]:
    spec, status = pvc.get("spec") or {}, pvc.get("status") or {}
    phase = "Terminating" if get_path(pvc, "metadata", "deletionTimestamp") else str(status.get("phase") or "")
    capacity = access = ""
    if spec.get("volumeName"):
        modes = status.get("accessModes") or []
        access = ",".join(short for mode, short in _ACCESS_MODES if mode in modes)
        capacity = str((status.get("capacity") or {}).get("storage", "0"))
    annotations = get_path(pvc, "metadata", "annotations") or {}
    storage_class = annotations.get("volume.beta.kubernetes.io/storage-class", spec.get("storageClassName") or "")
    return [object_name(pvc), phase, str(spec.get("volumeName") or ""), capacity, access, storage_class,
            spec.get("volumeAttributesClassName") or "<unset>", object_age(pvc, now), spec.get("volumeMode") or "<unset>"]


_PVC: Final = Printer((
    NAME_COLUMN,
    Column("Status", (CORE + "PersistentVolumeClaimStatus", "phase")),
    Column("Volume", (CORE + "PersistentVolumeClaimSpec", "volumeName")),
    Column("Capacity", (CORE + "PersistentVolumeClaimStatus", "capacity")),
    Column("Access Modes", (CORE + "PersistentVolumeClaimStatus", "accessModes")),
    Column("StorageClass", "StorageClass of the pvc"),
    Column("VolumeAttributesClass", "VolumeAttributesClass of the pvc"),
    AGE_COLUMN,
    Column("VolumeMode", (CORE + "PersistentVolumeClaimSpec", "volumeMode"), 1),
), _pvc_cells)

_SECRET: Final = Printer(
    (NAME_COLUMN, Column("Type", (CORE + "Secret", "type")), Column("Data", (CORE + "Secret", "data")), AGE_COLUMN),
    lambda s, now: [object_name(s), str(s.get("type") or ""), len(s.get("data") or {}), object_age(s, now)])

_CREATED_AT: Final = Column("Created At", (META, "creationTimestamp"), type="date")

#: Roles and ClusterRoles (``printRole``): the creation time as RFC 3339.
_ROLE: Final = Printer(
    (NAME_COLUMN, _CREATED_AT),
    lambda r, now: [object_name(r), get_path(r, "metadata", "creationTimestamp") or "0001-01-01T00:00:00Z"])


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
    return [object_name(binding), f"{ref.get('kind') or ''}/{ref.get('name') or ''}", object_age(binding, now),
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
        NAME_COLUMN,
        Column("Role", _ROLE_REF_DOC[kind]),
        AGE_COLUMN,
        Column("Users", f"Users in the {kind[0].lower() + kind[1:]}", 1),
        Column("Groups", f"Groups in the {kind[0].lower() + kind[1:]}", 1),
        Column("ServiceAccounts", f"ServiceAccounts in the {kind[0].lower() + kind[1:]}", 1),
    ), _binding_cells)


_PRIORITY_CLASS: Final = Printer((
    NAME_COLUMN,
    Column("Value", ("io.k8s.api.scheduling.v1.PriorityClass", "value"), type="integer"),
    Column("Global-Default", ("io.k8s.api.scheduling.v1.PriorityClass", "globalDefault"), type="boolean"),
    AGE_COLUMN,
    Column("PreemptionPolicy", ("io.k8s.api.scheduling.v1.PriorityClass", "preemptionPolicy")),
), lambda pc, now: [object_name(pc), pc.get("value", 0), bool(pc.get("globalDefault")), object_age(pc, now),
                    str(pc.get("preemptionPolicy") or "")])

def _param_ref(ref: Mapping[str, Any] | None) -> str:
    if not ref:
        return "<unset>"
    name = str(ref.get("name") or "") or ("*" if ref.get("selector") is not None else "")
    return f"{ref['namespace']}/{name}" if ref.get("namespace") else name


_VALIDATING_ADMISSION_POLICY: Final = Printer((
    NAME_COLUMN,
    Column("Validations", "Validations indicates the number of validation rules defined in this configuration",
            type="integer"),
    Column("ParamKind", "ParamKind specifies the kind of resources used to parameterize this policy"),
    AGE_COLUMN,
), lambda p, now: [object_name(p), len(get_path(p, "spec", "validations") or []),
                   (f"{get_path(p, 'spec', 'paramKind', 'apiVersion') or ''}/{get_path(p, 'spec', 'paramKind', 'kind') or ''}"
                    if get_path(p, "spec", "paramKind") else "<unset>"), object_age(p, now)])

_VALIDATING_ADMISSION_POLICY_BINDING: Final = Printer((
    NAME_COLUMN,
    Column("PolicyName", "PolicyName indicates the policy definition which the policy binding binded to"),
    Column("ParamRef", "ParamRef indicates the param resource which sets the configration param"),
    AGE_COLUMN,
), lambda b, now: [object_name(b), str(get_path(b, "spec", "policyName") or ""), _param_ref(get_path(b, "spec", "paramRef")),
                   object_age(b, now)])

_WEBHOOK_CONFIGURATION: Final = Printer((
    NAME_COLUMN,
    Column("Webhooks", "Webhooks indicates the number of webhooks defined in this configuration",
            type="integer"),
    AGE_COLUMN,
), lambda w, now: [object_name(w), len(w.get("webhooks") or []), object_age(w, now)])

#: ``rest.NewDefaultTableConvertor``: built-in kinds without a printer (CRDs).
DEFAULT_PRINTER: Final = Printer(
    (NAME_COLUMN, Column("Created At", (META, "creationTimestamp"), type="date")),
    lambda obj, now: [object_name(obj), get_path(obj, "metadata", "creationTimestamp") or "0001-01-01T00:00:00Z"])

BUILTIN_PRINTERS: Final[dict[tuple[str, str], Printer]] = {
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
