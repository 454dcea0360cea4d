"""The Kubernetes release the fake answers as: ``/version`` and every node's kubelet report it."""

from __future__ import annotations

from typing import Final

__all__ = ["KUBERNETES_VERSION"]

#: A minor that kubectl 1.32 (and the gcloud dispatcher), the kubernetes DynamicClient and kr8s accept.
KUBERNETES_VERSION: Final = "v1.32.4+fakekube"
