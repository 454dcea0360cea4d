"""What ``simulate --show KINDS`` prints: ``kubectl get`` tables (``-o wide``: labels, hostnames,
node selectors, images) or whole objects for ``-o json|yaml`` (as ``kubectl get -o yaml``: without
``metadata.managedFields``)."""

from __future__ import annotations

from typing import Any

from jobset_ref.tables import TABLE_KINDS, human_duration, render_table, table

__all__ = ["objects_of", "render"]


def objects_of(cluster: Any, kind: str) -> list[dict[str, Any]]:
    """Every object of ``kind`` (a resource name or kind the cluster serves), managedFields dropped."""
    out = []
    for obj in cluster.list(kind):
        meta = {k: v for k, v in obj["metadata"].items() if k != "managedFields"}
        out.append({**obj, "metadata": meta})
    return out


def _generic(cluster: Any, kind: str, wide: bool) -> str:
    from fakekube.clock import parse_time

    rows = []
    for obj in cluster.list(kind):
        meta = obj["metadata"]
        created = meta.get("creationTimestamp")
        age = human_duration((cluster.loop.now - parse_time(created)) / 1e9) if created else "<unknown>"
        row = [meta["name"], age]
        if wide:
            row.append(",".join(f"{k}={v}" for k, v in sorted((meta.get("labels") or {}).items())) or "<none>")
        rows.append(row)
    body = table(["NAME", "AGE", *(["LABELS"] if wide else [])], rows)
    return f"$ kubectl get {kind}{' --show-labels' if wide else ''}\n{body}"


def render(cluster: Any, kinds: list[str], *, wide: bool = False) -> str:
    """The tables of ``kinds``, in the order given."""
    parts = [render_table(cluster, k, wide=wide) if k in TABLE_KINDS else _generic(cluster, k, wide) for k in kinds]
    return "\n\n".join(parts)
