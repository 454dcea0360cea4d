"""PATCH dispatch: the media type of a request picks the algorithm; the body is decoded as Go would.

:func:`apply_patch` is what the API server calls: it normalises the content type (or a kubectl
``--type`` word), refuses the types the resource does not accept (415; custom resources have no
strategic-merge schema), decodes the body with Go's error messages (merge patch always says
``Invalid JSON Patch``), runs the algorithm and requires an object as result (422 otherwise).
Server-side apply (``application/apply-patch+yaml``/``+cbor``) is not handled here.
"""

from __future__ import annotations

from typing import Any, Final

from fakekube._core.gocompat import GoJSONError, go_json_kind, go_json_loads
from fakekube._core.jsonutil import compact_json
from fakekube.errors import BadRequest, FieldError, Invalid, UnsupportedMediaType, UsageError
from fakekube.machinery import wire

from .errors import generic_status
from .jsonpatch import json_patch
from .merge import json_merge_patch, pruned
from .schemas import schema_for
from .strategic import MergeSchema, strategic_merge_patch

__all__ = [
    "APPLY_PATCH_CBOR",
    "APPLY_PATCH_YAML",
    "CR_UNSUPPORTED_MEDIA_TYPE_MESSAGE",
    "JSON_PATCH",
    "MERGE_PATCH",
    "STRATEGIC_MERGE_PATCH",
    "apply_built_patch",
    "apply_patch",
    "normalize_patch_type",
]

JSON_PATCH: Final = "application/json-patch+json"
MERGE_PATCH: Final = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH: Final = "application/strategic-merge-patch+json"
APPLY_PATCH_YAML: Final = "application/apply-patch+yaml"
APPLY_PATCH_CBOR: Final = "application/apply-patch+cbor"

CR_UNSUPPORTED_MEDIA_TYPE_MESSAGE: Final = (
    "the body of the request was in an unknown format - accepted media types include: "
    f"{JSON_PATCH}, {MERGE_PATCH}, {APPLY_PATCH_YAML}"
)
_GO_RESTFUL_415: Final = "415: Unsupported Media Type"

_ALIASES: Final = {"json": JSON_PATCH, "merge": MERGE_PATCH, "strategic": STRATEGIC_MERGE_PATCH,
                   "apply": APPLY_PATCH_YAML}


def _not_an_object(result: Any) -> Invalid:
    """What decoding a non-object patch result into the typed object yields (approximate text)."""
    detail = ("couldn't get version/kind; json parse error: json: cannot unmarshal "
              f"{go_json_kind(result)} into Go value of type struct {{ APIVersion string "
              '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }')
    err = FieldError.invalid("patch", compact_json(result), detail)
    return Invalid(f' "" is invalid: {err}', details={"causes": [err.cause()]}, errors=(err,))


def normalize_patch_type(patch_type: str) -> str:
    """Media type of a ``Content-Type`` header or a kubectl ``--type`` word (parameters dropped)."""
    if not isinstance(patch_type, str):
        raise UsageError(f"patch_type must be a string (merge, json, strategic, apply or a media type), "
                         f"got {patch_type!r}")
    media = patch_type.split(";", 1)[0].strip()
    return _ALIASES.get(media, media)


def _unsupported(builtin: bool) -> UnsupportedMediaType:
    if not builtin:
        return UnsupportedMediaType(CR_UNSUPPORTED_MEDIA_TYPE_MESSAGE)
    err = UnsupportedMediaType(_GO_RESTFUL_415)
    err.status = generic_status(415, "UnsupportedMediaType", _GO_RESTFUL_415)
    return err


def _decode_body(body: bytes | str | dict[str, Any] | list[Any] | None, media: str) -> Any:
    if isinstance(body, bytes | bytearray | str):
        try:
            body = go_json_loads(body)
        except GoJSONError as exc:
            raise BadRequest("Invalid JSON Patch" if media == MERGE_PATCH else str(exc)) from None
        except RecursionError:
            raise BadRequest(f"the patch is nested more than {wire.MAX_DEPTH} levels deep") from None
    try:
        wire.check_json(body)
    except wire.NotJson as exc:
        raise BadRequest(f"the patch is not JSON: {exc}") from None
    return body


def apply_patch(target: dict[str, Any], patch_body: bytes | str | dict[str, Any] | list[Any] | None,
                patch_type: str, *, resource: str, share: bool = False) -> dict[str, Any]:
    """Apply a PATCH body of ``patch_type`` to ``target`` as kube-apiserver would for ``resource``.

    ``patch_type`` is a content type (parameters allowed) or ``merge``/``json``/``strategic``;
    ``resource`` is a plural such as ``pods``, ``jobs.batch`` or ``jobsets.jobset.x-k8s.io``.
    ``share=True`` lets a strategic merge result share untouched subtrees with ``target``.
    Server-side apply is not handled here (``UsageError``).
    """
    media, schema = _accepted(patch_type, resource)
    return _apply(target, _decode_body(patch_body, media), media, schema, share)


def apply_built_patch(target: dict[str, Any], body: dict[str, Any] | list[Any], patch_type: str, *,
                      resource: str, share: bool = False) -> dict[str, Any]:
    """:func:`apply_patch` for a body its caller built as a JSON value (a dict or list of JSON
    values, what decoding a request body gives), which is not checked again."""
    media, schema = _accepted(patch_type, resource)
    return _apply(target, body, media, schema, share)


def _accepted(patch_type: str, resource: str) -> tuple[str, MergeSchema | None]:
    """The media type of ``patch_type`` and ``resource``'s strategic-merge schema; 415 (or a
    ``UsageError`` for server-side apply) when ``resource`` does not take that type."""
    media = normalize_patch_type(patch_type)
    schema = schema_for(resource)
    if media in (APPLY_PATCH_YAML, APPLY_PATCH_CBOR):
        raise UsageError(f"{media} is server-side apply: it is not handled by machinery.patch")
    supported = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH) if schema else (JSON_PATCH, MERGE_PATCH)
    if media not in supported:
        raise _unsupported(schema is not None)
    return media, schema


def _apply(target: dict[str, Any], body: Any, media: str, schema: MergeSchema | None, share: bool) -> dict[str, Any]:
    if media == STRATEGIC_MERGE_PATCH:
        assert schema is not None
        return strategic_merge_patch(target, body, schema, share=share)
    if media == JSON_PATCH:
        result = json_patch(target, body)
    else:
        if isinstance(body, list):
            result = pruned(body)
        elif isinstance(body, dict):
            result = json_merge_patch(target, body)
        else:
            raise BadRequest("Invalid JSON Patch")
    if not isinstance(result, dict):
        raise _not_an_object(result)
    return result
