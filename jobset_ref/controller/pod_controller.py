"""The pod reconciler: enforcement of exclusive placement (``alpha.jobset.sigs.k8s.io/exclusive-topology``).

Mirrors upstream ``PodReconciler`` (``Reconcile``, ``SetupWithManager`` event filter,
``SetupPodIndexes``/``IndexPodJob``/``IndexPodName``, ``listPodsForJob``,
``validatePodPlacements``, ``leaderPodTopology``, ``followerPodTopology``,
``deleteFollowerPods``) in ``pkg/controllers/pod_controller.go``; spec §10.

Only scheduled, live leader pods (completion index ``"0"``) of exclusive-placement Jobs are
reconciled. If any follower's ``nodeSelector[<topologyKey>]`` differs from the leader node's
label, every follower gets ``DisruptionTarget=True`` (``ExclusivePlacementViolation``) and is
deleted; the Job controller recreates them and the pod webhook pins them to the leader's
domain. No Job or JobSet is failed and no Event is emitted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fakekube import ApiError, Result, Runtime
from fakekube.clock import format_time
from fakekube.runtime import Informer
from jobset_ref.api import constants as c
from jobset_ref.api.pod_webhook import is_leader_pod, pod_name_without_suffix
from jobset_ref.controller.apply import Applier
from jobset_ref.controller.plan import ReconcileError

__all__ = ["POD_CONTROLLER_NAME", "POD_JOB_KEY_INDEX", "PodReconciler", "add_pod_name_index", "index_pod_job",
           "index_pod_name"]

POD_CONTROLLER_NAME = "jobset-pod-controller"
POD_JOB_KEY_INDEX = "podJobKey"

Pod = Mapping[str, Any]
Key = tuple[str, str]


def index_pod_job(pod: Pod) -> list[str]:
    """``IndexPodJob``: the ``job-key`` label of exclusive-placement pods."""
    meta = pod["metadata"]
    if c.EXCLUSIVE_KEY not in (meta.get("annotations") or {}):
        return []
    job_key = (meta.get("labels") or {}).get(c.JOB_KEY)
    return [] if job_key is None else [job_key]


def index_pod_name(pod: Pod) -> list[str]:
    """``IndexPodName``: the pod name without its random suffix (exclusive pods, >= 5 segments)."""
    name = pod_name_without_suffix(pod)
    return [] if name is None else [name]


def add_pod_name_index(pods: Informer) -> None:
    """The ``podName`` index of ``SetupPodIndexes`` (the pod webhooks read it as well)."""
    pods.add_index(c.POD_NAME_KEY, index_pod_name, uses=("metadata.annotations", "metadata.name"))


def _controller_uid(pod: Pod) -> str | None:
    for ref in pod["metadata"].get("ownerReferences") or ():
        if ref.get("controller"):
            return str(ref.get("uid"))
    return None


def _should_reconcile(pod: Pod) -> bool:
    """The event filter: leader, scheduled, exclusive placement, not being deleted."""
    meta = pod["metadata"]
    return (is_leader_pod(pod) and bool((pod.get("spec") or {}).get("nodeName"))  # leader first: cheapest
            and c.EXCLUSIVE_KEY in (meta.get("annotations") or {}) and not meta.get("deletionTimestamp"))


class PodReconciler:
    """The exclusive-placement pod controller as a fakekube component."""

    name = POD_CONTROLLER_NAME

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self.apply = Applier(runtime.client(POD_CONTROLLER_NAME), runtime.recorder(POD_CONTROLLER_NAME, correlate=False))
        self.controller = runtime.controller(POD_CONTROLLER_NAME, self.reconcile, retry_on=(ApiError, ReconcileError))

    def start(self) -> None:
        self.pods = self.rt.informer("pods")
        self.nodes = self.rt.informer("nodes")
        # SetupPodIndexes (adding an index again only rebuilds it).
        self.pods.add_index(POD_JOB_KEY_INDEX, index_pod_job, uses=("metadata.annotations", "metadata.labels"))
        add_pod_name_index(self.pods)
        self.pods.add_handler(self._on_pod)
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()

    def _on_pod(self, _event: str, obj: dict[str, Any], _old: dict[str, Any] | None) -> None:
        if _event != "DELETED" and _should_reconcile(obj):
            self.controller.enqueue((obj["metadata"].get("namespace") or "", obj["metadata"]["name"]))

    def reconcile(self, key: Key) -> Result | None:
        namespace, name = key
        leader = self.pods.get(name, namespace)
        if leader is None:
            return None
        self._reconcile(leader)  # an ApiError or ReconcileError is retried by the controller's rule
        return None

    def _reconcile(self, leader: Pod) -> None:
        meta = leader["metadata"]
        job_key = (meta.get("labels") or {}).get(c.JOB_KEY)
        if job_key is None:
            raise ReconcileError(f'job key label not found on leader pod: "{meta["name"]}"')
        owner_uid = _controller_uid(leader)
        if owner_uid is None:
            raise ReconcileError(f'leader pod "{meta["name"]}" has no controller owner')
        namespace = meta.get("namespace") or ""
        pods = [p for p in self.pods.by_index(POD_JOB_KEY_INDEX, job_key)
                if (p["metadata"].get("namespace") or "") == namespace and _controller_uid(p) == owner_uid]
        if self._placements_valid(leader, pods):
            return
        self.rt.trace.add(f"{POD_CONTROLLER_NAME} {namespace}/{meta['name']}: exclusive placement violated, "
                          "deleting follower pods")
        condition = {"type": "DisruptionTarget", "status": "True",
                     "lastTransitionTime": format_time(self.rt.now),
                     "reason": c.EXCLUSIVE_PLACEMENT_VIOLATION_REASON,
                     "message": c.EXCLUSIVE_PLACEMENT_VIOLATION_MESSAGE}
        self.apply.evict_follower_pods([p for p in pods if not is_leader_pod(p)], condition)

    def _placements_valid(self, leader: Pod, pods: Sequence[Pod]) -> bool:
        """``validatePodPlacements``."""
        topology_key = leader["metadata"]["annotations"][c.EXCLUSIVE_KEY]
        leader_topology = self._leader_topology(leader, topology_key)
        for pod in pods:
            if is_leader_pod(pod):
                continue
            selector = (pod.get("spec") or {}).get("nodeSelector")
            follower = None if selector is None else selector.get(topology_key)
            if follower is None or follower != leader_topology:
                if leader_topology == "":
                    raise ReconcileError("leader topology is unknown (node not found)")
                return False
        return True

    def _leader_topology(self, leader: Pod, topology_key: str) -> str:
        """``leaderPodTopology``: the leader node's topology label ("" if the node is gone)."""
        node = self.nodes.get(str(leader["spec"]["nodeName"]))
        if node is None:
            return ""
        labels = node["metadata"].get("labels") or {}
        if topology_key not in labels:
            raise ReconcileError(f"node does not have topology label: {topology_key}")
        return str(labels[topology_key])
