"""Construct: the child Jobs, the headless Service and the names and labels they carry.

Mirrors upstream ``constructJobsFromTemplate``, ``constructJob``, ``shouldCreateJob``,
``labelAndAnnotateObject``, ``addNamespacedJobNodeSelector``, ``addTaintToleration``,
``jobHashKey``, ``globalJobIndex``, ``globalReplicas``, ``groupJobIndex``, ``groupReplicas``
(``pkg/controllers/jobset_controller.go``), ``placement.GenJobName``, the Service half of
``createHeadlessSvcIfNecessary`` and the plan of ``reconcileReplicatedJobs``. Spec §4, §5, §3.6.

Pure: builds wire-form dicts; ``apply`` creates them.
"""

from __future__ import annotations

import copy
import hashlib
from typing import TYPE_CHECKING, Any

from jobset_ref.api import constants as c
from jobset_ref.api.enums import JobSetRestartStrategy
from jobset_ref.controller.observe import ChildJobs, get_job_restarts
from jobset_ref.controller.plan import CreationPlan, Eligibility
from jobset_ref.controller.policies import network, startup_policy, volume_claim_policies

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet, JobSetStatus, ReplicatedJob

__all__ = [
    "construct_headless_service",
    "construct_job",
    "construct_jobs_from_template",
    "gen_job_name",
    "global_job_index",
    "global_replicas",
    "group_job_index",
    "group_replicas",
    "job_hash_key",
    "jobset_labels",
    "namespaced_job_name",
    "owner_reference",
    "plan_creation",
]


def gen_job_name(jobset_name: str, rjob_name: str, job_index: int) -> str:
    """``placement.GenJobName``: ``<jobset>-<replicatedJob>-<index>``."""
    return f"{jobset_name}-{rjob_name}-{job_index}"


def job_hash_key(namespace: str, job_name: str) -> str:
    """``jobHashKey``: lowercase hex SHA-1 of ``<namespace>/<jobName>`` (the API comment says SHA256; it is SHA-1)."""
    return hashlib.sha1(f"{namespace}/{job_name}".encode()).hexdigest()


def namespaced_job_name(namespace: str, job_name: str) -> str:
    """``namespacedJobName``: ``<namespace>_<jobName>`` (``/`` is not allowed in label values)."""
    return f"{namespace}_{job_name}"


def global_job_index(js: JobSet, rjob_name: str, job_index: int) -> str:
    """``globalJobIndex``: replicas of earlier ReplicatedJobs + index; ``""`` if not found."""
    total = 0
    for rjob in js.replicated_jobs:
        if rjob.name == rjob_name:
            return str(total + job_index)
        total += rjob.replicas
    return ""


def global_replicas(js: JobSet) -> str:
    """``globalReplicas``: Σ replicas (``"0"`` for an empty JobSet)."""
    return str(sum(r.replicas for r in js.replicated_jobs))


def group_job_index(js: JobSet, group_name: str, rjob_name: str, job_index: int) -> str:
    """``groupJobIndex``: replicas of earlier ReplicatedJobs in the group + index; ``""`` if absent."""
    total = 0
    for rjob in js.replicated_jobs:
        if rjob.group_name == group_name:
            if rjob.name == rjob_name:
                return str(total + job_index)
            total += rjob.replicas
    return ""


def group_replicas(js: JobSet, group_name: str) -> str:
    """``groupReplicas``: Σ replicas of the group's ReplicatedJobs (``"0"`` for an unknown group)."""
    return str(sum(r.replicas for r in js.replicated_jobs if r.group_name == group_name))


def owner_reference(js: JobSet) -> dict[str, Any]:
    """``ctrl.SetControllerReference(js, obj)``."""
    return {"apiVersion": c.API_VERSION, "kind": c.KIND, "name": js.name,
            "uid": str(js.metadata.get("uid") or ""), "controller": True, "blockOwnerDeletion": True}


