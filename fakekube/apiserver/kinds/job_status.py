"""batch/v1 Job status: its conditions and the rules of a status write (``pkg/registry/batch/job``).

Mirrors, at Kubernetes 1.33/1.34 with default feature gates, ``IsConditionTrue`` /
``IsJobFinished`` and ``jobStatusStrategy`` with ``getStatusValidationOptions`` (JobManagedBy on:
checks fire only when the related status field changes): ``validateJobStatus``,
``ValidateJobStatusUpdate`` in ``pkg/apis/batch/validation/validation.go``.
"""

from __future__ import annotations

from typing import Any

from fakekube._core.clock import parse_time
from fakekube.apiserver.kinds.job_indexes import failed_overlaps_completed, validate_indexes_format
from fakekube.errors import OMIT, FieldError
from fakekube.machinery import validation as v

__all__ = ["condition_true", "is_job_finished", "validate_job_status_update"]


def condition_true(status: dict[str, Any] | None, ctype: str) -> bool:
    """``IsConditionTrue``."""
    return any(c.get("type") == ctype and c.get("status") == "True"
               for c in (status or {}).get("conditions") or [])


def is_job_finished(job: dict[str, Any]) -> bool:
    """``IsJobFinished``: ``Complete=True`` or ``Failed=True``."""
    status = job.get("status") or {}
    return condition_true(status, "Complete") or condition_true(status, "Failed")


