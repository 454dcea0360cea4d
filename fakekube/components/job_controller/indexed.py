"""``indexed_job_utils.go``: the succeeded and failed indexes of an Indexed Job, the first pending
indexes, the pods whose replacement waits for their index's backoff (backoffLimitPerIndex), the
index failure count annotations, the pod name prefix with the index and the
``JOB_COMPLETION_INDEX`` environment variable."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fakekube._core.clock import SimTime
from fakekube.apiserver.kinds.job_indexes import IndexSet
from fakekube.machinery.objects import meta_of

from .backoff import finished_time, remaining_backoff
from .pod_failure_policy import match_pod_failure_policy
from .pods import (
    COMPLETION_INDEX,
    UNKNOWN_INDEX,
    completion_index,
    is_pod_failed,
    is_terminating,
    only_replace_failed_pods,
    phase_of,
    spec_of,
)
from .tracking import SyncCtx, has_finalizer, valid_pods

INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"
INDEX_IGNORED_FAILURE_COUNT = "batch.kubernetes.io/job-index-ignored-failure-count"
COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX"
MAX_GENERATED_NAME_LENGTH = 58


def _annotation_int(pod: dict[str, Any], key: str) -> int:
    text = (meta_of(pod).get("annotations") or {}).get(key)
    if text is None:
        return 0
    try:
        value = int(text)
    except ValueError:
        return 0
    return max(value, 0)


def _index_failure_count(pod: dict[str, Any]) -> int:
    return _annotation_int(pod, INDEX_FAILURE_COUNT)


def _index_absolute_failure_count(pod: dict[str, Any]) -> int:
    """``getIndexAbsoluteFailureCount``: counted plus ignored failures of the index so far."""
    return _annotation_int(pod, INDEX_FAILURE_COUNT) + _annotation_int(pod, INDEX_IGNORED_FAILURE_COUNT)


def calculate_succeeded_indexes(job: dict[str, Any], pods: list[dict[str, Any]]) -> tuple[IndexSet, IndexSet]:
    """``calculateSucceededIndexes``."""
    completions = int(spec_of(job).get("completions") or 0)
    prev = IndexSet.parse((job.get("status") or {}).get("completedIndexes"), completions)
    new = [ix for p in pods
           if phase_of(p) == "Succeeded" and has_finalizer(p)
           and UNKNOWN_INDEX < (ix := completion_index(p)) < completions]
    return prev, prev.with_indexes(new)

def is_index_failed(job: dict[str, Any], pod: dict[str, Any]) -> bool:
    """``isIndexFailed``."""
    counted = False
    if is_pod_failed(pod, job):
        policy = spec_of(job).get("podFailurePolicy")
        if policy is not None:
            _, count, action = match_pod_failure_policy(policy, pod)
            if action == "FailIndex":
                return True
            counted = count
        else:
            counted = True
    return counted and _index_failure_count(pod) >= int(spec_of(job).get("backoffLimitPerIndex") or 0)

def calculate_failed_indexes(job: dict[str, Any], pods: list[dict[str, Any]]) -> IndexSet:
    """``calculateFailedIndexes``."""
    completions = int(spec_of(job).get("completions") or 0)
    text = (job.get("status") or {}).get("failedIndexes")
    prev = IndexSet.parse(text, completions) if text is not None else IndexSet()
    new = [ix for p in pods
           if has_finalizer(p) and UNKNOWN_INDEX < (ix := completion_index(p)) < completions
           and is_index_failed(job, p)]
    return prev.with_indexes(new)

def pods_with_delayed_deletion(ctx: SyncCtx) -> dict[int, dict[str, Any]]:
    """``getPodsWithDelayedDeletionPerIndex``: per index, the last failed pod still to be replaced."""
    active_indexes = {completion_index(p) for p in ctx.active_pods}
    out: dict[int, dict[str, Any]] = {}
    completions = int(spec_of(ctx.job).get("completions") or 0)
    for pod in valid_pods(ctx, set(), lambda p: is_pod_failed(p, ctx.job)):
        ix = completion_index(pod)
        if ix == UNKNOWN_INDEX or ix >= completions:
            continue
        if ctx.succeeded_indexes.has(ix) or ix in active_indexes or (
                ctx.failed_indexes is not None and ctx.failed_indexes.has(ix)):
            continue
        last = out.get(ix)
        if last is None or (_index_absolute_failure_count(last) <= _index_absolute_failure_count(pod)
                            and finished_time(pod) >= finished_time(last)):
            out[ix] = pod
    return out


def new_index_failure_counts(job: dict[str, Any], replaced: dict[str, Any] | None) -> tuple[int, int]:
    """``getNewIndexFailureCounts``."""
    if replaced is None:
        return 0, 0
    counted, ignored = _index_failure_count(replaced), _annotation_int(replaced, INDEX_IGNORED_FAILURE_COUNT)
    policy = spec_of(job).get("podFailurePolicy")
    if policy is not None and not match_pod_failure_policy(policy, replaced)[1]:
        ignored += 1
    else:
        counted += 1
    return counted, ignored

def creation_info_per_index(indexes: list[int], delayed: dict[int, dict[str, Any]],
                            now: SimTime) -> tuple[list[int], SimTime]:
    """``getPodCreationInfoForIndependentIndexes``: of ``indexes``, those whose backoff is over at
    ``now``, else none and the shortest time left."""
    now_indexes: list[int] = []
    minimum: SimTime | None = None
    for ix in indexes:
        last = delayed.get(ix)
        remaining = 0 if last is None else remaining_backoff(
            now, _index_absolute_failure_count(last) + 1, finished_time(last))
        if remaining == 0:
            now_indexes.append(ix)
        elif minimum is None or remaining < minimum:
            minimum = remaining
    if now_indexes:
        return now_indexes, 0
    return now_indexes, minimum or 0

def first_pending_indexes(ctx: SyncCtx, count: int, completions: int) -> list[int]:
    """``firstPendingIndexes``: the lowest indexes neither succeeded, failed, active nor
    (policy Failed) terminating."""
    if count == 0:
        return []
    busy = {completion_index(p) for p in ctx.active_pods}
    non_pending = ctx.succeeded_indexes.with_indexes(ix for ix in busy if ix != UNKNOWN_INDEX)
    if only_replace_failed_pods(ctx.job):
        non_pending = non_pending.with_indexes(
            ix for p in ctx.pods if is_terminating(p) and (ix := completion_index(p)) != UNKNOWN_INDEX)
    if ctx.failed_indexes is not None:
        non_pending = non_pending.merge(ctx.failed_indexes)
    out: list[int] = []
    candidate = 0
    for first, last in non_pending.intervals:
        while candidate < completions and len(out) < count and candidate < first:
            out.append(candidate)
            candidate += 1
        candidate = max(candidate, last + 1)
    while candidate < completions and len(out) < count:
        out.append(candidate)
        candidate += 1
    return out

def generate_name_with_index(job_name: str, index: int) -> str:
    """``podGenerateNameWithIndex``: cut the Job name so ``-<index>-`` survives the 58-char limit."""
    suffix = f"-{index}-"
    prefix = job_name + suffix
    if len(prefix) > MAX_GENERATED_NAME_LENGTH:
        prefix = job_name[: MAX_GENERATED_NAME_LENGTH - len(suffix)] + suffix
    return prefix


def add_completion_index_env(template: dict[str, Any]) -> None:
    """``addCompletionIndexEnvVariables`` (PodIndexLabel on: the label is the field path)."""
    spec = template.get("spec") or {}
    containers: Iterable[dict[str, Any]] = (spec.get("initContainers") or []) + (spec.get("containers") or [])
    for container in containers:
        env = container.setdefault("env", [])
        if any(e.get("name") == COMPLETION_INDEX_ENV for e in env):
            continue
        # apiVersion "v1" is what the API server's SetDefaults_ObjectFieldSelector stores.
        env.append({"name": COMPLETION_INDEX_ENV, "valueFrom": {"fieldRef": {
            "apiVersion": "v1", "fieldPath": f"metadata.labels['{COMPLETION_INDEX}']"}}})
