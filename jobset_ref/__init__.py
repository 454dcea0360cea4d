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

from jobset_ref import _lazy

__all__, __getattr__, __dir__ = _lazy.lazy_exports(__name__, {
    "jobset_ref.api": (
        "FailurePolicy", "FailurePolicyAction", "FailurePolicyRule", "JobSet", "JobSetSpec", "JobSetStatus",
        "ReplicatedJob", "default_jobset", "jobset_crd", "validate_create", "validate_update",
    ),
    "jobset_ref.installation": ("Installation", "install"),
})
