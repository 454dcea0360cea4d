"""The history invariants' view of a controller that reads from caches in another process."""

from __future__ import annotations

from typing import Any

import pytest

import jobset_ref
from fakekube import FakeCluster
from jobset_ref.api import constants as c
from jobset_ref.testing.invariants import Monitor

JOBSET = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
          "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": {"spec": {
              "containers": [{"name": "c", "image": "busybox"}]}}}}}]}}


def _job(name: str, js_uid: str) -> dict[str, Any]:
    labels = {c.JOBSET_UID_KEY: js_uid, c.REPLICATED_JOB_NAME_KEY: "w", c.JOB_INDEX_KEY: "0", c.RESTARTS_KEY: "0"}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "labels": labels},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "b"}]}}}}


@pytest.mark.parametrize("cached", [False, True])
def test_a_job_created_for_a_deleted_jobset_is_a_second_job_only_in_process(cached: bool) -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    jobset_ref.install(cluster, controller=False)
    monitor = Monitor(cluster, cached_controller=cached)
    uid = cluster.create(JOBSET)["metadata"]["uid"]
    cluster.create(_job("js-w-0", uid))
    assert monitor.check() == []
    cluster.delete("jobsets", "js")
    cluster.create(_job("js-w-0-again", uid))  # a stale cache's create after the JobSet is gone
    found = [v.invariant for v in monitor.check()]
    assert found == ([] if cached else ["one-job-per-attempt"])


def test_a_cached_controller_still_may_not_make_a_second_job_of_a_live_jobset() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    jobset_ref.install(cluster, controller=False)
    monitor = Monitor(cluster, cached_controller=True)
    uid = cluster.create(JOBSET)["metadata"]["uid"]
    cluster.create(_job("js-w-0", uid))
    cluster.create(_job("js-w-0-again", uid))
    assert [v.invariant for v in monitor.check()] == ["one-job-per-attempt"]
