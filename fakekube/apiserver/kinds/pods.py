"""Pods: defaults, the create-time status, what may change on a live pod, graceful deletion,
and the ``binding`` and ``eviction`` subresources (``pkg/registry/core/pod``)."""

from __future__ import annotations

from typing import Any

from fakekube._core.clock import format_time
from fakekube._core.jsonutil import deep_copy
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.apiserver.strategy import Context, Strategy
from fakekube.errors import BadRequest, Conflict, FieldError
from fakekube.machinery import validation as v

__all__ = ["SCHEDULING_GATED_MESSAGE", "PodStrategy", "install", "set_condition"]

SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"
RESTART_POLICIES = ("Always", "OnFailure", "Never")
DEFAULT_TOLERATIONS: tuple[dict[str, Any], ...] = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
)
UPDATE_FORBIDDEN = (
    "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
    "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
)


def set_condition(status: dict[str, Any], condition: dict[str, Any], now: str) -> None:
    """Insert or replace a pod condition by type, keeping lastTransitionTime when status is unchanged.
    Edits ``status`` and its ``conditions`` list, never a condition in place."""
    conditions = status.setdefault("conditions", [])
    for i, existing in enumerate(conditions):
        if existing.get("type") == condition["type"]:
            same = existing.get("status") == condition.get("status")
            merged = {"lastProbeTime": None, **condition,
                      "lastTransitionTime": existing.get("lastTransitionTime") if same else now}
            conditions[i] = merged
            return
    conditions.append({"lastProbeTime": None, **condition, "lastTransitionTime": now})


def _default_container(c: dict[str, Any]) -> None:
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    if "imagePullPolicy" not in c:
        image = str(c.get("image", ""))
        tag = image.rsplit("/", 1)[-1]
        latest = ":" not in tag or tag.endswith(":latest")
        c["imagePullPolicy"] = "Always" if latest and "@" not in image else "IfNotPresent"
    c.setdefault("resources", {})
    for port in c.get("ports") or []:
        port.setdefault("protocol", "TCP")


PORT_PROTOCOLS = ("SCTP", "TCP", "UDP")


def port_number_errors(value: Any, path: str) -> list[FieldError]:
    """``validation.IsValidPortNum``."""
    if isinstance(value, int) and 1 <= value <= 65535:
        return []
    return [FieldError.invalid(path, value, "must be between 1 and 65535, inclusive")]


def _port_errors(ports: list[Any], path: str) -> list[FieldError]:
    """``validateContainerPorts``: a containerPort is required and a port number; a known protocol."""
    errors: list[FieldError] = []
    for j, port in enumerate(ports):
        if not isinstance(port, dict):
            continue
        where = f"{path}[{j}]"
        if not port.get("containerPort"):
            errors.append(FieldError.required(f"{where}.containerPort"))
        else:
            errors += port_number_errors(port["containerPort"], f"{where}.containerPort")
        if port.get("protocol") not in PORT_PROTOCOLS:
            errors.append(FieldError.not_supported(f"{where}.protocol", port.get("protocol"), PORT_PROTOCOLS))
    return errors


def default_pod_spec(spec: dict[str, Any]) -> None:
    """``SetDefaults_PodSpec`` and friends (also used for pod templates inside Jobs)."""
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        if isinstance(c, dict):
            _default_container(c)


def _tolerates_no_execute(tolerations: list[dict[str, Any]], key: str) -> bool:
    """Some toleration of ``key`` covers the ``NoExecute`` effect (an empty effect covers all)."""
    for t in tolerations:
        if t.get("key") == key and t.get("effect") in (None, "", "NoExecute"):
            return True
    return False


def _qos_class(spec: dict[str, Any]) -> str:
    containers = spec.get("containers") or []
    requests_any = limits_all = False
    guaranteed = bool(containers)
    for c in containers:
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        requests_any = requests_any or bool(req) or bool(lim)
        limits_all = bool(lim.get("cpu")) and bool(lim.get("memory"))
        if not limits_all or any(req.get(k, lim.get(k)) != lim.get(k) for k in ("cpu", "memory")):
            guaranteed = False
    if guaranteed:
        return "Guaranteed"
    return "Burstable" if requests_any else "BestEffort"


