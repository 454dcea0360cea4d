"""Fluent builders mirroring upstream ``pkg/util/testing/wrappers.go`` (names in Python case).

    js = (make_jobset("js", "default")
          .replicated_job(make_replicated_job("workers").replicas(2)
                          .job(make_job_template("tpl", "default").parallelism(4).completions(4)))
          .failure_policy(max_restarts=3)
          .obj())

Builders produce wire-form dicts (``obj()``, upstream's ``Obj()``); they never call the API.
``cluster.apply(builder)`` accepts a builder directly. Setters validate their arguments and
raise :class:`fakekube.UsageError`. Each setter's docstring names the field it sets.

The second half of the module holds *Job status transitions* used by the integration tests,
mirroring the envtest helpers of ``test/integration/controller/jobset_controller_test.go``
(``completeJob``, ``failJobWithOptions``, ``readyJob``, ``activeJob``, ``suspendedJob`` …):
each returns the new ``status`` for a Job, to be written with ``update_status``.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from fakekube import UsageError
from jobset_ref.api import constants as c

if TYPE_CHECKING:
    from fakekube import FakeCluster

__all__ = [
    "TEST_POD_SPEC",
    "JobSetWrapper",
    "JobTemplateWrapper",
    "JobWrapper",
    "ReplicatedJobWrapper",
    "active_job_status",
    "complete_job_status",
    "fail_job_status",
    "make_job",
    "make_job_template",
    "make_jobset",
    "make_replicated_job",
    "ready_job_status",
    "remove_foreground_finalizers",
    "update_job_status",
]

#: ``testutils.TestPodSpec``: one busybox container, ``restartPolicy: Never``.
TEST_POD_SPEC: dict[str, Any] = {"restartPolicy": "Never",
                                 "containers": [{"name": "test-container", "image": "busybox:latest"}]}


def _int(value: Any, what: str, *, minimum: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise UsageError(f"{what} takes an int >= {minimum}, got {value!r}")
    return value


def _obj(value: Any) -> Any:
    """A builder's ``obj()``, or the value itself (deep-copied)."""
    if hasattr(value, "obj") and callable(value.obj):
        return value.obj()
    return copy.deepcopy(value)


# --------------------------------------------------------------------------- JobSet


