"""The JobSet API (``jobset.x-k8s.io/v1alpha2``): models, CRD, defaulting, validation, pod webhook.

Mirrors upstream kubernetes-sigs/jobset @ 08dfbdf: ``api/jobset/v1alpha2/``,
``pkg/webhooks/``, ``pkg/constants/``, ``pkg/features/`` and the generated CRD
``config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml``. Constants live in
:mod:`jobset_ref.api.constants` (import the module; they are not re-exported here).

Names are imported lazily (on first access), so that ``from jobset_ref.api import constants``
and installing the CRD do not import pydantic and build the models.
"""

from __future__ import annotations

from jobset_ref import _lazy
from jobset_ref.api import constants as constants  # eager: a plain module, no pydantic

__all__, __getattr__, __dir__ = _lazy.lazy_exports(__name__, {
    "jobset_ref.api.crd": ("jobset_crd", "openapi_schema"),
    "jobset_ref.api.defaulting": ("apply_schema_defaults", "default_jobset"),
    "jobset_ref.api.models": (
        "Condition", "ConditionStatus", "Coordinator", "DependsOn", "DependsOnStatus", "FailurePolicy",
        "FailurePolicyAction", "FailurePolicyRule", "Int32", "JobSet", "JobSetConditionType",
        "JobSetRestartStrategy", "JobSetSpec", "JobSetStatus", "Network", "Operator", "ReplicatedJob",
        "ReplicatedJobStatus", "RetentionPolicyType", "StartupPolicy", "StartupPolicyOptions", "SuccessPolicy",
        "VolumeClaimPolicy", "VolumeRetentionPolicy", "WireModel",
    ),
    "jobset_ref.api.pod_webhook": (
        "PodWebhookError", "default_pod", "denial_through_apiserver", "find_leader_pod", "is_leader_pod",
        "leader_pod_name", "pod_name_without_suffix", "validate_pod_create",
    ),
    "jobset_ref.api.validation": (
        "JOBSET_RESOURCE", "feature_enabled", "invalid_error", "name_for_validation", "semantic_equal",
        "validate_create", "validate_update",
    ),
}, eager=["constants"])
