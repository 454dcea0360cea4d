"""``jobframework/tas.go``: a PodSet's ``topologyRequest`` from its template's annotations.

TopologyAwareScheduling is on by default in v0.19.2, so every integration asks for one; a job
with no TAS annotation still carries its pod-index label (and sub-group) in the request.
"""

from __future__ import annotations

from typing import Any

from . import constants as k


def _parse_bool(text: str) -> bool:
    """``strconv.ParseBool``."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise ValueError(f'strconv.ParseBool: parsing "{text}": invalid syntax')


def topology_request(template_meta: dict[str, Any], *, pod_index_label: str | None = None,
                     sub_group_index_label: str | None = None,
                     sub_group_count: int | None = None) -> dict[str, Any] | None:
    """``NewPodSetTopologyRequest(meta).PodIndexLabel(..).SubGroup(..).Build()`` (raises ValueError
    on a malformed annotation; multi-layer constraints are behind an alpha gate and not read)."""
    ann = template_meta.get("annotations") or {}
    req: dict[str, Any] = {}
    required = ann.get(k.PODSET_REQUIRED_TOPOLOGY_ANNOTATION)
    preferred = ann.get(k.PODSET_PREFERRED_TOPOLOGY_ANNOTATION)
    unconstrained = ann.get(k.PODSET_UNCONSTRAINED_TOPOLOGY_ANNOTATION)
    slice_topology = ann.get(k.PODSET_SLICE_REQUIRED_TOPOLOGY_ANNOTATION)
    slice_size = ann.get(k.PODSET_SLICE_SIZE_ANNOTATION)
    group_name = ann.get(k.PODSET_GROUP_NAME_ANNOTATION)
    if required is not None:
        req["required"] = required
    elif preferred is not None:
        req["preferred"] = preferred
    elif unconstrained is not None:
        req["unconstrained"] = _parse_bool(unconstrained)
    else:
        has_slice = slice_topology is not None and slice_size is not None
        if not has_slice and pod_index_label is None and sub_group_index_label is None and sub_group_count is None:
            return None
    if slice_topology is not None and slice_size is not None:
        try:
            size = int(slice_size, 10)
        except ValueError:
            raise ValueError(f'strconv.ParseInt: parsing "{slice_size}": invalid syntax') from None
        req["podSetSliceRequiredTopology"] = slice_topology
        req["podSetSliceSize"] = size
    if pod_index_label is not None:
        req["podIndexLabel"] = pod_index_label
    if sub_group_count is not None:
        req["subGroupCount"] = sub_group_count
    if sub_group_index_label is not None:
        req["subGroupIndexLabel"] = sub_group_index_label
    if group_name is not None and (required is not None or preferred is not None):
        req["podSetGroupName"] = group_name
    return req
