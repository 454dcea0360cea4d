"""The queue-admission operator: kopf for the event plumbing, the ``kubernetes`` client for reads and
writes. It runs unchanged against any cluster (``kopf run -A --standalone operator.py``); the tests
run it against a served fake cluster.

A queue is a ConfigMap named ``<queue>`` whose ``quota`` key is a YAML mapping of resource to
integer (``pods: 8``, ``google.com/tpu: 16``) and whose optional ``nodeSelector`` key lists labels
to inject into the pod templates (Kueue does the same from a ResourceFlavor). A JobSet joins a
queue with the label ``queue.example.com/name: <queue>`` and ``spec.suspend: true``.

One pass over a queue (``reconcile_queue``), run on every event of a member JobSet or of the
queue's ConfigMap:

1. read the quota ConfigMap; no ConfigMap, no admission;
2. the quota in use is the demand of every admitted JobSet of the queue that has not finished;
3. walk the suspended, not yet admitted JobSets in creation order (then by name) and admit each
   one whose demand fits, stopping at the first that does not (StrictFIFO, as a Kueue
   ClusterQueue does by default). A JobSet that could never fit is skipped with a Warning Event.

Admitting is one merge patch, with the JobSet's resourceVersion as a precondition:
``spec.suspend: false``, the ``queue.example.com/admitted`` annotation and the queue's
``nodeSelector`` merged into every pod template (the JobSet webhook allows that change because
the old object is suspended). A Conflict means another pass is on its way (the write that caused
it is an event too), so the pass stops there.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

import kopf
import kubernetes
import yaml

__all__ = ["ADMITTED_ANNOTATION", "QUEUE_LABEL", "demand_of", "reconcile_queue", "register"]

QUEUE_LABEL = "queue.example.com/name"
ADMITTED_ANNOTATION = "queue.example.com/admitted"
GROUP, VERSION, PLURAL = "jobset.x-k8s.io", "v1alpha2", "jobsets"
COMPONENT = "queue-operator"

_locks: dict[tuple[str, str], threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock(namespace: str, queue: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault((namespace, queue), threading.Lock())


# ---------------------------------------------------------------------- pure rules
def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
        raise ValueError(f"{what} must be a non-negative integer, got {value!r}")
    return int(value)


def _is_admitted(jobset: dict[str, Any]) -> bool:
    return (jobset["metadata"].get("annotations") or {}).get(ADMITTED_ANNOTATION) == "true"


def _is_finished(jobset: dict[str, Any]) -> bool:
    return any(c.get("type") in ("Completed", "Failed") and c.get("status") == "True"
               for c in (jobset.get("status") or {}).get("conditions") or [])


def demand_of(jobset: dict[str, Any]) -> dict[str, int]:
    """Pods and integer resources the JobSet needs at once: replicas * parallelism pods, each
    requesting the sum of its containers' requests (or limits, as for extended resources)."""
    total: dict[str, int] = {}
    for rjob in (jobset.get("spec") or {}).get("replicatedJobs") or []:
        job_spec = (rjob.get("template") or {}).get("spec") or {}
        parallelism = job_spec.get("parallelism", 1)
        completions = job_spec.get("completions")
        per_job = min(parallelism, completions) if completions is not None else parallelism
        pods = rjob.get("replicas", 1) * per_job
        total["pods"] = total.get("pods", 0) + pods
        pod_spec = (job_spec.get("template") or {}).get("spec") or {}
        for container in pod_spec.get("containers") or []:
            resources = container.get("resources") or {}
            wanted = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
            for resource, quantity in sorted(wanted.items()):
                try:
                    amount = _int(quantity, resource)
                except ValueError:
                    continue  # cpu "500m", memory "1Gi": not something this queue counts
                total[resource] = total.get(resource, 0) + pods * amount
    return total


def _add(total: dict[str, int], more: dict[str, int]) -> None:
    for resource, amount in more.items():
        total[resource] = total.get(resource, 0) + amount


def _fits(demand: dict[str, int], quota: dict[str, int], used: dict[str, int]) -> bool:
    """Resources the queue does not list are not limited by it."""
    return all(used.get(r, 0) + n <= quota[r] for r, n in demand.items() if r in quota)


def _fmt(amounts: dict[str, int]) -> str:
    return ", ".join(f"{r}={n}" for r, n in sorted(amounts.items())) or "nothing"


def parse_queue(data: dict[str, str] | None) -> tuple[dict[str, int], dict[str, str]]:
    """The quota and node selector of a queue ConfigMap's data; ``ValueError`` when malformed."""
    data = data or {}
    try:
        raw_quota = yaml.safe_load(data.get("quota") or "{}") or {}
        raw_selector = yaml.safe_load(data.get("nodeSelector") or "{}") or {}
        quota = {str(k): _int(v, f"quota of {k}") for k, v in sorted(raw_quota.items())}
        selector = {str(k): str(v) for k, v in sorted(raw_selector.items())}
    except (yaml.YAMLError, AttributeError) as err:
        raise ValueError(f"cannot parse queue config: {err}") from None
    return quota, selector


