"""The JobSet API (``jobset.x-k8s.io/v1alpha2``): models, CRD, defaulting, validation, pod webhook.

Mirrors upstream kubernetes-sigs/jobset @ 08dfbdf: ``api/jobset/v1alpha2/``,
``pkg/webhooks/``, ``pkg/constants/``, ``pkg/features/`` and the generated CRD
``config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml``. Constants live in
:mod:`jobset_ref.api.constants` (import the module; they are not re-exported here).
"""

from __future__ import annotations

from jobset_ref.api import constants
from jobset_ref.api.crd import jobset_crd, openapi_schema
from jobset_ref.api.defaulting import apply_schema_defaults, default_jobset
from jobset_ref.api.models import (
    Condition,
    ConditionStatus,
    Coordinator,
    DependsOn,
    DependsOnStatus,
    FailurePolicy,
    FailurePolicyAction,
    FailurePolicyRule,
    Int32,
    JobSet,
    JobSetConditionType,
    JobSetRestartStrategy,
    JobSetSpec,
    JobSetStatus,
    Network,
    Operator,
    ReplicatedJob,
    ReplicatedJobStatus,
    RetentionPolicyType,
    StartupPolicy,
    StartupPolicyOptions,
    SuccessPolicy,
    VolumeClaimPolicy,
    VolumeRetentionPolicy,
    WireModel,
)
from jobset_ref.api.pod_webhook import (
    PodWebhookError,
    default_pod,
    denial_through_apiserver,
    find_leader_pod,
    is_leader_pod,
    leader_pod_name,
    pod_name_without_suffix,
    validate_pod_create,
)
from jobset_ref.api.validation import (
    JOBSET_RESOURCE,
    feature_enabled,
    invalid_error,
    name_for_validation,
    semantic_equal,
    validate_create,
    validate_update,
)

__all__ = [
    "JOBSET_RESOURCE",
    "Condition",
    "ConditionStatus",
    "Coordinator",
    "DependsOn",
    "DependsOnStatus",
    "FailurePolicy",
    "FailurePolicyAction",
    "FailurePolicyRule",
    "Int32",
    "JobSet",
    "JobSetConditionType",
    "JobSetRestartStrategy",
    "JobSetSpec",
    "JobSetStatus",
    "Network",
    "Operator",
    "PodWebhookError",
    "ReplicatedJob",
    "ReplicatedJobStatus",
    "RetentionPolicyType",
    "StartupPolicy",
    "StartupPolicyOptions",
    "SuccessPolicy",
    "VolumeClaimPolicy",
    "VolumeRetentionPolicy",
    "WireModel",
    "apply_schema_defaults",
    "constants",
    "default_jobset",
    "default_pod",
    "denial_through_apiserver",
    "feature_enabled",
    "find_leader_pod",
    "invalid_error",
    "is_leader_pod",
    "jobset_crd",
    "leader_pod_name",
    "name_for_validation",
    "openapi_schema",
    "pod_name_without_suffix",
    "semantic_equal",
    "validate_create",
    "validate_pod_create",
    "validate_update",
]
