"""Committed generated files, publicly: the ``python -m <module> [--check]`` command that keeps one
current (``jobset_ref.api.crd`` uses it for the JobSet CRD), and the generated OpenAPI definitions
of the built-in kinds (which the JobSet CRD generator embeds for the Job and PVC templates).

Re-exports of fakekube's internal modules; import from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakekube._core.generated import regenerate_command

__all__ = ["builtin_definitions", "regenerate_command"]


def builtin_definitions() -> Mapping[str, dict[str, Any]]:
    """The OpenAPI v3 definitions of the built-in kinds this fake serves and everything they refer
    to, by kube-openapi name (``io.k8s.api.core.v1.PodSpec``), as ``/openapi/v3`` publishes them
    (with ``$ref`` pointers and descriptions). Shared: do not modify.
    """
    from fakekube.apiserver import builtin_schemas  # lazy: loads the committed JSON on first use

    return builtin_schemas.schemas()