class PodStrategy(Strategy):
    return_deleted_object = True

    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.setdefault("spec", {})
        if isinstance(spec, dict):
            default_pod_spec(spec)
            spec.setdefault("enableServiceLinks", True)

    def prepare_for_create(self, obj: dict[str, Any], ctx: Context) -> None:
        spec = obj["spec"]
        tolerations = spec.setdefault("tolerations", [])
        for tol in DEFAULT_TOLERATIONS:  # DefaultTolerationSeconds admission
            if not _tolerates_no_execute(tolerations, tol["key"]):
                tolerations.append(dict(tol))
        status: dict[str, Any] = {"phase": "Pending", "qosClass": _qos_class(spec)}
        if spec.get("schedulingGates"):
            set_condition(status, {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
                                   "message": SCHEDULING_GATED_MESSAGE}, format_time(ctx.now))
        obj["status"] = status

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec")
        errors: list[FieldError] = []
        if not isinstance(spec, dict):
            return [FieldError.required("spec")]
        containers = spec.get("containers")
        if not containers:
            errors.append(FieldError.required("spec.containers"))
        seen: list[str] = []
        for i, c in enumerate(containers or []):
            name = c.get("name") if isinstance(c, dict) else None
            if not name:
                errors.append(FieldError.required(f"spec.containers[{i}].name"))
            elif name in seen:
                errors.append(FieldError.duplicate(f"spec.containers[{i}].name", name))
            else:
                seen.append(name)
                errors += [FieldError.invalid(f"spec.containers[{i}].name", name, m)
                           for m in v.is_dns1123_label(name)]
            if isinstance(c, dict) and not c.get("image"):
                errors.append(FieldError.required(f"spec.containers[{i}].image"))
            if isinstance(c, dict):
                errors += _port_errors(c.get("ports") or [], f"spec.containers[{i}].ports")
        if spec.get("restartPolicy") not in RESTART_POLICIES:
            errors.append(FieldError.not_supported("spec.restartPolicy", spec.get("restartPolicy"),
                                                   RESTART_POLICIES))
        for field_name in ("hostname", "subdomain"):
            if spec.get(field_name):
                errors += [FieldError.invalid(f"spec.{field_name}", spec[field_name], m)
                           for m in v.is_dns1123_label(spec[field_name])]
        if spec.get("nodeSelector"):
            errors += v.validate_labels(spec["nodeSelector"], "spec.nodeSelector")
        return errors

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any], ctx: Context) -> None:
        new["status"] = old.get("status", {})
        spec, old_spec = new.get("spec"), old.get("spec") or {}
        if isinstance(spec, dict):  # what the Priority admission plugin resolved on create stays
            for key in ("priority", "preemptionPolicy"):
                if key not in spec and key in old_spec:
                    spec[key] = old_spec[key]

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        old_spec, new_spec = old.get("spec") or {}, new.get("spec") or {}
        if new_spec != old_spec and _mutable_view(new_spec, old_spec) != _mutable_view(old_spec, old_spec):
            errors.append(FieldError.forbidden("spec", UPDATE_FORBIDDEN))
        old_gates = [g.get("name") for g in old_spec.get("schedulingGates") or []]
        new_gates = [g.get("name") for g in new_spec.get("schedulingGates") or []]
        if any(g not in old_gates for g in new_gates):
            errors.append(FieldError.forbidden("spec.schedulingGates", "only deletion is allowed, but found new "
                                               f"scheduling gate '{next(g for g in new_gates if g not in old_gates)}'"))
        return errors

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any], ctx: Context) -> None:
        new["spec"] = old["spec"]
        meta, old_meta = new["metadata"], old["metadata"]
        if "ownerReferences" in old_meta:
            meta["ownerReferences"] = old_meta["ownerReferences"]
        else:
            meta.pop("ownerReferences", None)
        status = new.setdefault("status", {})
        if "qosClass" in (old.get("status") or {}):
            status["qosClass"] = old["status"]["qosClass"]

    def grace_period(self, obj: dict[str, Any], requested: int | None) -> int:
        """``CheckGracefulDelete``: unscheduled or terminal pods go at once."""
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        if not spec.get("nodeName") or status.get("phase") in ("Succeeded", "Failed"):
            return 0
        grace = requested if requested is not None else spec.get("terminationGracePeriodSeconds", 30)
        return max(0, int(grace)) if grace is not None and grace >= 0 else 1

