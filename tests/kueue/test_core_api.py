"""Kueue's API on the fake cluster: the six kinds served as v1beta2 with CRD defaults, CEL rules
and webhook messages, printer columns, and Configuration defaults (v0.19.2)."""

from __future__ import annotations

import pytest

from fakekube import Forbidden, Invalid, UsageError
from fakekube.components.kueue.config import resolve_config
from tests.kueue.core_builders import cluster, cluster_queue, flavor, local_queue, workload


def test_kinds_are_served_with_upstream_names_and_defaults() -> None:
    fc, _ = cluster()
    fc.apply(flavor("default"))
    fc.apply(cluster_queue("cq", [("default", {"cpu": "4"})]))
    fc.apply(local_queue("lq", "cq"))
    fc.apply(workload("w", "lq"))
    fc.apply({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
              "metadata": {"name": "high"}, "value": 1000})
    fc.apply({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": "co"}, "spec": {}})
    spec = fc.get("cq", "cq", None)["spec"]
    assert spec["queueingStrategy"] == "BestEffortFIFO"
    assert spec["stopPolicy"] == "None"
    assert spec["preemption"] == {"borrowWithinCohort": {"policy": "Never"}, "reclaimWithinCohort": "Never",
                                  "withinClusterQueue": "Never"}
    assert spec["flavorFungibility"] == {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}
    w = fc.get("kwl", "w")
    assert w["spec"]["active"] is True
    assert w["spec"]["podSets"][0]["name"] == "main"
    assert fc.get("lq", "lq")["spec"]["stopPolicy"] == "None"
    assert fc.get("wpc", "high", None)["value"] == 1000
    assert fc.get("rf", "default", None)["metadata"]["name"] == "default"


def test_clusterqueue_cel_borrowing_limit_needs_cohort() -> None:
    fc, _ = cluster()
    cq = cluster_queue("cq", [("default", {"cpu": {"nominalQuota": "4", "borrowingLimit": "1"}})])
    with pytest.raises(Invalid, match="borrowingLimit must be nil when cohort is empty"):
        fc.apply(cq)


def test_clusterqueue_webhook_lending_limit_above_nominal() -> None:
    # pkg/webhooks/clusterqueue_webhook.go validateLendingLimit; controller-runtime denies a
    # validator's error with 403 Forbidden and the aggregate as the message.
    fc, _ = cluster()
    cq = cluster_queue("cq", [("default", {"cpu": {"nominalQuota": "4", "lendingLimit": "5"}})], cohort="co")
    with pytest.raises(Forbidden) as err:
        fc.apply(cq)
    assert err.value.status["code"] == 403
    assert str(err.value.message) == (
        'admission webhook "vclusterqueue.kb.io" denied the request: '
        'spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: "5": '
        "must be less than or equal to the nominalQuota")


def test_localqueue_cluster_queue_is_immutable() -> None:
    fc, _ = cluster()
    fc.apply(local_queue("lq", "cq"))
    with pytest.raises(Invalid, match="field is immutable"):
        fc.patch("LocalQueue", "lq", {"spec": {"clusterQueue": "other"}})


def test_workload_min_count_rule() -> None:
    fc, _ = cluster()
    with pytest.raises(Invalid, match="minCount should be positive and less or equal to count"):
        fc.apply(workload("w", "lq", count=2, min_count=3))


def test_printer_columns_are_upstreams() -> None:
    fc, _ = cluster()
    crds = {crd["metadata"]["name"]: crd for crd in fc.list("CustomResourceDefinition")}
    cols = crds["workloads.kueue.x-k8s.io"]["spec"]["versions"][0]["additionalPrinterColumns"]
    assert [c["name"] for c in cols] == ["Queue", "Reserved in", "Admitted", "Finished", "Age"]
    cols = crds["clusterqueues.kueue.x-k8s.io"]["spec"]["versions"][0]["additionalPrinterColumns"]
    assert [c["name"] for c in cols] == ["Cohort", "Strategy", "Pending Workloads", "Admitted Workloads"]
    cols = crds["localqueues.kueue.x-k8s.io"]["spec"]["versions"][0]["additionalPrinterColumns"]
    assert [c["name"] for c in cols] == ["ClusterQueue", "Pending Workloads", "Admitted Workloads"]


def test_configuration_defaults_of_v0_19_2() -> None:
    cfg = resolve_config(None)
    assert cfg.raw["waitForPodsReady"]["timeout"] == "30m0s"
    assert cfg.raw["waitForPodsReady"]["requeuingStrategy"] == {
        "timestamp": "Eviction", "backoffBaseSeconds": 60, "backoffMaxSeconds": 3600}
    assert cfg.raw["manageJobsWithoutQueueName"] is False
    assert cfg.wait_for_pods_ready is not None
    assert cfg.feature_gates["TopologyAwareScheduling"] is True
    assert cfg.feature_gates["UnadmittedWorkloadsObservability"] is False
    custom = resolve_config({"waitForPodsReady": {"timeout": "5m", "requeuingStrategy": {"backoffLimitCount": 0}}})
    assert custom.wait_for_pods_ready is not None and custom.wait_for_pods_ready.backoff_limit_count == 0
    with pytest.raises(UsageError, match="unknown Kueue Configuration field"):
        resolve_config({"waitForPodReady": {}})
    with pytest.raises(UsageError, match="locked"):
        resolve_config({"featureGates": {"HierarchicalCohorts": False}})


def test_install_twice_is_a_usage_error() -> None:
    from fakekube.components.kueue import install_core

    fc, _ = cluster()
    with pytest.raises(UsageError, match="install Kueue once"):
        install_core(fc)
