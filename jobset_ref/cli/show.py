"""What ``simulate --show KINDS`` prints: ``kubectl get`` tables (``-o wide``: labels, hostnames,
node selectors, images; any other served kind with the columns the API server prints for it) or whole objects for ``-o json|yaml`` (as ``kubectl get -o yaml``: without
``metadata.managedFields``)."""

from __future__ import annotations

from typing import Any

from jobset_ref.tables import TABLE_KINDS, print_server_table, render_table

__all__ = ["objects_of", "render"]


def objects_of(cluster: Any, kind: str) -> list[dict[str, Any]]:
    """Every object of ``kind`` (a resource name or kind the cluster serves), managedFields dropped."""
    out = []
    for obj in cluster.list(kind):
        meta = {k: v for k, v in obj["metadata"].items() if k != "managedFields"}
        out.append({**obj, "metadata": meta})
    return out


def _generic(cluster: Any, kind: str, wide: bool) -> str:
    """Any served kind as ``kubectl get`` prints it: the API server's own Table (a CRD's
    additionalPrinterColumns, kubectl's printers for built-in kinds), a NAMESPACE column when the
    objects are in more than one namespace (``-A``)."""
    doc = cluster.table(kind)
    namespaces = sorted({str(((row.get("object") or {}).get("metadata") or {}).get("namespace", ""))
                         for row in doc.get("rows") or []})
    flags = " -A" if len(namespaces) > 1 else f" -n {namespaces[0]}" if namespaces and namespaces[0] not in (
        "", "default") else ""
    body = print_server_table(doc, wide=wide, namespaces=len(namespaces) > 1)
    return f"$ kubectl get {kind}{flags}{' -o wide --show-labels' if wide else ''}\n{body}"


def render(cluster: Any, kinds: list[str], *, wide: bool = False) -> str:
    """The tables of ``kinds``, in the order given."""
    parts = [render_table(cluster, k, wide=wide) if k in TABLE_KINDS else _generic(cluster, k, wide) for k in kinds]
    return "\n\n".join(parts)
