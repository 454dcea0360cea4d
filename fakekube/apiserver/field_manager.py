"""Request options of writes and field management on the API server's write path.

What kube-apiserver's handlers and its ``managedfields.FieldManager`` chain do around a write:

* Options (``ValidateCreateOptions``/``...Update...``/``...Patch...``): ``fieldManager`` at most
  128 bytes of printable characters, ``fieldValidation`` one of ``Ignore``/``Warn``/``Strict``,
  ``force`` only on apply, ``fieldManager`` required on apply -- else 422 on
  ``CreateOptions.meta.k8s.io ""`` (or ``UpdateOptions``/``PatchOptions``).
* Field validation: fields the kind's schema does not declare are, under ``Strict``, a 400
  ``<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding error: unknown field
  "<path>"`` (create, update) or a 422 `` "" is invalid: patch: Invalid value: "<object>": strict
  decoding error: ...`` (patch); under ``Warn`` (the default) one warning ``unknown field
  "<path>"`` each. Apply bodies are typed instead: a field the schema does not declare is a 500
  ``failed to create typed patch object (...): .spec.foo: field not declared in schema``.
* ``metadata.managedFields``: an Update entry for the writer's manager, merged per manager,
  operation, API version and subresource, stamped with the virtual clock; ``[]`` in a request
  resets them. Which writes are tracked is a fidelity choice (``docs/fidelity.md``): a create or
  update that names a field manager, and any write to an object that already has managedFields
  (as upstream's ``skipNonAppliedManager``, which never starts tracking on a plain update). A
  tracked write with no field manager is named after its user agent (``unknown`` without one).
* Server-side apply: see :func:`fakekube.machinery.managed_fields.apply`; an object without
  managedFields first gives its fields to ``before-first-apply``.
* A write that changes nothing but managedFields timestamps keeps the old ones, so it stays a
  no-op (``IgnoreManagedFieldsTimestampsTransformer``).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any, Final
from weakref import WeakKeyDictionary

from fakekube._core.clock import SimTime, format_time
from fakekube._core.gocompat import go_json_kind
from fakekube._core.jsonutil import deep_copy
from fakekube.apiserver import builtin_schemas
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.typed_decoding import decode_typed
from fakekube.errors import BadRequest, Conflict, FieldError, Invalid, ResourceName, UnsupportedMediaType
from fakekube.machinery import managed_fields as mf
from fakekube.machinery import wire
from fakekube.machinery.field_types import FieldType, from_merge_schema, from_openapi
from fakekube.machinery.field_validation import unknown_fields
from fakekube.machinery.objects import dict_field
from fakekube.machinery.openapi import StructuralSchema
from fakekube.machinery.patch import (
    CR_UNSUPPORTED_MEDIA_TYPE_MESSAGE,
    GENERIC_METADATA_SCHEMA,
    STRATEGIC_MERGE_PATCH,
    PatchInternalError,
    schema_for,
)
from fakekube.machinery.typed_walkers import typed_errors

__all__ = ["FIELD_VALIDATIONS", "FieldManager", "WriteInfo", "check_options", "decode_apply_body",
           "unsupported_media_type"]

IGNORE, WARN, STRICT = "Ignore", "Warn", "Strict"
FIELD_VALIDATIONS: Final = ("", IGNORE, STRICT, WARN)
"""The accepted ``fieldValidation`` values, in the order upstream's error lists them."""
BEFORE_FIRST_APPLY: Final = "before-first-apply"


@dataclass(slots=True, eq=False)
class WriteInfo:
    """What a write reports besides the object, for the HTTP layer: ``warnings`` (each one a
    ``Warning: 299 - "<text>"`` header, in order, duplicates dropped as the API server's warning
    recorder does) and ``created`` (the write created the object: 201, also for apply).

    ``duplicates`` goes the other way: the duplicate fields the body's decoder found
    (``duplicate field "name"`` in JSON, ``line 4: key "name" already set in map`` in YAML), which
    field validation reports with the unknown fields (Strict: the error; Warn: warnings)."""

    warnings: list[str] = field(default_factory=list)
    created: bool = False
    duplicates: list[str] = field(default_factory=list)

    def warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)


