"""Ported from ``pkg/webhooks/workload_webhook_test.go`` (``TestValidateWorkload``,
``TestValidateWorkloadUpdate``) and ``resourceflavor_webhook_test.go`` (``TestValidateResourceFlavor``)
at v0.19.2. Case ids are upstream's names; errors are compared by type and field as upstream's
``cmpopts.IgnoreFields(field.Error{}, "Detail", "BadValue")``. Gates are v0.19.2's defaults plus
the case's own."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.components.kueue.config import DEFAULT_FEATURE_GATES
from fakekube.components.kueue.validation import (
    ADMISSION_GATED_BY_ANNOTATION as GATED_BY,
)
from fakekube.components.kueue.validation import (
    ELASTIC_JOB_ANNOTATION as ELASTIC,
)
from fakekube.components.kueue.validation import (
    PRIORITY_BOOST_ANNOTATION as BOOST,
)
from fakekube.components.kueue.validation import (
    validate_resource_flavor,
    validate_workload,
    validate_workload_update,
    workload_warnings,
)
from fakekube.errors import FieldError
from tests.kueue.wrappers import (
    PodSet,
    ResourceFlavor,
    Workload,
    admission,
    assignment,
    container_for_request,
)

NAME, NS = "test-workload", "test-ns"
PS0 = "spec.podSets[0].template.spec"
AC0 = "status.admissionChecks[0]"
GATED_PATH = f"metadata.annotations[{GATED_BY}]"
BOOST_PATH = f"metadata.annotations[{BOOST}]"
SLICE_FOR = "kueue.x-k8s.io/workload-slice-replacement-for"


def invalid(path: str) -> tuple[str, str]:
    return ("FieldValueInvalid", path)


def shape(errors: list[FieldError]) -> list[tuple[str, str]]:
    return [(e.type.value, e.field) for e in errors]


def wl() -> Workload:
    return Workload(NAME, NS)


def gated(value: str) -> Workload:
    return wl().annotation(GATED_BY, value).pod_sets(PodSet("main", 1))


def boosted(value: str | None) -> Workload:
    w = wl().pod_sets(PodSet("main", 1))
    return w if value is None else w.annotation(BOOST, value)


def bad_metadata(labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
                 name: str = "bad-metadata") -> PodSet:
    meta: dict[str, Any] = {}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    return PodSet(name, 1).metadata(**meta)


LONG_ANNOTATION = "invalid/annotation/key/too/long/invalid"
SPACES = "invalid value with spaces"

CREATE_CASES: list[tuple[str, dict[str, bool], Any, list[tuple[str, str]], list[str]]] = [
    ("valid", {}, wl().pod_sets(PodSet("driver", 1), PodSet("workers", 100)), [], []),
    ("quota reserved without an admission is refused, not a panic", {},
     wl().pod_sets(PodSet("driver", 1)).quota_reserved_without_admission(),
     [("FieldValueRequired", "status.admission")], []),
    ("should have a valid podSet name in status assignment", {},
     wl().reserve_quota(admission("cluster-queue", assignment("@invalid"))),
     [("FieldValueNotFound", "status.admission.podSetAssignments[0].name")], []),
    ("assignment usage should be divisible by count", {},
     wl().pod_sets(PodSet("main", 3).request("cpu", "1"))
     .reserve_quota(admission("cluster-queue", assignment("main", flavors={"cpu": "flv"}, usage={"cpu": "1"},
                                                          count=3))),
     [invalid("status.admission.podSetAssignments[0].resourceUsage[cpu]")], []),
    ("should not request num-pods resource", {},
     wl().pod_sets(PodSet("bad", 1).init_containers(container_for_request(pods="1"))
                   .containers(container_for_request(pods="1"))),
     [invalid(f"{PS0}.initContainers[0].resources.requests[pods]"),
      invalid(f"{PS0}.containers[0].resources.requests[pods]")], []),
    ("should reject reserved pods resource key in limits", {},
     wl().pod_sets(PodSet("bad", 1).init_containers({"resources": {"limits": {"pods": "1"}}})
                   .containers({"resources": {"limits": {"pods": "1"}}})),
     [invalid(f"{PS0}.initContainers[0].resources.limits[pods]"),
      invalid(f"{PS0}.containers[0].resources.limits[pods]")], []),
    ("should reject negative container resource request", {},
     wl().pod_sets(PodSet("bad", 1).containers(container_for_request(cpu="-1"))),
     [invalid(f"{PS0}.containers[0].resources.requests[cpu]")], []),
    ("should reject negative initContainer resource request", {},
     wl().pod_sets(PodSet("bad", 1).init_containers(container_for_request(cpu="-1"))),
     [invalid(f"{PS0}.initContainers[0].resources.requests[cpu]")], []),
    ("should accept invalid podSet template metadata when WorkloadValidationForPodSetMetadata is disabled",
     {"WorkloadValidationForPodSetMetadata": False},
     wl().pod_sets(bad_metadata({"valid": "invalid value with spaces, test-wec1"}, {LONG_ANNOTATION: "val"})),
     [], []),
    ("should reject invalid podSet template label value", {"WorkloadValidationForPodSetMetadata": True},
     wl().pod_sets(bad_metadata({"valid": SPACES})),
     [invalid("spec.podSets[0].template.metadata.labels")], []),
    ("should reject invalid podSet template annotation key", {"WorkloadValidationForPodSetMetadata": True},
     wl().pod_sets(bad_metadata(annotations={LONG_ANNOTATION: "val"})),
     [invalid("spec.podSets[0].template.metadata.annotations")], []),
    ("should reject negative container resource limit", {},
     wl().pod_sets(PodSet("bad", 1).containers({"resources": {"limits": {"cpu": "-1"}}})),
     [invalid(f"{PS0}.containers[0].resources.limits[cpu]")], []),
    ("should reject negative resource among multiple valid requests and limits", {},
     wl().pod_sets(PodSet("bad", 1).containers({"resources": {"requests": {"cpu": "1", "memory": "-1Gi"},
                                                              "limits": {"cpu": "2", "memory": "-2Gi"}}})),
     [invalid(f"{PS0}.containers[0].resources.requests[memory]"),
      invalid(f"{PS0}.containers[0].resources.limits[memory]")], []),
    ("should reject negative pod-level resource request", {},
     wl().pod_sets(PodSet("bad", 1).pod_level("requests", "cpu", "-1")),
     [invalid(f"{PS0}.resources.requests[cpu]")], []),
    ("should reject negative pod-level resource limit", {},
     wl().pod_sets(PodSet("bad", 1).pod_level("limits", "memory", "-1Gi")),
     [invalid(f"{PS0}.resources.limits[memory]")], []),
    ("should accept negative container resource request when WorkloadValidateResourcesAreNonNegative is disabled",
     {"WorkloadValidateResourcesAreNonNegative": False},
     wl().pod_sets(PodSet("ok", 1).containers(container_for_request(cpu="-1"))), [], []),
    ("should accept zero container resource request", {},
     wl().pod_sets(PodSet("ok", 1).containers(container_for_request(cpu="0"))), [], []),
    ("should reject non-positive podSetSliceSize when TASValidateWorkloadSliceSize is enabled", {},
     wl().pod_sets(PodSet("bad", 1).topology_request(podSetSliceRequiredTopology="kubernetes.io/hostname",
                                                     podSetSliceSize=0)),
     [invalid("spec.podSets[0].topologyRequest.podSetSliceSize")], []),
    ("should reject podSetSliceSize without podSetSliceRequiredTopology when TASValidateWorkloadSliceSize is enabled",
     {}, wl().pod_sets(PodSet("bad", 1).topology_request(podSetSliceSize=1)),
     [("FieldValueForbidden", "spec.podSets[0].topologyRequest.podSetSliceSize")], []),
    ("should reject non-positive podsetSliceRequiredTopologyConstraints size when TASValidateWorkloadSliceSize "
     "is enabled", {},
     wl().pod_sets(PodSet("bad", 1).topology_request(podsetSliceRequiredTopologyConstraints=[
         {"topology": "kubernetes.io/hostname", "size": 0}])),
     [invalid("spec.podSets[0].topologyRequest.podsetSliceRequiredTopologyConstraints[0].size")], []),
    ("should accept non-positive podSetSliceSize when TASValidateWorkloadSliceSize is disabled",
     {"TASValidateWorkloadSliceSize": False},
     wl().pod_sets(PodSet("ok", 1).topology_request(podSetSliceRequiredTopology="kubernetes.io/hostname",
                                                    podSetSliceSize=0)), [], []),
    ("empty podSetUpdates", {}, wl().admission_checks({}), [], []),
    ("should accept podSetUpdates for only a subset of podSets", {},
     wl().pod_sets(PodSet("first", 1), PodSet("second", 1)).admission_checks({"podSetUpdates": [{"name": "first"}]}),
     [], []),
    ("mismatched names in podSetUpdates with names in podSets", {},
     wl().pod_sets(PodSet("first", 1), PodSet("second", 1))
     .admission_checks({"podSetUpdates": [{"name": "first"}, {"name": "third"}]}),
     [("FieldValueNotSupported", f"{AC0}.podSetUpdates[1].name")], []),
    ("matched names in podSetUpdates with names in podSets", {},
     wl().pod_sets(PodSet("first", 1), PodSet("second", 1)).admission_checks({"podSetUpdates": [
         {"name": "first", "labels": {"l1": "first"}, "annotations": {"foo": "bar"},
          "tolerations": [{"key": "t1", "operator": "Equal", "value": "t1v", "effect": "NoExecute",
                           "tolerationSeconds": 5}], "nodeSelector": {"type": "first"}},
         {"name": "second", "labels": {"l2": "second"}, "annotations": {"foo": "baz"},
          "tolerations": [{"key": "t2", "operator": "Equal", "value": "t2v", "effect": "NoExecute",
                           "tolerationSeconds": 10}], "nodeSelector": {"type": "second"}}]}),
     [], []),
    ("invalid label name of podSetUpdate", {},
     wl().admission_checks({"podSetUpdates": [{"name": "main", "labels": {"@abc": "foo"}}]}),
     [invalid(f"{AC0}.podSetUpdates[0].labels")], []),
    ("invalid node selector name of podSetUpdate", {},
     wl().admission_checks({"podSetUpdates": [{"name": "main", "nodeSelector": {"@abc": "foo"}}]}),
     [invalid(f"{AC0}.podSetUpdates[0].nodeSelector")], []),
    ("invalid label value of podSetUpdate", {},
     wl().admission_checks({"podSetUpdates": [{"name": "main", "labels": {"foo": "@abc"}}]}),
     [invalid(f"{AC0}.podSetUpdates[0].labels")], []),
    ("invalid reclaimablePods", {},
     wl().pod_sets(PodSet("ps1", 3)).reclaimable_pods(("ps1", 4), ("ps2", 1)),
     [invalid("status.reclaimablePods[ps1].count"), ("FieldValueNotSupported", "status.reclaimablePods[ps2].name")],
     []),
    ("too many variable count podSets", {},
     wl().pod_sets(PodSet("ps1", 3).min_count(2), PodSet("ps2", 3).min_count(1)), [invalid("spec.podSets")], []),
    ("valid priority-boost", {"PriorityBoost": True}, boosted("10"), [], []),
    ("valid priority-boost zero", {"PriorityBoost": True}, boosted("0"), [], []),
    ("valid priority-boost negative", {"PriorityBoost": True}, boosted("-5"), [], []),
    ("invalid priority-boost", {"PriorityBoost": True}, boosted("invalid"), [invalid(BOOST_PATH)], []),
    ("empty string priority-boost", {"PriorityBoost": True}, boosted(""), [invalid(BOOST_PATH)], []),
    ("missing priority-boost annotation", {"PriorityBoost": True}, boosted(None), [], []),
    ("invalid priority-boost when feature off", {"PriorityBoost": False}, boosted("invalid"), [], []),
    ("valid AdmissionGatedBy annotation with single gate", {"AdmissionGatedBy": True},
     gated("example.com/controller"), [], []),
    ("valid AdmissionGatedBy annotation with multiple gates", {"AdmissionGatedBy": True},
     gated("example.com/a,not.example.com/b"), [], []),
    ("AdmissionGatedBy annotation - leading space", {"AdmissionGatedBy": True}, gated(" example.com/gate"), [], []),
    ("AdmissionGatedBy annotation - space before comma", {"AdmissionGatedBy": True},
     gated("example.com/gate ,example.com/gate2"), [], []),
    ("AdmissionGatedBy annotation - space after comma", {"AdmissionGatedBy": True},
     gated("example.com/gate, example.com/gate2"), [], []),
    ("AdmissionGatedBy annotation - trailing space", {"AdmissionGatedBy": True}, gated("example.com/gate "), [], []),
    ("invalid AdmissionGatedBy annotation - not in subdomain/path format", {"AdmissionGatedBy": True},
     gated("this is an invalid value"), [invalid(GATED_PATH)], []),
    ("invalid AdmissionGatedBy annotation - duplicate gates", {"AdmissionGatedBy": True},
     gated("duplicates.are/invalid,duplicates.are/invalid"), [invalid(GATED_PATH)], []),
    ("invalid AdmissionGatedBy annotation - space in path component", {"AdmissionGatedBy": True},
     gated("example.com/gate name"), [invalid(GATED_PATH)], []),
    ("invalid AdmissionGatedBy annotation - space in domain component", {"AdmissionGatedBy": True},
     gated("example .com/gate"), [invalid(GATED_PATH)], []),
    ("invalid AdmissionGatedBy annotation - multiple gates with one containing space", {"AdmissionGatedBy": True},
     gated("valid.com/gate,invalid gate.com/controller"), [invalid(GATED_PATH)], []),
    ("partial admission and elastic job cannot be used together", {"ElasticJobsViaWorkloadSlices": True},
     wl().annotation(ELASTIC, "true").pod_sets(PodSet("main", 10).min_count(5)), [invalid("spec.podSets")], []),
    ("non-negative subGroupCount is accepted without warning", {},
     wl().pod_sets(PodSet("main", 1).topology_request(subGroupCount=0)), [], []),
    ("negative subGroupCount is accepted with a warning", {},
     wl().pod_sets(PodSet("main", 1).topology_request(subGroupCount=-1)), [],
     ["spec.podSets[0].topologyRequest.subGroupCount: negative value -1 is deprecated and will be rejected in a "
      "future release"]),
]


@pytest.mark.parametrize(("gates", "workload", "want", "warnings"), [pytest.param(*case[1:], id=case[0])
                                                                     for case in CREATE_CASES])
def test_validate_workload(gates: dict[str, bool], workload: Workload, want: list[tuple[str, str]],
                           warnings: list[str]) -> None:
    obj = workload.obj()
    assert shape(validate_workload(obj, None, {**DEFAULT_FEATURE_GATES, **gates})) == want
    assert workload_warnings(obj) == warnings


def two_sets(ps1: int = 3, ps2: int = 3) -> Workload:
    return wl().pod_sets(PodSet("ps1", ps1), PodSet("ps2", ps2))


def reserved(w: Workload, *names: str, counts: dict[str, int] | None = None) -> Workload:
    return w.reserve_quota(admission("cluster-queue", *[assignment(n, count=(counts or {}).get(n)) for n in names]))


def elastic(count: int, admitted: int | None = None) -> Workload:
    w = wl().annotation(ELASTIC, "true").pod_sets(PodSet("ps1", count))
    return reserved(w, "ps1", counts={"ps1": admitted} if admitted is not None else None)


def ready_check(labels: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"podSetUpdates": [{"name": "first", "labels": labels}, {"name": "second"}], "state": "Ready", **extra}


def topology(count: int) -> dict[str, Any]:
    return {"levels": ["level"], "slices": [{"domainCount": 1, "podCounts": {"universal": count},
                                             "valuesPerLevel": [{"universal": "abc"}]}]}


UPDATE_CASES: list[tuple[str, dict[str, bool], Any, Any, list[tuple[str, str]], list[str]]] = [
    ("an update may not put a workload in quota reserved with no admission", {},
     wl().pod_sets(PodSet("driver", 1)), wl().pod_sets(PodSet("driver", 1)).quota_reserved_without_admission(),
     [("FieldValueRequired", "status.admission")], []),
    ("a workload already in that state stays updatable so it can be removed", {},
     wl().pod_sets(PodSet("driver", 1)).quota_reserved_without_admission(),
     wl().pod_sets(PodSet("driver", 1)).quota_reserved_without_admission(), [], []),
    ("reclaimable pod count can change up", {},
     reserved(two_sets(), "ps1", "ps2").reclaimable_pods(("ps1", 1)),
     reserved(two_sets(), "ps1", "ps2").reclaimable_pods(("ps1", 2), ("ps2", 1)), [], []),
    ("should accept invalid podSet template metadata on update when WorkloadValidationForPodSetMetadata is disabled",
     {"WorkloadValidationForPodSetMetadata": False}, wl().pod_sets(PodSet("driver", 1)),
     wl().pod_sets(bad_metadata({"valid": "invalid value with spaces, test-wec1"}, {LONG_ANNOTATION: "val"},
                                name="driver")), [], []),
    ("should reject invalid podSet template label value on update", {"WorkloadValidationForPodSetMetadata": True},
     wl().pod_sets(PodSet("driver", 1)), wl().pod_sets(bad_metadata({"valid": SPACES}, name="driver")),
     [invalid("spec.podSets[0].template.metadata.labels")], []),
    ("reclaimable pod count cannot change down", {},
     reserved(two_sets(), "ps1", "ps2").reclaimable_pods(("ps1", 2), ("ps2", 1)),
     reserved(two_sets(), "ps1", "ps2").reclaimable_pods(("ps1", 1)),
     [invalid("status.reclaimablePods[ps1].count"), ("FieldValueRequired", "status.reclaimablePods[ps2]")], []),
    ("elastic workload: unchanged reclaimable pod count is tolerated while its podSet scales down below it",
     {"ElasticJobsViaWorkloadSlices": True}, elastic(8).reclaimable_pods(("ps1", 4)),
     elastic(3).reclaimable_pods(("ps1", 4)), [], []),
    ("elastic workload: changed reclaimable pod count above the podSet count is rejected",
     {"ElasticJobsViaWorkloadSlices": True}, elastic(8).reclaimable_pods(("ps1", 4)),
     elastic(3).reclaimable_pods(("ps1", 5)), [invalid("status.reclaimablePods[ps1].count")], []),
    ("elastic workload: reclaimable pod count can decrease after its podSet scaled down below the admitted count",
     {"ElasticJobsViaWorkloadSlices": True}, elastic(3, 8).reclaimable_pods(("ps1", 4)),
     elastic(3, 8).reclaimable_pods(("ps1", 3)), [], []),
    ("elastic workload: reclaimable pod count can decrease when scaled down below the admitted count even if the "
     "podSet still exceeds it", {"ElasticJobsViaWorkloadSlices": True}, elastic(10, 20).reclaimable_pods(("ps1", 9)),
     elastic(10, 20).reclaimable_pods(("ps1", 0)), [], []),
    ("elastic workload: reclaimable pod count cannot decrease without a podSet scale-down",
     {"ElasticJobsViaWorkloadSlices": True}, elastic(8).reclaimable_pods(("ps1", 4)),
     elastic(8).reclaimable_pods(("ps1", 2)), [invalid("status.reclaimablePods[ps1].count")], []),
    ("elastic workload: reclaimable pod entry can be removed after its podSet scaled down below the admitted count",
     {"ElasticJobsViaWorkloadSlices": True}, elastic(8, 8).reclaimable_pods(("ps1", 4)), elastic(1, 8), [], []),
    ("elastic workload: reclaimable pod entry cannot be removed without a podSet scale-down",
     {"ElasticJobsViaWorkloadSlices": True}, elastic(8).reclaimable_pods(("ps1", 4)), elastic(8),
     [("FieldValueRequired", "status.reclaimablePods[ps1]")], []),
    ("non-elastic workload: stale reclaimable pod count is still rejected when its podSet scales down",
     {"ElasticJobsViaWorkloadSlices": True},
     reserved(wl().pod_sets(PodSet("ps1", 8)), "ps1").reclaimable_pods(("ps1", 4)),
     reserved(wl().pod_sets(PodSet("ps1", 3)), "ps1").reclaimable_pods(("ps1", 4)),
     [invalid("status.reclaimablePods[ps1].count")], []),
    ("reclaimable pod count can go to 0 if the job is suspended", {},
     reserved(two_sets(), "ps1", "ps2").reclaimable_pods(("ps1", 2), ("ps2", 1)),
     two_sets().admission_checks({"podSetUpdates": [{"name": "ps1"}, {"name": "ps2"}], "state": "Ready"})
     .reclaimable_pods(("ps1", 0), ("ps2", 1)), [], []),
    ("podSetUpdates should be immutable when state is ready", {},
     wl().pod_sets(PodSet("first", 1), PodSet("second", 1)).admission_checks(ready_check({"foo": "bar"})),
     wl().pod_sets(PodSet("first", 1), PodSet("second", 1)).admission_checks(ready_check({"foo": "baz"})),
     [invalid(f"{AC0}.podSetUpdates")], []),
    ("should change other fields of admissionchecks when podSetUpdates is immutable", {},
     wl().pod_sets(PodSet("first", 1), PodSet("second", 1))
     .admission_checks(ready_check({"foo": "bar"}, name="ac1", message="old")),
     wl().pod_sets(PodSet("first", 1), PodSet("second", 1))
     .admission_checks(ready_check({"foo": "bar"}, name="ac1", message="new", lastTransitionTime="2026-01-02T00:00:00Z")),
     [], []),
    ("TopologyAssignment can be mutated", {"TopologyAwareScheduling": True},
     wl().pod_sets(PodSet("ps1", 3)).reserve_quota(admission("cluster-queue", {"name": "ps1",
                                                                               "topologyAssignment": topology(2)})),
     wl().pod_sets(PodSet("ps1", 3)).reserve_quota(admission("cluster-queue", {"name": "ps1",
                                                                               "topologyAssignment": topology(3)})),
     [], []),
    ("PodSets cannot be removed from admission", {"TopologyAwareScheduling": True},
     reserved(two_sets(), "ps1", "ps2"), reserved(two_sets(), "ps1"), [invalid("status.admission")], []),
    ("PodSets cannot be added to admission", {"TopologyAwareScheduling": True},
     reserved(two_sets(), "ps1"), reserved(two_sets(), "ps1", "ps2"), [invalid("status.admission")], []),
    ("workload.podSets[].count is immutable", {"ElasticJobsViaWorkloadSlices": False},
     reserved(two_sets(3, 4), "ps1", "ps2"), reserved(two_sets(3, 3), "ps1", "ps2"), [invalid("spec.podSets.1")], []),
    ("workload.podSets[].count is mutable with ElasticJobs feature gate", {"ElasticJobsViaWorkloadSlices": True},
     reserved(two_sets(3, 4), "ps1", "ps2"), reserved(two_sets(3, 3), "ps1", "ps2"), [], []),
    ("ClusterName doesn't have to be one of the nominatedClusterNames with ElasticJobs feature gate",
     {"ElasticJobsViaWorkloadSlices": True}, two_sets(3, 4),
     reserved(two_sets(3, 4), "ps1", "ps2").cluster_name("worker1").annotation(SLICE_FOR, f"{NS}/{NAME}"), [], []),
    ("reject adding AdmissionGatedBy annotation after workload creation", {"AdmissionGatedBy": True},
     wl().pod_sets(PodSet("main", 1)), gated("example.com/controller"), [("FieldValueForbidden", GATED_PATH)], []),
    ("allow removing AdmissionGatedBy annotation with single gate", {"AdmissionGatedBy": True},
     gated("example.com/controller1"), wl().pod_sets(PodSet("main", 1)), [], []),
    ("allow removing AdmissionGatedBy annotation with multiple gates", {"AdmissionGatedBy": True},
     gated("example.com/controller1,example.com/controller2"), wl().pod_sets(PodSet("main", 1)), [], []),
    ("allow removing one gate from AdmissionGatedBy annotation", {"AdmissionGatedBy": True},
     gated("example.com/controller1,example.com/controller2"), gated("example.com/controller2"), [], []),
    ("reject injecting new gate in AdmissionGatedBy annotation", {"AdmissionGatedBy": True},
     gated("example.com/controller1,example.com/controller2"), gated("example.com/controller3"),
     [("FieldValueForbidden", GATED_PATH)], []),
    ("allow reordering gates in AdmissionGatedBy annotation", {"AdmissionGatedBy": True},
     gated("example.com/controller1,example.com/controller2"), gated("example.com/controller2,example.com/controller1"),
     [], []),
    ("negative subGroupCount is accepted with a warning", {}, wl().pod_sets(PodSet("main", 1)),
     wl().pod_sets(PodSet("main", 1).topology_request(subGroupCount=-1)), [],
     ["spec.podSets[0].topologyRequest.subGroupCount: negative value -1 is deprecated and will be rejected in a "
      "future release"]),
    ("a workload whose quota reservation lost its admission can still drop its finalizer", {},
     wl().pod_sets(PodSet("driver", 1)).quota_reserved_without_admission().finalizers("kueue.x-k8s.io/resource-in-use"),
     wl().pod_sets(PodSet("driver", 1)).quota_reserved_without_admission(), [], []),
]


@pytest.mark.parametrize(("gates", "before", "after", "want", "warnings"), [pytest.param(*case[1:], id=case[0])
                                                                            for case in UPDATE_CASES])
def test_validate_workload_update(gates: dict[str, bool], before: Workload, after: Workload,
                                  want: list[tuple[str, str]], warnings: list[str]) -> None:
    new = after.obj()
    assert shape(validate_workload_update(new, before.obj(), {**DEFAULT_FEATURE_GATES, **gates})) == want
    assert workload_warnings(new) == warnings


@pytest.mark.parametrize(("rf", "want"), [
    pytest.param(ResourceFlavor("resource-flavor"), [], id="empty"),
    pytest.param(ResourceFlavor("resource-flavor").node_label("foo", "bar")
                 .taint(key="spot", value="true", effect="NoSchedule"), [], id="valid"),
    pytest.param(ResourceFlavor("resource-flavor").node_label("@abc", "foo"),
                 [(invalid("spec.nodeLabels"), "@abc")], id="invalid label name"),
    pytest.param(ResourceFlavor("resource-flavor").node_label("foo", "@abc"),
                 [(invalid("spec.nodeLabels"), "@abc")], id="invalid label value"),
])
def test_validate_resource_flavor(rf: ResourceFlavor, want: list[tuple[tuple[str, str], str]]) -> None:
    assert [((e.type.value, e.field), e.bad_value) for e in validate_resource_flavor(rf.obj())] == want
