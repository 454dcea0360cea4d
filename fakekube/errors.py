"""Every error fakekube raises, in one tree.

::

    FakeKubeError
    ├── ApiError(status)          a Kubernetes ``Status`` object: code, reason, message, details
    │   ├── BadRequest            400 BadRequest
    │   ├── Forbidden             403 Forbidden
    │   ├── NotFound              404 NotFound
    │   ├── MethodNotAllowed      405 MethodNotAllowed
    │   ├── AlreadyExists         409 AlreadyExists
    │   ├── Conflict              409 Conflict
    │   ├── Gone                  410 Expired
    │   ├── UnsupportedMediaType  415 UnsupportedMediaType
    │   ├── Invalid               422 Invalid, with ``details.causes`` (one per field error)
    │   ├── TooManyRequests       429 TooManyRequests
    │   └── InternalError         500 InternalError
    ├── UsageError                harness misuse; the message says how to fix it
    └── SimulationError           a budget ran out: steps, virtual time, or objects to simulate

API errors are values of the API, not bugs: the message, reason and causes are those a real
API server (Kubernetes 1.33/1.34) returns. ``FieldError`` reproduces apimachinery's
``field.Error`` rendering, including Go's ``%q`` quoting of string values.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from fakekube._core.gocompat import go_quote

__all__ = [
    "OMIT",
    "AlreadyExists",
    "ApiError",
    "ApiWarning",
    "BadRequest",
    "Conflict",
    "ErrorType",
    "FakeKubeError",
    "FieldError",
    "Forbidden",
    "Gone",
    "InternalError",
    "Invalid",
    "MethodNotAllowed",
    "NotFound",
    "ResourceName",
    "SimulationError",
    "StrictModeError",
    "TooManyRequests",
    "UnsupportedMediaType",
    "UsageError",
    "aggregate_message",
    "go_quote",
    "render_value",
]


class FakeKubeError(Exception):
    """Base of every error raised by fakekube."""


class UsageError(FakeKubeError, TypeError):
    """The harness was used wrongly (unknown kind, bad argument); the message says how to fix it."""


class SimulationError(FakeKubeError):
    """A budget ran out: too many steps at one instant, a predicate that never held in time, or more
    Jobs or pods than the simulation holds (raised where they would be created, never at admission)."""


class StrictModeError(FakeKubeError):
    """``FakeCluster(strict=True)``: one of fakekube's own simulators built a write that the full
    request path would reject (validation) or change (defaulting). Outside strict mode such writes
    skip those steps, so this is a bug in the simulator; the message names the component, the
    object and the difference."""


class ApiWarning(UserWarning):
    """A warning the API server returned with a write (over HTTP, a ``Warning: 299`` header), such
    as ``unknown field "spec.replicaz"`` under ``fieldValidation=Warn``."""


# --------------------------------------------------------------------------- field errors


class ErrorType(StrEnum):
    """``field.ErrorType``: the value is the cause type that appears in ``details.causes``."""

    NOT_FOUND = "FieldValueNotFound"
    REQUIRED = "FieldValueRequired"
    DUPLICATE = "FieldValueDuplicate"
    INVALID = "FieldValueInvalid"
    NOT_SUPPORTED = "FieldValueNotSupported"
    FORBIDDEN = "FieldValueForbidden"
    TOO_LONG = "FieldValueTooLong"
    TOO_MANY = "FieldValueTooMany"
    INTERNAL = "InternalError"
    TYPE_INVALID = "FieldValueTypeInvalid"

    @property
    def text(self) -> str:
        """The human string apimachinery prints for this type."""
        return _TYPE_TEXT[self]


_TYPE_TEXT = {
    ErrorType.NOT_FOUND: "Not found",
    ErrorType.REQUIRED: "Required value",
    ErrorType.DUPLICATE: "Duplicate value",
    ErrorType.INVALID: "Invalid value",
    ErrorType.NOT_SUPPORTED: "Unsupported value",
    ErrorType.FORBIDDEN: "Forbidden",
    ErrorType.TOO_LONG: "Too long",
    ErrorType.TOO_MANY: "Too many",
    ErrorType.INTERNAL: "Internal error",
    ErrorType.TYPE_INVALID: "Invalid value",
}

# Types whose rendering never shows the bad value (field.Error.ErrorBody).
_VALUE_OMITTED = {ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG, ErrorType.INTERNAL}


class _Omit:
    """Sentinel for ``field.OmitValueType{}``: the rendering drops the value."""

    def __repr__(self) -> str:
        return "OMIT"


OMIT: Any = _Omit()


def render_value(value: Any) -> str:
    """Render a bad value the way ``field.Error`` does: numbers and bools bare, strings %q, else JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=False)


