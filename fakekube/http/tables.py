"""Server-side printing: the ``meta.k8s.io/v1`` ``Table`` that ``kubectl get`` asks for.

kube-apiserver answers ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io`` with a ``Table``:
column definitions (``name``, ``type``, ``format``, ``description``, ``priority``) and one row per
object (``cells``, optional ``conditions``, and ``object``: the object's metadata as a
``PartialObjectMetadata``, or the whole object with ``includeObject=Object``). kubectl prints
priority-0 columns, and the priority-1 ones too with ``-o wide``; the server always fills both.

The printers of the built-in kinds are kubectl's (:mod:`fakekube.http.printers`; what they are
made of: :mod:`fakekube.http.printing`). Other built-in kinds (CustomResourceDefinitions) get the
generic convertor's ``Name`` / ``Created At``; custom resources get ``Name`` plus their CRD's
``additionalPrinterColumns`` (or ``Age`` when it has none), evaluated as the apiextensions-apiserver
does. Ages and durations are ``duration.HumanDuration`` of the virtual clock: pass ``now``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from fakekube._core.clock import SimTime
from fakekube._core.gocompat import go_float
from fakekube.apiserver import builtin_schemas
from fakekube.apiserver.resources import ResourceType
from fakekube.errors import BadRequest, FieldError, UsageError
from fakekube.http.accept import negotiate_as
from fakekube.http.jsonpath import JsonPath, compile_path
from fakekube.http.printers import BUILTIN_PRINTERS, DEFAULT_PRINTER
from fakekube.http.printing import (
    META,
    NAME_COLUMN,
    Column,
    Printer,
    get_path,
    human_duration,
    object_name,
    parse_timestamp,
)

__all__ = [
    "INCLUDE_OBJECT",
    "TABLE_VERSIONS",
    "object_table",
    "printer_for",
    "table",
    "table_version",
]

#: ``meta.k8s.io`` versions of ``Table`` served, most preferred first.
TABLE_VERSIONS: Final = ("v1", "v1beta1")
#: The ``includeObject`` values (``TableOptions``); ``Metadata`` is the default.
INCLUDE_OBJECT: Final = ("Metadata", "None", "Object")


# --------------------------------------------------------------------------- custom resources

def _go_text(value: Any) -> str:
    """What client-go's ``JSONPath.PrintResults`` prints for one value: objects and lists as compact
    JSON, strings bare, other scalars as Go's ``fmt`` prints them."""
    if isinstance(value, dict | list):
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    if value is None:
        return "<nil>"
    return str(value)


def _cell(column_type: str, value: Any, now: SimTime) -> Any:
    """``cellForJSONValue`` (and the ``string`` branch of the CRD table convertor)."""
    if value is None:
        return None
    if column_type == "string":
        return _go_text(value)
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if column_type == "integer":
        return int(value) if numeric else None
    if column_type == "number":
        return float(value) if numeric else None
    if column_type == "boolean":
        return value if isinstance(value, bool) else None
    if column_type == "date" and isinstance(value, str):
        t = parse_timestamp(value)
        return "<invalid>" if t is None else human_duration(now - t)
    return None


def _custom_printer(crd: Mapping[str, Any], version: str) -> Printer:
    """The CRD table convertor: ``Name`` then the version's ``additionalPrinterColumns``."""
    served: dict[str, Any] = next(
        (v for v in get_path(crd, "spec", "versions") or [] if v.get("name") == version), {})
    specs = served.get("additionalPrinterColumns") or [
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp",
         "description": builtin_schemas.description(META, "creationTimestamp")}]
    columns = [NAME_COLUMN]
    paths: list[tuple[str, JsonPath]] = []
    for spec in specs:
        path = str(spec.get("jsonPath") or "")
        columns.append(Column(str(spec.get("name") or ""),
                               spec.get("description") or f"Custom resource definition column (in JSONPath "
                                                          f"format): {path}",
                               int(spec.get("priority") or 0), str(spec.get("type") or ""),
                               str(spec.get("format") or "")))
        paths.append((str(spec.get("type") or ""), compile_path(path)))

    def cells(obj: dict[str, Any], now: SimTime) -> list[Any]:
        return [object_name(obj), *(_cell(t, p.first(obj), now) for t, p in paths)]

    return Printer(tuple(columns), cells)


