"""jobset_ref: a deterministic reference JobSet controller (``jobset.x-k8s.io/v1alpha2``) for fakekube.

    from fakekube import FakeCluster
    from jobset_ref import install

    cluster = FakeCluster(seed=0)
    install(cluster)
    cluster.apply(jobset_manifest)

Names are imported lazily, so that loading the pytest plugin (``jobset_ref.pytest_plugin``)
costs nothing to a project that never asks for a cluster.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from jobset_ref.installation import Installation, install

_HOMES = {
    "FailurePolicy": "jobset_ref.api",
    "FailurePolicyAction": "jobset_ref.api",
    "FailurePolicyRule": "jobset_ref.api",
    "Installation": "jobset_ref.installation",
    "JobSet": "jobset_ref.api",
    "JobSetSpec": "jobset_ref.api",
    "JobSetStatus": "jobset_ref.api",
    "ReplicatedJob": "jobset_ref.api",
    "default_jobset": "jobset_ref.api",
    "install": "jobset_ref.installation",
    "jobset_crd": "jobset_ref.api",
    "validate_create": "jobset_ref.api",
    "validate_update": "jobset_ref.api",
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'jobset_ref' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