class JobSetWrapper:
    """``JobSetWrapper``."""

    def __init__(self, name: str, namespace: str) -> None:
        self._obj: dict[str, Any] = {
            "apiVersion": c.API_VERSION, "kind": c.KIND,
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"replicatedJobs": [], "network": {}},
        }

    @property
    def _spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = self._obj["spec"]  # set in __init__
        return spec

    def conditions(self, conditions: list[dict[str, Any]]) -> JobSetWrapper:
        """``status.conditions``."""
        self._obj.setdefault("status", {})["conditions"] = copy.deepcopy(conditions)
        return self

    def set_status(self, status: dict[str, Any]) -> JobSetWrapper:
        """``status``."""
        self._obj["status"] = copy.deepcopy(status)
        return self

    def managed_by(self, manager: str) -> JobSetWrapper:
        """``spec.managedBy``."""
        self._spec["managedBy"] = manager
        return self

    def success_policy(self, operator: str = "All", target_replicated_jobs: list[str] | None = None) -> JobSetWrapper:
        """``spec.successPolicy``."""
        if operator not in ("All", "Any"):
            raise UsageError(f"success_policy(operator=...) takes 'All' or 'Any', got {operator!r}")
        policy: dict[str, Any] = {"operator": operator}
        if target_replicated_jobs is not None:
            policy["targetReplicatedJobs"] = list(target_replicated_jobs)
        self._spec["successPolicy"] = policy
        return self

    def failure_policy(self, max_restarts: int | None = None, *, restart_strategy: str | None = None,
                       rules: list[dict[str, Any]] | None = None) -> JobSetWrapper:
        """``spec.failurePolicy`` (``maxRestarts``, ``restartStrategy``, ``rules``)."""
        policy: dict[str, Any] = {}
        if max_restarts is not None:
            policy["maxRestarts"] = _int(max_restarts, "failure_policy(max_restarts=...)")
        if restart_strategy is not None:
            policy["restartStrategy"] = restart_strategy
        if rules is not None:
            policy["rules"] = copy.deepcopy(rules)
        self._spec["failurePolicy"] = policy
        return self

    def startup_policy(self, order: str) -> JobSetWrapper:
        """``spec.startupPolicy.startupPolicyOrder``."""
        if order not in ("AnyOrder", "InOrder"):
            raise UsageError(f"startup_policy() takes 'AnyOrder' or 'InOrder', got {order!r}")
        self._spec["startupPolicy"] = {"startupPolicyOrder": order}
        return self

    def volume_claim_policies(self, policies: list[dict[str, Any]]) -> JobSetWrapper:
        """``spec.volumeClaimPolicies``."""
        self._spec["volumeClaimPolicies"] = copy.deepcopy(policies)
        return self

    def set_annotations(self, annotations: dict[str, str]) -> JobSetWrapper:
        """``metadata.annotations``."""
        self._obj["metadata"]["annotations"] = dict(annotations)
        return self

    def set_labels(self, labels: dict[str, str]) -> JobSetWrapper:
        """``metadata.labels``."""
        self._obj["metadata"]["labels"] = dict(labels)
        return self

    def set_generate_name(self, prefix: str) -> JobSetWrapper:
        """``metadata.generateName`` (and clears ``metadata.name``)."""
        self._obj["metadata"].pop("name", None)
        self._obj["metadata"]["generateName"] = prefix
        return self

    def replicated_job(self, rjob: ReplicatedJobWrapper | dict[str, Any]) -> JobSetWrapper:
        """Append to ``spec.replicatedJobs``."""
        self._spec["replicatedJobs"].append(_obj(rjob))
        return self

    def suspend(self, suspend: bool) -> JobSetWrapper:
        """``spec.suspend``."""
        self._spec["suspend"] = bool(suspend)
        return self

    def coordinator(self, replicated_job: str, job_index: int = 0, pod_index: int = 0) -> JobSetWrapper:
        """``spec.coordinator``."""
        self._spec["coordinator"] = {"replicatedJob": replicated_job, "jobIndex": job_index, "podIndex": pod_index}
        return self

    def network_subdomain(self, subdomain: str) -> JobSetWrapper:
        """``spec.network.subdomain``."""
        self._spec.setdefault("network", {})["subdomain"] = subdomain
        return self

    def enable_dns_hostnames(self, value: bool) -> JobSetWrapper:
        """``spec.network.enableDNSHostnames``."""
        self._spec.setdefault("network", {})["enableDNSHostnames"] = bool(value)
        return self

    def publish_not_ready_addresses(self, value: bool) -> JobSetWrapper:
        """``spec.network.publishNotReadyAddresses``."""
        self._spec.setdefault("network", {})["publishNotReadyAddresses"] = bool(value)
        return self

    def ttl_seconds_after_finished(self, seconds: int) -> JobSetWrapper:
        """``spec.ttlSecondsAfterFinished``."""
        self._spec["ttlSecondsAfterFinished"] = _int(seconds, "ttl_seconds_after_finished()")
        return self

    def obj(self) -> dict[str, Any]:
        """``Obj()``: a deep copy of the wire-form JobSet."""
        return copy.deepcopy(self._obj)

    def __repr__(self) -> str:
        return f"make_jobset({self._obj['metadata'].get('name')!r}, {self._obj['metadata'].get('namespace')!r})"


def make_jobset(name: str, namespace: str = "default") -> JobSetWrapper:
    """``MakeJobSet``: no ReplicatedJobs, an empty ``network``."""
    return JobSetWrapper(name, namespace)


# --------------------------------------------------------------------------- ReplicatedJob


class ReplicatedJobWrapper:
    """``ReplicatedJobWrapper``."""

    def __init__(self, name: str) -> None:
        self._obj: dict[str, Any] = {"name": name, "template": make_job_template("", "").obj()}

    def job(self, template: JobTemplateWrapper | dict[str, Any]) -> ReplicatedJobWrapper:
        """``template`` (a JobTemplateSpec or its builder)."""
        self._obj["template"] = _obj(template)
        return self

    def group_name(self, value: str) -> ReplicatedJobWrapper:
        """``groupName``."""
        self._obj["groupName"] = value
        return self

    def replicas(self, value: int) -> ReplicatedJobWrapper:
        """``replicas`` (omitted: CRD default 1)."""
        self._obj["replicas"] = _int(value, "replicas()")
        return self

    def subdomain(self, subdomain: str) -> ReplicatedJobWrapper:
        """``template.spec.template.spec.subdomain``."""
        pod_spec = self._obj["template"].setdefault("spec", {}).setdefault("template", {}).setdefault("spec", {})
        pod_spec["subdomain"] = subdomain
        return self

    def depends_on(self, depends_on: list[tuple[str, str]] | list[dict[str, str]]) -> ReplicatedJobWrapper:
        """``dependsOn``: ``[(name, "Ready"|"Complete"), …]`` or wire dicts."""
        items = [d if isinstance(d, dict) else {"name": d[0], "status": d[1]} for d in depends_on]
        self._obj["dependsOn"] = items
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self._obj)


def make_replicated_job(name: str) -> ReplicatedJobWrapper:
    """``MakeReplicatedJob``: a default Job template with :data:`TEST_POD_SPEC`."""
    return ReplicatedJobWrapper(name)