def _mutable_view(spec: dict[str, Any], old_spec: dict[str, Any]) -> dict[str, Any]:
    """The pod spec with the fields a live pod may change blanked out."""
    view = deep_copy(spec)
    for key in ("containers", "initContainers"):
        for c in view.get(key) or []:
            c.pop("image", None)
    view.pop("activeDeadlineSeconds", None)
    old_tolerations = old_spec.get("tolerations") or []
    tolerations = view.pop("tolerations", None) or []
    if tolerations[: len(old_tolerations)] != old_tolerations:
        view["tolerations"] = tolerations
    view.pop("schedulingGates", None)
    if old_spec.get("schedulingGates"):
        view.pop("nodeSelector", None)
        view.pop("affinity", None)
    return view


def _binding(server: ApiServer, rt: ResourceType, ns: str, name: str, body: dict[str, Any]) -> dict[str, Any]:
    """``POST pods/<name>/binding``: set spec.nodeName and PodScheduled=True atomically."""
    target = (body or {}).get("target") or {}
    node = target.get("name")
    if not node:
        raise BadRequest("Binding target must have a node name")
    pod = server.get(rt, name, ns, copy=False)
    current = (pod.get("spec") or {}).get("nodeName")
    if current:
        raise Conflict(f'Operation cannot be fulfilled on pods/binding "{name}": pod {name} is already '
                       f'assigned to node "{current}"', details={"name": name, "kind": "pods/binding"})
    # Stored objects are never mutated, so the new version may share untouched subtrees with the old:
    # set_condition edits only the status map and its conditions list (it replaces conditions).
    status = dict(pod.get("status") or {})
    if "conditions" in status:
        status["conditions"] = list(status["conditions"])
    new = {**pod, "metadata": dict(pod["metadata"]), "spec": {**pod["spec"], "nodeName": node}, "status": status}
    set_condition(new["status"], {"type": "PodScheduled", "status": "True"}, format_time(server.now))
    server._persist(rt, new, "bind", "MODIFIED", "binding")
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def _eviction(server: ApiServer, rt: ResourceType, ns: str, name: str, body: dict[str, Any]) -> dict[str, Any]:
    """``POST pods/<name>/eviction``: DisruptionTarget=True/EvictionByEvictionAPI, then a graceful delete."""
    pod = server.get(rt, name, ns, copy=False)
    options = (body or {}).get("deleteOptions") or {}
    phase = (pod.get("status") or {}).get("phase")
    if phase not in ("Succeeded", "Failed") and (pod.get("spec") or {}).get("nodeName"):
        new = deep_copy(pod)
        set_condition(new.setdefault("status", {}), {"type": "DisruptionTarget", "status": "True",
                                                      "reason": "EvictionByEvictionAPI",
                                                      "message": "Eviction API: evicting"},
                      format_time(server.now))
        server._persist(rt, new, "evict", "MODIFIED", "status")
    server.delete(rt, name, namespace=ns, grace_period_seconds=options.get("gracePeriodSeconds"),
                  preconditions=options.get("preconditions"))
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def install(server: ApiServer) -> None:
    server.registry.add(ResourceType("", "v1", "Pod", "pods", namespaced=True, strategy=PodStrategy(),
                                     short_names=("po",), subresources=frozenset({"status", "binding", "eviction"}),
                                     categories=("all",)))
    server.subresource_handlers[("pods", "binding")] = _binding
    server.subresource_handlers[("pods", "eviction")] = _eviction
