"""Kueue's validation through the API server: the CRD schema (OpenAPI and CEL, 422 Invalid) runs
before the webhooks (403 Forbidden with the aggregate message), as in a real cluster.

Ported from ``test/integration/singlecluster/webhook/core/clusterqueue_test.go`` ("Validate
ClusterQueue on creation", v0.19.2): each entry's id is upstream's; the matcher is the class of
error (``BeForbiddenError`` / ``BeInvalidError``) or success. Plus the messages and Status shapes a
user sees, and the resource-in-use finalizers."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakekube import FakeCluster, Forbidden, Invalid
from fakekube.components.kueue import install_core
from tests.kueue.wrappers import (
    ClusterQueue,
    Cohort,
    FlavorQuotas,
    LocalQueue,
    PodSet,
    ResourceFlavor,
    Workload,
    admission,
    assignment,
    container_for_request,
)


@pytest.fixture(scope="module")
def fc() -> FakeCluster:
    cluster = FakeCluster(seed=0)
    install_core(cluster)
    return cluster


OK = None


def _cq_raw(groups: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = dict(spec)
    if groups is not None:
        body["resourceGroups"] = groups
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"},
            "spec": body}


def _fair(weight: str) -> dict[str, Any]:
    return _cq_raw(fairSharing={"weight": weight})


CQ = ClusterQueue
FQ = FlavorQuotas


def _many_resources(n: int) -> FlavorQuotas:
    fq = FQ("flavor")
    for i in range(n):
        fq.resource(f"r{i}")
    return fq



CREATE_ENTRIES: list[tuple[str, Any, type[Exception] | None]] = [
    ("Should have non-negative borrowing limit",
     CQ("cluster-queue").resource_group(FQ("x86").resource("cpu", "2", "-1")).cohort("cohort"), Forbidden),
    ("Should have non-negative quota value", CQ("cluster-queue").resource_group(FQ("x86").resource("cpu", "-1")),
     Forbidden),
    ("Should have at least one flavor", _cq_raw([{"coveredResources": [], "flavors": []}]), Invalid),
    ("Should have at least one resource", CQ("cluster-queue").resource_group(FQ("foo")), Invalid),
    ("Should have qualified flavor name", CQ("cluster-queue").resource_group(FQ("invalid_name").resource("cpu", "5")),
     Invalid),
    ("Should have qualified resource name", CQ("cluster-queue").resource_group(FQ("x86").resource("@cpu", "5")),
     Forbidden),
    ("Should have valid resources quantity",
     CQ("cluster-queue").resource_group(_many_resources(65)), Invalid),
    ("Should have valid flavors quantity",
     CQ("cluster-queue").resource_group(*[FQ(f"f{i}").resource("cpu") for i in range(65)]), Invalid),
    ("Should forbid clusterQueue creation with unqualified labelSelector",
     CQ("cluster-queue").namespace_selector({"matchLabels": {"nospecialchars^=@": "bar"}}), Forbidden),
    ("Should forbid to create clusterQueue with unknown clusterQueueingStrategy",
     CQ("cluster-queue").queueing_strategy("unknown"), Invalid),
    ("Should allow to create clusterQueue with empty preemption", CQ("cluster-queue").preemption(), OK),
    ("Should allow to create clusterQueue with preemption policies",
     CQ("cluster-queue").preemption(reclaimWithinCohort="Any", withinClusterQueue="LowerPriority"), OK),
    ("Should forbid to create clusterQueue with unknown preemption.withinCohort",
     CQ("cluster-queue").preemption(reclaimWithinCohort="unknown"), Invalid),
    ("Should forbid to create clusterQueue with unknown preemption.withinClusterQueue",
     CQ("cluster-queue").preemption(withinClusterQueue="unknown"), Invalid),
    ("Should allow to create clusterQueue with built-in resources with qualified names",
     CQ("cluster-queue").resource_group(FQ("default").resource("cpu")), OK),
    ("Should forbid to create clusterQueue with invalid resource name",
     CQ("cluster-queue").resource_group(FQ("default").resource("@cpu")), Forbidden),
    ("Should allow to create clusterQueue with valid cohort", CQ("cluster-queue").cohort("prod"), OK),
    ("Should forbid to create clusterQueue with invalid cohort", CQ("cluster-queue").cohort("@prod"), Invalid),
    ("Should allow to create clusterQueue with extended resources with qualified names",
     CQ("cluster-queue").resource_group(FQ("default").resource("example.com/gpu")), OK),
    ("Should allow to create clusterQueue with flavor with qualified names",
     CQ("cluster-queue").resource_group(FQ("x86").resource("cpu")), OK),
    ("Should forbid to create clusterQueue with flavor with unqualified names",
     CQ("cluster-queue").resource_group(FQ("invalid_name")), Invalid),
    ("Should forbid to create clusterQueue with flavor quota with negative value",
     CQ("cluster-queue").resource_group(FQ("x86").resource("cpu", "-1")), Forbidden),
    ("Should allow to create clusterQueue with flavor quota with zero values",
     CQ("cluster-queue").resource_group(FQ("x86").resource("cpu", "0")), OK),
    ("Should allow to create clusterQueue with flavor quota with borrowingLimit 0",
     CQ("cluster-queue").resource_group(FQ("x86").resource("cpu", "1", "0")).cohort("cohort"), OK),
    ("Should forbid to create clusterQueue with flavor quota with negative borrowingLimit",
     CQ("cluster-queue").resource_group(FQ("x86").resource("cpu", "1", "-1")).cohort("cohort"), Forbidden),
    ("Should forbid to create clusterQueue with flavor quota with borrowingLimit and empty cohort",
     CQ("cluster-queue").resource_group(FQ("x86").resource("cpu", "1", "1")), Invalid),
    ("Should allow to create clusterQueue with empty queueing strategy",
     _cq_raw(namespaceSelector={}), OK),
    ("Should forbid to create clusterQueue with namespaceSelector with invalid expressions",
     CQ("cluster-queue").namespace_selector({"matchExpressions": [{"key": "key", "operator": "In"}]}), Forbidden),
    ("Should allow to create clusterQueue with multiple resource groups",
     CQ("cluster-queue")
     .resource_group(FQ("alpha").resource("cpu", "0").resource("memory", "0"),
                     FQ("beta").resource("cpu", "0").resource("memory", "0"))
     .resource_group(FQ("gamma").resource("example.com/gpu", "0"), FQ("omega").resource("example.com/gpu", "0")), OK),
    ("Should forbid to create clusterQueue with resources in a flavor in different order",
     _cq_raw([{"coveredResources": ["cpu", "memory"],
               "flavors": [FQ("alpha").resource("cpu", "0").resource("memory", "0").obj(),
                           FQ("beta").resource("memory", "0").resource("cpu", "0").obj()]}]), Forbidden),
    ("Should forbid to create clusterQueue missing resources in a flavor",
     _cq_raw([{"coveredResources": ["cpu", "memory"], "flavors": [FQ("alpha").resource("cpu", "0").obj()]}]),
     Invalid),
    ("Should forbid to create clusterQueue missing resources in a flavor and mismatch",
     _cq_raw([{"coveredResources": ["blah"],
               "flavors": [FQ("alpha").resource("cpu", "0").resource("memory", "0").obj()]}]), Invalid),
    ("Should forbid to create clusterQueue with resource in more than one resource group",
     CQ("cluster-queue").resource_group(FQ("alpha").resource("cpu", "0").resource("memory", "0"))
     .resource_group(FQ("beta").resource("memory", "0")), Forbidden),
    ("Should forbid to create clusterQueue with flavor in more than one resource group",
     CQ("cluster-queue").resource_group(FQ("alpha").resource("cpu"), FQ("beta").resource("cpu"))
     .resource_group(FQ("beta").resource("memory")), Forbidden),
    ("Should forbid to create clusterQueue missing with invalid preemption due to reclaimWithinCohort=Never, while "
     "borrowWithinCohort!=nil",
     _cq_raw(preemption={"reclaimWithinCohort": "Never", "borrowWithinCohort": {"policy": "LowerPriority"}}), Invalid),
    ("Should allow to create clusterQueue with valid preemption with borrowWithinCohort",
     _cq_raw(preemption={"reclaimWithinCohort": "LowerPriority",
                         "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 10}}), OK),
    ("Should allow to create clusterQueue with existing cluster queue created with older Kueue version that has a nil "
     "borrowWithinCohort field", _cq_raw(preemption={"reclaimWithinCohort": "Never"}), OK),
    ("Should allow zero FairSharing weight", _fair("0"), OK),
    ("Should allow fractional FairSharing weight", _fair("0.1"), OK),
    ("Should allow small FairSharing weight", _fair("1m"), OK),
    ("Should allow even smaller FairSharing weight", _fair("1u"), OK),
    ("Should allow smallest FairSharing weight", _fair("2n"), OK),
    ("Should forbid threshold FairSharing weight", _fair("1n"), Forbidden),
    ("Should forbid collapsed FairSharing weight", _fair("0.0000000001"), Forbidden),
    ("Should forbid negative FairSharing weight", _fair("-1"), Forbidden),
]


@pytest.mark.parametrize(("cq", "error"), [pytest.param(*entry[1:], id=entry[0]) for entry in CREATE_ENTRIES])
def test_validate_cluster_queue_on_creation(fc: FakeCluster, cq: Any, error: type[Exception] | None) -> None:
    body = cq if isinstance(cq, dict) else cq.obj()
    try:
        if error is None:
            created = fc.create(body)
            spec = created["spec"]
            assert spec["queueingStrategy"]  # defaults are set
            if "preemption" in spec:
                assert spec["preemption"]["reclaimWithinCohort"] and spec["preemption"]["withinClusterQueue"]
        else:
            with pytest.raises(error):
                fc.create(body)
    finally:
        if fc.exists("ClusterQueue", "cluster-queue", None):
            fc.delete("ClusterQueue", "cluster-queue", None)
            fc.run_until_idle()


def test_webhook_denial_is_forbidden_with_the_aggregate_message(fc: FakeCluster) -> None:
    cq = CQ("bad-cq").resource_group(FQ("alpha").resource("cpu", "-1").resource("memory", "-1"))
    with pytest.raises(Forbidden) as err:
        fc.create(cq.obj())
    assert err.value.status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "code": 403, "reason": "Forbidden",
        "message": 'admission webhook "vclusterqueue.kb.io" denied the request: '
                   '[spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: "-1": '
                   "must be greater than or equal to 0, "
                   'spec.resourceGroups[0].flavors[0].resources[1].nominalQuota: Invalid value: "-1": '
                   "must be greater than or equal to 0]"}


def test_cohort_webhook_lending_limit_needs_a_parent(fc: FakeCluster) -> None:
    with pytest.raises(Forbidden, match=r'admission webhook "vcohort.kb.io" denied the request: '
                       r'spec.resourceGroups\[0\].flavors\[0\].resources\[0\].lendingLimit: Invalid value: "1": '
                       r"must be nil when parent is empty$"):
        fc.create(Cohort("co").resource_group(FQ("x86").resource("cpu", "1", "", "1")).obj())
    # With a parent, a Cohort's lendingLimit may exceed its nominal quota (unlike a ClusterQueue's).
    fc.create(Cohort("co").parent("root").resource_group(FQ("x86").resource("cpu", "1", "", "5")).obj())
    fc.delete("Cohort", "co", None)


def test_resource_flavor_webhook_and_cel(fc: FakeCluster) -> None:
    with pytest.raises(Forbidden, match=r'admission webhook "vresourceflavor.kb.io" denied the request: '
                       r'spec.nodeTaints\[1\]: Duplicate value: .*: taints must be unique by key and effect pair'):
        fc.create(ResourceFlavor("rf").taint(key="spot", value="true", effect="NoSchedule")
                  .taint(key="spot", value="false", effect="NoSchedule").obj())
    with pytest.raises(Invalid, match="supported taint effect values"):
        fc.create(ResourceFlavor("rf").taint(key="spot", effect="Sometimes").obj())
    with pytest.raises(Invalid, match="operator must be Exists when 'key' is empty"):
        fc.create(ResourceFlavor("rf").toleration(operator="Equal", value="x").obj())


def test_workload_webhook_messages(fc: FakeCluster) -> None:
    with pytest.raises(Forbidden) as err:
        fc.create(Workload("w").pod_sets(PodSet("main", 2).request("cpu", "-1").request("pods", "1")).obj())
    assert err.value.message == (
        'admission webhook "vworkload.kb.io" denied the request: '
        '[spec.podSets[0].template.spec.containers[0].resources.requests[cpu]: Invalid value: "-1": '
        "must be greater than or equal to 0, "
        'spec.podSets[0].template.spec.containers[0].resources.requests[pods]: Invalid value: "pods": '
        "the key is reserved for internal kueue use]")
    with pytest.raises(Invalid, match=r"spec.podSets\[0\].template.spec.containers: Required value"):
        fc.create({**Workload("w").obj(), "spec": {"podSets": [{"name": "main", "count": 1,
                                                                 "template": {"spec": {}}}]}})


def test_workload_cel_rules_while_quota_reserved() -> None:
    fc = FakeCluster(seed=0)
    install_core(fc)
    fc.apply(ResourceFlavor("default").obj())
    fc.apply(CQ("cq").resource_group(FQ("default").resource("cpu", "4")).obj())
    fc.apply(LocalQueue("a", "default", "cq").obj())
    fc.apply(Workload("held").queue("a").request("cpu", "1").obj())
    fc.run_until_idle()
    assert fc.get("Workload", "held")["status"]["admission"]["clusterQueue"] == "cq"
    with pytest.raises(Invalid, match="queueName is immutable while workload quota reserved"):
        fc.patch("Workload", "held", {"spec": {"queueName": "b"}})
    obj = fc.get("Workload", "held")
    obj["spec"]["podSets"][0]["count"] = 2
    with pytest.raises(Forbidden, match=r'"vworkload.kb.io" denied the request: spec.podSets.0: Invalid value: '
                                        r".*: field is immutable$"):
        fc.update(obj)
    obj = fc.get("Workload", "held")
    obj["status"]["admission"]["podSetAssignments"].append({"name": "extra"})
    with pytest.raises(Invalid, match="podSetAssignments must have the same number of podSets as the spec"):
        fc.update_status(obj)


def test_cluster_queue_and_flavor_keep_their_finalizer_while_in_use() -> None:
    fc = FakeCluster(seed=0)
    install_core(fc)
    fc.apply(ResourceFlavor("default").obj())
    fc.apply(CQ("cq").resource_group(FQ("default").resource("cpu", "4")).obj())
    fc.apply(LocalQueue("lq", "default", "cq").obj())
    fc.apply(Workload("w").queue("lq").request("cpu", "1").obj())
    fc.run_until_idle()
    assert fc.get("ClusterQueue", "cq", None)["metadata"]["finalizers"] == ["kueue.x-k8s.io/resource-in-use"]
    assert fc.get("ResourceFlavor", "default", None)["metadata"]["finalizers"] == ["kueue.x-k8s.io/resource-in-use"]
    fc.delete("ResourceFlavor", "default", None)
    fc.delete("ClusterQueue", "cq", None)
    fc.run_until_idle()
    cq = fc.get("ClusterQueue", "cq", None)  # the workload still reserves quota: Terminating
    active = next(c for c in cq["status"]["conditions"] if c["type"] == "Active")
    assert (active["status"], active["reason"]) == ("False", "Terminating")
    assert fc.exists("ResourceFlavor", "default", None)  # the ClusterQueue still names it
    fc.delete("Workload", "w")
    fc.run_until_idle()
    assert not fc.exists("ClusterQueue", "cq", None)
    assert not fc.exists("ResourceFlavor", "default", None)


def _cohort_raw(groups: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": "cohort"},
            "spec": {"resourceGroups": groups, **spec}}


def _fair_cohort(weight: str) -> dict[str, Any]:
    return {**Cohort("cohort").obj(), "spec": {"fairSharing": {"weight": weight}}}


def _lending(nominal: str, lending: str) -> dict[str, Any]:
    return {"name": "x86", "resources": [{"name": "cpu", "nominalQuota": nominal, "lendingLimit": lending}]}


CO = Cohort

# test/integration/singlecluster/webhook/core/cohort_test.go, "Validate Cohort on creation".
COHORT_ENTRIES: list[tuple[str, Any, type[Exception] | None]] = [
    ("Should disallow empty name", {**CO("").obj(), "metadata": {"name": ""}}, Invalid),
    ("Should allow default Cohort", CO("cohort"), OK),
    ("Should allow valid parent name", CO("cohort").parent("prod"), OK),
    ("Should reject invalid parent name", CO("cohort").parent("@prod"), Invalid),
    ("ResourceGroup should have at least one flavor", _cohort_raw([{"coveredResources": [], "flavors": []}]), Invalid),
    ("FlavorQuota should have at least one resource", CO("cohort").resource_group(FQ("foo")), Invalid),
    ("Should reject invalid flavor name", CO("cohort").resource_group(FQ("@x86").resource("cpu", "5")), Invalid),
    ("Should allow valid resource name", CO("cohort").resource_group(FQ("x86").resource("@cpu", "5")), Forbidden),
    ("Should reject too many flavors in resource group",
     CO("cohort").resource_group(*[FQ(f"f{i}").resource("cpu") for i in range(65)]), Invalid),
    ("Should reject too many resources in resource group",
     CO("cohort").resource_group(_many_resources(65)), Invalid),
    ("Should allow resource with valid name", CO("cohort").resource_group(FQ("default").resource("cpu")), OK),
    ("Should reject resource with invalid name", CO("cohort").resource_group(FQ("default").resource("@cpu")),
     Forbidden),
    ("Should allow extended resources with valid name",
     CO("cohort").resource_group(FQ("default").resource("example.com/gpu")), OK),
    ("Should allow flavor with valid name", CO("cohort").resource_group(FQ("x86").resource("cpu")), OK),
    ("Should reject flavor with invalid name", CO("cohort").resource_group(FQ("x_86").resource("cpu")), Invalid),
    ("Should reject negative nominal quota", CO("cohort").resource_group(FQ("x86").resource("cpu", "-1")), Forbidden),
    ("Should reject negative borrowing limit", CO("cohort").resource_group(FQ("x86").resource("cpu", "1", "-1")),
     Forbidden),
    ("Should reject negative lending limit", CO("cohort").resource_group(FQ("x86").resource("cpu", "1", "", "-1")),
     Forbidden),
    ("Should reject borrowingLimit when no parent", CO("cohort").resource_group(FQ("x86").resource("cpu", "1", "1")),
     Forbidden),
    ("Should allow borrowingLimit 0 when parent exists",
     CO("cohort").resource_group(FQ("x86").resource("cpu", "1", "0")).parent("parent"), OK),
    ("Should allow borrowingLimit when parent exists",
     CO("cohort").resource_group(FQ("x86").resource("cpu", "1", "1")).parent("parent"), OK),
    ("Should reject lendingLimit when no parent", CO("cohort").resource_group(_lending("1", "1")), Forbidden),
    ("Should allow lendingLimit when parent exists", CO("cohort").resource_group(_lending("1", "1")).parent("parent"),
     OK),
    ("Should allow lendingLimit 0 when parent exists",
     CO("cohort").resource_group(_lending("0", "0")).parent("parent"), OK),
    ("Should allow lending limit to exceed nominal quota",
     CO("cohort").resource_group(_lending("3", "5")).parent("parent"), OK),
    ("Should allow multiple resource groups",
     CO("cohort")
     .resource_group(FQ("alpha").resource("cpu", "0").resource("memory", "0"),
                     FQ("beta").resource("cpu", "0").resource("memory", "0"))
     .resource_group(FQ("gamma").resource("example.com/gpu", "0"), FQ("omega").resource("example.com/gpu", "0")), OK),
    ("Should reject resources in a flavor in different order",
     _cohort_raw([{"coveredResources": ["cpu", "memory"],
                   "flavors": [FQ("alpha").resource("cpu", "0").resource("memory", "0").obj(),
                               FQ("beta").resource("memory", "0").resource("cpu", "0").obj()]}]), Forbidden),
    ("Should reject missing resources in a flavor",
     _cohort_raw([{"coveredResources": ["cpu", "memory"], "flavors": [FQ("alpha").resource("cpu", "0").obj()]}]),
     Invalid),
    ("Should reject resource not defined in resource group",
     _cohort_raw([{"coveredResources": ["cpu"],
                   "flavors": [FQ("alpha").resource("cpu", "0").resource("memory", "0").obj()]}]), Invalid),
    ("Should reject resource in more than one resource group",
     CO("cohort").resource_group(FQ("alpha").resource("cpu", "0").resource("memory", "0"))
     .resource_group(FQ("beta").resource("memory", "0")), Forbidden),
    ("Should reject flavor in more than one resource group",
     CO("cohort").resource_group(FQ("alpha").resource("cpu"), FQ("beta").resource("cpu"))
     .resource_group(FQ("beta").resource("memory")), Forbidden),
    ("Should allow FairSharing weight", _fair_cohort("1"), OK),
    ("Should allow zero FairSharing weight", _fair_cohort("0"), OK),
    ("Should forbid negative FairSharing weight", _fair_cohort("-1"), Forbidden),
    ("Should allow fractional FairSharing weight", _fair_cohort("0.5"), OK),
    ("Should allow small FairSharing weight", _fair_cohort("1m"), OK),
    ("Should allow even smaller FairSharing weight", _fair_cohort("1u"), OK),
    ("Should allow smallest FairSharing weight", _fair_cohort("2n"), OK),
    ("Should forbid threshold FairSharing weight", _fair_cohort("1n"), Forbidden),
    ("Should forbid collapsed FairSharing weight", _fair_cohort("0.0000000001"), Forbidden),
]


@pytest.mark.parametrize(("cohort", "error"), [pytest.param(*entry[1:], id=entry[0]) for entry in COHORT_ENTRIES])
def test_validate_cohort_on_creation(fc: FakeCluster, cohort: Any, error: type[Exception] | None) -> None:
    body = cohort if isinstance(cohort, dict) else cohort.obj()
    try:
        if error is None:
            fc.create(body)
        else:
            with pytest.raises(error):
                fc.create(body)
    finally:
        if fc.exists("Cohort", "cohort", None):
            fc.delete("Cohort", "cohort", None)
            fc.run_until_idle()


# test/integration/singlecluster/webhook/core/workload_test.go ("Workload defaulting webhook",
# "Workload validating webhook": "When creating a Workload").
WL = "workload-test"


def _unnamed_pod_set() -> dict[str, Any]:
    ps = PodSet("", 1).containers({}).obj()
    del ps["name"]  # Go's empty name is omitted on the wire (omitempty): the CRD default applies
    return ps


def test_should_set_default_pod_set_name(fc: FakeCluster) -> None:
    created = fc.create(Workload(WL).pod_sets(_unnamed_pod_set()).obj())
    assert created["spec"]["podSets"][0]["name"] == "main"
    fc.delete("Workload", WL)


def test_shouldnt_set_pod_set_name_if_multiple(fc: FakeCluster) -> None:
    with pytest.raises(Invalid, match=r'spec.podSets\[1\]: Duplicate value: \{"name":"main"\}'):
        fc.create(Workload(WL).pod_sets(_unnamed_pod_set(), _unnamed_pod_set()).obj())


@pytest.mark.parametrize(("pod_sets", "count", "invalid"), [
    pytest.param(0, 1, True, id="podSets count less than 1"),
    pytest.param(18, 1, False, id="podSets count at the maximum"),
    pytest.param(19, 1, True, id="podSets count more than the maximum"),
    pytest.param(3, 0, False, id="valid podSet, count can be 0"),
    pytest.param(3, 3, False, id="valid podSet"),
])
def test_should_have_valid_pod_set_when_creating(fc: FakeCluster, pod_sets: int, count: int, invalid: bool) -> None:
    body = Workload(WL).pod_sets(*[PodSet(f"ps{i}", count) for i in range(pod_sets)]).obj()
    if invalid:
        with pytest.raises(Invalid):
            fc.create(body)
    else:
        fc.create(body)
        fc.delete("Workload", WL)


def _ref(group: str, kind: str, name: str = "low") -> dict[str, str]:
    return {"group": group, "kind": kind, "name": name}


def _with_spec(w: Workload, **spec: Any) -> dict[str, Any]:
    body = w.obj()
    body["spec"].update(spec)
    return body


KUEUE_REF, POD_REF = ("kueue.x-k8s.io", "WorkloadPriorityClass"), ("scheduling.k8s.io", "PriorityClass")

WORKLOAD_ENTRIES: list[tuple[str, Any, type[Exception] | None]] = [
    ("valid workload", Workload(WL).pod_sets(PodSet("driver", 1), PodSet("workers", 100)), OK),
    ("invalid podSet name", Workload(WL).pod_sets(PodSet("@driver", 1)), Invalid),
    ("invalid priorityClassRef.name", _with_spec(Workload(WL), priorityClassRef=_ref(*POD_REF, "invalid_class"),
                                                 priority=0), Invalid),
    ("invalid priorityClassRef.group", _with_spec(Workload(WL), priorityClassRef=_ref("test", POD_REF[1]),
                                                  priority=100), Invalid),
    ("invalid priorityClassRef.kind", _with_spec(Workload(WL), priorityClassRef=_ref(POD_REF[0], "test"),
                                                 priority=100), Invalid),
    ("incompatible priorityClassRef.kind (scheduling.k8s.io)",
     _with_spec(Workload(WL), priorityClassRef=_ref(POD_REF[0], KUEUE_REF[1]), priority=100), Invalid),
    ("incompatible priorityClassRef.kind (kueue.x-k8s.io)",
     _with_spec(Workload(WL), priorityClassRef=_ref(KUEUE_REF[0], POD_REF[1]), priority=100), Invalid),
    ("omitted priorityClassRef is valid", Workload(WL).priority(0), OK),
    ("priority should not be nil when priorityClassRef is set",
     _with_spec(Workload(WL), priorityClassRef=_ref(*POD_REF, "priority")), Invalid),
    ("invalid queueName", Workload(WL).queue("@invalid"), Invalid),
    ("should not request num-pods resource",
     Workload(WL).pod_sets(PodSet("bad", 1).init_containers(container_for_request(pods="1"))
                           .containers(container_for_request(pods="1"))), Forbidden),
    ("should not limit num-pods resource",
     Workload(WL).pod_sets(PodSet("bad", 1).containers({"name": "c", "resources": {"limits": {"pods": "1"}}})),
     Forbidden),
    ("should not allow negative resource requests",
     Workload(WL).pod_sets(PodSet("bad", 1).containers(container_for_request(cpu="-1"))), Forbidden),
    ("should not allow negative pod-level resource requests",
     Workload(WL).pod_sets(PodSet("bad", 1).pod_level("requests", "cpu", "-1")), Forbidden),
    ("empty podSetUpdates should be valid since it is optional", Workload(WL).admission_checks({}), OK),
    ("invalid podSet minCount (negative)", Workload(WL).pod_sets(PodSet("ps1", 3).min_count(-1)), Invalid),
    ("invalid podSet minCount (too big)", Workload(WL).pod_sets(PodSet("ps1", 3).min_count(4)), Invalid),
    ("too many variable count podSets",
     Workload(WL).pod_sets(PodSet("ps1", 3).min_count(2), PodSet("ps2", 3).min_count(1)), Forbidden),
    ("invalid maximumExexcutionTimeSeconds", _with_spec(Workload(WL), maximumExecutionTimeSeconds=0), Invalid),
    ("valid maximumExexcutionTimeSeconds", _with_spec(Workload(WL), maximumExecutionTimeSeconds=1), OK),
]


@pytest.mark.parametrize(("workload", "error"), [pytest.param(*e[1:], id=e[0]) for e in WORKLOAD_ENTRIES])
def test_should_have_valid_values_when_creating(fc: FakeCluster, workload: Any, error: type[Exception] | None) -> None:
    body = workload if isinstance(workload, dict) else workload.obj()
    try:
        if error is None:
            fc.create(body)
        else:
            with pytest.raises(error):
                fc.create(body)
    finally:
        if fc.exists("Workload", WL):
            fc.delete("Workload", WL)
            fc.run_until_idle()


def _three_main() -> Workload:
    return Workload(WL).pod_sets(PodSet("main", 3).request("cpu", "1"))


def _delayed(state: str) -> dict[str, Any]:
    return {**assignment("main", flavors={"cpu": "flv"}, usage={"cpu": "3"}, count=3), "delayedTopologyRequest": state}


# "Should have valid values when setting Admission": workload.SetQuotaReservation through the status.
ADMISSION_ENTRIES: list[tuple[str, Workload, dict[str, Any], type[Exception] | None]] = [
    ("invalid clusterQueue name", Workload(WL), admission("@invalid"), Invalid),
    ("invalid podSet name in status assignment", Workload(WL), admission("cluster-queue", assignment("@invalid")),
     Invalid),
    ("mismatched names in admission with names in podSets", Workload(WL).pod_sets(PodSet("main2", 1), PodSet("main1", 1)),
     admission("cluster-queue", *[assignment(n, count=1) for n in ("main1", "main2", "main3")]), Invalid),
    ("assignment usage should be divisible by count", _three_main(),
     admission("cluster-queue", assignment("main", flavors={"cpu": "flv"}, usage={"cpu": "1"}, count=3)), Forbidden),
    ("Pending delayedTopologyRequest", _three_main(), admission("cluster-queue", _delayed("Pending")), OK),
    ("Ready delayedTopologyRequest", _three_main(), admission("cluster-queue", _delayed("Ready")), OK),
    ("invalid delayedTopologyRequest", _three_main(), admission("cluster-queue", _delayed("invalid")), Invalid),
]


@pytest.mark.parametrize(("workload", "adm", "error"), [pytest.param(*e[1:], id=e[0]) for e in ADMISSION_ENTRIES])
def test_should_have_valid_values_when_setting_admission(fc: FakeCluster, workload: Workload, adm: dict[str, Any],
                                                         error: type[Exception] | None) -> None:
    stored = fc.client.create(workload.obj())
    stored["status"] = {"admission": adm, "conditions": [{
        "type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
        "message": f"Quota reserved in ClusterQueue {adm['clusterQueue']}", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    try:
        if error is None:
            fc.client.update_status(stored)
        else:
            with pytest.raises(error):
                fc.client.update_status(stored)
    finally:
        fc.client.delete("workloads.kueue.x-k8s.io", WL, "default")
        fc.run_until_idle()


# "Validate Workload on update" (k8sClient.Update of the main resource: status changes in the body
# are ignored, as on a real server). "reserve": util.SetQuotaReservation(MakeAdmission("cq")) and
# SyncAdmittedCondition first. Only the API server runs here, as in upstream's webhook suite
# (writes through fc.client, no controller reacts in between).
Mutation = Any


def _set(path: str, value: Any) -> Mutation:
    def mutate(wl: dict[str, Any]) -> None:
        spec = wl["spec"]
        if value is None:
            spec.pop(path, None)
        else:
            spec[path] = copy.deepcopy(value)
    return mutate


def _both(*mutations: Mutation) -> Mutation:
    def mutate(wl: dict[str, Any]) -> None:
        for m in mutations:
            m(wl)
    return mutate


def _status(status: dict[str, Any]) -> Mutation:
    def mutate(wl: dict[str, Any]) -> None:
        wl["status"] = copy.deepcopy(status)
    return mutate


def _ref_name(name: str) -> Mutation:
    def mutate(wl: dict[str, Any]) -> None:
        wl["spec"]["priorityClassRef"]["name"] = name
    return mutate


def _count(n: int) -> Mutation:
    def mutate(wl: dict[str, Any]) -> None:
        wl["spec"]["podSets"][0]["count"] = n
    return mutate


WPC_REF = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass"}
POD_PC_REF = {"group": "scheduling.k8s.io", "kind": "PriorityClass"}
C_AFTER = [{"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c-after",
                                                                             "resources": {"requests": {}}}]}}}]
RESERVED_STATUS = {"admission": admission("cluster-queue", assignment("main", flavors={"on-demand": "5"},
                                                                       usage={"on-demand": "1"})),
                   "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "AdmittedByTest",
                                   "message": "Admitted by ClusterQueue cluster-queue",
                                   "lastTransitionTime": "2026-01-01T00:00:00Z"}]}


def _with_ref(ref: dict[str, str], name: str, priority: int) -> dict[str, Any]:
    return _with_spec(Workload(WL), priorityClassRef={**ref, "name": name}, priority=priority)


UPDATE_ENTRIES: list[tuple[str, Any, bool, Mutation, type[Exception] | None]] = [
    ("podSets should not be updated when has quota reservation: count", Workload(WL), True,
     _set("podSets", [PodSet("main", 2).obj()]), Forbidden),
    ("podSets should not be updated: podSpec", Workload(WL), True, _set("podSets", C_AFTER), Forbidden),
    ("queueName can be updated when not admitted", Workload(WL).queue("q1"), False, _set("queueName", "q2"), OK),
    ("queueName can be updated when admitting", Workload(WL), False, _set("queueName", "q"), OK),
    ("queueName should not be updated once admitted", Workload(WL).queue("q1"), True, _set("queueName", "q2"),
     Invalid),
    ("queueName can be updated when admission is reset", Workload(WL).queue("q1"), False,
     _both(_set("queueName", "q2"), _status({})), OK),
    ("admission can be set", Workload(WL), False, _status(RESERVED_STATUS), OK),
    ("admission can be unset", Workload(WL), False, _status({}), OK),
    ("updating podSets before setting reserve quota for workload", Workload(WL), False, _set("podSets", C_AFTER), OK),
    ("Should forbid the change of spec.podSet", Workload(WL), True, _count(10), Forbidden),
    ("can add maximum execution time when not admitted", Workload(WL), False,
     _set("maximumExecutionTimeSeconds", 1), OK),
    ("can update maximum execution time when not admitted", _with_spec(Workload(WL), maximumExecutionTimeSeconds=1),
     False, _set("maximumExecutionTimeSeconds", 2), OK),
    ("cannot add maximum execution time when admitted", Workload(WL), True, _set("maximumExecutionTimeSeconds", 1),
     Invalid),
    ("cannot update maximum execution time when admitted", _with_spec(Workload(WL), maximumExecutionTimeSeconds=1),
     True, _set("maximumExecutionTimeSeconds", 2), Invalid),
    ("Should allow to change priority when QuotaReserved=false", Workload(WL), False, _set("priority", 10), OK),
    ("Should allow to change priority when QuotaReserved=true", Workload(WL), False, _set("priority", 10), OK),
    ("Should allow to change priority with priorityClassRef when QuotaReserved=false",
     _with_ref(POD_PC_REF, "low", 0), False, _set("priority", 10), OK),
    ("Should allow to change priority with priorityClassRef when QuotaReserved=true",
     _with_ref(POD_PC_REF, "low", 0), False, _set("priority", 10), OK),
    ("can set workload priorityClassRef when QuotaReserved=false", Workload(WL), False,
     _both(_set("priorityClassRef", {**WPC_REF, "name": "low"}), _set("priority", 100)), OK),
    ("can't set workload priority class when QuotaReserved=true", Workload(WL), True,
     _both(_set("priorityClassRef", {**WPC_REF, "name": "low"}), _set("priority", 100)), Invalid),
    ("can update workload priority class when QuotaReserved=false", _with_ref(WPC_REF, "high", 1000), False,
     _both(_ref_name("low"), _set("priority", 100)), OK),
    ("can update workload priority class when QuotaReserved=true", _with_ref(WPC_REF, "high", 1000), True,
     _both(_ref_name("low"), _set("priority", 100)), OK),
    ("can delete workload priority class when QuotaReserved=false", _with_ref(WPC_REF, "high", 1000), False,
     _both(_set("priorityClassRef", None), _set("priority", None)), OK),
    ("can't delete workload priority class when quota reserved when QuotaReserved=true",
     _with_ref(WPC_REF, "high", 1000), True, _both(_set("priorityClassRef", None), _set("priority", None)), Invalid),
    ("can set pod priority class QuotaReserved=false", Workload(WL), False,
     _both(_set("priorityClassRef", {**POD_PC_REF, "name": "low"}), _set("priority", 100)), OK),
    ("can't set pod priority class when QuotaReserved=true", Workload(WL), True,
     _both(_set("priorityClassRef", {**POD_PC_REF, "name": "low"}), _set("priority", 100)), Invalid),
    ("can update pod priority class when QuotaReserved=false", _with_ref(POD_PC_REF, "high", 1000), False,
     _both(_ref_name("low"), _set("priority", 100)), OK),
    ("can't update pod priority class when QuotaReserved=true", _with_ref(POD_PC_REF, "high", 1000), True,
     _both(_ref_name("low"), _set("priority", 100)), Invalid),
    ("can delete pod priority class when QuotaReserved=false", _with_ref(POD_PC_REF, "high", 1000), False,
     _both(_set("priorityClassRef", None), _set("priority", None)), OK),
    ("can't delete pod priority class when QuotaReserved=true", _with_ref(POD_PC_REF, "high", 1000), True,
     _both(_set("priorityClassRef", None), _set("priority", None)), Invalid),
]


def _reserve(fc: FakeCluster, stored: dict[str, Any]) -> dict[str, Any]:
    """``util.SetQuotaReservation`` with ``MakeAdmission("cq")`` then ``SyncAdmittedCondition``."""
    stored["status"] = {"admission": admission("cq", assignment("main", flavors={}, usage={}, count=1)),
                        "conditions": [
                            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                             "message": "Quota reserved in ClusterQueue cq", "lastTransitionTime": "2026-01-01T00:00:00Z"},
                            {"type": "Admitted", "status": "True", "reason": "Admitted",
                             "message": "The workload is admitted", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    return fc.client.update_status(stored)


@pytest.mark.parametrize(("workload", "reserve", "mutate", "error"),
                         [pytest.param(*e[1:], id=e[0]) for e in UPDATE_ENTRIES])
def test_validate_workload_on_update(fc: FakeCluster, workload: Any, reserve: bool, mutate: Mutation,
                                     error: type[Exception] | None) -> None:
    body = workload if isinstance(workload, dict) else workload.obj()
    stored = fc.client.create(body)
    try:
        if reserve:
            stored = _reserve(fc, stored)
        new = copy.deepcopy(stored)
        mutate(new)
        if error is None:
            fc.client.update(new)
        else:
            with pytest.raises(error):
                fc.client.update(new)
    finally:
        fc.client.delete("workloads.kueue.x-k8s.io", WL, "default")
        fc.run_until_idle()


def test_should_prevent_removing_queue_name_on_admitted_workload_issue_12552(fc: FakeCluster) -> None:
    stored = _reserve(fc, fc.client.create(Workload(WL).queue("queue1").obj()))
    try:
        del stored["spec"]["queueName"]
        with pytest.raises(Invalid, match="queueName is immutable while workload quota reserved"):
            fc.client.update(stored)
    finally:
        fc.client.delete("workloads.kueue.x-k8s.io", WL, "default")
        fc.run_until_idle()


def test_should_forbid_the_change_of_status_admission(fc: FakeCluster) -> None:
    stored = _reserve(fc, fc.client.create(Workload(WL).obj()))
    try:
        stored["status"]["admission"]["clusterQueue"] = "foo-cluster-queue"
        with pytest.raises(Forbidden, match=r"status.admission: Invalid value: .*: field is immutable"):
            fc.client.update_status(stored)
    finally:
        fc.client.delete("workloads.kueue.x-k8s.io", WL, "default")
        fc.run_until_idle()


def test_should_refuse_a_status_update_reserving_quota_with_no_admission(fc: FakeCluster) -> None:
    stored = fc.client.create(Workload(WL).obj())
    try:
        stored["status"] = {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "Admitted",
                                            "message": "admitted", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
        with pytest.raises(Forbidden, match=r"status.admission: Required value: must be set while the "
                                            r"QuotaReserved condition is true"):
            fc.client.update_status(stored)
    finally:
        fc.client.delete("workloads.kueue.x-k8s.io", WL, "default")
        fc.run_until_idle()


# test/integration/singlecluster/webhook/core/resourceflavor_test.go and localqueue_test.go.
def test_resource_flavor_should_be_valid_and_have_a_finalizer(fc: FakeCluster) -> None:
    created = fc.client.create(ResourceFlavor("resource-flavor").node_label("foo", "bar")
                               .taint(key="spot", value="true", effect="NoSchedule").obj())
    assert created["metadata"]["finalizers"] == ["kueue.x-k8s.io/resource-in-use"]
    fc.delete("ResourceFlavor", "resource-flavor", None)
    fc.run_until_idle()
    assert not fc.exists("ResourceFlavor", "resource-flavor", None)  # no ClusterQueue names it


@pytest.mark.parametrize(("taints", "labels", "invalid"), [
    pytest.param(9, 0, True, id="invalid number of taint"),
    pytest.param(0, 9, True, id="invalid number of nodeSelector"),
    pytest.param(8, 8, False, id="valid number of nodeSelector and taint"),
])
def test_invalid_number_of_properties(fc: FakeCluster, taints: int, labels: int, invalid: bool) -> None:
    rf = ResourceFlavor("resource-flavor")
    for i in range(taints):
        rf.taint(key=f"t{i}", effect="NoExecute")
    for i in range(labels):
        rf.node_label(f"l{i}", "")
    if invalid:
        with pytest.raises(Invalid):
            fc.create(rf.obj())
    else:
        fc.create(rf.obj())
        fc.delete("ResourceFlavor", "resource-flavor", None)
        fc.run_until_idle()


def test_updating_a_resource_flavor_with_invalid_taints_should_fail(fc: FakeCluster) -> None:
    created = fc.create(ResourceFlavor("resource-flavor").obj())
    try:
        created["spec"]["nodeTaints"] = [{"key": "foo", "value": "bar", "effect": "Invalid"}]
        with pytest.raises(Invalid, match="supported taint effect values"):
            fc.update(created)
    finally:
        fc.delete("ResourceFlavor", "resource-flavor", None)
        fc.run_until_idle()


@pytest.mark.parametrize(("rf", "error"), [
    pytest.param(ResourceFlavor("resource-flavor").taint(key="skdajf")
                 .taint(key="@foo", value="bar", effect="NoSchedule"), Invalid,
                 id="Should fail to create with invalid taints"),
    pytest.param(ResourceFlavor("resource-flavor").node_label("@abc", "foo"), Forbidden,
                 id="Should fail to create with invalid label name"),
    pytest.param(ResourceFlavor("resource-flavor")
                 .toleration(key="@abc", operator="Equal", value="v", effect="NoSchedule")
                 .toleration(key="abc", operator="Exists", value="v", effect="NoSchedule")
                 .toleration(key="abc", operator="Equal", value="v", effect="not-valid")
                 .toleration(key="abc", operator="Equal", value="v", effect="NoSchedule"), Invalid,
                 id="Should fail to create with invalid tolerations"),
])
def test_validate_resource_flavor_on_creation(fc: FakeCluster, rf: ResourceFlavor, error: type[Exception]) -> None:
    with pytest.raises(error):
        fc.create(rf.obj())


def test_local_queue_should_reject_bad_value_for_cluster_queue(fc: FakeCluster) -> None:
    with pytest.raises(Invalid, match=r"spec.clusterQueue: Invalid value: \"invalid_name\""):
        fc.create(LocalQueue("queue", "default", "invalid_name").obj())


def test_local_queue_should_reject_the_change_of_cluster_queue(fc: FakeCluster) -> None:
    fc.create(LocalQueue("queue", "default", "foo").obj())
    try:
        with pytest.raises(Invalid, match=r"spec.clusterQueue: Invalid value: \"string\": field is immutable"):
            fc.patch("LocalQueue", "queue", {"spec": {"clusterQueue": "bar"}})
    finally:
        fc.delete("LocalQueue", "queue")


def _lq_flavor_usage(n: int) -> list[dict[str, Any]]:
    return [{"name": f"f{i}", "resources": [{"name": "cpu"}]} for i in range(n)]


@pytest.mark.parametrize(("field", "flavors", "invalid"), [
    pytest.param("both", 64, False, id="Should allow flavors quantity up to the limit in flavorsReservation and "
                                       "flavorsUsage"),
    pytest.param("flavorsReservation", 65, True, id="Should reject flavors quantity over the limit in "
                                                    "flavorsReservation"),
    pytest.param("flavorsUsage", 65, True, id="Should reject flavors quantity over the limit in flavorsUsage"),
])
def test_updating_the_status_of_a_local_queue(fc: FakeCluster, field: str, flavors: int, invalid: bool) -> None:
    stored = fc.client.create(LocalQueue("queue", "default", "foo").obj())
    try:
        fields = ("flavorsReservation", "flavorsUsage") if field == "both" else (field,)
        stored["status"] = {f: _lq_flavor_usage(flavors) for f in fields}
        if invalid:
            with pytest.raises(Invalid, match="must have at most 64 items"):
                fc.client.update_status(stored)
        else:
            fc.client.update_status(stored)
    finally:
        fc.client.delete("localqueues.kueue.x-k8s.io", "queue", "default")
        fc.run_until_idle()
