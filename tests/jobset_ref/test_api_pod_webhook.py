"""Tests for jobset_ref.api.pod_webhook — ports of upstream pkg/webhooks/pod_webhook_test.go
(TestDefault, TestLeaderPodName, TestPodsOwnedBySameJob, TestLeaderPodForFollower) and spec §9/§11."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakekube.errors import ApiError, Forbidden, InternalError, NotFound
from jobset_ref.api.pod_webhook import (
    PodWebhookError,
    default_pod,
    denial_through_apiserver,
    find_leader_pod,
    leader_pod_name,
    pod_name_without_suffix,
    validate_pod_create,
)

ZONE = "topology.kubernetes.io/zone"
MEMBER_LABELS = {"jobset.sigs.k8s.io/jobset-name": "js", "jobset.sigs.k8s.io/replicatedjob-name": "rjob",
                 "jobset.sigs.k8s.io/job-index": "0"}


def owner(uid: str) -> list[dict[str, Any]]:
    return [{"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": uid, "controller": True}]


def pod(name: str, *, index: str | None = None, labels: dict[str, str] | None = None, exclusive: bool = True,
        jobset_annotation: bool = True, uid: str | None = "job-uid-1", node: str | None = None,
        priority: int | None = None, node_selector: dict[str, str] | None = None, phase: str | None = None,
        deleting: bool = False, extra_annotations: dict[str, str] | None = None) -> dict[str, Any]:
    ann: dict[str, str] = {}
    if jobset_annotation:
        ann["jobset.sigs.k8s.io/jobset-name"] = "js"
    if exclusive:
        ann["alpha.jobset.sigs.k8s.io/exclusive-topology"] = ZONE
    if index is not None:
        ann["batch.kubernetes.io/job-completion-index"] = index
    ann.update(extra_annotations or {})
    meta: dict[str, Any] = {"name": name, "namespace": "default",
                            "labels": dict(MEMBER_LABELS if labels is None else labels),
                            "annotations": ann}
    if uid is not None:
        meta["ownerReferences"] = owner(uid)
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    spec: dict[str, Any] = {"containers": [{"name": "c"}]}
    if node is not None:
        spec["nodeName"] = node
    if priority is not None:
        spec["priority"] = priority
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    out: dict[str, Any] = {"metadata": meta, "spec": spec}
    if phase is not None:
        out["status"] = {"phase": phase}
    return out


def index_of(*pods: dict[str, Any]) -> Any:
    def lookup(namespace: str, prefix: str) -> list[dict[str, Any]]:
        return [copy.deepcopy(p) for p in pods
                if p["metadata"]["namespace"] == namespace and pod_name_without_suffix(p) == prefix]
    return lookup


NODES = {"node-a": {"metadata": {"name": "node-a", "labels": {ZONE: "zone-a"}}},
         "node-b": {"metadata": {"name": "node-b", "labels": {}}}}


def get_node(name: str) -> dict[str, Any]:
    if name not in NODES:
        raise NotFound(f'nodes "{name}" not found', details={"name": name, "kind": "nodes"})
    return copy.deepcopy(NODES[name])


def no_lookup(namespace: str, prefix: str) -> list[dict[str, Any]]:
    raise AssertionError("no lookup expected")


LEADER = pod("js-rjob-0-0-abcde", index="0", node="node-a")
LEADER_UNSCHEDULED = pod("js-rjob-0-0-abcde", index="0")
FOLLOWER = pod("js-rjob-0-1-fghij", index="1", priority=100)

# --------------------------------------------------------------------------- Default


def test_default_not_a_jobset_pod() -> None:
    p = pod("p", jobset_annotation=False, priority=5)
    assert default_pod(p, leader_candidates=no_lookup, get_node=get_node) == p


def test_default_node_selector_strategy_skips_everything() -> None:
    p = pod("p", priority=5, extra_annotations={"alpha.jobset.sigs.k8s.io/node-selector": ""})
    assert default_pod(p, leader_candidates=no_lookup, get_node=get_node) == p


@pytest.mark.parametrize(("priority", "want"), [(None, None), (100, "100"), (0, "0"), (-5, "-5")],
                         ids=["no priority", "priority 100", "priority 0", "negative priority"])
def test_default_priority_label(priority: int | None, want: str | None) -> None:
    p = pod("p", exclusive=False, priority=priority)
    p["metadata"].pop("labels")
    got = default_pod(p, leader_candidates=no_lookup, get_node=get_node)
    labels = got["metadata"].get("labels")
    if want is None:
        assert labels is None
    else:
        assert labels == {"jobset.sigs.k8s.io/priority": want}


def test_default_leader_gets_exclusive_affinities_appended() -> None:
    p = pod("js-rjob-0-0-abcde", index="0", priority=7,
            labels={**MEMBER_LABELS, "jobset.sigs.k8s.io/job-key": "js-rjob-0"})
    existing = {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "kubernetes.io/hostname"}
    p["spec"]["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [existing]}}
    before = copy.deepcopy(p)
    got = default_pod(p, leader_candidates=no_lookup, get_node=get_node)
    assert p == before  # pure
    assert got["metadata"]["labels"]["jobset.sigs.k8s.io/priority"] == "7"
    affinity = got["spec"]["affinity"]
    assert affinity["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [existing, {
        "labelSelector": {"matchExpressions": [
            {"key": "jobset.sigs.k8s.io/job-key", "operator": "In", "values": ["js-rjob-0"]}]},
        "topologyKey": ZONE, "namespaceSelector": {}}]
    assert affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [{
        "labelSelector": {"matchExpressions": [
            {"key": "jobset.sigs.k8s.io/job-key", "operator": "Exists"},
            {"key": "jobset.sigs.k8s.io/job-key", "operator": "NotIn", "values": ["js-rjob-0"]},
            {"key": "jobset.sigs.k8s.io/priority", "operator": "In", "values": ["7"]}]},
        "topologyKey": ZONE, "namespaceSelector": {}}]


def test_default_leader_without_labels_uses_empty_values() -> None:
    p = pod("js-rjob-0-0-abcde", index="0", labels={})
    got = default_pod(p, leader_candidates=no_lookup, get_node=get_node)
    anti = got["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert [e.get("values") for e in anti["labelSelector"]["matchExpressions"]] == [None, [""], [""]]


def test_default_follower_leader_not_scheduled() -> None:
    got = default_pod(FOLLOWER, leader_candidates=index_of(LEADER_UNSCHEDULED), get_node=get_node)
    assert "nodeSelector" not in got["spec"]
    assert got["metadata"]["labels"]["jobset.sigs.k8s.io/priority"] == "100"


def test_default_follower_leader_scheduled() -> None:
    follower = copy.deepcopy(FOLLOWER)
    follower["spec"]["nodeSelector"] = {ZONE: "stale", "other": "x"}
    got = default_pod(follower, leader_candidates=index_of(LEADER), get_node=get_node)
    assert got["spec"]["nodeSelector"] == {ZONE: "zone-a", "other": "x"}
    want = copy.deepcopy(follower)
    want["metadata"]["labels"]["jobset.sigs.k8s.io/priority"] = "100"
    want["spec"]["nodeSelector"][ZONE] = "zone-a"
    assert got == want


def test_default_follower_leader_on_missing_node_passes_not_found_through() -> None:
    leader = pod("js-rjob-0-0-abcde", index="0", node="node-z")
    with pytest.raises(NotFound) as info:
        default_pod(FOLLOWER, leader_candidates=index_of(leader), get_node=get_node)
    assert info.value.code == 404 and info.value.message == 'nodes "node-z" not found'


def test_default_follower_node_without_topology_label() -> None:
    leader = pod("js-rjob-0-0-abcde", index="0", node="node-b")
    with pytest.raises(Forbidden) as info:
        default_pod(FOLLOWER, leader_candidates=index_of(leader), get_node=get_node)
    assert info.value.code == 403 and info.value.reason == "Forbidden"
    assert info.value.message == f"node does not have topology label: {ZONE}"


@pytest.mark.parametrize("candidates", [
    index_of(), index_of(LEADER, pod("js-rjob-0-0-zzzzz", index="0", node="node-a")),
    index_of(pod("js-rjob-0-0-abcde", index="0", node="node-a", uid="other")),
], ids=["no leader", "two leaders", "different owner"])
def test_default_follower_lookup_errors_are_swallowed(candidates: Any) -> None:
    got = default_pod(FOLLOWER, leader_candidates=candidates, get_node=get_node)
    assert "nodeSelector" not in got["spec"]


def test_default_follower_lookup_api_error_is_swallowed() -> None:
    def broken(namespace: str, prefix: str) -> list[dict[str, Any]]:
        raise InternalError("boom")

    got = default_pod(FOLLOWER, leader_candidates=broken, get_node=get_node)
    assert "nodeSelector" not in got["spec"]


def test_default_pod_with_index_only_as_label_is_a_follower() -> None:
    p = pod("js-rjob-0-0-abcde", labels={**MEMBER_LABELS, "batch.kubernetes.io/job-completion-index": "0"})
    got = default_pod(p, leader_candidates=index_of(LEADER), get_node=get_node)
    assert got["spec"]["nodeSelector"] == {ZONE: "zone-a"}
    assert "affinity" not in got["spec"]


# --------------------------------------------------------------------------- leader lookup helpers


@pytest.mark.parametrize(("labels", "want"), [
    (MEMBER_LABELS, "js-rjob-0-0"),
    ({"jobset.sigs.k8s.io/jobset-name": "js", "jobset.sigs.k8s.io/replicatedjob-name": "rjob"},
     "pod missing label: jobset.sigs.k8s.io/job-index"),
    ({"jobset.sigs.k8s.io/job-index": "0"}, "pod missing label: jobset.sigs.k8s.io/jobset-name"),
    ({"jobset.sigs.k8s.io/jobset-name": "js", "jobset.sigs.k8s.io/job-index": "0"},
     "pod missing label: jobset.sigs.k8s.io/replicatedjob-name"),
], ids=["ok", "missing job-index", "missing jobset-name", "missing replicatedjob-name"])
def test_leader_pod_name(labels: dict[str, str], want: str) -> None:
    p = pod("x", labels=labels)
    if want.startswith("pod missing"):
        with pytest.raises(PodWebhookError, match=want):
            leader_pod_name(p)
    else:
        assert leader_pod_name(p) == want


@pytest.mark.parametrize(("name", "exclusive", "want"), [
    ("js-rjob-0-0-abcde", True, "js-rjob-0-0"),
    ("a-b-c-d", True, None),
    ("js-rjob-0-0-abcde", False, None),
    ("my-js-rjob-12-3-xyz12", True, "my-js-rjob-12-3"),
], ids=["indexed", "too few parts", "not exclusive", "dashes in names"])
def test_pod_name_without_suffix(name: str, exclusive: bool, want: str | None) -> None:
    assert pod_name_without_suffix(pod(name, exclusive=exclusive)) == want


OWNER_CASES = [
    ("pods owned by the same job", "job-uid-1", "job-uid-1", None),
    ("pods owned by different jobs", "job-uid-2", "job-uid-1",
     "follower pod owner UID (job-uid-1) != leader pod owner UID (job-uid-2)"),
    ("follower pod with no owner", "job-uid-1", None, "follower pod has no owner reference"),
    ("leader pod with no owner", None, "job-uid-1", 'leader pod "js-rjob-0-0-abcde" has no owner reference'),
]


@pytest.mark.parametrize(("leader_uid", "follower_uid", "want"), [c[1:] for c in OWNER_CASES],
                         ids=[c[0] for c in OWNER_CASES])
def test_pods_owned_by_same_job(leader_uid: str | None, follower_uid: str | None, want: str | None) -> None:
    leader = pod("js-rjob-0-0-abcde", index="0", node="node-a", uid=leader_uid)
    follower = pod("js-rjob-0-1-fghij", index="1", uid=follower_uid)
    if want is None:
        assert find_leader_pod(follower, index_of(leader)) == leader
    else:
        with pytest.raises(PodWebhookError) as info:
            find_leader_pod(follower, index_of(leader))
        assert str(info.value) == want


def test_non_controller_owner_reference_is_ignored() -> None:
    follower = pod("js-rjob-0-1-fghij", index="1")
    follower["metadata"]["ownerReferences"][0]["controller"] = False
    with pytest.raises(PodWebhookError, match="follower pod has no owner reference"):
        find_leader_pod(follower, index_of(LEADER))


LOOKUP_CASES = [
    ("valid leader pod exists", [LEADER], None),
    ("no leader pod found", [], "expected 1 leader pod (js-rjob-0-0), but got 0. this is an expected, transient error"),
    ("multiple leader pods found", [LEADER, pod("js-rjob-0-0-qqqqq", index="0")],
     "expected 1 leader pod (js-rjob-0-0), but got 2. this is an expected, transient error"),
    ("leader pod is terminating", [pod("js-rjob-0-0-abcde", index="0", deleting=True)],
     "expected 1 leader pod (js-rjob-0-0), but got 0. this is an expected, transient error"),
    ("active leader alongside failed leader pod", [pod("js-rjob-0-0-qqqqq", index="0", phase="Failed"), LEADER], None),
    ("active leader alongside succeeded leader pod",
     [LEADER, pod("js-rjob-0-0-qqqqq", index="0", phase="Succeeded")], None),
    ("leader lacking the exclusive annotation is not indexed",
     [pod("js-rjob-0-0-abcde", index="0", exclusive=False)],
     "expected 1 leader pod (js-rjob-0-0), but got 0. this is an expected, transient error"),
]


@pytest.mark.parametrize(("existing", "want"), [c[1:] for c in LOOKUP_CASES], ids=[c[0] for c in LOOKUP_CASES])
def test_find_leader_pod(existing: list[dict[str, Any]], want: str | None) -> None:
    if want is None:
        assert find_leader_pod(FOLLOWER, index_of(*existing)) == LEADER
    else:
        with pytest.raises(PodWebhookError) as info:
            find_leader_pod(FOLLOWER, index_of(*existing))
        assert str(info.value) == want


def test_find_leader_refilters_a_superset() -> None:
    other_ns = copy.deepcopy(LEADER)
    other_ns["metadata"]["namespace"] = "elsewhere"
    everything = [LEADER, other_ns, FOLLOWER, pod("js-rjob-1-0-abcde", index="0")]
    assert find_leader_pod(FOLLOWER, lambda ns, prefix: copy.deepcopy(everything)) == LEADER


# --------------------------------------------------------------------------- ValidateCreate

ACCEPTED = [
    ("not a jobset pod", pod("p", jobset_annotation=False, index="1")),
    ("node selector strategy", pod("p", index="1", extra_annotations={"alpha.jobset.sigs.k8s.io/node-selector": "x"})),
    ("no exclusive placement", pod("p", index="1", exclusive=False)),
    ("leader pod", pod("js-rjob-0-0-abcde", index="0")),
    ("follower with selector and scheduled leader", pod("js-rjob-0-1-fghij", index="1", node_selector={ZONE: "wrong"})),
]


@pytest.mark.parametrize("p", [c[1] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_validate_accepts(p: dict[str, Any]) -> None:
    validate_pod_create(p, leader_candidates=index_of(LEADER))


REJECTED = [
    ("follower without node selector", pod("js-rjob-0-1-fghij", index="1"), [LEADER],
     "follower pod node selector not set"),
    ("follower with empty node selector", pod("js-rjob-0-1-fghij", index="1", node_selector={}), [LEADER],
     f"follower pod node selector for topology domain not found. missing selector: {ZONE}"),
    ("follower with other selector", pod("js-rjob-0-1-fghij", index="1", node_selector={"a": "b"}), [LEADER],
     f"follower pod node selector for topology domain not found. missing selector: {ZONE}"),
    ("leader not yet scheduled", pod("js-rjob-0-1-fghij", index="1", node_selector={ZONE: "z"}),
     [LEADER_UNSCHEDULED],
     "leader pod not yet scheduled, not creating follower pod. this is an expected, transient error"),
    ("no leader", pod("js-rjob-0-1-fghij", index="1", node_selector={ZONE: "z"}), [],
     "expected 1 leader pod (js-rjob-0-0), but got 0. this is an expected, transient error"),
    ("missing label", pod("js-rjob-0-1-fghij", index="1", node_selector={ZONE: "z"}, labels={}), [LEADER],
     "pod missing label: jobset.sigs.k8s.io/jobset-name"),
    ("no completion index annotation is a follower", pod("js-rjob-0-0-abcde"), [LEADER],
     "follower pod node selector not set"),
]


@pytest.mark.parametrize(("p", "existing", "message"), [c[1:] for c in REJECTED], ids=[c[0] for c in REJECTED])
def test_validate_rejects(p: dict[str, Any], existing: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(Forbidden) as info:
        validate_pod_create(p, leader_candidates=index_of(*existing))
    assert info.value.code == 403 and info.value.reason == "Forbidden" and info.value.message == message


def test_validate_passes_lookup_api_errors_through() -> None:
    def broken(namespace: str, prefix: str) -> list[dict[str, Any]]:
        raise InternalError("etcd down")

    with pytest.raises(InternalError):
        validate_pod_create(pod("js-rjob-0-1-fghij", index="1", node_selector={ZONE: "z"}), leader_candidates=broken)


def test_denial_through_apiserver() -> None:
    err = denial_through_apiserver(Forbidden("follower pod node selector not set"), "vpod.kb.io")
    assert isinstance(err, ApiError) and err.code == 403 and err.reason == "Forbidden"
    assert err.message == 'admission webhook "vpod.kb.io" denied the request: follower pod node selector not set'