def admission_patch(jobset: dict[str, Any], node_selector: dict[str, str]) -> dict[str, Any]:
    """The merge patch that admits ``jobset`` (lists are replaced whole by a merge patch)."""
    replicated = copy.deepcopy(jobset["spec"]["replicatedJobs"])
    if node_selector:
        for rjob in replicated:
            pod_spec = rjob["template"]["spec"]["template"].setdefault("spec", {})
            pod_spec["nodeSelector"] = {**(pod_spec.get("nodeSelector") or {}), **node_selector}
    patch: dict[str, Any] = {
        "metadata": {"resourceVersion": jobset["metadata"]["resourceVersion"],
                     "annotations": {ADMITTED_ANNOTATION: "true"}},
        "spec": {"suspend": False},
    }
    if node_selector:
        patch["spec"]["replicatedJobs"] = replicated
    return patch


# ---------------------------------------------------------------------- one pass
def reconcile_queue(namespace: str, queue: str, logger: Any = None) -> list[str]:
    """Admit what fits; returns the names admitted by this pass."""
    core = kubernetes.client.CoreV1Api()
    custom = kubernetes.client.CustomObjectsApi()
    with _lock(namespace, queue):
        try:
            config = core.read_namespaced_config_map(queue, namespace).to_dict()
        except kubernetes.client.ApiException as err:
            if err.status == 404:
                return []
            raise
        try:
            quota, node_selector = parse_queue(config.get("data"))
        except ValueError as err:
            _event(core, namespace, "ConfigMap", "v1", config["metadata"], "Warning", "InvalidQuota", str(err))
            return []
        members = custom.list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL,
                                                       label_selector=f"{QUEUE_LABEL}={queue}")["items"]
        used: dict[str, int] = {}
        waiting = []
        for js in members:
            if js["metadata"].get("deletionTimestamp"):
                continue
            if _is_admitted(js):
                if not _is_finished(js):
                    _add(used, demand_of(js))
            elif (js.get("spec") or {}).get("suspend"):
                waiting.append(js)
        waiting.sort(key=lambda js: (js["metadata"]["creationTimestamp"], js["metadata"]["name"]))
        admitted = []
        for js in waiting:
            demand = demand_of(js)
            name = js["metadata"]["name"]
            if not _fits(demand, quota, {}):
                if not _warned(core, namespace, js):
                    _event(core, namespace, "JobSet", f"{GROUP}/{VERSION}", js["metadata"], "Warning",
                           "Inadmissible", f"needs {_fmt(demand)}, more than queue {queue} ever has ({_fmt(quota)})")
                continue
            if not _fits(demand, quota, used):
                break  # StrictFIFO: the head of the queue waits for quota; nobody overtakes it
            try:
                custom.patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name,
                                                      admission_patch(js, node_selector))
            except kubernetes.client.ApiException as err:
                if err.status == 409:
                    break  # changed under us: its event brings another pass
                raise
            _add(used, demand)
            admitted.append(name)
            _event(core, namespace, "JobSet", f"{GROUP}/{VERSION}", js["metadata"], "Normal", "Admitted",
                   f"Admitted by queue {queue}; quota in use {_fmt(used)} of {_fmt(quota)}")
            if logger is not None:
                logger.info(f"admitted {namespace}/{name} from queue {queue}: {_fmt(demand)}")
        return admitted


def _warned(core: Any, namespace: str, jobset: dict[str, Any]) -> bool:
    events = core.list_namespaced_event(
        namespace, field_selector=f"involvedObject.uid={jobset['metadata']['uid']},reason=Inadmissible")
    return bool(events.items)


def _event(core: Any, namespace: str, kind: str, api_version: str, meta: dict[str, Any], type_: str,
           reason: str, message: str) -> None:
    """A core/v1 Event about an object, as ``kubectl describe`` shows them."""
    core.create_namespaced_event(namespace, {
        "metadata": {"generateName": f"{meta['name']}-"},  # "name." is invalid: only a trailing "-" is allowed
        "involvedObject": {"kind": kind, "apiVersion": api_version, "namespace": namespace,
                           "name": meta["name"], "uid": meta["uid"],
                           "resourceVersion": meta.get("resourceVersion") or meta.get("resource_version")},
        "type": type_, "reason": reason, "message": message, "source": {"component": COMPONENT},
        "reportingComponent": COMPONENT, "count": 1,
    })


# ---------------------------------------------------------------------- kopf wiring
def register(registry: kopf.OperatorRegistry | None = None) -> kopf.OperatorRegistry:
    """Put the operator's handlers in ``registry`` (kopf's default one when None)."""
    registry = registry if registry is not None else kopf.get_default_registry()

    @kopf.on.login(registry=registry)
    def login(**kwargs: Any) -> Any:
        kubernetes.config.load_kube_config()  # $KUBECONFIG, as every client reads it
        return kopf.login_with_kubeconfig(**kwargs)

    @kopf.on.event(GROUP, VERSION, PLURAL, labels={QUEUE_LABEL: kopf.PRESENT}, registry=registry)
    def jobset_event(body: Any, namespace: str, logger: Any, **_: Any) -> None:
        reconcile_queue(namespace, body["metadata"]["labels"][QUEUE_LABEL], logger)

    @kopf.on.event("", "v1", "configmaps", when=lambda body, **_: "quota" in (body.get("data") or {}),
                   registry=registry)
    def queue_event(body: Any, namespace: str, logger: Any, **_: Any) -> None:
        reconcile_queue(namespace, body["metadata"]["name"], logger)

    return registry
