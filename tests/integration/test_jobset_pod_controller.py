"""The exclusive-placement pod controller (spec §10): followers off the leader's domain are evicted."""

from __future__ import annotations

from typing import Any

from fakekube import FakeCluster
from jobset_ref import install
from jobset_ref.api import constants as c

OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "js-w-0", "uid": "job-uid", "controller": True}


def pod(name: str, index: str, *, node: str = "", selector: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}], "restartPolicy": "Never"}
    if node:
        spec["nodeName"] = node
    if selector is not None:
        spec["nodeSelector"] = selector
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "ownerReferences": [dict(OWNER)],
                         "labels": {c.JOBSET_NAME_KEY: "js", c.JOB_KEY: "k1"},
                         "annotations": {c.EXCLUSIVE_KEY: "zone", c.JOB_COMPLETION_INDEX_ANNOTATION: index}},
            "spec": spec}


def setup() -> FakeCluster:
    cluster = FakeCluster(seed=0, simulate=False)
    install(cluster, webhooks=False)
    cluster.add_node("n1", labels={"zone": "a"})
    return cluster


def test_mismatched_follower_is_marked_and_deleted() -> None:
    cluster = setup()
    cluster.create(pod("js-w-0-1-abcde", "1", node="n1", selector={"zone": "b"}))
    cluster.create(pod("js-w-0-2-fghij", "2", node="n1", selector={"zone": "a"}))
    cluster.create(pod("js-w-0-0-klmno", "0", node="n1"))
    for name in ("js-w-0-1-abcde", "js-w-0-2-fghij"):  # every follower goes, even a well-placed one
        follower = cluster.get("pods", name)
        assert follower["metadata"]["deletionTimestamp"] == "2030-01-01T00:00:30Z"  # graceful, 30 s
        conds = [x for x in follower["status"].get("conditions") or [] if x["type"] == "DisruptionTarget"]
        assert conds == [{"type": "DisruptionTarget", "status": "True", "lastTransitionTime": "2030-01-01T00:00:00Z",
                          "reason": "ExclusivePlacementViolation",
                          "message": "Pod violated JobSet exclusive placement policy"}]
    assert not cluster.get("pods", "js-w-0-0-klmno")["metadata"].get("deletionTimestamp")
    assert cluster.events(kind="Pod") == []


def test_matching_followers_are_left_alone() -> None:
    cluster = setup()
    cluster.create(pod("js-w-0-1-abcde", "1", selector={"zone": "a"}))
    cluster.create(pod("js-w-0-0-klmno", "0", node="n1"))
    follower = cluster.get("pods", "js-w-0-1-abcde")
    assert not follower["metadata"].get("deletionTimestamp")
    assert not (follower.get("status") or {}).get("conditions")


def test_unknown_leader_node_is_retried_not_acted_on() -> None:
    cluster = setup()
    cluster.create(pod("js-w-0-1-abcde", "1", selector={"zone": "b"}))
    cluster.create(pod("js-w-0-0-klmno", "0", node="gone"))
    assert not cluster.get("pods", "js-w-0-1-abcde")["metadata"].get("deletionTimestamp")
    assert cluster.trace.grep("leader topology is unknown (node not found)")