def check_options(options_kind: str, *, field_manager: str | None, field_validation: str | None,
                  force: bool | None = None, apply: bool = False) -> None:
    """``Validate<Create|Update|Patch>Options``: 422 Invalid on ``<options_kind>.meta.k8s.io ""``."""
    if field_manager is None and field_validation is None and force is None and not apply:
        return
    errors: list[FieldError] = []
    if apply and not field_manager:
        errors.append(FieldError.required("fieldManager", "is required for apply patch"))
    if not apply and force is not None:
        errors.append(FieldError.forbidden("force", "may not be specified for non-apply patch"))
    if field_manager is not None:
        if len(field_manager.encode()) > mf.FIELD_MANAGER_MAX_LENGTH:
            errors.append(FieldError.too_long("fieldManager", "", mf.FIELD_MANAGER_MAX_LENGTH))
        position = 0
        for ch in field_manager:
            if not ch.isprintable():
                errors.append(FieldError.invalid("fieldManager", field_manager,
                                                 f"invalid character U+{ord(ch):04X} (at position {position})"))
            position += len(ch.encode())
    if field_validation is not None and field_validation not in FIELD_VALIDATIONS:
        errors.append(FieldError.not_supported("fieldValidation", field_validation, FIELD_VALIDATIONS))
    if errors:
        raise Invalid.for_object(ResourceName("", "meta.k8s.io", options_kind), "", errors)


def decode_apply_body(body: Any) -> dict[str, Any]:
    """An ``application/apply-patch+yaml`` body (YAML, so JSON too) as an object; 400 if it is not one."""
    if isinstance(body, bytes | bytearray):
        body = body.decode("utf-8", errors="replace")
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            import yaml

            try:
                docs = list(wire.load_yaml_documents(body))
            except wire.NotJson as exc:
                raise BadRequest(f"error decoding patch: {exc}") from None
            except yaml.YAMLError as exc:
                raise BadRequest(f"error decoding patch: {_one_line(exc)}") from None
            body = docs[0] if docs else None
        except RecursionError:
            raise BadRequest(f"error decoding patch: the object is nested more than {wire.MAX_DEPTH} levels "
                             "deep") from None
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise BadRequest(f"error decoding patch: json: cannot unmarshal {go_json_kind(body)} into Go value of type "
                         "map[string]interface {}")
    try:
        wire.check_json(body)
    except wire.NotJson as exc:
        raise BadRequest(f"error decoding patch: {exc}") from None
    return deep_copy(body)


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


@functools.cache
def _builtin_structural(api_version: str, kind: str) -> StructuralSchema | None:
    """A built-in kind's schema built once per process (a StructuralSchema is immutable)."""
    declared = builtin_schemas.schema_for(api_version, kind)
    return None if declared is None else StructuralSchema(dict(declared))


