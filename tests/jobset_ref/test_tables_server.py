"""``print_server_table``: a server ``Table`` printed as kubectl prints it (kubectl 1.32's table printer)."""

from __future__ import annotations

from typing import Any

from jobset_ref.tables import print_server_table


def _doc(rows: list[list[Any]], namespaces: list[str] | None = None) -> dict[str, Any]:
    columns = [{"name": "Name", "priority": 0}, {"name": "Pending Workloads", "priority": 0},
               {"name": "Strategy", "priority": 1}]
    return {"kind": "Table", "columnDefinitions": columns,
            "rows": [{"cells": cells, "object": {"metadata": {"namespace": ns, "labels": {"b": "2", "a": "1"}}}}
                     for cells, ns in zip(rows, namespaces or [""] * len(rows), strict=True)]}


def test_headers_are_upper_cased_and_priority_one_columns_are_wide_only() -> None:
    doc = _doc([["cq", 3, "StrictFIFO"]])
    assert print_server_table(doc).splitlines() == ["NAME   PENDING WORKLOADS", "cq     3"]
    assert print_server_table(doc, wide=True).splitlines() == [
        "NAME   PENDING WORKLOADS   STRATEGY     LABELS", "cq     3                   StrictFIFO   a=1,b=2"]


def test_cells_print_as_go_prints_them() -> None:
    doc = _doc([["a", None, "x"], ["b", True, "x"], ["c", 2.5e-7, "x"], ["d", 3.0, "x"], ["e", "two\nlines", "x"]])
    assert [line.split(maxsplit=1)[1:] for line in print_server_table(doc).splitlines()[1:]] == [
        [], ["true"], ["2.5e-07"], ["3"], ["two..."]]


def test_objects_in_several_namespaces_get_a_namespace_column() -> None:
    doc = _doc([["a", 1, ""], ["b", 2, ""]], ["default", "team"])
    assert print_server_table(doc, namespaces=True).splitlines() == [
        "NAMESPACE   NAME   PENDING WORKLOADS", "default     a      1", "team        b      2"]
