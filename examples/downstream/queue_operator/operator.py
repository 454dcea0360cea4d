"""The queue-admission controller.

Wiring (``start``): two shared informers, JobSets (indexed by queue name) and ConfigMaps, feed
one work queue whose keys are queues, ``(operator namespace, queue name)``. Every reconcile of
a queue recomputes everything from the informer caches, so the operator holds no state that a
restart could lose except the order in which it first saw JobSets created in the same second.

One pass (``reconcile``):

1. read the quota ConfigMap; no ConfigMap, no admission;
2. the quota in use is the demand of every admitted JobSet of the queue that has not finished;
3. walk the suspended, not yet admitted JobSets in creation order and admit each one whose
   demand fits, stopping at the first that does not (StrictFIFO, as a Kueue ClusterQueue
   does by default). A JobSet that could never fit is skipped with a Warning Event.

Admitting is one update: ``spec.suspend: false``, the ``queue.example.com/admitted``
annotation and the queue's ``nodeSelector`` merged into every pod template (the JobSet webhook
allows that change because the old object is suspended). A Conflict is an ``ApiError``: the
controller runner requeues the queue with backoff and the next pass starts from fresh caches.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import yaml

from fakekube import Result, Runtime

__all__ = ["ADMITTED_ANNOTATION", "QUEUE_LABEL", "QueueOperator", "demand_of"]

QUEUE_LABEL = "queue.example.com/name"
ADMITTED_ANNOTATION = "queue.example.com/admitted"
JOBSETS = "jobsets.jobset.x-k8s.io"
BY_QUEUE = "queue.example.com/by-queue"
NAME = "queue-operator"

Key = tuple[str, str]


def _queue_of(jobset: dict[str, Any]) -> list[str]:
    queue = (jobset["metadata"].get("labels") or {}).get(QUEUE_LABEL)
    return [queue] if queue else []


def _is_admitted(jobset: dict[str, Any]) -> bool:
    return (jobset["metadata"].get("annotations") or {}).get(ADMITTED_ANNOTATION) == "true"


def _is_finished(jobset: dict[str, Any]) -> bool:
    return any(c.get("type") in ("Completed", "Failed") and c.get("status") == "True"
               for c in (jobset.get("status") or {}).get("conditions") or [])


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
        raise ValueError(f"{what} must be a non-negative integer, got {value!r}")
    return int(value)


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


class QueueOperator:
    """A fakekube component: ``cluster.add_component(QueueOperator(cluster.runtime))``."""

    name = NAME

    def __init__(self, runtime: Runtime, *, namespace: str = "default") -> None:
        self.rt = runtime
        self.namespace = namespace
        self.client = runtime.client(NAME)
        self.recorder = runtime.recorder(NAME)
        self.controller = runtime.controller(NAME, self.reconcile)
        self._seen: dict[str, int] = {}  # JobSet uid -> order of first sight
        self._counter = itertools.count()
        self._warned: set[str] = set()

    # ------------------------------------------------------------------ wiring
    def start(self) -> None:
        self.jobsets = self.rt.informer(JOBSETS)
        self.configmaps = self.rt.informer("configmaps")
        self.jobsets.add_index(BY_QUEUE, _queue_of)
        self.jobsets.add_handler(self._on_jobset)
        self.configmaps.add_handler(self._on_configmap)
        self.controller.start()
        for jobset in self.jobsets.list():  # informers started earlier already delivered ADDED
            self._on_jobset("ADDED", jobset, None)

    def stop(self) -> None:
        self.controller.stop()

    def _on_jobset(self, event: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        uid = obj["metadata"]["uid"]
        if event == "DELETED":
            self._seen.pop(uid, None)
            self._warned.discard(uid)
        elif uid not in self._seen:
            self._seen[uid] = next(self._counter)
        for queue in sorted(set(_queue_of(obj) + (_queue_of(old) if old else []))):
            self.controller.enqueue((self.namespace, queue))

    def _on_configmap(self, event: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        if obj["metadata"].get("namespace") == self.namespace:
            self.controller.enqueue((self.namespace, obj["metadata"]["name"]))

    # ------------------------------------------------------------------ one pass
    def reconcile(self, key: Key) -> Result | None:
        namespace, queue = key
        config = self.configmaps.get(queue, namespace)
        if config is None:
            return None
        quota, node_selector = self._parse(config)
        members = [js for js in self.jobsets.by_index(BY_QUEUE, queue)
                   if not js["metadata"].get("deletionTimestamp")]
        used: dict[str, int] = {}
        waiting = []
        for js in members:
            if _is_admitted(js):
                if not _is_finished(js):
                    _add(used, demand_of(js))
            elif (js.get("spec") or {}).get("suspend"):
                waiting.append(js)
        waiting.sort(key=lambda js: (js["metadata"]["creationTimestamp"], self._seen.get(js["metadata"]["uid"], 0)))
        for js in waiting:
            demand = demand_of(js)
            if not _fits(demand, quota, {}):
                self._warn_once(js, f"needs {_fmt(demand)}, more than queue {queue} ever has ({_fmt(quota)})")
                continue
            if not _fits(demand, quota, used):
                break  # StrictFIFO: the head of the queue waits for quota; nobody overtakes it
            self._admit(js, node_selector)
            _add(used, demand)
            self.rt.trace.add(f"{NAME} admitted {js['metadata']['namespace']}/{js['metadata']['name']} "
                              f"from queue {queue}: {_fmt(demand)}")
            self.recorder.event(js, "Normal", "Admitted",
                                f"Admitted by queue {queue}; quota in use {_fmt(used)} of {_fmt(quota)}")
        return None

    def _admit(self, jobset: dict[str, Any], node_selector: dict[str, str]) -> None:
        js = copy.deepcopy(jobset)  # informer objects are shared and frozen
        js["metadata"].setdefault("annotations", {})[ADMITTED_ANNOTATION] = "true"
        js["spec"]["suspend"] = False
        if node_selector:
            for rjob in js["spec"]["replicatedJobs"]:
                pod_spec = rjob["template"]["spec"]["template"].setdefault("spec", {})
                pod_spec["nodeSelector"] = {**(pod_spec.get("nodeSelector") or {}), **node_selector}
        self.client.update(js)

    def _parse(self, config: dict[str, Any]) -> tuple[dict[str, int], dict[str, str]]:
        data = config.get("data") or {}
        try:
            raw_quota = yaml.safe_load(data.get("quota") or "{}") or {}
            raw_selector = yaml.safe_load(data.get("nodeSelector") or "{}") or {}
            quota = {str(k): _int(v, f"quota of {k}") for k, v in sorted(raw_quota.items())}
            selector = {str(k): str(v) for k, v in sorted(raw_selector.items())}
        except (yaml.YAMLError, ValueError, AttributeError) as err:
            self.recorder.event(config, "Warning", "InvalidQuota", f"cannot parse queue config: {err}")
            return {}, {}
        return quota, selector

    def _warn_once(self, jobset: dict[str, Any], message: str) -> None:
        uid = jobset["metadata"]["uid"]
        if uid not in self._warned:
            self._warned.add(uid)
            self.recorder.event(jobset, "Warning", "Inadmissible", message)


def _add(total: dict[str, int], more: dict[str, int]) -> None:
    for resource, amount in more.items():
        total[resource] = total.get(resource, 0) + amount


def _fits(demand: dict[str, int], quota: dict[str, int], used: dict[str, int]) -> bool:
    """Resources the queue does not list are not limited by it."""
    return all(used.get(r, 0) + n <= quota[r] for r, n in demand.items() if r in quota)


def _fmt(amounts: dict[str, int]) -> str:
    return ", ".join(f"{r}={n}" for r, n in sorted(amounts.items())) or "nothing"

