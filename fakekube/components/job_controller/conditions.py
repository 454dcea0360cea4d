"""The Job's conditions: ``newCondition``, ``ensureJobConditionStatus``, and the end of a Job
(``enactJobFinished``, ``recordJobFinished``), all of ``job_controller.go``."""

from __future__ import annotations

from typing import Any

from fakekube._core.clock import SimTime, format_time
from fakekube.machinery.objects import Condition
from fakekube.runtime.events import NORMAL, WARNING, EventRecorder

from .pods import spec_of


def new_condition(ctype: str, status: str, reason: str, message: str, now: SimTime) -> Condition:
    """``newCondition``: both times set to now."""
    stamp = format_time(now)
    return {"type": ctype, "status": status, "lastProbeTime": stamp, "lastTransitionTime": stamp,
            "reason": reason, "message": message}


def ensure_condition(status: dict[str, Any], ctype: str, cstatus: str, reason: str, message: str,
                     now: SimTime) -> bool:
    """``ensureJobConditionStatus``: update in place, append only non-False conditions."""
    conditions = status.setdefault("conditions", [])
    for i, cond in enumerate(conditions):
        if cond.get("type") == ctype:
            if cond.get("status") != cstatus or cond.get("reason") != reason or cond.get("message") != message:
                conditions[i] = new_condition(ctype, cstatus, reason, message, now)
                return True
            return False
    if cstatus != "False":
        conditions.append(new_condition(ctype, cstatus, reason, message, now))
        return True
    if not conditions:
        status.pop("conditions", None)
    return False


def is_success_criteria(cond: Condition | None) -> bool:
    return cond is not None and cond.get("type") == "SuccessCriteriaMet"


def enact_job_finished(job: dict[str, Any], finished: Condition | None, terminating: int,
                       now: SimTime) -> bool:
    """``enactJobFinished``: add the terminal condition ``finished`` to ``job``'s status once
    nothing is uncounted or ``terminating``."""
    if finished is None:
        return False
    status = job.setdefault("status", {})
    uncounted = status.get("uncountedTerminatedPods") or {}
    if uncounted.get("succeeded") or uncounted.get("failed"):
        return False
    if terminating > 0:
        return False
    ensure_condition(status, finished["type"], finished["status"], finished["reason"], finished["message"], now)
    if finished["type"] == "Complete":
        status["completionTime"] = finished["lastTransitionTime"]
    return True

def record_job_finished(recorder: EventRecorder, job: dict[str, Any], finished: Condition | None) -> None:
    """``recordJobFinished``: the Completed / failure-reason event."""
    if finished is None:
        return
    if finished["type"] == "Complete":
        completions = spec_of(job).get("completions")
        if completions is not None and int((job.get("status") or {}).get("succeeded") or 0) > int(completions):
            recorder.event(job, WARNING, "TooManySucceededPods",
                           "Too many succeeded pods running after completion count reached")
        recorder.event(job, NORMAL, "Completed", "Job completed")
    else:
        recorder.event(job, WARNING, finished["reason"], finished["message"])

