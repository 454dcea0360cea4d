"""The built-in kinds the fake serves, and the hook that serves custom resources."""

from __future__ import annotations

from fakekube.apiserver.kinds import (
    admissionpolicy,
    core,
    crds,
    jobs,
    pods,
    rbac,
    scheduling,
    secrets,
    webhooks,
)
from fakekube.apiserver.server import ApiServer

__all__ = ["install_builtin_kinds"]


def install_builtin_kinds(server: ApiServer) -> None:
    """Register every built-in resource (and its subresource handlers) with ``server``."""
    for module in (core, secrets, pods, jobs, rbac, scheduling, admissionpolicy, webhooks, crds):
        module.install(server)
