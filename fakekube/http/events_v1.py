"""``events.k8s.io/v1`` Events, served over the same store as core ``v1`` Events, as kube-apiserver
serves the two: one stored object, two wire forms converted on the way in and out.

The field mapping (kube-apiserver's conversion between the two versions):

=========================  ===============================
core ``v1``                ``events.k8s.io/v1``
=========================  ===============================
``involvedObject``         ``regarding``
``message``                ``note``
``source``                 ``deprecatedSource``
``firstTimestamp``         ``deprecatedFirstTimestamp``
``lastTimestamp``          ``deprecatedLastTimestamp``
``count``                  ``deprecatedCount``
``reportingComponent``     ``reportingController``
=========================  ===============================

``metadata``, ``eventTime``, ``series``, ``action``, ``reason``, ``related``, ``type`` and
``reportingInstance`` keep their names. Field selectors take the ``events.k8s.io`` names
(``regarding.name``, ``reportingController``...) and are mapped onto core's; any other label is
kube-apiserver's ``field label not supported``. A create or update through this version is held
to its stricter rules (``eventTime``, ``reportingController``, ``action`` and ``reason`` required,
with their length limits); core ``v1`` writes keep the legacy ones.
"""

from __future__ import annotations

from typing import Any, Final

from fakekube.errors import BadRequest, FieldError, Invalid, ResourceName
from fakekube.machinery import validation as v

__all__ = ["API_VERSION", "GROUP", "NAMES", "VERSION", "field_selector", "to_core", "to_v1", "unknown_core_names",
           "validate"]

GROUP: Final = "events.k8s.io"
VERSION: Final = "v1"
API_VERSION: Final = f"{GROUP}/{VERSION}"
NAMES: Final = ResourceName("events", GROUP, "Event")

#: core name -> events.k8s.io name; the fields not listed keep their names.
_RENAMED: Final = {
    "involvedObject": "regarding",
    "message": "note",
    "source": "deprecatedSource",
    "firstTimestamp": "deprecatedFirstTimestamp",
    "lastTimestamp": "deprecatedLastTimestamp",
    "count": "deprecatedCount",
    "reportingComponent": "reportingController",
}
_BACK: Final = {new: old for old, new in _RENAMED.items()}
#: The core fields the events.k8s.io form also has under the same name.
_KEPT: Final = ("metadata", "eventTime", "series", "action", "reason", "related", "type", "reportingInstance")

#: events.k8s.io field label -> the core label it selects (kube-apiserver's label conversion).
_FIELD_LABELS: Final = {
    "reason": "reason", "reportingController": "reportingComponent", "source": "source", "type": "type",
    "metadata.namespace": "metadata.namespace", "metadata.name": "metadata.name",
    **{f"regarding.{f}": f"involvedObject.{f}"
       for f in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
}

_ZERO_TIME: Final = "0001-01-01T00:00:00Z"  # what a zero metav1.Time the Go types carry reads as


def to_v1(core: dict[str, Any]) -> dict[str, Any]:
    """The ``events.k8s.io/v1`` form of a stored (core) Event. As the Go type, ``regarding`` and
    ``deprecatedSource`` are always present and ``deprecatedCount`` is left out at zero."""
    out: dict[str, Any] = {"kind": "Event", "apiVersion": API_VERSION}
    for key in _KEPT:
        if key in core:
            out[key] = core[key]
    out["eventTime"] = core.get("eventTime")
    for old, new in _RENAMED.items():
        if core.get(old) is not None:
            out[new] = core[old]
    out.setdefault("regarding", {})
    out.setdefault("deprecatedSource", {})
    if not out.get("deprecatedCount"):
        out.pop("deprecatedCount", None)
    return out


def to_core(body: dict[str, Any]) -> dict[str, Any]:
    """The core form of an ``events.k8s.io/v1`` body. Core names sent in it (``message``,
    ``involvedObject``...) are fields this version does not have: they are left out here and
    reported by :func:`unknown_core_names`; any other field is kept, for field validation."""
    out: dict[str, Any] = {"kind": "Event", "apiVersion": "v1"}
    for key, value in body.items():
        if key not in ("kind", "apiVersion") and key not in _RENAMED:
            out[_BACK.get(key, key)] = value
    return out


def unknown_core_names(body: dict[str, Any]) -> list[str]:
    """Core field names sent in an ``events.k8s.io/v1`` body: fields this version does not have."""
    return [key for key in body if key in _RENAMED]


def field_selector(text: str | None) -> str | None:
    """An ``events.k8s.io`` field selector as the core one it means; 400 for an unknown label."""
    if not text:
        return text
    terms = []
    for term in text.split(","):
        for op in ("!=", "==", "="):
            label, sep, value = term.partition(op)
            if sep:
                break
        else:
            return text  # the selector parser reports it in its own words
        mapped = _FIELD_LABELS.get(label.strip())
        if mapped is None:
            raise BadRequest(f"field label not supported: {label.strip()}")
        terms.append(f"{mapped}{sep}{value}")
    return ",".join(terms)


def validate(body: dict[str, Any], name: str) -> None:
    """The rules a write through ``events.k8s.io/v1`` adds to core's (``ValidateEventCreate`` for a
    version other than core's): 422 ``Invalid`` naming every failing field."""
    errors: list[FieldError] = []
    if not body.get("eventTime") or body.get("eventTime") == _ZERO_TIME:
        errors.append(FieldError.required("eventTime"))
    event_type = body.get("type")
    if event_type not in ("Normal", "Warning"):
        errors.append(FieldError.not_supported("type", event_type or "", ["Normal", "Warning"]))
    controller = body.get("reportingController")
    if not controller:
        errors.append(FieldError.required("reportingController"))
    elif isinstance(controller, str):
        errors += [FieldError.invalid("reportingController", controller, m) for m in v.is_qualified_name(controller)]
    for key, limit in (("reportingInstance", 128), ("action", 128), ("reason", 128), ("note", 1024)):
        value = body.get(key)
        if key in ("action", "reason") and not value:
            errors.append(FieldError.required(key))
        elif isinstance(value, str) and len(value.encode()) > limit:
            errors.append(FieldError.too_long(key, "", limit))
    if errors:
        raise Invalid.for_object(NAMES, name, errors)