def jobset_labels(js: JobSet, rjob: ReplicatedJob, job_index: int, *, restarts: int,
                  job_restart_attempt: int | None) -> dict[str, str]:
    """The key/value set ``labelAndAnnotateObject`` puts on Jobs and pod templates (labels = annotations).

    ``job_restart_attempt`` is given only with feature gate ``RestartJob``.
    """
    name = gen_job_name(js.name, rjob.name, job_index)
    values: dict[str, str] = {
        c.JOBSET_NAME_KEY: js.name,
        c.JOBSET_UID_KEY: str(js.metadata.get("uid") or ""),
        c.REPLICATED_JOB_NAME_KEY: rjob.name,
        c.RESTARTS_KEY: str(restarts),
    }
    if job_restart_attempt is not None:
        values[c.JOB_RESTART_ATTEMPT_KEY] = str(job_restart_attempt)
    values.update({
        c.REPLICATED_JOB_REPLICAS: str(rjob.replicas),
        c.GLOBAL_REPLICAS_KEY: global_replicas(js),
        c.JOB_INDEX_KEY: str(job_index),
        c.JOB_KEY: job_hash_key(js.namespace, name),
        c.JOB_GLOBAL_INDEX_KEY: global_job_index(js, rjob.name, job_index),
        c.GROUP_NAME_KEY: rjob.group_name,
        c.GROUP_REPLICAS_KEY: group_replicas(js, rjob.group_name),
        c.JOB_GROUP_INDEX_KEY: group_job_index(js, rjob.group_name, rjob.name, job_index),
    })
    if js.spec.coordinator is not None:
        values[c.COORDINATOR_KEY] = network.coordinator_endpoint(js)
    return values


def _exclusive_annotations(js: JobSet, rjob: ReplicatedJob) -> dict[str, str]:
    """Exclusive-placement annotations (never labels): JobSet level, then ReplicatedJob level wins."""
    out: dict[str, str] = {}
    js_ann = js.annotations
    if c.EXCLUSIVE_KEY in js_ann:
        out[c.EXCLUSIVE_KEY] = js_ann[c.EXCLUSIVE_KEY]
        if c.NODE_SELECTOR_STRATEGY_KEY in js_ann:
            out[c.NODE_SELECTOR_STRATEGY_KEY] = js_ann[c.NODE_SELECTOR_STRATEGY_KEY]
    rjob_ann = (rjob.template.get("metadata") or {}).get("annotations") or {}
    if c.EXCLUSIVE_KEY in rjob_ann:
        out[c.EXCLUSIVE_KEY] = rjob_ann[c.EXCLUSIVE_KEY]
        if c.NODE_SELECTOR_STRATEGY_KEY in rjob_ann:
            out[c.NODE_SELECTOR_STRATEGY_KEY] = rjob_ann[c.NODE_SELECTOR_STRATEGY_KEY]
    return out


def _label_and_annotate(meta: dict[str, Any], values: dict[str, str], exclusive: dict[str, str]) -> None:
    """``labelAndAnnotateObject`` on one ObjectMeta (keys sorted, as Go's JSON encoder sorts maps)."""
    labels = {**(meta.get("labels") or {}), **values}
    annotations = {**(meta.get("annotations") or {}), **values, **exclusive}
    meta["labels"] = dict(sorted(labels.items()))
    meta["annotations"] = dict(sorted(annotations.items()))