# --------------------------------------------------------------------------- JobTemplateSpec


class JobTemplateWrapper:
    """``JobTemplateWrapper``."""

    def __init__(self, name: str, namespace: str) -> None:
        meta = {k: v for k, v in (("name", name), ("namespace", namespace)) if v}
        self._obj: dict[str, Any] = {"spec": {"template": {"spec": copy.deepcopy(TEST_POD_SPEC)}}}
        if meta:
            self._obj["metadata"] = meta

    @property
    def _spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = self._obj["spec"]  # set in __init__
        return spec

    def _pod_meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = self._spec["template"].setdefault("metadata", {})
        return meta

    def pod_failure_policy(self, policy: dict[str, Any]) -> JobTemplateWrapper:
        """``spec.podFailurePolicy``."""
        self._spec["podFailurePolicy"] = copy.deepcopy(policy)
        return self

    def completion_mode(self, mode: str) -> JobTemplateWrapper:
        """``spec.completionMode``."""
        self._spec["completionMode"] = mode
        return self

    def pod_template_spec(self, template: dict[str, Any]) -> JobTemplateWrapper:
        """``spec.template``."""
        self._spec["template"] = copy.deepcopy(template)
        return self

    def pod_spec(self, spec: dict[str, Any]) -> JobTemplateWrapper:
        """``spec.template.spec``."""
        self._spec["template"]["spec"] = copy.deepcopy(spec)
        return self

    def set_pod_annotations(self, annotations: dict[str, str]) -> JobTemplateWrapper:
        """``spec.template.metadata.annotations``."""
        self._pod_meta()["annotations"] = dict(annotations)
        return self

    def set_pod_labels(self, labels: dict[str, str]) -> JobTemplateWrapper:
        """``spec.template.metadata.labels``."""
        self._pod_meta()["labels"] = dict(labels)
        return self

    def set_annotations(self, annotations: dict[str, str]) -> JobTemplateWrapper:
        """``metadata.annotations``."""
        self._obj.setdefault("metadata", {})["annotations"] = dict(annotations)
        return self

    def set_labels(self, labels: dict[str, str]) -> JobTemplateWrapper:
        """``metadata.labels``."""
        self._obj.setdefault("metadata", {})["labels"] = dict(labels)
        return self

    def parallelism(self, value: int) -> JobTemplateWrapper:
        """``spec.parallelism``."""
        self._spec["parallelism"] = _int(value, "parallelism()")
        return self

    def completions(self, value: int) -> JobTemplateWrapper:
        """``spec.completions``."""
        self._spec["completions"] = _int(value, "completions()")
        return self

    def backoff_limit(self, value: int) -> JobTemplateWrapper:
        """``spec.backoffLimit``."""
        self._spec["backoffLimit"] = _int(value, "backoff_limit()")
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self._obj)


def make_job_template(name: str = "", namespace: str = "") -> JobTemplateWrapper:
    """``MakeJobTemplate`` (with :data:`TEST_POD_SPEC` so the API server admits the Jobs)."""
    return JobTemplateWrapper(name, namespace)


# --------------------------------------------------------------------------- Job (unit tests)


class JobWrapper:
    """``JobWrapper``: a batch/v1 Job for unit tests of the pure controller modules."""

    def __init__(self, name: str, namespace: str) -> None:
        self._obj: dict[str, Any] = {"apiVersion": "batch/v1", "kind": "Job",
                                     "metadata": {"name": name, "namespace": namespace},
                                     "spec": {"template": {"spec": {}}}, "status": {}}

    def job_labels(self, labels: dict[str, str]) -> JobWrapper:
        """``metadata.labels`` (merged)."""
        self._obj["metadata"].setdefault("labels", {}).update(labels)
        return self

    def job_annotations(self, annotations: dict[str, str]) -> JobWrapper:
        """``metadata.annotations`` (merged)."""
        self._obj["metadata"].setdefault("annotations", {}).update(annotations)
        return self

    def pod_labels(self, labels: dict[str, str]) -> JobWrapper:
        """``spec.template.metadata.labels`` (merged)."""
        self._obj["spec"]["template"].setdefault("metadata", {}).setdefault("labels", {}).update(labels)
        return self

    def suspend(self, suspend: bool) -> JobWrapper:
        """``spec.suspend``."""
        self._obj["spec"]["suspend"] = bool(suspend)
        return self

    def parallelism(self, value: int) -> JobWrapper:
        """``spec.parallelism``."""
        self._obj["spec"]["parallelism"] = _int(value, "parallelism()")
        return self

    def completions(self, value: int) -> JobWrapper:
        """``spec.completions``."""
        self._obj["spec"]["completions"] = _int(value, "completions()")
        return self

    def succeeded(self, value: int) -> JobWrapper:
        """``status.succeeded``."""
        self._obj["status"]["succeeded"] = _int(value, "succeeded()")
        return self

    def active(self, value: int) -> JobWrapper:
        """``status.active``."""
        self._obj["status"]["active"] = _int(value, "active()")
        return self

    def ready(self, value: int) -> JobWrapper:
        """``status.ready``."""
        self._obj["status"]["ready"] = _int(value, "ready()")
        return self

    def condition(self, type_: str, status: str = "True", *, reason: str = "", message: str = "",
                  last_transition_time: str | None = None) -> JobWrapper:
        """Append to ``status.conditions``."""
        cond: dict[str, Any] = {"type": type_, "status": status, "reason": reason, "message": message}
        if last_transition_time is not None:
            cond["lastTransitionTime"] = last_transition_time
        self._obj["status"].setdefault("conditions", []).append(cond)
        return self

    def owner(self, jobset: dict[str, Any]) -> JobWrapper:
        """A JobSet controller ownerReference."""
        self._obj["metadata"]["ownerReferences"] = [{
            "apiVersion": c.API_VERSION, "kind": c.KIND, "name": jobset["metadata"]["name"],
            "uid": jobset["metadata"].get("uid", ""), "controller": True, "blockOwnerDeletion": True}]
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self._obj)