_CUSTOM: dict[tuple[str, str, str], Printer] = {}


def printer_for(rt: ResourceType, crd: Mapping[str, Any] | None = None) -> Printer:
    """The printer of a resource; custom resources need the CRD that serves them."""
    if not rt.custom:
        return BUILTIN_PRINTERS.get((rt.group, rt.kind), DEFAULT_PRINTER)
    if crd is None:
        raise UsageError(f"printing {rt.key} needs its CustomResourceDefinition")
    meta = crd.get("metadata") or {}
    key = (str(meta.get("uid") or meta.get("name")), str(meta.get("resourceVersion") or ""), rt.version)
    printer = _CUSTOM.get(key)
    if printer is None:
        if len(_CUSTOM) >= 256:
            _CUSTOM.clear()
        printer = _CUSTOM[key] = _custom_printer(crd, rt.version)
    return printer


# --------------------------------------------------------------------------- the Table

def table_version(accept: str | None) -> str | None:
    """``meta.k8s.io/v1`` or ``meta.k8s.io/v1beta1`` when ``accept`` asks for a Table first
    (kubectl get: ``application/json;as=Table;v=v1;g=meta.k8s.io,...``), else None."""
    version = negotiate_as(accept, group="meta.k8s.io", kind="Table", versions=TABLE_VERSIONS)
    return None if version is None else f"meta.k8s.io/{version}"


def table(rt: ResourceType, objects: Iterable[dict[str, Any]], *, now: SimTime,
          crd: Mapping[str, Any] | None = None, include_object: str = "Metadata", headers: bool = True,
          list_metadata: Mapping[str, Any] | None = None, api_version: str = "meta.k8s.io/v1") -> dict[str, Any]:
    """The ``Table`` of ``objects`` (wire form, with ``kind`` / ``apiVersion``).

    ``list_metadata`` is the list's ``metadata`` (``resourceVersion``, ``continue``,
    ``remainingItemCount``); without it a one-object table carries that object's resourceVersion.
    ``headers=False`` omits the column definitions, as the server does after the first event of a
    watch. ``include_object`` is ``Metadata`` (rows carry a ``PartialObjectMetadata``), ``Object``
    or ``None``; anything else is a 400 ``BadRequest``, as on a real server.
    """
    if include_object == "":
        include_object = "Metadata"
    if include_object not in INCLUDE_OBJECT:
        raise BadRequest(str(FieldError.not_supported("includeObject", include_object, list(INCLUDE_OBJECT))))
    printer = printer_for(rt, crd)
    rows = []
    items = list(objects)
    for obj in items:
        row: dict[str, Any] = {"cells": printer.cells(obj, now)}
        conditions = printer.conditions(obj) if printer.conditions is not None else []
        if conditions:
            row["conditions"] = [dict(c) for c in conditions]
        if include_object == "Object":
            row["object"] = obj
        elif include_object == "Metadata":
            row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": api_version,
                             "metadata": obj.get("metadata") or {}}
        rows.append(row)
    if list_metadata is not None:
        metadata = dict(list_metadata)
    elif len(items) == 1 and get_path(items[0], "metadata", "resourceVersion"):
        metadata = {"resourceVersion": items[0]["metadata"]["resourceVersion"]}
    else:
        metadata = {}
    return {"kind": "Table", "apiVersion": api_version, "metadata": metadata,
            "columnDefinitions": printer.column_definitions() if headers else None, "rows": rows}


def object_table(rt: ResourceType, obj: dict[str, Any], *, now: SimTime, crd: Mapping[str, Any] | None = None,
                 headers: bool = True, include_object: str = "Metadata",
                 api_version: str = "meta.k8s.io/v1") -> dict[str, Any]:
    """One object as a one-row ``Table`` (with the object's resourceVersion): the answer to a GET
    of one object, or the ``object`` of a watch event when the watch asked for tables. The server
    sends the column definitions with a watch's first event only: pass ``headers=False`` after it."""
    return table(rt, [obj], now=now, crd=crd, include_object=include_object, headers=headers,
                 api_version=api_version)
