"""``pkg/controller/jobs/job``: the batch/v1 Job integration (``batch/job``).

One PodSet named ``main`` of ``min(parallelism, completions)`` pods (partial admission through
``kueue.x-k8s.io/job-min-parallelism``); stopping marks the Job ``kueue.x-k8s.io/stopping``
while it suspends, resets ``status.startTime`` and restores the template; a Workload change
queues the Jobs its owner controls (child Jobs of a managed JobSet, say).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fakekube.errors import FieldError
from fakekube.machinery.objects import controller_ref, meta_of

from . import constants as k
from .interface import GenericJob, Integration, JobClient
from .podset import PodSetInfo, bad_len, merge_into_template, restore_template
from .tas import topology_request

if TYPE_CHECKING:
    from .reconciler import JobReconciler

FRAMEWORK_NAME = "batch/job"
MIN_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-min-parallelism"
COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-completions-equal-parallelism"
STOPPING_ANNOTATION = "kueue.x-k8s.io/stopping"
JOB_COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
MANAGED_LABELS = ("job-name", "controller-uid", JOB_NAME_LABEL, CONTROLLER_UID_LABEL)
OWNER_UID_INDEX = "kueue.x-k8s.io/owner-uid"
MIN_PODS_PATH = f"metadata.annotations[{MIN_PARALLELISM_ANNOTATION}]"
SYNC_COMPLETION_PATH = f"metadata.annotations[{COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION}]"


def _parse_bool(text: str) -> bool | None:
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


class BatchJob(GenericJob):
    api_version = "batch/v1"
    kind = "Job"
    has_reclaimable_pods = True
    has_custom_stop = True

    def is_suspended(self) -> bool:
        return bool(self.spec.get("suspend")) and self.annotations.get(STOPPING_ANNOTATION) != "true"

    def is_active(self) -> bool:
        return int(self.status.get("active") or 0) != 0

    def suspend(self) -> None:
        self.spec["suspend"] = True

    def pod_label_selector(self) -> str:
        return f"{JOB_NAME_LABEL}={self.name}"

    def pods_count(self) -> int:
        parallelism = int(self.spec.get("parallelism", 1))
        completions = self.spec.get("completions")
        return min(parallelism, int(completions)) if completions is not None else parallelism

    def min_pods_count(self) -> int | None:
        text = self.annotations.get(MIN_PARALLELISM_ANNOTATION)
        if text is None:
            return None
        try:
            return int(text, 10)
        except ValueError:
            return None

    def sync_completion_with_parallelism(self) -> bool:
        return _parse_bool(self.annotations.get(COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION, "")) is True

    def pod_sets(self) -> list[dict[str, Any]]:
        import copy

        template = copy.deepcopy(self.spec.get("template") or {})
        labels = (template.get("metadata") or {}).get("labels")
        if labels:
            for label in MANAGED_LABELS:
                if label != JOB_NAME_LABEL:
                    labels.pop(label, None)
        podset: dict[str, Any] = {"name": k.DEFAULT_PODSET_NAME, "template": template, "count": self.pods_count()}
        if self.min_pods_count() is not None:
            podset["minCount"] = self.min_pods_count()
        request = topology_request(template.get("metadata") or {}, pod_index_label=JOB_COMPLETION_INDEX_ANNOTATION)
        if request is not None:
            podset["topologyRequest"] = request
        return [podset]

    def run_with_podsets_info(self, infos: list[PodSetInfo]) -> None:
        self.spec["suspend"] = False
        if len(infos) != 1:
            raise bad_len(1, len(infos))
        info = infos[0]
        if self.min_pods_count() is not None:
            self.spec["parallelism"] = info.count
            if self.sync_completion_with_parallelism():
                self.spec["completions"] = info.count
        merge_into_template(self.spec.setdefault("template", {}), info)

    def restore_podsets_info(self, infos: list[PodSetInfo]) -> bool:
        if not infos:
            return False
        changed = False
        if self.min_pods_count() is not None and int(self.spec.get("parallelism") or 0) != infos[0].count:
            changed = True
            self.spec["parallelism"] = infos[0].count
            if self.sync_completion_with_parallelism():
                self.spec["completions"] = infos[0].count
        info = infos[0]
        template = self.spec.setdefault("template", {})
        current = (template.get("metadata") or {}).get("labels") or {}
        for label in MANAGED_LABELS:
            if label in current:
                info.labels[label] = current[label]
        return restore_template(template, info) or changed

    def stop(self, client: JobClient, infos: list[PodSetInfo], reason: str, message: str) -> bool:
        """``Job.Stop``: suspend with the stopping mark, reset startTime, then restore."""
        import copy

        stopped_now = False
        if not self.is_suspended():
            original = copy.deepcopy(self.obj)
            self.suspend()
            self.meta.setdefault("annotations", {})[STOPPING_ANNOTATION] = "true"
            client.patch_job(self, original)
            stopped_now = True
        if self.status.get("startTime") is not None:
            original = copy.deepcopy(self.obj)
            self.obj["status"] = {key: value for key, value in self.status.items() if key != "startTime"}
            client.patch_job(self, original, subresource="status")
        original = copy.deepcopy(self.obj)
        self.restore_podsets_info(infos)
        annotations = self.meta.get("annotations") or {}
        annotations.pop(STOPPING_ANNOTATION, None)
        if not annotations:
            self.meta.pop("annotations", None)
        client.patch_job(self, original)
        return stopped_now

    def finished(self) -> tuple[str, bool, bool]:
        for cond in self.status.get("conditions") or ():
            if cond.get("type") in ("Complete", "Failed") and cond.get("status") == "True":
                return cond.get("message", ""), cond.get("type") != "Failed", True
        return "", True, False

    def pods_ready(self) -> bool:
        ready = int(self.status.get("ready") or 0)
        uncounted = len(((self.status.get("uncountedTerminatedPods") or {}).get("succeeded")) or [])
        return int(self.status.get("succeeded") or 0) + ready + uncounted >= self.pods_count()

    def reclaimable_pods(self) -> list[dict[str, Any]]:
        parallelism = int(self.spec.get("parallelism", 1))
        completions = int(self.spec["completions"]) if self.spec.get("completions") is not None else parallelism
        terminal = int(self.status.get("succeeded") or 0)
        if self.spec.get("completionMode") == "Indexed":
            terminal = _terminal_indexes(self.status.get("completedIndexes") or "",
                                         self.status.get("failedIndexes") or "", completions)
        reclaimable = 0
        if parallelism > 1 and terminal > 0:
            remaining = max(completions - terminal, 0)
            if remaining < parallelism:
                reclaimable = parallelism - remaining
        return [{"name": k.DEFAULT_PODSET_NAME, "count": reclaimable}] if reclaimable else []


def _terminal_indexes(completed: str, failed: str, completions: int) -> int:
    """``terminalIndexesCount``: distinct indexes below ``completions`` in either interval list."""
    if completions <= 0:
        return 0
    intervals: list[tuple[int, int]] = []
    for text in (completed, failed):
        for part in filter(None, text.split(",")):
            first_s, sep, last_s = part.partition("-")
            try:
                first = int(first_s)
                last = int(last_s) if sep else first
            except ValueError:
                continue
            if last < first:
                continue
            last = min(last, completions - 1)
            if first <= last:
                intervals.append((first, last))
    count, counted = 0, -1
    for first, last in sorted(intervals):
        start = max(first, counted + 1)
        if start > last:
            continue
        count += last - start + 1
        counted = last
    return count


def validate_create(job: GenericJob) -> list[FieldError]:
    """``validatePartialAdmissionCreate`` and ``validateSyncCompletionCreate``."""
    return _validate_partial_admission(job) + _validate_sync_completion(job)


def _validate_partial_admission(job: GenericJob) -> list[FieldError]:
    assert isinstance(job, BatchJob)
    errors: list[FieldError] = []
    text = job.annotations.get(MIN_PARALLELISM_ANNOTATION)
    if text is not None:
        try:
            value = int(text, 10)
        except ValueError:
            errors.append(FieldError.invalid(MIN_PODS_PATH, text, f'strconv.Atoi: parsing "{text}": invalid syntax'))
        else:
            if value >= job.pods_count() or value <= 0:
                errors.append(FieldError.invalid(MIN_PODS_PATH, value,
                                                 f"should be between 0 and {job.pods_count() - 1}"))
    return errors


def _validate_sync_completion(job: GenericJob) -> list[FieldError]:
    assert isinstance(job, BatchJob)
    errors: list[FieldError] = []
    text = job.annotations.get(COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION)
    if text is not None:
        enabled = _parse_bool(text)
        if enabled is None:
            errors.append(FieldError.invalid(SYNC_COMPLETION_PATH, text,
                                             f'strconv.ParseBool: parsing "{text}": invalid syntax'))
        if enabled:
            if job.spec.get("completionMode", "NonIndexed") == "NonIndexed":
                errors.append(FieldError.invalid(SYNC_COMPLETION_PATH, text, "should not be enabled for NonIndexed jobs"))
            if int(job.spec.get("parallelism", 1)) != int(job.spec.get("completions", 1)):
                errors.append(FieldError.invalid(
                    "spec.completions", job.spec.get("completions"),
                    f"should be equal to parallelism when {COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION} annotation is true"))
    return errors


def validate_update(old: GenericJob, new: GenericJob) -> list[FieldError]:
    """``validatePartialAdmissionUpdate`` (the create checks run from the framework)."""
    assert isinstance(old, BatchJob) and isinstance(new, BatchJob)
    errors: list[FieldError] = []
    if new.annotations.get(MIN_PARALLELISM_ANNOTATION) != old.annotations.get(MIN_PARALLELISM_ANNOTATION):
        errors += _validate_partial_admission(new)
    errors += _validate_sync_completion(new)
    if MIN_PARALLELISM_ANNOTATION in old.annotations and not old.spec.get("suspend") and \
            int(old.spec.get("parallelism", 1)) != int(new.spec.get("parallelism", 1)):
        errors.append(FieldError.forbidden("spec.parallelism", "cannot change when partial admission is enabled "
                                                               "and the job is not suspended"))
    if old.is_suspended() == new.is_suspended() and not new.is_suspended() and \
            old.sync_completion_with_parallelism() != new.sync_completion_with_parallelism():
        errors.append(FieldError.forbidden(SYNC_COMPLETION_PATH, "field is immutable while the job is not suspended"))
    return errors


def _owner_uids(job: Mapping[str, Any]) -> list[str]:
    return [ref["uid"] for ref in meta_of(job).get("ownerReferences") or () if ref.get("uid")]


def _setup(reconciler: JobReconciler) -> None:
    """``parentWorkloadHandler``: a Workload change queues the Jobs its owner controls."""
    jobs = reconciler.jobs
    jobs.add_index(OWNER_UID_INDEX, _owner_uids, uses=("metadata.ownerReferences",))

    def on_workload(event: str, wl: dict[str, Any], old: dict[str, Any] | None) -> None:
        if event == "DELETED":
            return
        owner = controller_ref(wl)
        if owner is None:
            return
        namespace = wl["metadata"].get("namespace") or ""
        for child in jobs.by_index(OWNER_UID_INDEX, owner.get("uid", "")):
            if (child["metadata"].get("namespace") or "") == namespace:
                reconciler.queue.enqueue((namespace, child["metadata"]["name"]))

    reconciler.framework.workloads.add_handler(on_workload)


INTEGRATION = Integration(name=FRAMEWORK_NAME, api_version="batch/v1", kind="Job", resource="jobs",
                          new_job=BatchJob, validate_create=validate_create, validate_update=validate_update,
                          setup=_setup)
