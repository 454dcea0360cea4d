"""Pod admission webhooks for JobSet exclusive placement (mutating ``Default`` and ``ValidateCreate``).

Mirrors upstream ``pkg/webhooks/pod_webhook.go``, the pod-name index of
``pkg/controllers/pod_controller.go`` (``IndexPodName``/``removePodNameSuffix``) and
``pkg/util/placement/placement.go`` (kubernetes-sigs/jobset @ 08dfbdf).

Pure functions: the two cluster reads upstream performs are parameters, so an adapter can wire
them to the fake API server:

* ``leader_candidates(namespace, leader_name_prefix) -> list[pod]``: the pods of ``namespace``
  indexed under ``leader_name_prefix`` by :func:`pod_name_without_suffix` (upstream's
  ``podName`` field index). Returned pods are re-filtered through the index function, so an
  adapter may also return a superset (e.g. every pod of the namespace). May raise
  :class:`~fakekube.errors.ApiError`.
* ``get_node(name) -> node``: raises :class:`~fakekube.errors.ApiError` (e.g. ``NotFound``,
  404 ``nodes "<name>" not found``) when the read fails. The node is only read, never changed,
  so an adapter may return a shared (frozen) object.

Denials: plain upstream errors raise :class:`~fakekube.errors.Forbidden` (403, reason
``Forbidden``, message = the error text, as controller-runtime's ``admission.Denied``); an
``ApiError`` raised by a lookup passes through unchanged. The API server adds the
``admission webhook "<name>" denied the request: `` prefix (see :func:`denial_through_apiserver`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from fakekube.errors import ApiError, Forbidden
from jobset_ref.api import constants as c

__all__ = [
    "GetNode",
    "LeaderCandidates",
    "PodWebhookError",
    "default_pod",
    "denial_through_apiserver",
    "find_leader_pod",
    "is_leader_pod",
    "leader_pod_name",
    "pod_name_without_suffix",
    "validate_pod_create",
]

LeaderCandidates = Callable[[str, str], list[dict[str, Any]]]
GetNode = Callable[[str], dict[str, Any]]


class PodWebhookError(Exception):
    """A plain (non-API) error of the pod webhook; surfaces as 403 Forbidden with this text."""


def _annotations(pod: Mapping[str, Any]) -> dict[str, Any]:
    ann = (pod.get("metadata") or {}).get("annotations")
    return ann if isinstance(ann, dict) else {}


def _labels(pod: Mapping[str, Any]) -> dict[str, Any]:
    lab = (pod.get("metadata") or {}).get("labels")
    return lab if isinstance(lab, dict) else {}


def _name(pod: Mapping[str, Any]) -> str:
    return str((pod.get("metadata") or {}).get("name") or "")


def is_leader_pod(pod: Mapping[str, Any]) -> bool:
    """``placement.IsLeaderPod``: completion-index *annotation* equals ``"0"`` (read as
    :func:`_annotations` does, without the call: the JobSet pod controller asks on every pod event)."""
    annotations = (pod.get("metadata") or {}).get("annotations")
    return isinstance(annotations, dict) and annotations.get(c.JOB_COMPLETION_INDEX_ANNOTATION) == "0"


def pod_name_without_suffix(pod: Mapping[str, Any]) -> str | None:
    """``IndexPodName``: the pod name minus its last ``-`` segment, for exclusive-placement pods
    whose name has at least 5 segments; ``None`` when the pod is not indexed."""
    meta = pod.get("metadata") or {}  # _annotations and _name, read from one metadata lookup
    annotations = meta.get("annotations")
    if not isinstance(annotations, dict) or c.EXCLUSIVE_KEY not in annotations:
        return None
    name = str(meta.get("name") or "")
    if name.count("-") < 4:  # fewer than 5 segments
        return None
    return name.rpartition("-")[0]  # "-".join(segments[:-1])


_LEADER_NAME_LABELS = (c.JOBSET_NAME_KEY, c.REPLICATED_JOB_NAME_KEY, c.JOB_INDEX_KEY)


def leader_pod_name(pod: dict[str, Any]) -> str:
    """``genLeaderPodName``: ``<jobset>-<rjob>-<jobIndex>-0`` from the follower's labels."""
    labels = _labels(pod)
    if c.JOBSET_NAME_KEY in labels and c.REPLICATED_JOB_NAME_KEY in labels and c.JOB_INDEX_KEY in labels:
        return f"{labels[c.JOBSET_NAME_KEY]!s}-{labels[c.REPLICATED_JOB_NAME_KEY]!s}-{labels[c.JOB_INDEX_KEY]!s}-0"
    missing = next(key for key in _LEADER_NAME_LABELS if key not in labels)
    raise PodWebhookError(f"pod missing label: {missing}")


