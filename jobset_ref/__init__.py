"""jobset_ref: a deterministic reference JobSet controller (``jobset.x-k8s.io/v1alpha2``) for fakekube.

    from fakekube import FakeCluster
    from jobset_ref import install

    cluster = FakeCluster(seed=0)
    install(cluster)
    cluster.apply(jobset_manifest)
"""

from __future__ import annotations

from jobset_ref.api import (
    FailurePolicy,
    FailurePolicyAction,
    FailurePolicyRule,
    JobSet,
    JobSetSpec,
    JobSetStatus,
    ReplicatedJob,
    default_jobset,
    jobset_crd,
    validate_create,
    validate_update,
)
from jobset_ref.install import Installation, install

__all__ = [
    "FailurePolicy",
    "FailurePolicyAction",
    "FailurePolicyRule",
    "Installation",
    "JobSet",
    "JobSetSpec",
    "JobSetStatus",
    "ReplicatedJob",
    "default_jobset",
    "install",
    "jobset_crd",
    "validate_create",
    "validate_update",
]