def construct_job(js: JobSet, rjob: ReplicatedJob, job_index: int, *, restarts: int,
                  job_restart_attempt: int | None) -> dict[str, Any]:
    """``constructJob``: the Job ``<js>-<rjob>-<index>`` with every JobSet label, annotation and the owner ref."""
    name = gen_job_name(js.name, rjob.name, job_index)
    template_meta = rjob.template.get("metadata") or {}
    meta: dict[str, Any] = {"name": name, "namespace": js.namespace}
    if template_meta.get("labels"):
        meta["labels"] = dict(template_meta["labels"])
    if template_meta.get("annotations"):
        meta["annotations"] = dict(template_meta["annotations"])
    spec: dict[str, Any] = copy.deepcopy(rjob.template.get("spec") or {})
    pod_template = spec.setdefault("template", {})
    pod_meta = pod_template.setdefault("metadata", {})
    pod_spec = pod_template.setdefault("spec", {})

    values = jobset_labels(js, rjob, job_index, restarts=restarts, job_restart_attempt=job_restart_attempt)
    exclusive = _exclusive_annotations(js, rjob)
    _label_and_annotate(meta, values, exclusive)
    _label_and_annotate(pod_meta, values, exclusive)

    if network.dns_hostnames_enabled(js):
        pod_spec["subdomain"] = network.get_subdomain(js)

    # Node-selector strategy of exclusive placement: decided on the *Job's* annotations.
    if c.EXCLUSIVE_KEY in meta["annotations"] and c.NODE_SELECTOR_STRATEGY_KEY in meta["annotations"]:
        node_selector = pod_spec.get("nodeSelector") or {}
        node_selector[c.NAMESPACED_JOB_KEY] = namespaced_job_name(js.namespace, name)
        pod_spec["nodeSelector"] = node_selector
        pod_spec["tolerations"] = [*(pod_spec.get("tolerations") or []),
                                   {"key": c.NO_SCHEDULE_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}]

    spec["suspend"] = bool(js.spec.suspend)

    if js.spec.volume_claim_policies:
        volumes = volume_claim_policies.volumes_for_pod_spec(js, pod_spec)
        if volumes:
            pod_spec["volumes"] = [*(pod_spec.get("volumes") or []), *volumes]

    meta["ownerReferences"] = [owner_reference(js)]
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}


def construct_jobs_from_template(js: JobSet, status: JobSetStatus, rjob: ReplicatedJob, children: ChildJobs,
                                 *, restart_job_gate: bool) -> list[dict[str, Any]]:
    """``constructJobsFromTemplate``: the missing Jobs of ``rjob`` (by name, in index order).

    With ``BlockingRecreate`` nothing is created while any previous-attempt Job still exists.
    """
    policy = js.spec.failure_policy
    blocking = policy is not None and policy.restart_strategy == JobSetRestartStrategy.BLOCKING_RECREATE
    if blocking and children.previous:
        return []
    job_restarts = get_job_restarts(js, status, rjob.name) if restart_job_gate else None
    jobs: list[dict[str, Any]] = []
    for index in range(rjob.replicas):
        if gen_job_name(js.name, rjob.name, index) in children.names:
            continue
        attempt = None
        if job_restarts is not None:
            # Upstream indexes the slice directly (a panic when short); a short array reads as 0.
            attempt = job_restarts[index] if index < len(job_restarts) else 0
        jobs.append(construct_job(js, rjob, index, restarts=status.restarts, job_restart_attempt=attempt))
    return jobs


def plan_creation(js: JobSet, status: JobSetStatus, eligible: Eligibility, children: ChildJobs,
                  *, restart_job_gate: bool) -> CreationPlan:
    """``reconcileReplicatedJobs``: the missing Jobs of each eligible ReplicatedJob, and with InOrder
    ``StartupPolicyInProgress`` (stopped at one) or ``StartupPolicyCompleted`` (all started)."""
    by_name = {r.name: r for r in js.replicated_jobs}
    batches = tuple(tuple(construct_jobs_from_template(js, status, by_name[name], children,
                                                       restart_job_gate=restart_job_gate))
                    for name in eligible.replicated_jobs)
    if not eligible.in_order:
        return CreationPlan(batches, ())
    op = startup_policy.in_progress_op() if eligible.in_order_in_progress else startup_policy.completed_op()
    return CreationPlan(batches, (op,))


def construct_headless_service(js: JobSet) -> dict[str, Any]:
    """The headless Service: ``clusterIP: None``, selector on the jobset-name label, no ports, no labels."""
    return {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": network.get_subdomain(js), "namespace": js.namespace,
                     "ownerReferences": [owner_reference(js)]},
        "spec": {"clusterIP": "None", "selector": {c.JOBSET_NAME_KEY: js.name},
                 "publishNotReadyAddresses": network.publish_not_ready_addresses(js)},
    }