class FieldManager:
    """The API server's field manager: schemas per kind, field validation, managedFields, apply."""

    def __init__(self) -> None:
        self._types: WeakKeyDictionary[ResourceType, FieldType] = WeakKeyDictionary()
        self._schemas: WeakKeyDictionary[ResourceType, StructuralSchema] = WeakKeyDictionary()

    # ------------------------------------------------------------------ schemas
    def field_type(self, rt: ResourceType) -> FieldType:
        """How apply types ``rt``: its schema, else its strategic-merge keys."""
        t = self._types.get(rt)
        if t is None:
            if rt.schema is not None:
                t = from_openapi(rt.schema)
            else:
                t = from_merge_schema(schema_for(rt.key) or GENERIC_METADATA_SCHEMA)
            self._types[rt] = t
        return t

    def unknown_fields(self, rt: ResourceType, obj: dict[str, Any]) -> list[str]:
        """The fields of ``obj`` its kind does not declare (none known without a schema)."""
        schema = self._schemas.get(rt)
        if schema is None:
            if rt.structural is not None:
                schema = rt.structural
            elif rt.schema is not None:
                schema = StructuralSchema(dict(rt.schema))
            elif not rt.custom:
                schema = _builtin_structural(rt.api_version, rt.kind)
            if schema is None:  # a custom resource without a schema, or a built-in kind without one
                return []
            self._schemas[rt] = schema
        return unknown_fields(obj, schema)

    # ------------------------------------------------------------------ field validation
    def check_decoded(self, rt: ResourceType, obj: dict[str, Any], validation: str | None,
                      info: WriteInfo | None) -> None:
        """Decoding into the kind's type, then field validation of a create or update body."""
        decode_typed(rt, obj)
        unknown = self._unknown(rt, obj, validation, info)
        if unknown:
            raise BadRequest(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                             f"{_strict_decoding_error(unknown)}")

    def check_patched(self, rt: ResourceType, obj: dict[str, Any], validation: str | None,
                      info: WriteInfo | None, patch: Any, media: str) -> None:
        """Decoding into the kind's type, then field validation of a patched object (JSON, merge and
        strategic merge patches)."""
        decode_typed(rt, obj)
        unknown = self._unknown(rt, obj, validation, info)
        if unknown:
            if isinstance(patch, str | bytes | bytearray):
                try:
                    patch = json.loads(patch)
                except ValueError:
                    pass
            shown = _go_value_string(patch) if media == STRATEGIC_MERGE_PATCH else _json(obj)
            err = FieldError.invalid("patch", shown, _strict_decoding_error(unknown))
            raise Invalid(f' "" is invalid: {err}', details={"causes": [err.cause()]}, errors=(err,))

    def _unknown(self, rt: ResourceType, obj: dict[str, Any], validation: str | None,
                 info: WriteInfo | None) -> list[str]:
        """Strict: the duplicate and unknown fields; Warn: none, each reported as a warning; Ignore: none.

        Warnings nobody collects are not computed."""
        if validation == IGNORE or (validation != STRICT and info is None):
            return []
        duplicates = list(info.duplicates) if info is not None else []
        unknown = [f'unknown field "{path}"' for path in self.unknown_fields(rt, obj)]
        if validation == STRICT:
            return duplicates + unknown
        assert info is not None
        for text in duplicates + unknown:
            info.warn(text)
        return []

    # ------------------------------------------------------------------ managedFields
    def reset_fields(self, rt: ResourceType, subresource: str | None) -> frozenset[mf.Path]:
        """What the strategy resets, so no manager owns it there (``GetResetFields``)."""
        if subresource == "status":
            return _SPEC
        return _STATUS if rt.has_status else frozenset()

    def track_create(self, rt: ResourceType, obj: dict[str, Any], field_manager: str | None,
                     user_agent: str | None, now: SimTime) -> None:
        """Record a create in ``obj``'s managedFields when it names a manager or carries managedFields."""
        meta = obj["metadata"]
        if field_manager is None and "managedFields" not in meta:
            return
        managed = _request_managed(meta.pop("managedFields", None)) or {}
        if not managed and field_manager is None:
            return
        t = self.field_type(rt)
        new = _without_managed(obj)
        empty = {} if rt.custom else _zero_structs(new, t)
        who = mf.Manager.updater(_name(field_manager, user_agent), rt.api_version)
        try:
            managed = mf.update(empty, new, managed, who, t, now=format_time(now), reset=self.reset_fields(rt, None))
        except mf.FieldPathError:
            return
        _store(meta, managed)

    def track_update(self, rt: ResourceType, old: dict[str, Any], new: dict[str, Any], field_manager: str | None,
                     user_agent: str | None, subresource: str | None, now: SimTime) -> None:
        """Record an update in ``new``'s managedFields when the object is tracked or the write names
        a field manager."""
        meta, old_meta = new["metadata"], old["metadata"]
        live = old_meta.get("managedFields")
        sent = meta.get("managedFields") if subresource is None else None
        if field_manager is None and not live and not sent:
            meta.pop("managedFields", None)
            return
        if sent is not None and _is_reset(sent):
            meta.pop("managedFields", None)
            return
        managed = _request_managed(sent) if sent else None
        if not managed:
            managed = _request_managed(live) or {}
        if not managed and field_manager is None:
            meta.pop("managedFields", None)
            return
        t = self.field_type(rt)
        who = mf.Manager.updater(_name(field_manager, user_agent), rt.api_version, subresource)
        try:
            managed = mf.update(_without_managed(old), _without_managed(new), managed, who, t,
                                now=format_time(now), reset=self.reset_fields(rt, subresource))
        except mf.FieldPathError:  # UpdateNoErrors: the live managedFields stay
            managed = _request_managed(live) or {}
        _store(meta, managed)

    @staticmethod
    def keep_times_if_unchanged(new: dict[str, Any], old: dict[str, Any]) -> None:
        """``IgnoreManagedFieldsTimestampsTransformer``: only timestamps changed -> keep the old ones."""
        entries, old_entries = new["metadata"].get("managedFields"), old["metadata"].get("managedFields")
        if not entries or not old_entries or len(entries) != len(old_entries):
            return
        if all(e.get("time") == o.get("time") for e, o in zip(entries, old_entries, strict=True)):
            return
        if any({**e, "time": None} != {**o, "time": None} for e, o in zip(entries, old_entries, strict=True)):
            return
        if _without_managed(new) == _without_managed(old):
            new["metadata"]["managedFields"] = old_entries

    # ------------------------------------------------------------------ apply
    def apply(self, rt: ResourceType, live: dict[str, Any] | None, config: dict[str, Any], manager: str,
              *, force: bool, subresource: str | None, now: SimTime) -> dict[str, Any]:
        """The object after applying ``config`` as ``manager`` (a copy of ``live`` with updated
        managedFields when nothing else changes); ``live`` None creates."""
        _check_applied_kind(rt, config)
        meta = config.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("managedFields"), list):
            raise BadRequest("metadata.managedFields must be nil")
        t = self.field_type(rt)
        errors = typed_errors(config, t)
        if errors:
            raise PatchInternalError(f"failed to create typed patch object ({_gvknn(rt, config)}): "
                                     f"{_validation_errors(errors)}")
        reset = self.reset_fields(rt, subresource)
        stamp = format_time(now)
        base = _without_managed(live) if live is not None else {}
        try:
            managed = mf.decode_managed_fields((live or {}).get("metadata", {}).get("managedFields"))
        except mf.ManagedFieldsError as exc:
            raise PatchInternalError(f"failed to decode managed fields: {exc}") from None
        try:
            if not managed and live is not None:
                empty = {} if rt.custom else _zero_structs(base, t)
                managed = mf.update(empty, base, {}, mf.Manager.updater(BEFORE_FIRST_APPLY, rt.api_version,
                                                                        subresource), t, now=stamp, reset=reset)
            who = mf.Manager.applier(manager, subresource)
            result: dict[str, Any] | None  # the applied object, None when nothing changed
            result, managed = mf.apply(base, config, managed, who, rt.api_version, t, force=force, reset=reset)
        except mf.ApplyConflicts as conflicts:
            raise Conflict(conflicts.message, details={"causes": conflicts.causes()}) from None
        except mf.FieldPathError as exc:
            raise PatchInternalError(f"failed to apply: {exc}") from None
        if result is None:
            result = deep_copy(base)
        else:
            if not rt.custom:
                _drop_nulls(result)  # decoding into the Go type drops them
            if who in managed:
                own = managed[who]
                managed[who] = mf.Ownership(own.fields, own.api_version, stamp)
        if not isinstance(result.get("metadata"), dict):
            result["metadata"] = {}
        decode_typed(rt, result)
        _store(result["metadata"], managed)
        return result