def make_job(name: str, namespace: str = "default") -> JobWrapper:
    """``MakeJob``."""
    return JobWrapper(name, namespace)


# --------------------------------------------------------------------------- Job status transitions


def _now_or(existing: Any, now: str) -> str:
    return existing if existing else now


def complete_job_status(job: dict[str, Any], now: str) -> dict[str, Any]:
    """``completeJob``: SuccessCriteriaMet + Complete, ``succeeded = parallelism``."""
    status = job.get("status") or {}
    conds = [*copy.deepcopy(status.get("conditions") or []),
             {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": now},
             {"type": "Complete", "status": "True", "lastTransitionTime": now}]
    return {"startTime": _now_or(status.get("startTime"), now), "conditions": conds,
            "succeeded": int((job.get("spec") or {}).get("parallelism") or 1),
            "completionTime": _now_or(status.get("completionTime"), now)}


def fail_job_status(job: dict[str, Any], now: str, *, reason: str = "", message: str = "",
                    transition_time: str | None = None) -> dict[str, Any]:
    """``failJobWithOptions``: FailureTarget + Failed (``reason``/``message``); counters reset.

    Upstream's helper leaves ``lastTransitionTime`` unset (zero); pass ``transition_time`` to set it.
    """
    status = job.get("status") or {}
    failed: dict[str, Any] = {"type": "Failed", "status": "True", "reason": reason, "message": message}
    target: dict[str, Any] = {"type": "FailureTarget", "status": "True", "reason": reason, "message": message}
    if transition_time is not None:
        failed["lastTransitionTime"] = target["lastTransitionTime"] = transition_time
    return {"startTime": _now_or(status.get("startTime"), now),
            "conditions": [*copy.deepcopy(status.get("conditions") or []), target, failed]}


def ready_job_status(job: dict[str, Any]) -> dict[str, Any]:
    """``readyJob``: ``active = ready = parallelism`` (conditions dropped)."""
    parallelism = int((job.get("spec") or {}).get("parallelism") or 1)
    return {"active": parallelism, "ready": parallelism}


def active_job_status(job: dict[str, Any]) -> dict[str, Any]:
    """``activeJob``: ``active = parallelism``."""
    return {"active": int((job.get("spec") or {}).get("parallelism") or 1)}


# --------------------------------------------------------------------------- envtest-style helpers


def update_job_status(cluster: FakeCluster, name: str, namespace: str, status: dict[str, Any]) -> dict[str, Any]:
    """Replace a Job's whole status (as the upstream helpers do) and let the cluster settle."""
    job = cluster.get("jobs.batch", name, namespace)
    job["status"] = status
    return cluster.update_status(job)


def remove_foreground_finalizers(cluster: FakeCluster, namespace: str, count: int | None = None) -> list[str]:
    """``removeForegroundDeletionFinalizers``: finish the deletion of (the first ``count``) Jobs
    that carry ``foregroundDeletion``, in name order; returns their names."""
    done: list[str] = []
    for job in cluster.list("jobs.batch", namespace):
        if count is not None and len(done) >= count:
            break
        finalizers = job["metadata"].get("finalizers") or []
        if "foregroundDeletion" not in finalizers:
            continue
        job["metadata"]["finalizers"] = [f for f in finalizers if f != "foregroundDeletion"]
        cluster.update(job)
        done.append(job["metadata"]["name"])
    return done
