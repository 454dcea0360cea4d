"""The JobSet controllers' informer indexes read only the fields they declare (``uses=``), so
an index is never left stale by a change to a field it reads but did not declare."""

from __future__ import annotations

from typing import Any

from fakekube import FakeCluster
from fakekube.testing.builders import make_job, make_pod
from jobset_ref import install
from jobset_ref.api import constants as c
from jobset_ref.controller.pod_controller import POD_JOB_KEY_INDEX


def _names(objs: list[dict[str, Any]]) -> list[str]:
    return [o["metadata"]["name"] for o in objs]


def test_every_jobset_index_finds_its_objects_through_its_declared_fields() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    installation = install(cluster, {c.FEATURE_IN_PLACE_RESTART: True}, webhooks=False)
    pod = make_pod("js-rj-0-0-abcde", labels={c.JOBSET_NAME_KEY: "js", c.JOB_KEY: "key-1"},
                   annotations={c.EXCLUSIVE_KEY: "pool"})
    cluster.create(pod, namespace="team")
    job = make_job("js-rj-0")
    job["metadata"]["ownerReferences"] = [{"apiVersion": c.API_VERSION, "kind": c.KIND, "name": "js",
                                           "uid": "uid-js", "controller": True}]
    cluster.create(job, namespace="team")
    reconciler, pods = installation.reconciler, installation.pod_controller.pods
    assert _names(reconciler.pods.by_index(c.PODS_INDEX_BY_JOBSET_KEY, "team/js")) == ["js-rj-0-0-abcde"]
    assert _names(reconciler.jobs.by_index(c.JOBS_INDEX_BY_JOBSET_KEY, "uid-js")) == ["js-rj-0"]
    assert _names(pods.by_index(POD_JOB_KEY_INDEX, "key-1")) == ["js-rj-0-0-abcde"]
    assert _names(pods.by_index(c.POD_NAME_KEY, "js-rj-0-0")) == ["js-rj-0-0-abcde"]
