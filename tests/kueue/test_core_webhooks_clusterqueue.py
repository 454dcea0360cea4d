"""Ported from ``pkg/webhooks/clusterqueue_webhook_test.go`` and ``cohort_webhook_test.go`` (v0.19.2):
``TestValidateClusterQueue``, ``TestValidateClusterQueueUpdate``, ``TestValidateTotalFlavors``,
``TestValidateTotalCoveredResources``, ``TestValidateFlavorResourceCombinations``,
``TestValidateCohort``. Case ids are upstream's names. As upstream, errors are compared by type
and field (detail and bad value only where the case names them); the ClusterQueue tests run with
ConcurrentAdmission on, as upstream's do."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.components.kueue.config import DEFAULT_FEATURE_GATES
from fakekube.components.kueue.validation import (
    validate_cluster_queue,
    validate_cluster_queue_update,
    validate_cohort,
)
from fakekube.errors import FieldError, render_value
from tests.kueue.wrappers import ClusterQueue, Cohort, FlavorQuotas

RG = "spec.resourceGroups"
GATES = {**DEFAULT_FEATURE_GATES, "ConcurrentAdmission": True}


def invalid(path: str) -> tuple[str, str]:
    return ("FieldValueInvalid", path)


def duplicate(path: str) -> tuple[str, str]:
    return ("FieldValueDuplicate", path)


def not_supported(path: str) -> tuple[str, str]:
    return ("FieldValueNotSupported", path)


def required(path: str) -> tuple[str, str]:
    return ("FieldValueRequired", path)


def forbidden(path: str) -> tuple[str, str]:
    return ("FieldValueForbidden", path)


def shape(errors: list[FieldError]) -> list[tuple[str, str]]:
    return [(e.type.value, e.field) for e in errors]


def quota_path(rg: int, flavor: int, resource: int, field: str) -> str:
    return f"{RG}[{rg}].flavors[{flavor}].resources[{resource}].{field}"


FF = "spec.flavorFungibility.preference"
CAP = "spec.concurrentAdmissionPolicy"
PREF_DETAIL = '"{}" requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor'

# (name, cluster queue, want errors, want detail of the first, want bad value of the first)
VALIDATE_CASES: list[tuple[str, Any, list[tuple[str, str]], str, str]] = [
    ("built-in resources with qualified names",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("default").resource("cpu")), [], "", ""),
    ("invalid resource name",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("default").resource("@cpu")),
     [invalid(f"{RG}[0].coveredResources[0]")], "", ""),
    ("admissionChecks defined", ClusterQueue("cluster-queue").admission_checks("ac1"), [], "", ""),
    ("admissionCheckStrategy defined with a valid flavor",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("flavor1")).admission_check_strategy(("ac1", ["flavor1"])),
     [], "", ""),
    ("admissionCheckStrategy refers to a flavor that is not in quota",
     ClusterQueue("cluster-queue").admission_check_strategy(("ac1", ["flavor1"])),
     [not_supported("spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]")], "", "flavor1"),
    ("in cohort", ClusterQueue("cluster-queue").cohort("prod"), [], "", ""),
    ("extended resources with qualified names",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("default").resource("example.com/gpu")), [], "", ""),
    ("flavor with qualified names", ClusterQueue("cluster-queue").resource_group(FlavorQuotas("x86")), [], "", ""),
    ("flavor quota with negative value",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("x86").resource("cpu", "-1")),
     [invalid(quota_path(0, 0, 0, "nominalQuota"))], "", ""),
    ("flavor quota with zero value",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("x86").resource("cpu", "0")), [], "", ""),
    ("flavor quota with borrowingLimit 0",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("x86").resource("cpu", "1", "0")).cohort("cohort"),
     [], "", ""),
    ("flavor quota with negative borrowingLimit",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("x86").resource("cpu", "1", "-1")).cohort("cohort"),
     [invalid(quota_path(0, 0, 0, "borrowingLimit"))], "", ""),
    ("flavor quota with lendingLimit 0",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("x86").resource("cpu", "1", "", "0")).cohort("cohort"),
     [], "", ""),
    ("flavor quota with negative lendingLimit",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("x86").resource("cpu", "1", "", "-1")).cohort("cohort"),
     [invalid(quota_path(0, 0, 0, "lendingLimit"))], "", ""),
    ("flavor quota with lendingLimit and empty cohort",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("x86").resource("cpu", "1", "", "1")),
     [invalid(quota_path(0, 0, 0, "lendingLimit"))], "must be nil when cohort is empty", "1"),
    ("flavor quota with lendingLimit greater than nominalQuota",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("x86").resource("cpu", "1", "", "2")).cohort("cohort"),
     [invalid(quota_path(0, 0, 0, "lendingLimit"))], "must be less than or equal to the nominalQuota", "2"),
    ("empty queueing strategy is supported", ClusterQueue("cluster-queue").queueing_strategy(""), [], "", ""),
    ("namespaceSelector with invalid labels",
     ClusterQueue("cluster-queue").namespace_selector({"matchLabels": {"nospecialchars^=@": "bar"}}),
     [invalid("spec.namespaceSelector.matchLabels")], "", "nospecialchars^=@"),
    ("namespaceSelector with invalid expressions",
     ClusterQueue("cluster-queue").namespace_selector({"matchExpressions": [{"key": "key", "operator": "In"}]}),
     [required("spec.namespaceSelector.matchExpressions[0].values")], "", ""),
    ("multiple resource groups",
     ClusterQueue("cluster-queue")
     .resource_group(FlavorQuotas("alpha").resource("cpu", "0").resource("memory", "0"),
                     FlavorQuotas("beta").resource("cpu", "0").resource("memory", "0"))
     .resource_group(FlavorQuotas("gamma").resource("example.com/gpu", "0"),
                     FlavorQuotas("omega").resource("example.com/gpu", "0")), [], "", ""),
    ("resources in a flavor in different order",
     {"metadata": {"name": "cluster-queue"}, "spec": {"resourceGroups": [{
         "coveredResources": ["cpu", "memory"],
         "flavors": [FlavorQuotas("alpha").resource("cpu", "0").resource("memory", "0").obj(),
                     FlavorQuotas("beta").resource("memory", "0").resource("cpu", "0").obj()]}]}},
     [invalid(quota_path(0, 1, 0, "name")), invalid(quota_path(0, 1, 1, "name"))], "", ""),
    ("resource in more than one resource group",
     ClusterQueue("cluster-queue")
     .resource_group(FlavorQuotas("alpha").resource("cpu", "0").resource("memory", "0"))
     .resource_group(FlavorQuotas("beta").resource("memory", "0")),
     [duplicate(f"{RG}[1].coveredResources[0]")], "", ""),
    ("flavor in more than one resource group",
     ClusterQueue("cluster-queue")
     .resource_group(FlavorQuotas("alpha").resource("cpu"), FlavorQuotas("beta").resource("cpu"))
     .resource_group(FlavorQuotas("beta").resource("memory")),
     [duplicate(f"{RG}[1].flavors[0].name")], "", ""),
    ("valid preemption with borrowWithinCohort",
     {"metadata": {"name": "cluster-queue"}, "spec": {"preemption": {
         "reclaimWithinCohort": "LowerPriority",
         "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 10}}}}, [], "", ""),
    ("existing cluster queue created with older Kueue version that has a nil borrowWithinCohort field",
     {"metadata": {"name": "cluster-queue"}, "spec": {"preemption": {"reclaimWithinCohort": "Never"}}}, [], "", ""),
    ("flavorFungibility preference set but whenCanPreempt != TryNextFlavor",
     ClusterQueue("cluster-queue").flavor_fungibility(whenCanBorrow="TryNextFlavor", whenCanPreempt="MayStopSearch",
                                                      preference="BorrowingOverPreemption"),
     [invalid(FF)], "preference " + PREF_DETAIL.format("BorrowingOverPreemption"), "BorrowingOverPreemption"),
    ("flavorFungibility preference set but whenCanBorrow != TryNextFlavor",
     ClusterQueue("cluster-queue").flavor_fungibility(whenCanBorrow="MayStopSearch", whenCanPreempt="MayStopSearch",
                                                      preference="BorrowingOverPreemption"),
     [invalid(FF)], "preference " + PREF_DETAIL.format("BorrowingOverPreemption"), "BorrowingOverPreemption"),
    ("flavorFungibility preference BorrowingOverPreemption with both TryNextFlavor is valid",
     ClusterQueue("cluster-queue").flavor_fungibility(whenCanBorrow="TryNextFlavor", whenCanPreempt="TryNextFlavor",
                                                      preference="BorrowingOverPreemption"), [], "", ""),
    ("flavorFungibility preference PreemptionOverBorrowing with both TryNextFlavor is valid",
     ClusterQueue("cluster-queue").flavor_fungibility(whenCanBorrow="TryNextFlavor", whenCanPreempt="TryNextFlavor",
                                                      preference="PreemptionOverBorrowing"), [], "", ""),
    ("flavorFungibility preference PreemptionOverBorrowing but whenCanBorrow != TryNextFlavor",
     ClusterQueue("cluster-queue").flavor_fungibility(whenCanBorrow="MayStopSearch", whenCanPreempt="TryNextFlavor",
                                                      preference="PreemptionOverBorrowing"),
     [invalid(FF)], "preference " + PREF_DETAIL.format("PreemptionOverBorrowing"), "PreemptionOverBorrowing"),
    ("valid ConcurrentAdmissionPolicy",
     ClusterQueue("cluster-queue").concurrent_admission_policy("TryPreferredFlavors")
     .resource_group(FlavorQuotas("flavor1").resource("cpu", "1")), [], "", ""),
    ("ConcurrentAdmissionPolicy with StrictFIFO queueing strategy is invalid",
     ClusterQueue("cluster-queue").concurrent_admission_policy("TryPreferredFlavors").queueing_strategy("StrictFIFO")
     .resource_group(FlavorQuotas("flavor1").resource("cpu", "1")),
     [invalid("spec.queueingStrategy")],
     "StrictFIFO queueing strategy cannot be used when ConcurrentAdmissionPolicy is defined", "StrictFIFO"),
    ("ConcurrentAdmissionPolicy with more than one ResourceGroup",
     ClusterQueue("cluster-queue").concurrent_admission_policy("TryPreferredFlavors")
     .resource_group(FlavorQuotas("flavor1").resource("cpu", "1"))
     .resource_group(FlavorQuotas("flavor2").resource("memory", "1")),
     [invalid(RG)], "must have exactly one ResourceGroup when ConcurrentAdmissionPolicy is defined", "2"),
    ("ConcurrentAdmissionPolicy with more than 16 flavors",
     ClusterQueue("cluster-queue").concurrent_admission_policy("TryPreferredFlavors")
     .resource_group(*[FlavorQuotas(f"f{i:03d}").resource("cpu", "1") for i in range(17)]),
     [invalid(f"{RG}[0].flavors")],
     "cannot have more than 16 resource flavors in the ResourceGroup when ConcurrentAdmissionPolicy is defined", "17"),
    ("ConcurrentAdmissionPolicy with empty ResourceGroups",
     ClusterQueue("cluster-queue").concurrent_admission_policy("TryPreferredFlavors"),
     [invalid(RG)], "must have exactly one ResourceGroup when ConcurrentAdmissionPolicy is defined", "0"),
    ("ConcurrentAdmissionPolicy with valid LastAcceptableFlavorName",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("flavor1").resource("cpu", "1"))
     .last_acceptable_flavor_name("flavor1"), [], "", ""),
    ("ConcurrentAdmissionPolicy constraints with RetainFirstAdmission mode is forbidden",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("flavor1").resource("cpu", "1"))
     .concurrent_admission_policy("RetainFirstAdmission").last_acceptable_flavor_name("flavor1"),
     [forbidden(f"{CAP}.migration.constraints")],
     'may only be set when migration.mode is "TryPreferredFlavors" (got "RetainFirstAdmission")', ""),
    ("ConcurrentAdmissionPolicy constraints with empty migration mode is allowed",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("flavor1").resource("cpu", "1"))
     .concurrent_admission_policy("").last_acceptable_flavor_name("flavor1"), [], "", ""),
    ("ConcurrentAdmissionPolicy with invalid LastAcceptableFlavorName",
     ClusterQueue("cluster-queue").resource_group(FlavorQuotas("flavor1").resource("cpu", "1"))
     .last_acceptable_flavor_name("non-existent-flavor"),
     [invalid(f"{CAP}.migration.constraints.lastAcceptableFlavorName")],
     "must be one of the flavors defined in the ClusterQueue: [flavor1]", "non-existent-flavor"),
]


def _obj(cq: Any) -> dict[str, Any]:
    return cq if isinstance(cq, dict) else cq.obj()


def _bad_value(err: FieldError) -> str:
    """``fmt.Sprint(BadValue)``: strings bare."""
    return err.bad_value if isinstance(err.bad_value, str) else render_value(err.bad_value)


@pytest.mark.parametrize(("cq", "want", "detail", "bad_value"), [pytest.param(*case[1:], id=case[0])
                                                                  for case in VALIDATE_CASES])
def test_validate_cluster_queue(cq: Any, want: list[tuple[str, str]], detail: str, bad_value: str) -> None:
    got = validate_cluster_queue(_obj(cq), GATES)
    assert shape(got) == want
    if detail:
        assert got[0].detail == detail
    if bad_value:
        assert _bad_value(got[0]) == bad_value


ON_FLAVORS = "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]"


def _cq_alpha(*, strategy: str = "", rule: tuple[str, str] | None = None, flavor: str = "alpha") -> ClusterQueue:
    cq = ClusterQueue("cluster-queue").resource_group(FlavorQuotas(flavor).resource("cpu", "1"))
    if strategy:
        cq.queueing_strategy(strategy)
    if rule:
        cq.admission_check_strategy((rule[0], [rule[1]]))
    return cq


UPDATE_CASES: list[tuple[str, Any, Any, dict[str, bool], list[tuple[str, str]]]] = [
    ("queueingStrategy can be updated", ClusterQueue("cluster-queue").queueing_strategy("StrictFIFO"),
     ClusterQueue("cluster-queue").queueing_strategy("BestEffortFIFO"), {}, []),
    ("same queueingStrategy", ClusterQueue("cluster-queue").queueing_strategy("BestEffortFIFO"),
     ClusterQueue("cluster-queue").queueing_strategy("BestEffortFIFO"), {}, []),
    ("legacy cluster queue with invalid onFlavors allows unrelated updates when the feature gate is disabled",
     _cq_alpha(strategy="StrictFIFO", rule=("ac1", "ghost")), _cq_alpha(strategy="BestEffortFIFO", rule=("ac1", "ghost")),
     {"RejectUpdatesToCQWithInvalidOnFlavors": False}, []),
    ("legacy cluster queue with invalid onFlavors rejects unrelated updates when the feature gate is enabled",
     _cq_alpha(strategy="StrictFIFO", rule=("ac1", "ghost")), _cq_alpha(strategy="BestEffortFIFO", rule=("ac1", "ghost")),
     {"RejectUpdatesToCQWithInvalidOnFlavors": True}, [not_supported(ON_FLAVORS)]),
    ("valid admissionCheckStrategy can be added when the old cluster queue has no strategy",
     _cq_alpha(), _cq_alpha(rule=("ac1", "alpha")), {}, []),
    ("invalid admissionCheckStrategy is rejected when the old cluster queue has no strategy",
     _cq_alpha(), _cq_alpha(rule=("ac1", "ghost")), {}, [not_supported(ON_FLAVORS)]),
    ("resourceGroup flavor change revalidates admissionCheck onFlavors for legacy cluster queue",
     _cq_alpha(rule=("ac1", "ghost")), _cq_alpha(rule=("ac1", "ghost"), flavor="beta"), {},
     [not_supported(ON_FLAVORS)]),
    ("changing invalid onFlavors for a legacy cluster queue revalidates the new ref",
     _cq_alpha(rule=("ac1", "ghost")), _cq_alpha(rule=("ac1", "phantom")), {}, [not_supported(ON_FLAVORS)]),
    ("changing admissionCheck name revalidates onFlavors for the new rule",
     _cq_alpha(rule=("ac1", "ghost")), _cq_alpha(rule=("ac2", "ghost")), {}, [not_supported(ON_FLAVORS)]),
    ("ConcurrentAdmissionPolicy cannot be added",
     _cq_alpha(), _cq_alpha().concurrent_admission_policy("TryPreferredFlavors"), {"ConcurrentAdmission": True},
     [invalid(CAP)]),
    ("ConcurrentAdmissionPolicy cannot be removed",
     _cq_alpha().concurrent_admission_policy("TryPreferredFlavors"), _cq_alpha(), {"ConcurrentAdmission": True},
     [invalid(CAP)]),
]


@pytest.mark.parametrize(("old", "new", "gates", "want"), [pytest.param(*case[1:], id=case[0])
                                                           for case in UPDATE_CASES])
def test_validate_cluster_queue_update(old: Any, new: Any, gates: dict[str, bool],
                                       want: list[tuple[str, str]]) -> None:
    got = validate_cluster_queue_update(old.obj(), new.obj(), {**DEFAULT_FEATURE_GATES, **gates})
    assert shape(got) == want


def test_validate_cluster_queue_update_names_the_supported_flavors() -> None:
    # field.NotSupported(path, "ghost", []string{"alpha"})
    got = validate_cluster_queue_update(_cq_alpha().obj(), _cq_alpha(rule=("ac1", "ghost")).obj(), GATES)
    assert str(got[0]) == (f'{ON_FLAVORS}: Unsupported value: "ghost": supported values: "alpha"')


@pytest.mark.parametrize(("flavors", "want_err"), [
    pytest.param(10, False, id="within limit (10 flavors)"),
    pytest.param(256, False, id="At limit (256 flavors)"),
    pytest.param(257, True, id="over limit (257 flavors)"),
])
def test_validate_total_flavors(flavors: int, want_err: bool) -> None:
    cq = ClusterQueue("cluster-queue").resource_group(*[FlavorQuotas(f"f{i:03d}").resource("cpu", "1")
                                                        for i in range(flavors)])
    assert bool(validate_cluster_queue(cq.obj(), GATES)) is want_err


def _cq_with(resources: int, flavors: int = 1) -> dict[str, Any]:
    names = [f"res{j:03d}" for j in range(resources)]
    return {"metadata": {"name": "cluster-queue"}, "spec": {"resourceGroups": [{
        "coveredResources": names,
        "flavors": [{"name": f"f{i:03d}" if flavors > 1 else "default",
                     "resources": [{"name": n, "nominalQuota": "1"} for n in names]} for i in range(flavors)]}]}}


@pytest.mark.parametrize(("resources", "want_err"), [
    pytest.param(10, False, id="within limit (10 covered resources)"),
    pytest.param(256, False, id="At limit (256 covered resources)"),
    pytest.param(257, True, id="over limit (257 covered resources)"),
])
def test_validate_total_covered_resources(resources: int, want_err: bool) -> None:
    assert bool(validate_cluster_queue(_cq_with(resources), GATES)) is want_err


@pytest.mark.parametrize(("flavors", "resources", "want_err"), [
    pytest.param(1, 10, False, id="within limit (1 flavor × 10 resources = 10)"),  # noqa: RUF001 (upstream's case name)
    pytest.param(8, 64, False, id="at limit (8 flavors × 64 resources = 512)"),  # noqa: RUF001 (upstream's case name)
    pytest.param(9, 64, True, id="over limit (9 flavors × 64 resources = 576)"),  # noqa: RUF001 (upstream's case name)
])
def test_validate_flavor_resource_combinations(flavors: int, resources: int, want_err: bool) -> None:
    got = validate_cluster_queue(_cq_with(resources, flavors), GATES)
    assert bool(got) is want_err
    if want_err:
        assert str(got[0]) == ("spec.resourceGroups[0]: Invalid value: 576: number of flavor-resource "
                               "combinations in a resourceGroup must be ≤ 512, got 576")


@pytest.mark.parametrize(("cohort", "want"), [
    pytest.param(Cohort("cohort").resource_group(FlavorQuotas("x86").resource("cpu", "1", "", "1")),
                 [(invalid(quota_path(0, 0, 0, "lendingLimit")), "must be nil when parent is empty")],
                 id="flavor quota with lendingLimit and empty parent"),
])
def test_validate_cohort(cohort: Cohort, want: list[tuple[tuple[str, str], str]]) -> None:
    got = validate_cohort(cohort.obj())
    assert [((e.type.value, e.field), e.detail) for e in got] == want
