"""``pkg/podset``: what admission adds to a pod template, and how it is taken back.

A :class:`PodSetInfo` holds the metadata and scheduling fields of one PodSet: built from an
admission's flavors (:func:`from_assignment`) to start a job, or from the Workload's own PodSets
(:func:`from_podset`) to restore the templates when the job is stopped.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import constants as k


class InvalidPodSetInfo(ValueError):
    """``ErrInvalidPodsetInfo`` / ``ErrInvalidPodSetUpdate``: permanent, the job cannot start."""


@dataclass
class PodSetInfo:
    name: str = ""
    count: int = 0
    annotations: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: dict[str, Any] | None = None
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    scheduling_gates: list[dict[str, Any]] = field(default_factory=list)

    def merge(self, other: PodSetInfo) -> None:
        """``PodSetInfo.Merge``: maps must not conflict; tolerations and gates are added once."""
        for what, mine, theirs in (("annotations", self.annotations, other.annotations),
                                   ("labels", self.labels, other.labels),
                                   ("nodeSelector", self.node_selector, other.node_selector)):
            for key_, value in theirs.items():
                if key_ in mine and mine[key_] != value:
                    raise bad_update(what, f'conflict for key={key_}, value1={mine[key_]}, value2={value}')
        self.annotations.update(other.annotations)
        self.labels.update(other.labels)
        self.node_selector.update(other.node_selector)
        for tol in other.tolerations:
            if not any(_toleration_equal(tol, t) for t in self.tolerations):
                self.tolerations.append(tol)
        for gate in other.scheduling_gates:
            if gate not in self.scheduling_gates:
                self.scheduling_gates.append(gate)


def bad_len(want: int, got: int) -> InvalidPodSetInfo:
    """``BadPodSetsInfoLenError``: a job got pod set infos for another number of pod sets."""
    return InvalidPodSetInfo(f"invalid podset infos: expecting {want} podset, got {got}")


def bad_update(what: str, err: str) -> InvalidPodSetInfo:
    """``BadPodSetsUpdateError``."""
    return InvalidPodSetInfo(f"invalid admission check PodSetUpdate: conflict for {what}: {err}")


def _toleration_equal(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """``utiltolerations.Equal``: every field, a missing effect/operator read as empty."""
    fields = ("key", "operator", "value", "effect", "tolerationSeconds")
    return all(a.get(f) == b.get(f) for f in fields)


def from_assignment(assignment: dict[str, Any], podset: dict[str, Any],
                    get_flavor: Callable[[str], dict[str, Any]]) -> PodSetInfo:
    """``FromAssignment``: the flavors' nodeLabels and tolerations (each flavor once, in order).
    ``get_flavor`` raises the API error when a flavor is missing."""
    count = assignment.get("count")
    info = PodSetInfo(name=assignment["name"], count=int(podset.get("count", 0) if count is None else count))
    if assignment.get("topologyAssignment") is not None:
        request = podset.get("topologyRequest") or {}
        if not any(request.get(f) is not None for f in ("preferred", "required", "unconstrained")):
            info.annotations[k.PODSET_UNCONSTRAINED_TOPOLOGY_ANNOTATION] = "true"
        info.scheduling_gates.append({"name": k.TOPOLOGY_SCHEDULING_GATE})
    seen: set[str] = set()
    # Go ranges over the resource -> flavor map in random order; resources are taken sorted here.
    for _, flavor_name in sorted((assignment.get("flavors") or {}).items()):
        if flavor_name in seen:
            continue
        flavor = get_flavor(flavor_name)
        spec = flavor.get("spec") or {}
        info.node_selector.update(spec.get("nodeLabels") or {})
        info.tolerations.extend(copy.deepcopy(spec.get("tolerations") or []))
        seen.add(flavor_name)
    return info


def from_podset(podset: dict[str, Any]) -> PodSetInfo:
    """``FromPodSet``: the template's own metadata and scheduling fields, to restore them."""
    template = podset.get("template") or {}
    meta = template.get("metadata") or {}
    spec = template.get("spec") or {}
    return PodSetInfo(name=podset["name"], count=int(podset.get("count", 0)),
                      annotations=dict(meta.get("annotations") or {}), labels=dict(meta.get("labels") or {}),
                      node_selector=dict(spec.get("nodeSelector") or {}),
                      affinity=copy.deepcopy(spec.get("affinity")),
                      tolerations=copy.deepcopy(spec.get("tolerations") or []),
                      scheduling_gates=copy.deepcopy(spec.get("schedulingGates") or []))


def _set_or_drop(obj: dict[str, Any], key_: str, value: Any) -> None:
    if value:
        obj[key_] = value
    else:
        obj.pop(key_, None)


def merge_into_template(template: dict[str, Any], info: PodSetInfo) -> None:
    """``podset.Merge``: add ``info`` to a pod template (edited in place; raises on a conflict)."""
    meta = template.setdefault("metadata", {})
    spec = template.setdefault("spec", {})
    tmp = PodSetInfo(annotations=dict(meta.get("annotations") or {}), labels=dict(meta.get("labels") or {}),
                     node_selector=dict(spec.get("nodeSelector") or {}),
                     tolerations=list(spec.get("tolerations") or []),
                     scheduling_gates=list(spec.get("schedulingGates") or []))
    tmp.merge(info)
    _set_or_drop(meta, "annotations", tmp.annotations)
    _set_or_drop(meta, "labels", tmp.labels)
    _set_or_drop(spec, "nodeSelector", tmp.node_selector)
    _set_or_drop(spec, "tolerations", tmp.tolerations)
    _set_or_drop(spec, "schedulingGates", tmp.scheduling_gates)


def restore_template(template: dict[str, Any], info: PodSetInfo) -> bool:
    """``RestorePodSpec``: put the saved metadata and scheduling fields back; True if any changed."""
    meta = template.setdefault("metadata", {})
    spec = template.setdefault("spec", {})
    changed = False
    for obj, key_, value in ((meta, "annotations", info.annotations), (meta, "labels", info.labels),
                             (spec, "nodeSelector", info.node_selector), (spec, "tolerations", info.tolerations),
                             (spec, "schedulingGates", info.scheduling_gates)):
        if (obj.get(key_) or type(value)()) != value:
            _set_or_drop(obj, key_, copy.deepcopy(value))
            changed = True
    if not meta:
        template.pop("metadata")  # nothing was there before Kueue's merge: leave no empty object behind
    return changed