def validate_job_status_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateJobUpdateStatus`` with ``getStatusValidationOptions`` (JobManagedBy on, 1.32+)."""
    spec = new.get("spec") or {}
    status, old_status = new.get("status") or {}, old.get("status") or {}
    p = "status"
    indexed = spec.get("completionMode") == "Indexed"
    completions = spec.get("completions")

    def changed(key: str) -> bool:
        return status.get(key) != old_status.get(key)

    complete, old_complete = condition_true(status, "Complete"), condition_true(old_status, "Complete")
    failed, old_failed = condition_true(status, "Failed"), condition_true(old_status, "Failed")
    target, old_target = condition_true(status, "FailureTarget"), condition_true(old_status, "FailureTarget")
    criteria, old_criteria = (condition_true(status, "SuccessCriteriaMet"),
                              condition_true(old_status, "SuccessCriteriaMet"))
    finished, old_finished = complete or failed, old_complete or old_failed
    finished_changed = finished != old_finished
    complete_changed = complete != old_complete
    active = int(status.get("active") or 0)
    ready, terminating = status.get("ready"), status.get("terminating")
    start, completion = status.get("startTime"), status.get("completionTime")
    uncounted = status.get("uncountedTerminatedPods")
    old_uncounted = old_status.get("uncountedTerminatedPods")
    uncounted_changed = _uncounted_norm(uncounted) != _uncounted_norm(old_uncounted)
    completed_indexes = status.get("completedIndexes") or ""
    completed_changed = completed_indexes != (old_status.get("completedIndexes") or "")
    failed_indexes = status.get("failedIndexes")
    failed_indexes_changed = changed("failedIndexes")

    errors: list[FieldError] = []
    # validateJobStatus
    for key in ("active", "succeeded", "failed"):
        errors += v.validate_nonnegative_field(int(status.get(key) or 0), f"{p}.{key}")
    for key in ("ready", "terminating"):
        if status.get(key) is not None:
            errors += v.validate_nonnegative_field(int(status[key]), f"{p}.{key}")
    if uncounted is not None:
        seen: set[str] = set()
        for kind in ("succeeded", "failed"):
            for i, uid in enumerate(uncounted.get(kind) or []):
                fpath = f"{p}.uncountedTerminatedPods.{kind}[{i}]"
                if uid == "":
                    errors.append(FieldError.invalid(fpath, uid, "must not be empty"))
                elif uid in seen:
                    errors.append(FieldError.duplicate(fpath, uid))
                else:
                    seen.add(uid)
    conds = f"{p}.conditions"
    if (complete_changed or failed != old_failed) and complete and failed:
        errors.append(FieldError.invalid(conds, OMIT, "cannot set Complete=True and Failed=true conditions"))
    if (complete_changed or target != old_target) and complete and target:
        errors.append(FieldError.invalid(conds, OMIT, "cannot set Complete=True and FailureTarget=true conditions"))
    completion_changed = changed("completionTime")
    if (complete_changed or completion_changed) and completion is not None and not complete:
        errors.append(FieldError.invalid(f"{p}.completionTime", completion,
                                         "cannot set completionTime when there is no Complete=True condition"))
    if (complete_changed or completion_changed) and completion is None and complete:
        errors.append(FieldError.required(f"{p}.completionTime", "completionTime is required for Complete jobs"))
    if (changed("startTime") or completion_changed) and start and completion \
            and parse_time(completion) < parse_time(start):
        errors.append(FieldError.invalid(f"{p}.completionTime", completion,
                                         "completionTime cannot be set before startTime"))
    if (failed != old_failed or target != old_target) and failed and not target:
        errors.append(FieldError.invalid(
            conds, OMIT, "cannot set Failed=True condition without the FailureTarget=true condition"))
    if (complete_changed or criteria != old_criteria) and complete and not criteria:
        errors.append(FieldError.invalid(
            conds, OMIT, "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"))
    if (finished_changed or changed("active")) and active > 0 and finished:
        errors.append(FieldError.invalid(f"{p}.active", active, "active>0 is invalid for finished job"))
    if (finished_changed or changed("startTime")) and start is None and finished:
        errors.append(FieldError.required(f"{p}.startTime", "startTime is required for finished job"))
    if (finished_changed or uncounted_changed) and finished and uncounted is not None \
            and (uncounted.get("failed") or uncounted.get("succeeded")):
        errors.append(FieldError.invalid(f"{p}.uncountedTerminatedPods", uncounted,
                                         "uncountedTerminatedPods needs to be empty for finished job"))
    if completed_changed and completions is not None:
        try:
            validate_indexes_format(completed_indexes, int(completions))
        except ValueError as err:
            errors.append(FieldError.invalid(f"{p}.completedIndexes", completed_indexes,
                                             f"error parsing completedIndexes: {err}"))
    if failed_indexes_changed and completions is not None and spec.get("backoffLimitPerIndex") is not None \
            and failed_indexes is not None:
        try:
            validate_indexes_format(failed_indexes, int(completions))
        except ValueError as err:
            errors.append(FieldError.invalid(f"{p}.failedIndexes", failed_indexes,
                                             f"error parsing failedIndexes: {err}"))
    if completed_changed and completed_indexes and not indexed:
        errors.append(FieldError.invalid(f"{p}.completedIndexes", completed_indexes,
                                         "cannot set non-empty completedIndexes when non-indexed completion mode"))
    if failed_indexes_changed and spec.get("backoffLimitPerIndex") is None and failed_indexes is not None:
        errors.append(FieldError.invalid(f"{p}.failedIndexes", failed_indexes,
                                         "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
    if (failed_indexes_changed or completed_changed) and completions is not None and failed_indexes is not None:
        overlap = failed_overlaps_completed(completed_indexes, failed_indexes, int(completions))
        if overlap:
            errors.append(FieldError.invalid(f"{p}.failedIndexes", failed_indexes, overlap))
    if (finished_changed or changed("terminating")) and terminating is not None and terminating > 0 and finished:
        errors.append(FieldError.invalid(f"{p}.terminating", terminating, "terminating>0 is invalid for finished job"))
    if (changed("ready") or changed("active")) and ready is not None and ready > active:
        errors.append(FieldError.invalid(f"{p}.ready", ready, "cannot set more ready pods than active"))
    if criteria and failed:
        errors.append(FieldError.invalid(conds, OMIT, "cannot set SuccessCriteriaMet=True and Failed=true conditions"))
    if criteria and target:
        errors.append(FieldError.invalid(
            conds, OMIT, "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
    if spec.get("successPolicy") is not None and not criteria and complete:
        errors.append(FieldError.invalid(
            conds, OMIT, "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"))
    # ValidateJobStatusUpdate
    for ctype, was, now in (("Failed", old_failed, failed), ("Complete", old_complete, complete),
                            ("FailureTarget", old_target, target)):
        if was and not now:
            errors.append(FieldError.invalid(conds, OMIT, f"cannot disable the terminal {ctype}=True condition"))
    if int(status.get("failed") or 0) < int(old_status.get("failed") or 0):
        errors.append(FieldError.invalid(f"{p}.failed", int(status.get("failed") or 0),
                                         "cannot decrease the failed counter"))
    reject_succeeded_decrease = not indexed or completions != spec.get("parallelism")
    if reject_succeeded_decrease and int(status.get("succeeded") or 0) < int(old_status.get("succeeded") or 0):
        errors.append(FieldError.invalid(f"{p}.succeeded", int(status.get("succeeded") or 0),
                                         "cannot decrease the succeeded counter"))
    old_completion = old_status.get("completionTime")
    if completion is not None and old_completion is not None and completion != old_completion:
        errors.append(FieldError.invalid(f"{p}.completionTime", completion, "completionTime cannot be mutated"))
    # kubernetes#134521, fixed by #134769 (cherry-picked to 1.32-1.34 patch releases): the Job
    # controller's own resume write (Suspended True -> False) may reset startTime.
    resuming = condition_true(old_status, "Suspended") and any(
        c.get("type") == "Suspended" and c.get("status") == "False" for c in status.get("conditions") or ())
    if old_status.get("startTime") is not None and changed("startTime") and not spec.get("suspend") \
            and not resuming:
        errors.append(FieldError.required(f"{p}.startTime", "startTime cannot be removed for unsuspended job"))
    if old_criteria and not criteria:
        errors.append(FieldError.invalid(conds, OMIT, "cannot disable the SuccessCriteriaMet=True condition"))
    if old_complete and not old_criteria and criteria:
        errors.append(FieldError.invalid(
            conds, OMIT, "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
    return errors


def _uncounted_norm(value: dict[str, Any] | None) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """``apiequality.Semantic.DeepEqual`` on the pointer: nil differs from ``{}``; empty lists equal nil."""
    if value is None:
        return None
    return tuple(value.get("succeeded") or ()), tuple(value.get("failed") or ())