_STATUS: Final[frozenset[mf.Path]] = frozenset({(("f", "status"),)})
_SPEC: Final[frozenset[mf.Path]] = frozenset({(("f", "spec"),)})


def _name(field_manager: str | None, user_agent: str | None) -> str:
    """The manager of a write: its ``fieldManager``, else the name its user agent gives."""
    return field_manager or mf.manager_from_user_agent(user_agent)


def unsupported_media_type(rt: ResourceType) -> UnsupportedMediaType:
    """415 for a patch type the resource does not accept (go-restful's bare text for built-ins)."""
    if rt.custom:
        return UnsupportedMediaType(CR_UNSUPPORTED_MEDIA_TYPE_MESSAGE)
    err = UnsupportedMediaType("415: Unsupported Media Type")
    err.status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                  "message": "415: Unsupported Media Type", "reason": "UnsupportedMediaType", "details": {},
                  "code": 415}
    return err


def _without_managed(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def _is_reset(entries: Any) -> bool:
    """``isResetManagedFields``: ``[]`` or a single empty entry."""
    return isinstance(entries, list) and (not entries or (len(entries) == 1 and entries[0] == {}))


def _request_managed(entries: Any) -> mf.Managed | None:
    """managedFields sent or stored: decoded, {} when absent, None to reset; undecodable ones are ignored."""
    if _is_reset(entries):
        return None
    try:
        return mf.decode_managed_fields(entries)
    except mf.ManagedFieldsError:
        return {}


def _store(meta: dict[str, Any], managed: mf.Managed) -> None:
    entries = mf.encode_managed_fields(managed)
    if entries is None:
        meta.pop("managedFields", None)
    else:
        meta["managedFields"] = entries


def _zero_structs(value: Any, t: FieldType) -> Any:
    """The empty object of a built-in kind as far as ``value`` reaches: Go's zero value has its
    (non-pointer) structs present, so creating them is not adding them. Every declared struct
    counts as one."""
    out: dict[str, Any] = {}
    t = t.resolve(value)
    if isinstance(value, dict) and t.kind == "map":
        for key, child in value.items():
            ct, declared = t.child(key)
            if declared and ct is not None and isinstance(child, dict):
                ct = ct.resolve(child)
                if ct.kind == "map" and not ct.atomic and (ct.fields or ct.loose):
                    out[key] = _zero_structs(child, ct)
    return out


def _drop_nulls(value: Any) -> None:
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if v is None]:
            del value[key]
        for v in value.values():
            _drop_nulls(v)
    elif isinstance(value, list):
        for v in value:
            _drop_nulls(v)


def _check_applied_kind(rt: ResourceType, config: dict[str, Any]) -> None:
    api_version, kind = config.get("apiVersion"), config.get("kind")
    if api_version != rt.api_version or kind != rt.kind:
        group, _, version = str(api_version or "").rpartition("/")
        raise BadRequest(f"invalid object type: {group}/{version}, Kind={kind or ''}")


def _gvknn(rt: ResourceType, config: dict[str, Any]) -> str:
    """``objectGVKNN`` of the applied object: ``<namespace>/<name>; <group>/<version>, Kind=<Kind>``."""
    meta = dict_field(config, "metadata")
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}; {rt.group}/{rt.version}, Kind={rt.kind}"


def _validation_errors(errors: list[str]) -> str:
    """``typed.ValidationErrors.Error``."""
    if len(errors) == 1:
        return errors[0]
    return "\n".join(["errors:", *(f"  {e}" for e in errors)])


def _strict_decoding_error(problems: list[str]) -> str:
    return "strict decoding error: " + ", ".join(problems)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _go_value_string(value: Any) -> str:
    """Go's ``%+v`` of a decoded JSON value (``map[a:1 b:[x y]]``)."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_value_string(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go_value_string(v) for v in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