@dataclass(frozen=True, slots=True)
class FieldError:
    """One validation failure at a field path (apimachinery ``field.Error``)."""

    type: ErrorType
    field: str
    bad_value: Any = OMIT
    detail: str = ""

    def body(self) -> str:
        """``ErrorBody()``: the text after the field path, used as the cause message."""
        if self.type in _VALUE_OMITTED or self.bad_value is OMIT:
            text = self.type.text
        else:
            text = f"{self.type.text}: {render_value(self.bad_value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}" if self.field else self.body()

    def cause(self) -> dict[str, str]:
        """The ``details.causes[]`` entry (the JSON key is ``reason`` although Go calls it Type)."""
        return {"reason": self.type.value, "message": self.body(), "field": self.field}

    # Constructors named after apimachinery's field.* helpers.
    @classmethod
    def required(cls, path: str, detail: str = "") -> FieldError:
        return cls(ErrorType.REQUIRED, path, OMIT, detail)

    @classmethod
    def invalid(cls, path: str, value: Any, detail: str = "") -> FieldError:
        return cls(ErrorType.INVALID, path, value, detail)

    @classmethod
    def forbidden(cls, path: str, detail: str) -> FieldError:
        return cls(ErrorType.FORBIDDEN, path, OMIT, detail)

    @classmethod
    def not_supported(cls, path: str, value: Any, valid: list[str] | tuple[str, ...]) -> FieldError:
        detail = "supported values: " + ", ".join(go_quote(v) for v in valid) if valid else ""
        return cls(ErrorType.NOT_SUPPORTED, path, value, detail)

    @classmethod
    def duplicate(cls, path: str, value: Any) -> FieldError:
        return cls(ErrorType.DUPLICATE, path, value)

    @classmethod
    def not_found(cls, path: str, value: Any) -> FieldError:
        return cls(ErrorType.NOT_FOUND, path, value)

    @classmethod
    def too_long(cls, path: str, value: Any, max_length: int) -> FieldError:
        return cls(ErrorType.TOO_LONG, path, value, f"may not be more than {max_length} bytes")

    @classmethod
    def too_many(cls, path: str, actual: int, max_items: int) -> FieldError:
        return cls(ErrorType.TOO_MANY, path, actual, f"must have at most {max_items} items")

    @classmethod
    def internal(cls, path: str, detail: str) -> FieldError:
        return cls(ErrorType.INTERNAL, path, OMIT, detail)


