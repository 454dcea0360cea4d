"""The CustomResourceDefinition behind a served custom resource (for its printer columns and schema)."""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.kinds.crds import CRD_KEY
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer

__all__ = ["crd_for"]


def crd_for(server: ApiServer, rt: ResourceType) -> dict[str, Any] | None:
    """The stored CRD serving ``rt`` (``<plural>.<group>``), or None for a built-in resource.

    The object is the store's own: read it, never modify it.
    """
    if not rt.custom:
        return None
    return server.store.get(CRD_KEY, "", f"{rt.plural}.{rt.group}")
