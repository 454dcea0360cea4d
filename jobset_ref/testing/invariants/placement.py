"""The exclusive-placement invariant: the live pods of one Job share one topology domain, and no
two Jobs share a domain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jobset_ref.api import constants as c
from jobset_ref.testing.invariants.snapshot import Snapshot, Violation, _annotations, _labels, _name

__all__ = ["check_exclusive_placement"]

def _live(pod: Mapping[str, Any]) -> bool:
    return ((pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
            and not pod["metadata"].get("deletionTimestamp"))


def check_exclusive_placement(snap: Snapshot) -> list[Violation]:
    """*Settled*: for Jobs annotated ``alpha.jobset.sigs.k8s.io/exclusive-topology: <key>``, the
    scheduled live pods of one Job share one ``<key>`` domain and no two Jobs share a domain."""
    out: list[Violation] = []
    owner_of_domain: dict[tuple[str, str], str] = {}
    for job in snap.current_jobs():
        key = _annotations(job).get(c.EXCLUSIVE_KEY)
        if not key:
            continue
        domains: set[str] = set()
        for pod in snap.pods_of(job):
            node = (pod.get("spec") or {}).get("nodeName")
            if not node or not _live(pod):
                continue
            value = _labels(snap.nodes.get(node) or {"metadata": {}}).get(key)
            if value is None:
                out.append(Violation("exclusive", f"Pod {_name(pod)}", f"node {node} has no label {key}"))
                continue
            domains.add(value)
        if len(domains) > 1:
            out.append(Violation("exclusive", f"Job {_name(job)}", f"pods span {key} domains {sorted(domains)}"))
        for value in sorted(domains):
            other = owner_of_domain.get((key, value))
            if other is not None and other != _name(job):
                out.append(Violation("exclusive", f"Job {_name(job)}", f"shares {key}={value} with Job {other}"))
            owner_of_domain[(key, value)] = _name(job)
    return out