def aggregate_message(errors: list[FieldError] | tuple[FieldError, ...]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one error bare, several as ``[a, b]``, duplicates dropped."""
    seen: list[str] = []
    for err in errors:
        text = str(err)
        if text not in seen:
            seen.append(text)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


# --------------------------------------------------------------------------- API errors


def _status(code: int, reason: str, message: str, details: dict[str, Any] | None) -> dict[str, Any]:
    status: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
    }
    if details:
        status["details"] = details
    status["code"] = code
    return status


class ApiError(FakeKubeError):
    """An error the API server returns: a Kubernetes ``Status`` object.

    ``code``, ``reason`` and ``message`` mirror the Status fields; ``status`` is the whole
    wire-form Status dict, exactly as a real server would send it.
    """

    CODE: ClassVar[int] = 500
    REASON: ClassVar[str] = "InternalError"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None,
                 code: int | None = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.status: dict[str, Any] = _status(code or self.CODE, reason or self.REASON, message, details)

    @property
    def code(self) -> int:
        return int(self.status["code"])

    @property
    def reason(self) -> str:
        return str(self.status["reason"])

    @property
    def message(self) -> str:
        return str(self.status["message"])

    @property
    def details(self) -> dict[str, Any]:
        return dict(self.status.get("details") or {})

    @property
    def causes(self) -> list[dict[str, str]]:
        return list(self.details.get("causes") or [])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code} {self.reason}: {self.message})"

    @classmethod
    def from_status(cls, status: dict[str, Any]) -> ApiError:
        """Rebuild the most specific error class for a Status dict (e.g. from a reactor)."""
        reason = status.get("reason", "")
        code = int(status.get("code", 500))
        klass = next((k for k in _ALL_API_ERRORS if k.REASON == reason and k.CODE == code), ApiError)
        err = klass.__new__(klass)
        FakeKubeError.__init__(err, status.get("message", ""))
        err.status = dict(status)
        return err


@dataclass(frozen=True, slots=True)
class ResourceName:
    """How a resource is named in error messages: ``jobs.batch``, ``pods``, ``Job.batch``, ``Pod``."""

    plural: str
    group: str
    kind: str

    @property
    def qualified_resource(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def qualified_kind(self) -> str:
        return f"{self.kind}.{self.group}" if self.group else self.kind


class BadRequest(ApiError):
    CODE, REASON = 400, "BadRequest"


class Forbidden(ApiError):
    CODE, REASON = 403, "Forbidden"

    @classmethod
    def for_object(cls, res: ResourceName, name: str, why: str,
                   causes: list[dict[str, str]] | None = None) -> Forbidden:
        details: dict[str, Any] = {"name": name, "group": res.group, "kind": res.plural}
        if causes:
            details["causes"] = causes
        return cls(f'{res.qualified_resource} "{name}" is forbidden: {why}', details=_clean(details))


class NotFound(ApiError):
    CODE, REASON = 404, "NotFound"

    @classmethod
    def for_object(cls, res: ResourceName, name: str) -> NotFound:
        return cls(f'{res.qualified_resource} "{name}" not found',
                   details=_clean({"name": name, "group": res.group, "kind": res.plural}))


class MethodNotAllowed(ApiError):
    CODE, REASON = 405, "MethodNotAllowed"


class AlreadyExists(ApiError):
    CODE, REASON = 409, "AlreadyExists"

    @classmethod
    def for_object(cls, res: ResourceName, name: str, *, suffix: str = "", prefix: str = "",
                   retry_after: int | None = None) -> AlreadyExists:
        details: dict[str, Any] = {"name": name, "group": res.group, "kind": res.plural}
        if retry_after is not None:
            details["retryAfterSeconds"] = retry_after
        return cls(f'{prefix}{res.qualified_resource} "{name}" already exists{suffix}', details=_clean(details))


class Conflict(ApiError):
    CODE, REASON = 409, "Conflict"

    @classmethod
    def modified(cls, res: ResourceName, name: str) -> Conflict:
        return cls(
            f'Operation cannot be fulfilled on {res.qualified_resource} "{name}": the object has been '
            "modified; please apply your changes to the latest version and try again",
            details=_clean({"name": name, "group": res.group, "kind": res.plural}),
        )


class Gone(ApiError):
    CODE, REASON = 410, "Expired"


class UnsupportedMediaType(ApiError):
    CODE, REASON = 415, "UnsupportedMediaType"


class Invalid(ApiError):
    CODE, REASON = 422, "Invalid"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None,
                 code: int | None = None, reason: str | None = None,
                 errors: tuple[FieldError, ...] = ()) -> None:
        super().__init__(message, details=details, code=code, reason=reason)
        self.errors = errors

    @classmethod
    def for_object(cls, res: ResourceName, name: str, errors: list[FieldError] | tuple[FieldError, ...],
                   *, prefix: str = "") -> Invalid:
        """``apierrors.NewInvalid``: ``Kind.group "name" is invalid: <aggregate>``."""
        errors = tuple(errors)
        details = {"name": name, "group": res.group, "kind": res.kind,
                   "causes": [e.cause() for e in errors]}
        message = f'{prefix}{res.qualified_kind} "{name}" is invalid: {aggregate_message(errors)}'
        return cls(message, details=_clean(details), errors=errors)


class TooManyRequests(ApiError):
    CODE, REASON = 429, "TooManyRequests"


class InternalError(ApiError):
    CODE, REASON = 500, "InternalError"


def _clean(details: dict[str, Any]) -> dict[str, Any]:
    """Drop empty fields, as omitempty does on StatusDetails."""
    return {k: v for k, v in details.items() if v not in ("", None, [])}


_ALL_API_ERRORS: tuple[type[ApiError], ...] = (
    BadRequest, Forbidden, NotFound, MethodNotAllowed, AlreadyExists, Conflict, Gone,
    UnsupportedMediaType, Invalid, TooManyRequests, InternalError,
)
