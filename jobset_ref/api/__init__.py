"""The JobSet API (``jobset.x-k8s.io/v1alpha2``): models, CRD, defaulting, validation, pod webhook.

Mirrors upstream kubernetes-sigs/jobset @ 08dfbdf: ``api/jobset/v1alpha2/``,
``pkg/webhooks/``, ``pkg/constants/``, ``pkg/features/`` and the generated CRD
``config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml``. Constants live in
:mod:`jobset_ref.api.constants` (import the module; they are not re-exported here).

Names are imported lazily (on first access), so that ``from jobset_ref.api import constants``
and installing the CRD do not import pydantic and build the models.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from jobset_ref.api import constants

if TYPE_CHECKING:
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

_HOMES = {
    "Condition": "jobset_ref.api.models",
    "ConditionStatus": "jobset_ref.api.models",
    "Coordinator": "jobset_ref.api.models",
    "DependsOn": "jobset_ref.api.models",
    "DependsOnStatus": "jobset_ref.api.models",
    "FailurePolicy": "jobset_ref.api.models",
    "FailurePolicyAction": "jobset_ref.api.models",
    "FailurePolicyRule": "jobset_ref.api.models",
    "Int32": "jobset_ref.api.models",
    "JOBSET_RESOURCE": "jobset_ref.api.validation",
    "JobSet": "jobset_ref.api.models",
    "JobSetConditionType": "jobset_ref.api.models",
    "JobSetRestartStrategy": "jobset_ref.api.models",
    "JobSetSpec": "jobset_ref.api.models",
    "JobSetStatus": "jobset_ref.api.models",
    "Network": "jobset_ref.api.models",
    "Operator": "jobset_ref.api.models",
    "PodWebhookError": "jobset_ref.api.pod_webhook",
    "ReplicatedJob": "jobset_ref.api.models",
    "ReplicatedJobStatus": "jobset_ref.api.models",
    "RetentionPolicyType": "jobset_ref.api.models",
    "StartupPolicy": "jobset_ref.api.models",
    "StartupPolicyOptions": "jobset_ref.api.models",
    "SuccessPolicy": "jobset_ref.api.models",
    "VolumeClaimPolicy": "jobset_ref.api.models",
    "VolumeRetentionPolicy": "jobset_ref.api.models",
    "WireModel": "jobset_ref.api.models",
    "apply_schema_defaults": "jobset_ref.api.defaulting",
    "default_jobset": "jobset_ref.api.defaulting",
    "default_pod": "jobset_ref.api.pod_webhook",
    "denial_through_apiserver": "jobset_ref.api.pod_webhook",
    "feature_enabled": "jobset_ref.api.validation",
    "find_leader_pod": "jobset_ref.api.pod_webhook",
    "invalid_error": "jobset_ref.api.validation",
    "is_leader_pod": "jobset_ref.api.pod_webhook",
    "jobset_crd": "jobset_ref.api.crd",
    "leader_pod_name": "jobset_ref.api.pod_webhook",
    "name_for_validation": "jobset_ref.api.validation",
    "openapi_schema": "jobset_ref.api.crd",
    "pod_name_without_suffix": "jobset_ref.api.pod_webhook",
    "semantic_equal": "jobset_ref.api.validation",
    "validate_create": "jobset_ref.api.validation",
    "validate_pod_create": "jobset_ref.api.pod_webhook",
    "validate_update": "jobset_ref.api.validation",
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'jobset_ref.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