def _controller_ref(pod: dict[str, Any]) -> dict[str, Any] | None:
    """``metav1.GetControllerOf``."""
    for ref in (pod.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def _owned_by_same_job(leader: dict[str, Any], follower: dict[str, Any]) -> None:
    follower_ref = _controller_ref(follower)
    if follower_ref is None:
        raise PodWebhookError("follower pod has no owner reference")
    leader_ref = _controller_ref(leader)
    if leader_ref is None:
        raise PodWebhookError(f'leader pod "{_name(leader)}" has no owner reference')
    if follower_ref.get("uid") != leader_ref.get("uid"):
        raise PodWebhookError(
            f"follower pod owner UID ({follower_ref.get('uid') or ''}) != leader pod owner UID "
            f"({leader_ref.get('uid') or ''})")


def find_leader_pod(pod: dict[str, Any], leader_candidates: LeaderCandidates) -> dict[str, Any]:
    """``leaderPodForFollower`` (§9.3). Raises :class:`PodWebhookError` or a lookup's ``ApiError``."""
    prefix = leader_pod_name(pod)
    namespace = str((pod.get("metadata") or {}).get("namespace") or "")
    candidates = [p for p in leader_candidates(namespace, prefix)
                  if pod_name_without_suffix(p) == prefix and _live_leader_candidate(p, namespace)]
    if len(candidates) != 1:
        raise PodWebhookError(
            f"expected 1 leader pod ({prefix}), but got {len(candidates)}. this is an expected, transient error")
    leader = candidates[0]
    _owned_by_same_job(leader, pod)
    return leader


def _live_leader_candidate(p: dict[str, Any], namespace: str) -> bool:
    """A pod of ``namespace``, neither being deleted nor finished."""
    meta = p.get("metadata") or {}
    return (meta.get("namespace", namespace) == namespace and not meta.get("deletionTimestamp")
            and (p.get("status") or {}).get("phase") not in _FINISHED_PHASES)


_FINISHED_PHASES = (c.POD_PHASE_FAILED, c.POD_PHASE_SUCCEEDED)


def _affinity_term(match_expressions: list[dict[str, Any]], topology_key: str) -> dict[str, Any]:
    return {"labelSelector": {"matchExpressions": match_expressions}, "topologyKey": topology_key,
            "namespaceSelector": {}}


def _set_exclusive_affinities(pod: dict[str, Any]) -> None:
    labels = _labels(pod)
    job_key = str(labels.get(c.JOB_KEY, ""))
    priority = str(labels.get(c.PRIORITY_KEY, ""))
    topology_key = str(_annotations(pod).get(c.EXCLUSIVE_KEY, ""))
    spec = pod.setdefault("spec", {})
    affinity = spec.get("affinity") or {}
    spec["affinity"] = affinity
    pod_affinity = affinity.get("podAffinity") or {}
    affinity["podAffinity"] = pod_affinity
    anti_affinity = affinity.get("podAntiAffinity") or {}
    affinity["podAntiAffinity"] = anti_affinity
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    pod_affinity[required] = [*(pod_affinity.get(required) or []), _affinity_term(
        [{"key": c.JOB_KEY, "operator": "In", "values": [job_key]}], topology_key)]
    anti_affinity[required] = [*(anti_affinity.get(required) or []), _affinity_term(
        [{"key": c.JOB_KEY, "operator": "Exists"},
         {"key": c.JOB_KEY, "operator": "NotIn", "values": [job_key]},
         {"key": c.PRIORITY_KEY, "operator": "In", "values": [priority]}], topology_key)]


def default_pod(pod: dict[str, Any], *, leader_candidates: LeaderCandidates, get_node: GetNode,
                in_place: bool = False) -> dict[str, Any]:
    """Mutating ``Default(pod)`` (§9.1): a mutated copy of ``pod`` (``pod`` itself when ``in_place``,
    for an admission adapter that owns its request object).

    Raises :class:`~fakekube.errors.Forbidden` (node lacks the topology label) or the
    ``ApiError`` of ``get_node`` (e.g. 404 NotFound).
    """
    out = pod if in_place else copy.deepcopy(pod)
    annotations = _annotations(out)
    if c.JOBSET_NAME_KEY not in annotations or c.NODE_SELECTOR_STRATEGY_KEY in annotations:
        return out
    priority = (out.get("spec") or {}).get("priority")
    if priority is not None:
        metadata = out.setdefault("metadata", {})
        if not isinstance(metadata.get("labels"), dict):
            metadata["labels"] = {}
        metadata["labels"][c.PRIORITY_KEY] = str(priority)
    if c.EXCLUSIVE_KEY not in annotations:
        return out
    if is_leader_pod(out):
        _set_exclusive_affinities(out)
        return out
    try:
        leader = find_leader_pod(out, leader_candidates)
    except (PodWebhookError, ApiError):
        return out  # upstream logs and admits; the validating webhook rejects the pod
    node_name = (leader.get("spec") or {}).get("nodeName") or ""
    if not node_name:
        return out
    topology_key = str(annotations[c.EXCLUSIVE_KEY])
    try:
        node = get_node(node_name)
    except ApiError:
        raise
    except Exception as err:
        raise Forbidden(str(err)) from err
    node_labels = (node.get("metadata") or {}).get("labels") or {}
    if topology_key not in node_labels:
        raise Forbidden(f"node does not have topology label: {topology_key}")
    spec = out.setdefault("spec", {})
    if not isinstance(spec.get("nodeSelector"), dict):
        spec["nodeSelector"] = {}
    spec["nodeSelector"][topology_key] = node_labels[topology_key]
    return out


def validate_pod_create(pod: dict[str, Any], *, leader_candidates: LeaderCandidates) -> None:
    """Validating ``ValidateCreate(pod)`` (§9.2): returns when admitted.

    Raises :class:`~fakekube.errors.Forbidden` with the upstream text, or a lookup's ``ApiError``.
    (Update and delete are always admitted upstream; there is nothing to call for them.)
    """
    annotations = _annotations(pod)
    if c.JOBSET_NAME_KEY not in annotations or c.NODE_SELECTOR_STRATEGY_KEY in annotations:
        return
    if c.EXCLUSIVE_KEY not in annotations:
        return
    topology_key = str(annotations[c.EXCLUSIVE_KEY])
    if is_leader_pod(pod):
        return
    node_selector = (pod.get("spec") or {}).get("nodeSelector")
    if node_selector is None:
        raise Forbidden("follower pod node selector not set")
    if topology_key not in node_selector:
        raise Forbidden(
            f"follower pod node selector for topology domain not found. missing selector: {topology_key}")
    try:
        leader = find_leader_pod(pod, leader_candidates)
    except PodWebhookError as err:
        raise Forbidden(str(err)) from err
    if not (leader.get("spec") or {}).get("nodeName"):
        raise Forbidden(
            "leader pod not yet scheduled, not creating follower pod. this is an expected, transient error")


def denial_through_apiserver(err: ApiError, webhook_name: str) -> ApiError:
    """The error a client sees when webhook ``webhook_name`` denies with ``err`` (message prefixed)."""
    status = copy.deepcopy(err.status)
    status["message"] = f'admission webhook "{webhook_name}" denied the request: {status.get("message", "")}'
    return ApiError.from_status(status)
