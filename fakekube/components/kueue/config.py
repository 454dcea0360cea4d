"""Kueue's manager Configuration (``config.kueue.x-k8s.io/v1beta2``) with v0.19.2's defaults.

Ports ``apis/config/v1beta2/defaults.go`` (``SetDefaults_Configuration``), the parts of
``pkg/config/validation.go`` that concern what the simulation runs (waitForPodsReady,
integrations) and ``pkg/features/kube_features.go``'s gate table resolved at version 0.19.

The configuration stays a dict in its YAML names (what a user writes in the ConfigMap);
:func:`resolve_config` returns a defaulted deep copy and :class:`WaitForPodsReady` is the
parsed view the controllers use (durations in virtual nanoseconds).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakekube._core.clock import SECOND, SimTime
from fakekube._core.gocompat import go_duration as duration_string
from fakekube.errors import UsageError

__all__ = ["DEFAULT_FEATURE_GATES", "KueueConfig", "WaitForPodsReady", "resolve_config"]

CONFIG_API_VERSION = "config.kueue.x-k8s.io/v1beta2"
DEFAULT_NAMESPACE = "kueue-system"
DEFAULT_WAIT_FOR_PODS_READY_TIMEOUT = 30 * 60 * SECOND
DEFAULT_REQUEUING_BACKOFF_BASE_SECONDS = 60
DEFAULT_REQUEUING_BACKOFF_MAX_SECONDS = 3600

#: Every Kueue feature gate at v0.19.2: (default, locked to default). The last spec at or
#: before version 0.19 of each gate in ``defaultVersionedFeatureGates``.
FEATURE_GATES: dict[str, tuple[bool, bool]] = {
    "PartialAdmission": (True, False), "FlavorFungibility": (True, False),
    "VisibilityOnDemand": (True, False), "DisableWaitForPodsReady": (False, False),
    "PrioritySortingWithinCohort": (True, False), "FairSharingPreemptWithinNominal": (True, False),
    "FairSharingPrioritizeNonBorrowing": (True, False), "MultiKueue": (True, False),
    "TopologyAwareScheduling": (True, False), "LocalQueueMetrics": (True, False),
    "TASProfileMixed": (True, False), "HierarchicalCohorts": (True, True),
    "AdmissionFairSharing": (True, False), "ObjectRetentionPolicies": (True, True),
    "TASFailedNodeReplacement": (True, False), "ElasticJobsViaWorkloadSlices": (True, False),
    "ElasticJobsViaWorkloadSlicesWithTAS": (False, False), "TASFailedNodeReplacementFailFast": (True, False),
    "TASReplaceNodeOnPodTermination": (True, False), "SkipReassignmentForPodOwnedWorkloads": (True, False),
    "TASReplaceNodeDueToNotReadyOverFixedTime": (False, False),
    "ManagedJobsNamespaceSelectorAlwaysRespected": (True, True), "TASBalancedPlacement": (False, False),
    "TASAssignmentsEncodingByHostnamePrefix": (True, False), "KueueDRAIntegration": (True, False),
    "KueueDRAIntegrationExtendedResource": (True, False), "KueueDRARejectWorkloadsWhenDRADisabled": (True, False),
    "KueueDRAIntegrationPartitionableDevices": (True, False),
    "KueueDRAIntegrationConsumableCapacity": (False, False), "MultiKueueAdaptersForCustomJobs": (True, False),
    "WorkloadRequestUseMergePatch": (False, False), "MultiKueueAllowInsecureKubeconfigs": (False, True),
    "MultiKueueKubeConfigPathValidation": (False, False), "ReclaimablePods": (True, False),
    "PropagateBatchJobLabelsToWorkload": (True, True), "MultiKueueClusterProfile": (False, False),
    "FailureRecoveryPolicy": (False, False), "SkipFinalizersForPodsSuspendedByParent": (True, True),
    "MultiKueueWaitForWorkloadAdmitted": (True, True), "MultiKueueRedoAdmissionOnEvictionInWorker": (True, True),
    "TLSOptions": (True, False), "RemoveFinalizersWithStrictPatch": (True, False),
    "TASReplaceNodeOnNodeTaints": (True, False), "AssignQueueLabelsForPods": (True, False),
    "TASMultiLayerTopology": (True, False), "SchedulingEquivalenceHashing": (True, False),
    "SchedulerLongRequeueInterval": (False, False), "SchedulerTimestampPreemptionBuffer": (False, False),
    "CustomMetricLabels": (False, False), "SparkApplicationIntegration": (False, False),
    "MultiKueueOrchestratedPreemption": (False, False), "PriorityBoost": (False, False),
    "AdmissionGatedBy": (True, False), "ShortWorkloadNames": (False, False),
    "FastQuotaReleaseInPodIntegration": (False, False), "RejectUpdatesToCQWithInvalidOnFlavors": (False, False),
    "FinishOrphanedWorkloads": (True, False), "MultiKueueIncrementalDispatcherConfig": (True, False),
    "MultiKueueIncrementalDispatcherRespectConfigOrder": (True, False), "ConcurrentAdmission": (False, False),
    "QuotaCheckStrategy": (True, False), "MetricForWorkloadCreationLatency": (True, False),
    "TASRespectNodeAffinityPreferred": (False, False), "MultiKueueManagerQuotaAutomation": (False, False),
    "WorkloadIdentifierAnnotations": (True, False), "WorkloadPriorityClassDefaulting": (False, False),
    "MetricsForCohorts": (True, False), "CleanupProvisioningRequestsOnEviction": (True, False),
    "TASHandleOverlappingFlavors": (True, False), "UnadmittedWorkloadsObservability": (False, False),
    "TASRecomputeAssignmentWithinSchedulingCycle": (True, False), "UnadmittedWorkloadsExplicitStatus": (False, False),
    "DeferRayServiceFinalizationForRedisCleanup": (True, False), "TASCacheNodeMatchResults": (True, False),
    "TASCachingRemainingResources": (True, False), "TASCacheTopologyTree": (False, False),
    "SchedulerLibraryIntegration": (False, False), "VectorizedResourceRequests": (True, False),
    "WorkloadValidateResourcesAreNonNegative": (True, False), "TASValidateWorkloadSliceSize": (True, False),
    "WorkloadValidationForPodSetMetadata": (True, False), "PrioritizePreemptorWorkloads": (False, False),
    "LWSImmutableGroupSize": (True, False), "FlavorFungibilityPreserveScanProgress": (True, False),
    "SkipAncestorCheckForDeletedWorkloads": (True, False), "MultiKueueRemoteSpecSync": (True, False),
    "RecomputeAssignmentUponPreemptionTargetsOverlap": (False, False), "PodIntegrationValidateGroupOwner": (True, False),
    "ValidateRayAndSparkJobUpdates": (True, False),
}
DEFAULT_FEATURE_GATES: dict[str, bool] = {name: default for name, (default, _) in FEATURE_GATES.items()}

_TOP_LEVEL = frozenset({
    "apiVersion", "kind", "namespace", "manageJobsWithoutQueueName", "managedJobsNamespaceSelector",
    "internalCertManagement", "waitForPodsReady", "clientConnection", "integrations", "multiKueue",
    "fairSharing", "admissionFairSharing", "resources", "featureGates", "objectRetentionPolicies",
    "health", "metrics", "webhook", "leaderElection", "controller", "pprofBindAddress",
    "visibilityServer", "tls", "labelKeysToCopy",
})


@dataclass(frozen=True, slots=True)
class WaitForPodsReady:
    """The parsed ``waitForPodsReady`` (``pkg/controller/core`` ``waitForPodsReadyConfig``)."""

    timeout: SimTime
    recovery_timeout: SimTime | None
    block_admission: bool
    requeuing_timestamp: str
    backoff_limit_count: int | None
    backoff_base_seconds: int
    backoff_max_seconds: int


@dataclass(frozen=True, slots=True)
class KueueConfig:
    """The defaulted Configuration (YAML names), the resolved gates, and the parsed views."""

    raw: dict[str, Any]
    feature_gates: dict[str, bool]
    wait_for_pods_ready: WaitForPodsReady | None

    def gate(self, name: str) -> bool:
        return self.feature_gates[name]

    @property
    def fair_sharing_enabled(self) -> bool:
        return bool((self.raw.get("fairSharing") or {}).get("enable", False))

    @property
    def manage_jobs_without_queue_name(self) -> bool:
        return bool(self.raw.get("manageJobsWithoutQueueName", False))


def _duration(value: Any, where: str) -> SimTime:
    """A metav1.Duration from YAML (``"5m"``, ``"1h30m"``) or seconds as a number."""
    from fakekube._core.clock import parse_duration

    if isinstance(value, bool):
        raise UsageError(f"Kueue configuration {where}: expected a duration such as '5m', got {value!r}")
    try:
        seconds = parse_duration(value)
    except (ValueError, TypeError, UsageError) as err:
        raise UsageError(f"Kueue configuration {where}: expected a duration such as '5m', got {value!r} ({err})") from None
    return round(seconds * SECOND)


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"Kueue configuration {where}: expected an integer, got {value!r}")
    return value


def resolve_feature_gates(given: Mapping[str, Any] | None) -> dict[str, bool]:
    gates = dict(DEFAULT_FEATURE_GATES)
    for name, value in (given or {}).items():
        if name not in FEATURE_GATES:
            raise UsageError(f"unknown Kueue feature gate {name!r}")
        if not isinstance(value, bool):
            raise UsageError(f"Kueue feature gate {name!r} takes true or false, got {value!r}")
        default, locked = FEATURE_GATES[name]
        if locked and value != default:
            raise UsageError(f"cannot set feature gate {name} to {str(value).lower()}, feature is locked to "
                             f"{str(default).lower()}")
        gates[name] = value
    return gates


def resolve_config(config: Mapping[str, Any] | None = None) -> KueueConfig:
    """Default ``config`` as ``SetDefaults_Configuration`` does and validate what the fake runs."""
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise UsageError(f"the Kueue configuration must be a mapping of Configuration fields, got "
                         f"{type(config).__name__}")
    unknown = sorted(set(config) - _TOP_LEVEL)
    if unknown:
        raise UsageError(f"unknown Kueue Configuration field(s) {', '.join(map(repr, unknown))} "
                         f"(config.kueue.x-k8s.io/v1beta2 field names, e.g. 'waitForPodsReady')")
    api_version = config.get("apiVersion", CONFIG_API_VERSION)
    if api_version != CONFIG_API_VERSION:
        raise UsageError(f"Kueue Configuration apiVersion must be {CONFIG_API_VERSION!r}, got {api_version!r}")
    cfg: dict[str, Any] = copy.deepcopy(dict(config))
    cfg.setdefault("apiVersion", CONFIG_API_VERSION)
    cfg.setdefault("kind", "Configuration")
    cfg["namespace"] = cfg.get("namespace") or DEFAULT_NAMESPACE
    cfg.setdefault("manageJobsWithoutQueueName", False)
    if not isinstance(cfg["manageJobsWithoutQueueName"], bool):
        raise UsageError("Kueue configuration manageJobsWithoutQueueName takes true or false")
    gates = resolve_feature_gates(cfg.get("featureGates"))

    wfpr: WaitForPodsReady | None = None
    raw_wait = cfg.get("waitForPodsReady")
    if raw_wait is None:
        raw_wait = {}
    if not isinstance(raw_wait, Mapping):
        raise UsageError("Kueue configuration waitForPodsReady must be a mapping")
    wait = dict(raw_wait)
    timeout = _duration(wait["timeout"], "waitForPodsReady.timeout") if wait.get("timeout") not in (None, 0, "0s") \
        else DEFAULT_WAIT_FOR_PODS_READY_TIMEOUT
    if timeout < 0:
        raise UsageError("Kueue configuration waitForPodsReady.timeout: must be greater than or equal to 0")
    wait["timeout"] = duration_string(timeout)
    wait.setdefault("blockAdmission", False)
    recovery = _duration(wait["recoveryTimeout"], "waitForPodsReady.recoveryTimeout") \
        if wait.get("recoveryTimeout") is not None else timeout
    if recovery < 0:
        raise UsageError("Kueue configuration waitForPodsReady.recoveryTimeout: must be greater than or equal to 0")
    wait["recoveryTimeout"] = duration_string(recovery)
    strategy = dict(wait.get("requeuingStrategy") or {})
    strategy.setdefault("timestamp", "Eviction")
    if strategy["timestamp"] not in ("Creation", "Eviction"):
        raise UsageError(f"Kueue configuration waitForPodsReady.requeuingStrategy.timestamp: Unsupported value: "
                         f"{strategy['timestamp']!r}: supported values: \"Creation\", \"Eviction\"")
    base = _int(strategy.setdefault("backoffBaseSeconds", DEFAULT_REQUEUING_BACKOFF_BASE_SECONDS),
                "waitForPodsReady.requeuingStrategy.backoffBaseSeconds") or DEFAULT_REQUEUING_BACKOFF_BASE_SECONDS
    maximum = _int(strategy.setdefault("backoffMaxSeconds", DEFAULT_REQUEUING_BACKOFF_MAX_SECONDS),
                   "waitForPodsReady.requeuingStrategy.backoffMaxSeconds") or DEFAULT_REQUEUING_BACKOFF_MAX_SECONDS
    limit = strategy.get("backoffLimitCount")
    if limit is not None:
        limit = _int(limit, "waitForPodsReady.requeuingStrategy.backoffLimitCount")
    for name, value in (("backoffLimitCount", limit), ("backoffBaseSeconds", base), ("backoffMaxSeconds", maximum)):
        if value is not None and value < 0:
            raise UsageError(f"Kueue configuration waitForPodsReady.requeuingStrategy.{name}: "
                             "must be greater than or equal to 0")
    wait["requeuingStrategy"] = strategy
    cfg["waitForPodsReady"] = wait
    if not gates["DisableWaitForPodsReady"]:
        wfpr = WaitForPodsReady(timeout=timeout, recovery_timeout=recovery or None,
                                block_admission=bool(wait["blockAdmission"]),
                                requeuing_timestamp=strategy["timestamp"], backoff_limit_count=limit,
                                backoff_base_seconds=base, backoff_max_seconds=maximum)

    integrations = dict(cfg.get("integrations") or {})
    if not integrations.get("frameworks"):
        integrations["frameworks"] = ["batch/job"]
    cfg["integrations"] = integrations
    cfg.setdefault("managedJobsNamespaceSelector", {"matchExpressions": [
        {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system", cfg["namespace"]]}]})
    return KueueConfig(raw=cfg, feature_gates=gates, wait_for_pods_ready=wfpr)
