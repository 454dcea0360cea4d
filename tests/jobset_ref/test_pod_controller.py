"""jobset_ref.controller.pod_controller: the event filter and the pod indexes (upstream
``PodReconciler.SetupWithManager`` predicate, ``IndexPodJob``, ``IndexPodName``)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from jobset_ref.api import constants as c
from jobset_ref.api.pod_webhook import is_leader_pod
from jobset_ref.controller.pod_controller import _should_reconcile, index_pod_job, index_pod_name


def pod(*, index: str | None, exclusive: bool, node: str | None, deleting: bool,
        name: str = "js-rjob-0-0-abcde") -> dict[str, Any]:
    ann = {c.JOBSET_NAME_KEY: "js"}
    if index is not None:
        ann[c.JOB_COMPLETION_INDEX_ANNOTATION] = index
    if exclusive:
        ann[c.EXCLUSIVE_KEY] = "zone"
    meta: dict[str, Any] = {"name": name, "namespace": "default", "annotations": ann, "labels": {c.JOB_KEY: "k"}}
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return {"metadata": meta, "spec": {} if node is None else {"nodeName": node}}


@pytest.mark.parametrize(("index", "exclusive", "node", "deleting"),
                         list(itertools.product([None, "0", "1"], [False, True], [None, "", "n1"], [False, True])))
def test_should_reconcile_only_scheduled_live_exclusive_leaders(index: str | None, exclusive: bool,
                                                                node: str | None, deleting: bool) -> None:
    p = pod(index=index, exclusive=exclusive, node=node, deleting=deleting)
    want = is_leader_pod(p) and bool(node) and exclusive and not deleting
    assert _should_reconcile(p) is want


def test_should_reconcile_ignores_malformed_annotations() -> None:
    p = pod(index="0", exclusive=True, node="n1", deleting=False)
    p["metadata"]["annotations"] = ["not", "a", "map"]
    assert _should_reconcile(p) is False


@pytest.mark.parametrize(("name", "exclusive", "want"), [
    ("js-rjob-0-0-abcde", True, ["js-rjob-0-0"]),
    ("a-b-c-d", True, []),
    ("my-js-rjob-1-12-xyz", True, ["my-js-rjob-1-12"]),
    ("js-rjob-0-0-abcde", False, []),
])
def test_indexes(name: str, exclusive: bool, want: list[str]) -> None:
    p = pod(index="1", exclusive=exclusive, node=None, deleting=False, name=name)
    assert index_pod_name(p) == want
    assert index_pod_job(p) == (["k"] if exclusive else [])

