"""PATCH bodies applied to wire-form objects: JSON merge patch, JSON patch, strategic merge patch.

Pure functions over JSON-like values (dicts, lists, str, int, float, bool, None). Inputs are never
mutated; every result is a fresh structure sharing nothing with the inputs. Errors are the
``Status`` objects kube-apiserver 1.34 answers (``pkg/endpoints/handlers/patch.go`` with
``gopkg.in/evanphx/json-patch.v4`` v4.12.0 and ``k8s.io/apimachinery/pkg/util/strategicpatch``).

Error shapes (what the real server sends)
-----------------------------------------
* Undecodable body: 400 ``BadRequest``. JSON patch and strategic merge patch carry Go's
  ``encoding/json`` message (approximated from Python's decoder: ``invalid character 'x' looking
  for beginning of value``, ``unexpected end of JSON input``, ``json: cannot unmarshal object into
  Go value of type jsonpatch.Patch``); merge patch always says ``Invalid JSON Patch`` (also for a
  ``null`` or scalar body).
* More than 10000 JSON-patch operations: 413 ``RequestEntityTooLarge``,
  ``Request entity too large: The allowed maximum operations in a JSON patch is 10000, got N``.
* A JSON patch that cannot be applied (failed ``test``, missing path, bad index, unknown op): 422
  ``Invalid`` built by ``NewGenericServerResponse``, which *discards* the library's message: the
  message is always ``the server rejected our request due to an error in our request`` and
  ``details`` is ``{}``. The library's text is kept on :attr:`PatchApplyError.detail`.
* Strategic merge patch: ``mergepatch.ErrBadJSONDoc``, ``ErrBadPatchFormatForPrimitiveList``,
  ``...ForRetainKeys``, ``...ForSetElementOrderList``, ``ErrUnsupportedStrategicMergePatchFormat``
  are 400 with their text; ``ErrNoListOfLists`` is the same generic 422 as above; every other error
  (missing merge key, ``$patch: merge``, unknown ``$patch`` value, bad ``$setElementOrder`` order,
  mixed element types) is not a Status at all and becomes 500 with an empty ``reason`` and the raw
  Go error text (``map: map[a:1] does not contain declared merge key: name``).
* A patch whose result is not a JSON object: 422 ``Invalid`` `` "" is invalid: patch: Invalid
  value: "<json>": couldn't get version/kind; json parse error: ...`` (text approximate).
* Unsupported content type: built-ins answer through go-restful, 415 ``415: Unsupported Media
  Type`` (``details: {}``); custom resources (no schema) answer 415 ``the body of the request was in
  an unknown format - accepted media types include: application/json-patch+json,
  application/merge-patch+json, application/apply-patch+yaml`` (strategic merge patch included).

JSON merge patch (:func:`json_merge_patch`) is evanphx v4 ``MergePatch``: RFC 7386 (``null``
deletes, objects merge, lists and scalars replace) plus v4's null pruning, which also drops
``null`` members of objects nested in lists whenever the value is inserted rather than merged.

JSON patch (:func:`json_patch`) reproduces v4 quirks: negative array indices count from the end
(``add`` at ``-1`` appends), ``replace`` of a missing object member adds it, ``copy`` from a
missing object member copies ``null``, ``test`` treats missing and ``null`` alike, a path without
a leading ``/`` ignores its first segment, ``replace`` of the root with a non-container is a no-op,
copies may add at most 3 MiB (``--json-patch-max-copy-bytes`` default). Numbers compare by value
(``1 == 1.0``); Go compares their bytes.

Strategic merge patch (:func:`strategic_merge_patch`) follows ``StrategicMergeMapPatch``:

Modelled: lists with ``patchStrategy=merge`` + ``patchMergeKey`` merge item by item (new items are
placed before server-only items unless ``$setElementOrder`` says otherwise, exactly as upstream's
``normalizeElementOrder``/``mergeSortedSlice``); primitive ``merge`` lists are unioned with
duplicates dropped; lists and maps without a strategy are replaced; map fields with
``patchStrategy=replace`` (PodDisruptionBudget ``spec.selector``) are replaced; ``null`` deletes;
directives ``$patch: replace`` / ``$patch: delete`` on maps and on merge-list items (``$patch:
merge`` is rejected as upstream does), ``$deleteFromPrimitiveList/<field>`` (also on non-merge
lists), ``$setElementOrder/<field>`` (validated and honoured), ``$retainKeys``. Patch keys are
processed in the patch's order (Go iterates maps randomly; results only differ for patches
kubectl never sends).

Merge keys of the ready-made schemas (k8s.io/api v0.34 struct tags):
ObjectMeta ``ownerReferences``/uid, ``finalizers`` (primitive merge); PodSpec ``containers``,
``initContainers``, ``ephemeralContainers``, ``imagePullSecrets``, ``schedulingGates``,
``resourceClaims`` and ``volumes`` by name, ``hostAliases``/ip, ``topologySpreadConstraints``/
topologyKey; Container ``env``/name, ``ports``/containerPort, ``volumeMounts``/mountPath,
``volumeDevices``/devicePath; PodStatus ``conditions``/type, ``podIPs`` and ``hostIPs``/ip,
``resourceClaimStatuses``/name; JobStatus, NodeStatus, ServiceStatus, NamespaceStatus, PVC, PDB and
apps ``conditions``/type; NodeStatus ``addresses``/type; NodeSpec ``podCIDRs`` (primitive merge);
ServiceSpec ``ports``/port; ServiceAccount ``secrets``/name. Everything else (``tolerations``,
``args``, affinity terms, ``containerStatuses``, ...) has no strategy and is replaced whole.

Not modelled: typed decoding after the patch. Upstream converts the result into the Go struct,
which drops unknown fields, ``null`` optional fields and empty ``omitempty`` lists; here only the
directive keys (``$patch``, ``$retainKeys``, ``$setElementOrder/*``,
``$deleteFromPrimitiveList/*``) that would survive in inserted values are stripped, so ``null``
members of inserted list items and emptied lists (``finalizers: []``) stay in the result. Unknown
fields are treated as strategy-less (upstream errors only for unknown fields present in both the
object and the patch, which typed objects cannot have). Field-validation (``fieldValidation=
Strict``) warnings, server-side apply (``application/apply-patch+yaml``), the OpenAPI-driven
schemas upstream uses for aggregated APIs, and Go panics on malformed input (reported as a 500
there) are out of scope.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final

from fakekube.errors import (
    ApiError,
    BadRequest,
    FieldError,
    Invalid,
    UnsupportedMediaType,
    UsageError,
    go_quote,
)

__all__ = [
    "APPLY_PATCH_CBOR",
    "APPLY_PATCH_YAML",
    "CRONJOB_SCHEMA",
    "CR_UNSUPPORTED_MEDIA_TYPE_MESSAGE",
    "GENERIC_METADATA_SCHEMA",
    "GENERIC_UNPROCESSABLE_MESSAGE",
    "JOB_SCHEMA",
    "JSON_PATCH",
    "JSON_PATCH_MAX_COPY_BYTES",
    "MAX_JSON_PATCH_OPERATIONS",
    "MERGE_PATCH",
    "NODE_SCHEMA",
    "POD_SCHEMA",
    "POD_TEMPLATE_SPEC_SCHEMA",
    "SERVICE_SCHEMA",
    "STRATEGIC_MERGE_PATCH",
    "FieldMeta",
    "MergeSchema",
    "PatchApplyError",
    "PatchInternalError",
    "apply_patch",
    "create_merge_patch",
    "json_merge_patch",
    "json_patch",
    "normalize_patch_type",
    "schema_for",
    "strategic_merge_patch",
]

JSON_PATCH: Final = "application/json-patch+json"
MERGE_PATCH: Final = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH: Final = "application/strategic-merge-patch+json"
APPLY_PATCH_YAML: Final = "application/apply-patch+yaml"
APPLY_PATCH_CBOR: Final = "application/apply-patch+cbor"

MAX_JSON_PATCH_OPERATIONS: Final = 10000
JSON_PATCH_MAX_COPY_BYTES: Final = 3 * 1024 * 1024

GENERIC_UNPROCESSABLE_MESSAGE: Final = "the server rejected our request due to an error in our request"
CR_UNSUPPORTED_MEDIA_TYPE_MESSAGE: Final = (
    "the body of the request was in an unknown format - accepted media types include: "
    f"{JSON_PATCH}, {MERGE_PATCH}, {APPLY_PATCH_YAML}"
)
_GO_RESTFUL_415: Final = "415: Unsupported Media Type"

_ALIASES: Final = {"json": JSON_PATCH, "merge": MERGE_PATCH, "strategic": STRATEGIC_MERGE_PATCH,
                   "apply": APPLY_PATCH_YAML}


# --------------------------------------------------------------------------- errors


def _generic_status(code: int, reason: str, message: str) -> dict[str, Any]:
    """``NewGenericServerResponse`` with no resource: ``details`` is an empty (non-nil) object."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "details": {}, "code": code}


class PatchApplyError(Invalid):
    """422 for a patch that decodes but cannot be applied.

    The API server replaces the library's message with a generic one; ``detail`` keeps it.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(GENERIC_UNPROCESSABLE_MESSAGE)
        self.detail = detail
        self.status = _generic_status(422, "Invalid", GENERIC_UNPROCESSABLE_MESSAGE)

    def __repr__(self) -> str:
        return f"PatchApplyError(422 Invalid: {self.detail})"


class PatchInternalError(ApiError):
    """500 for a strategic-merge error that is not a Status: upstream sends the raw Go error text.

    Go omits the empty ``reason``; it is kept here as ``""`` so ``.reason`` stays usable.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(detail, code=500)
        self.detail = detail
        self.status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                       "message": detail, "reason": "", "code": 500}


def _too_many_operations(count: int) -> ApiError:
    return ApiError(
        "Request entity too large: The allowed maximum operations in a JSON patch is "
        f"{MAX_JSON_PATCH_OPERATIONS}, got {count}",
        code=413, reason="RequestEntityTooLarge")


def _not_an_object(result: Any) -> Invalid:
    """What decoding a non-object patch result into the typed object yields (approximate text)."""
    detail = ("couldn't get version/kind; json parse error: json: cannot unmarshal "
              f"{_json_kind(result)} into Go value of type struct {{ APIVersion string "
              '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }')
    err = FieldError.invalid("patch", _compact(result), detail)
    return Invalid(f' "" is invalid: {err}', details={"causes": [err.cause()]}, errors=(err,))


# --------------------------------------------------------------------------- JSON helpers


def _copy(value: Any) -> Any:
    """Deep-copy a JSON-like value."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _json_kind(value: Any) -> str:
    """The JSON type word Go's ``UnmarshalTypeError`` uses."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if value is None:
        return "null"
    return "number"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _json_equal(a: Any, b: Any) -> bool:
    """JSON equality: booleans are not numbers, ``1 == 1.0``, containers compare structurally."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict):
        return (isinstance(b, dict) and a.keys() == b.keys()
                and all(_json_equal(v, b[k]) for k, v in a.items()))
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_json_equal, a, b))
    return type(a) is type(b) and a == b


def _go_quote_char(ch: str) -> str:
    """``encoding/json``'s quoteChar for the first byte of ``ch``."""
    byte = ch.encode("utf-8")[0]
    if byte == ord("'"):
        return "'\\''"
    if byte == ord('"'):
        return "'\"'"
    return "'" + go_quote(chr(byte))[1:-1] + "'"


def _innermost_container(doc: str, pos: int) -> str:
    """``{`` or ``[``: the container open at ``pos`` (strings skipped)."""
    stack: list[str] = []
    in_string = escaped = False
    for ch in doc[:pos]:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]" and stack:
            stack.pop()
    return stack[-1] if stack else ""


_LITERALS: Final = {"t": "true", "f": "false", "n": "null"}


def _go_syntax_message(doc: str, err: json.JSONDecodeError) -> str:
    """Translate Python's decoder error into the message Go's scanner gives (best effort)."""
    pos, msg = err.pos, err.msg
    if msg.startswith("Illegal trailing comma"):  # Python 3.13+ points at the comma; Go at what follows
        pos = len(doc) - len(doc[pos + 1:].lstrip(" \t\r\n"))
        msg = "Expecting property name" if msg.endswith("object") else "Expecting value"
    if pos >= len(doc.rstrip(" \t\r\n")) or msg.startswith("Unterminated string"):
        return "unexpected end of JSON input"
    ch = doc[pos]
    if msg.startswith("Expecting value"):
        literal = _LITERALS.get(ch)
        if literal is not None:
            for i, want in enumerate(literal):
                if pos + i >= len(doc):
                    return "unexpected end of JSON input"
                if doc[pos + i] != want:
                    return (f"invalid character {_go_quote_char(doc[pos + i])} in literal {literal} "
                            f"(expecting {_go_quote_char(want)})")
        if ch == "-" and pos + 1 < len(doc):
            return f"invalid character {_go_quote_char(doc[pos + 1])} in numeric literal"
        return f"invalid character {_go_quote_char(ch)} looking for beginning of value"
    if msg.startswith("Expecting property name"):
        return f"invalid character {_go_quote_char(ch)} looking for beginning of object key string"
    if msg.startswith("Expecting ':'"):
        return f"invalid character {_go_quote_char(ch)} after object key"
    if msg.startswith("Expecting ','"):
        where = "object key:value pair" if _innermost_container(doc, pos) == "{" else "array element"
        return f"invalid character {_go_quote_char(ch)} after {where}"
    if msg.startswith("Extra data"):
        return f"invalid character {_go_quote_char(ch)} after top-level value"
    if msg.startswith("Invalid control character"):
        return f"invalid character {_go_quote_char(ch)} in string literal"
    if msg.startswith("Invalid \\u"):
        bad = next((c for c in doc[pos + 2:pos + 6] if c not in "0123456789abcdefABCDEF"), ch)
        return f"invalid character {_go_quote_char(bad)} in \\u hexadecimal character escape"
    if msg.startswith("Invalid \\escape"):
        return f"invalid character {_go_quote_char(doc[pos + 1])} in string escape code"
    return f"invalid character {_go_quote_char(ch)} looking for beginning of value"


class _GoJSONError(Exception):
    """A body Go's ``encoding/json`` would refuse; ``str()`` is Go's message."""


def _reject_constant(name: str) -> Any:
    raise _GoJSONError("invalid character 'I' in numeric literal" if name.startswith("-")
                       else f"invalid character {_go_quote_char(name)} looking for beginning of value")


def _decode_json(body: bytes | str) -> Any:
    """Decode a request body like Go's ``json.Unmarshal`` into ``interface{}`` would accept it."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes | bytearray) else body
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise _GoJSONError(_go_syntax_message(text, exc)) from None


# --------------------------------------------------------------------------- JSON merge patch


def _pruned(value: Any) -> Any:
    """A copy with ``null`` object members dropped at every depth (v4 ``pruneNulls``)."""
    if isinstance(value, dict):
        return {k: _pruned(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def _merge_value(cur: Any, patch: Any) -> Any:
    if not isinstance(cur, dict):
        return _pruned(patch)
    if not isinstance(patch, dict):
        return _copy(patch)
    for key, value in patch.items():
        if value is None:
            cur.pop(key, None)
        elif cur.get(key) is None:
            cur[key] = _pruned(value)
        else:
            cur[key] = _merge_value(cur[key], value)
    return cur


def json_merge_patch(target: Any, patch: Any) -> Any:
    """Apply an RFC 7386 merge patch (evanphx v4 semantics): ``null`` deletes, lists replace whole."""
    return _merge_value(_copy(target), patch)


def _merge_diff(original: dict[str, Any], modified: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, new in modified.items():
        if key not in original:
            out[key] = _copy(new)
            continue
        old = original[key]
        if isinstance(old, dict) and isinstance(new, dict):
            sub = _merge_diff(old, new)
            if sub:
                out[key] = sub
        elif not _json_equal(old, new):
            out[key] = _copy(new)
    for key in original:
        if key not in modified:
            out[key] = None
    return out


def create_merge_patch(original: Any, modified: Any) -> Any:
    """The merge patch turning ``original`` into ``modified`` (v4 ``CreateMergePatch`` for objects).

    ``null`` members of ``modified`` cannot be expressed: a merge patch ``null`` deletes.
    """
    if isinstance(original, dict) and isinstance(modified, dict):
        return _merge_diff(original, modified)
    return _copy(modified)


# --------------------------------------------------------------------------- JSON patch


class _OpError(Exception):
    """An evanphx v4 error; ``str()`` is the library's (pkg/errors-wrapped) message."""


_MISSING: Final = "missing value"
_BAD_INDEX: Final = "invalid index referenced"
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_ATOI = re.compile(r"[+-]?[0-9]+")
_UNESCAPE = re.compile(r"~[01]")


def _atoi(text: str) -> int:
    """``strconv.Atoi`` with its error messages."""
    if not _ATOI.fullmatch(text):
        raise _OpError(f"strconv.Atoi: parsing {go_quote(text)}: invalid syntax")
    value = int(text)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise _OpError(f"strconv.Atoi: parsing {go_quote(text)}: value out of range")
    return value


def _bad_index(idx: int) -> _OpError:
    return _OpError(f"Unable to access invalid index: {idx}: {_BAD_INDEX}")


def _unescape(token: str) -> str:
    """RFC 6901 single-pass decoding: ``~1`` → ``/``, ``~0`` → ``~``."""
    return _UNESCAPE.sub(lambda m: "/" if m.group() == "~1" else "~", token)


def _get(con: dict[str, Any] | list[Any], key: str) -> Any:
    if isinstance(con, dict):
        return con.get(key)
    idx = _atoi(key)
    if idx < 0:
        if idx < -len(con):
            raise _bad_index(idx)
        idx += len(con)
    if idx >= len(con):
        raise _bad_index(idx)
    return con[idx]


def _set(con: dict[str, Any] | list[Any], key: str, value: Any) -> None:
    if isinstance(con, dict):
        con[key] = value
        return
    idx = _atoi(key)
    if idx < 0:
        if idx < -len(con):
            raise _bad_index(idx)
        idx += len(con)
    con[idx] = value


def _add(con: dict[str, Any] | list[Any], key: str, value: Any) -> None:
    if isinstance(con, dict):
        con[key] = value
        return
    if key == "-":
        con.append(value)
        return
    try:
        idx = _atoi(key)
    except _OpError as exc:
        raise _OpError(f"value was not a proper array index: '{key}': {exc}") from None
    size = len(con) + 1
    if idx >= size:
        raise _bad_index(idx)
    if idx < 0:
        if idx < -size:
            raise _bad_index(idx)
        idx += size
    con.insert(idx, value)


def _remove(con: dict[str, Any] | list[Any], key: str) -> None:
    if isinstance(con, dict):
        if key not in con:
            raise _OpError(f"Unable to remove nonexistent key: {key}: {_MISSING}")
        del con[key]
        return
    idx = _atoi(key)
    if idx >= len(con):
        raise _bad_index(idx)
    if idx < 0:
        if idx < -len(con):
            raise _bad_index(idx)
        idx += len(con)
    del con[idx]


def _find(root: Any, path: str) -> tuple[dict[str, Any] | list[Any], str] | None:
    """v4 ``findObject``: the container holding the last token, or None."""
    tokens = path.split("/")
    if len(tokens) < 2:
        return None
    doc = root
    for token in tokens[1:-1]:
        try:
            doc = _get(doc, _unescape(token))
        except _OpError:
            return None
        if not isinstance(doc, dict | list):
            return None
    return doc, _unescape(tokens[-1])


def _string_field(op: Mapping[str, Any], name: str, missing: str) -> str:
    value = op.get(name)
    if value is None:
        raise _OpError(f"{missing}: {_MISSING}")
    if not isinstance(value, str):
        raise _OpError(f"json: cannot unmarshal {_json_kind(value)} into Go value of type string")
    return value


def _path(op: Mapping[str, Any]) -> str:
    return _string_field(op, "path", "operation missing path field")


def _from(op: Mapping[str, Any]) -> str:
    return _string_field(op, "from", "operation, missing from field")


def _marshal_size(value: Any) -> int:
    """Bytes ``json.Marshal`` writes for ``value`` (HTML-escaping <, >, & as Go does)."""
    if value is None:
        return 0
    text = _compact(value)
    return len(text.encode("utf-8")) + 5 * sum(text.count(c) for c in "<>&")


class _JsonPatcher:
    """One application of a JSON patch to a private copy of the document."""

    def __init__(self, doc: Any) -> None:
        self.root = doc
        self.copied = 0

    def _locate(self, path: str, what: str) -> tuple[dict[str, Any] | list[Any], str]:
        found = _find(self.root, path)
        if found is None:
            raise _OpError(f"{what}: {_MISSING}")
        return found

    def add(self, op: Mapping[str, Any]) -> None:
        try:
            path = _path(op)
        except _OpError:
            raise _OpError(f"add operation failed to decode path: {_MISSING}") from None
        con, key = self._locate(path, f'add operation does not apply: doc is missing path: "{path}"')
        try:
            _add(con, key, _copy(op.get("value")))
        except _OpError as exc:
            raise _OpError(f"error in add for path: '{path}': {exc}") from None

    def remove(self, op: Mapping[str, Any]) -> None:
        try:
            path = _path(op)
        except _OpError:
            raise _OpError(f"remove operation failed to decode path: {_MISSING}") from None
        con, key = self._locate(path, f'remove operation does not apply: doc is missing path: "{path}"')
        try:
            _remove(con, key)
        except _OpError as exc:
            raise _OpError(f"error in remove for path: '{path}': {exc}") from None

    def replace(self, op: Mapping[str, Any]) -> None:
        try:
            path = _path(op)
        except _OpError as exc:
            raise _OpError(f"replace operation failed to decode path: {exc}") from None
        if path == "":
            value = op.get("value")
            if isinstance(value, dict | list):  # v4 silently ignores any other root value
                self.root = _copy(value)
            return
        con, key = self._locate(path, f"replace operation does not apply: doc is missing path: {path}")
        try:
            _get(con, key)
        except _OpError:
            raise _OpError(
                f"replace operation does not apply: doc is missing key: {path}: {_MISSING}") from None
        try:
            _set(con, key, _copy(op.get("value")))
        except _OpError as exc:
            raise _OpError(f"error in remove for path: '{path}': {exc}") from None

    def move(self, op: Mapping[str, Any]) -> None:
        try:
            source = _from(op)
        except _OpError as exc:
            raise _OpError(f"move operation failed to decode from: {exc}") from None
        con, key = self._locate(source, f"move operation does not apply: doc is missing from path: {source}")
        try:
            value = _get(con, key)
            _remove(con, key)
        except _OpError as exc:
            raise _OpError(f"error in move for path: '{key}': {exc}") from None
        try:
            path = _path(op)
        except _OpError as exc:
            raise _OpError(f"move operation failed to decode path: {exc}") from None
        con, key = self._locate(path, f"move operation does not apply: doc is missing destination path: {path}")
        try:
            _add(con, key, value)
        except _OpError as exc:
            raise _OpError(f"error in move for path: '{path}': {exc}") from None

    def test(self, op: Mapping[str, Any]) -> None:
        try:
            path = _path(op)
        except _OpError as exc:
            raise _OpError(f"test operation failed to decode path: {exc}") from None
        failed = _OpError(f"testing value {path} failed: test failed")
        if path == "":
            if "value" not in op or not _json_equal(self.root, op["value"]):
                raise failed
            return
        con, key = self._locate(path, f"test operation does not apply: is missing path: {path}")
        try:
            current = _get(con, key)
        except _OpError as exc:
            raise _OpError(f"error in test for path: '{path}': {exc}") from None
        if "value" not in op or not _json_equal(current, op["value"]):
            raise failed

    def copy(self, op: Mapping[str, Any]) -> None:
        try:
            source = _from(op)
        except _OpError as exc:
            raise _OpError(f"copy operation failed to decode from: {exc}") from None
        con, key = self._locate(source, f"copy operation does not apply: doc is missing from path: {source}")
        try:
            value = _get(con, key)
        except _OpError as exc:
            raise _OpError(f"error in copy for from: '{source}': {exc}") from None
        try:
            path = _path(op)
        except _OpError:
            raise _OpError(f"copy operation failed to decode path: {_MISSING}") from None
        con, key = self._locate(path, f"copy operation does not apply: doc is missing destination path: {path}")
        self.copied += _marshal_size(value)
        if self.copied > JSON_PATCH_MAX_COPY_BYTES:
            raise _OpError("Unable to complete the copy, the accumulated size increase of copy is "
                           f"{self.copied}, exceeding the limit {JSON_PATCH_MAX_COPY_BYTES}")
        try:
            _add(con, key, _copy(value))
        except _OpError as exc:
            raise _OpError(f"error while adding value during copy: {exc}") from None

    def apply(self, op: Mapping[str, Any] | None) -> None:
        op = op or {}
        kind = op.get("op")
        handler: Callable[[Mapping[str, Any]], None] | None = {
            "add": self.add, "remove": self.remove, "replace": self.replace,
            "move": self.move, "test": self.test, "copy": self.copy,
        }.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise _OpError(f"Unexpected kind: {kind if isinstance(kind, str) else 'unknown'}")
        handler(op)


def _check_operations(ops: Any) -> list[Any]:
    """``jsonpatch.DecodePatch`` shape checks (400) and the 10000-operation limit (413)."""
    if ops is None:
        return []
    if not isinstance(ops, list):
        raise BadRequest(f"json: cannot unmarshal {_json_kind(ops)} into Go value of type jsonpatch.Patch")
    for op in ops:
        if op is not None and not isinstance(op, dict):
            raise BadRequest(
                f"json: cannot unmarshal {_json_kind(op)} into Go value of type jsonpatch.Operation")
    if len(ops) > MAX_JSON_PATCH_OPERATIONS:
        raise _too_many_operations(len(ops))
    return ops


def json_patch(target: Any, ops: list[dict[str, Any]] | None) -> Any:
    """Apply an RFC 6902 JSON patch (evanphx v4 semantics); atomic, ``target`` is untouched.

    Raises ``BadRequest`` for a malformed operation list, a 413 ``ApiError`` beyond 10000
    operations and :class:`PatchApplyError` (422) when an operation fails.
    """
    patcher = _JsonPatcher(_copy(target))
    for op in _check_operations(ops):
        try:
            patcher.apply(op)
        except _OpError as exc:
            raise PatchApplyError(str(exc)) from None
    return patcher.root


# --------------------------------------------------------------------------- strategic merge patch


@dataclass(frozen=True, slots=True, eq=False)
class FieldMeta:
    """Patch metadata of one field (the ``patchStrategy``/``patchMergeKey`` struct tags).

    ``strategy`` is ``"merge"``, ``"replace"`` or ``""`` (lists replaced, maps merged);
    ``schema`` describes the field's value (a map) or each list item.
    """

    strategy: str = ""
    merge_key: str = ""
    retain_keys: bool = False
    schema: MergeSchema | None = None


@dataclass(frozen=True, slots=True, eq=False)
class MergeSchema:
    """Patch metadata of a struct: its Go type name and the fields that carry metadata."""

    name: str = ""
    fields: Mapping[str, FieldMeta] = field(default_factory=dict)

    def meta(self, key: str) -> FieldMeta:
        """Metadata of field ``key`` (strategy-less when unknown)."""
        return self.fields.get(key, _NO_META)


_NO_META: Final = FieldMeta()
_EMPTY_SCHEMA: Final = MergeSchema()

_PATCH: Final = "$patch"
_RETAIN_KEYS: Final = "$retainKeys"
_DELETE_PREFIX: Final = "$deleteFromPrimitiveList"
_ORDER_PREFIX: Final = "$setElementOrder"

_ERR_BAD_PRIMITIVE_LIST: Final = "invalid patch format of primitive list"
_ERR_BAD_RETAIN_KEYS: Final = "invalid patch format of retainKeys"
_ERR_BAD_ORDER_LIST: Final = "invalid patch format of setElementOrder list"
_ERR_NO_LIST_OF_LISTS: Final = "lists of lists are not supported"


class _SmpError(Exception):
    """A strategicpatch error; ``status`` is the HTTP code the handler turns it into."""

    def __init__(self, message: str, status: int = 500) -> None:
        super().__init__(message)
        self.status = status


def _go_type(value: Any) -> str:
    """The Go dynamic type ``json.Unmarshal`` gives ``value``."""
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    return "nil"


def _go_eq(a: Any, b: Any) -> bool:
    """Go interface equality: same dynamic type and value."""
    return _go_type(a) == _go_type(b) and _json_equal(a, b)


def _go_float(x: float) -> str:
    """``fmt``'s ``%v`` for a float64."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    _, digit_tuple, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    dp = len(digits) + int(exponent)
    prefix = "-" if x < 0 else ""
    if dp - 1 < -4 or dp - 1 >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        exp = dp - 1
        return f"{prefix}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if dp <= 0:
        return f"{prefix}0.{'0' * -dp}{digits}"
    if dp >= len(digits):
        return prefix + digits + "0" * (dp - len(digits))
    return f"{prefix}{digits[:dp]}.{digits[dp:]}"


def _go_v(value: Any) -> str:
    """``fmt``'s ``%v`` for a decoded JSON value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_v(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go_v(v) for v in value) + "]"
    return str(value)


def _go_s(value: Any) -> str:
    """``fmt``'s ``%s``: strings bare, other scalars as ``%!s(type=value)``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return _go_v(value)
    if value is None:
        return "%!s(<nil>)"
    return f"%!s({_go_type(value)}={_go_v(value)})"


def _bad_arg_type(expected: str, actual: Any) -> _SmpError:
    actual_type = _go_type(actual)
    return _SmpError(f"expected a {expected}, but received a "
                     f"{'%!s(<nil>)' if actual_type == 'nil' else actual_type}")


def _no_merge_key(item: dict[str, Any], key: str) -> _SmpError:
    return _SmpError(f"map: {_go_v(item)} does not contain declared merge key: {key}")


def _bad_patch_type(directive: Any, item: dict[str, Any]) -> _SmpError:
    return _SmpError(f"unknown patch type: {_go_s(directive)} in map: {_go_v(item)}")


def _extract_key(key: str, prefix: str) -> str:
    head, sep, tail = key.partition("/")
    if not sep or head != prefix:
        message = _ERR_BAD_PRIMITIVE_LIST if prefix == _DELETE_PREFIX else _ERR_BAD_ORDER_LIST
        raise _SmpError(message, 400)
    return tail


def _discard_nulls(value: Any) -> None:
    """Drop ``null`` map members at every depth, in place."""
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if v is None]:
            del value[key]
        for v in value.values():
            _discard_nulls(v)
    elif isinstance(value, list):
        for v in value:
            _discard_nulls(v)


def _remove_directives(value: Any) -> tuple[Any, bool]:
    """Drop maps carrying ``$patch`` (and list items that are such maps); False: drop ``value``."""
    if isinstance(value, dict):
        if _PATCH in value:
            return None, False
        out: dict[str, Any] = {}
        for key, v in value.items():
            nv, keep = _remove_directives(v)
            if keep:
                out[key] = nv
        return out, True
    if isinstance(value, list):
        kept = [_remove_directives(v) for v in value]
        return [nv for nv, keep in kept if keep], True
    return value, True


def _is_directive_key(key: str) -> bool:
    return (key in (_PATCH, _RETAIN_KEYS) or key.startswith(_ORDER_PREFIX + "/")
            or key.startswith(_DELETE_PREFIX + "/"))


def _strip_directives(value: Any) -> Any:
    """A copy without directive keys (a typed decode drops them as unknown fields)."""
    if isinstance(value, dict):
        return {k: _strip_directives(v) for k, v in value.items() if not _is_directive_key(k)}
    if isinstance(value, list):
        return [_strip_directives(v) for v in value]
    return value


def _go_stable_sort(items: list[Any], less: Callable[[Any, Any], bool]) -> list[Any]:
    """Go's ``sort.SliceStable`` (insertion-sorted blocks of 20, then SymMerge).

    Reproduced step for step because upstream's comparator is not a strict weak order.
    """
    data = list(items)

    def lt(i: int, j: int) -> bool:
        return less(data[i], data[j])

    def swap(i: int, j: int) -> None:
        data[i], data[j] = data[j], data[i]

    def insertion(a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and lt(j, j - 1):
                swap(j, j - 1)
                j -= 1

    def swap_range(a: int, b: int, n: int) -> None:
        for i in range(n):
            swap(a + i, b + i)

    def rotate(a: int, m: int, b: int) -> None:
        i, j = m - a, b - m
        while i != j:
            if i > j:
                swap_range(m - i, m, j)
                i -= j
            else:
                swap_range(m - i, m + j - i, i)
                j -= i
        swap_range(m - i, m, i)

    def sym_merge(a: int, m: int, b: int) -> None:
        if m - a == 1:
            i, j = m, b
            while i < j:
                h = (i + j) // 2
                if lt(h, a):
                    i = h + 1
                else:
                    j = h
            for k in range(a, i - 1):
                swap(k, k + 1)
            return
        if b - m == 1:
            i, j = a, m
            while i < j:
                h = (i + j) // 2
                if not lt(m, h):
                    i = h + 1
                else:
                    j = h
            for k in range(m, i, -1):
                swap(k, k - 1)
            return
        mid = (a + b) // 2
        n = mid + m
        start, r = (n - b, mid) if m > mid else (a, m)
        p = n - 1
        while start < r:
            c = (start + r) // 2
            if not lt(p - c, c):
                start = c + 1
            else:
                r = c
        end = n - start
        if start < m < end:
            rotate(start, m, end)
        if a < start < mid:
            sym_merge(a, start, mid)
        if mid < end < b:
            sym_merge(mid, end, b)

    n, block = len(data), 20
    a, b = 0, block
    while b <= n:
        insertion(a, b)
        a, b = b, b + block
    insertion(a, n)
    while block < n:
        a, b = 0, 2 * block
        while b <= n:
            sym_merge(a, a + block, b)
            a, b = b, b + 2 * block
        if a + block < n:
            sym_merge(a, a + block, n)
        block *= 2
    return data


def _index(items: list[Any], value: Any, merge_key: str, is_map: bool) -> int:
    """Position of ``value`` in ``items`` (by merge key for maps), or -1."""
    def get(item: Any) -> Any:
        if not is_map:
            return item
        return item.get(merge_key) if isinstance(item, dict) else None

    wanted = get(value)
    return next((i for i, v in enumerate(items) if _go_eq(get(v), wanted)), -1)


def _find_by_key(items: list[Any], merge_key: str, value: Any) -> int:
    """``findMapInSliceBasedOnKeyValue``: index of the first map whose key equals ``value``."""
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise _SmpError(f"value for key {i} is not a map")
        if merge_key in item and _go_eq(item[merge_key], value):
            return i
    return -1


def _check_merge_keys(merge_key: str, *lists: list[Any]) -> None:
    for items in lists:
        for item in items:
            if not isinstance(item, dict):
                raise _bad_arg_type("map[string]interface {}", item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)


def _split_deletes(items: list[Any]) -> tuple[list[Any], list[Any]]:
    """(items to keep, items carrying ``$patch: delete``)."""
    keep: list[Any] = []
    delete: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise _bad_arg_type("map[string]interface {}", item)
        (delete if _go_eq(item.get(_PATCH), "delete") else keep).append(item)
    return keep, delete


def _sort_by(items: list[Any], order: list[Any], merge_key: str, is_map: bool) -> list[Any]:
    """``normalizeSliceOrder``: sort ``items`` by their position in ``order``."""
    deletes: list[Any] = []
    if is_map:
        _check_merge_keys(merge_key, items, order)
        items, deletes = _split_deletes(items)

    def less(x: Any, y: Any) -> bool:
        ix = _index(order, x, merge_key, is_map)
        if ix >= 0:
            iy = _index(order, y, merge_key, is_map)
            if iy >= 0:
                return ix < iy
        return True

    return _go_stable_sort(items, less) + deletes


def _merge_sorted(left: list[Any], right: list[Any], server_order: list[Any],
                  merge_key: str, is_map: bool) -> list[Any]:
    """``mergeSortedSlice``: interleave server-only items (left) into patch items (right)."""
    out: list[Any] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j])
            j += 1
        elif j >= len(right):
            out.append(left[i])
            i += 1
        else:
            li = _index(server_order, left[i], merge_key, is_map)
            ri = _index(server_order, right[j], merge_key, is_map)
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def _partition(merged: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """(items present in ``by``, server-only items), by value or by merge key."""
    present: list[Any] = []
    server_only: list[Any] = []
    for item in merged:
        if not merge_key:
            found = any(_go_eq(item, b) for b in by)
        else:
            if not isinstance(item, dict):
                raise _bad_arg_type("map[string]interface {}", item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            found = _find_by_key(by, merge_key, item[merge_key]) >= 0
        (present if found else server_only).append(item)
    return present, server_only


def _normalize_order(patch_items: list[Any], server_only: list[Any], patch_order: list[Any],
                     server_order: list[Any], merge_key: str, is_map: bool) -> list[Any]:
    patch_items = _sort_by(patch_items, patch_order, merge_key, is_map)
    server_only = _sort_by(server_only, server_order, merge_key, is_map)
    return _merge_sorted(server_only, patch_items, server_order, merge_key, is_map)


def _element_type(*lists: list[Any]) -> str:
    """``sliceElementType``: the one Go type of every element of ``lists``."""
    found = ""
    for items in lists:
        for item in items:
            current = _go_type(item)
            if not found:
                found = current
                if current == "[]interface {}":
                    raise _SmpError(_ERR_NO_LIST_OF_LISTS, 422)
            elif current != found:
                raise _SmpError(f"list element types are not identical: {_go_v(list(lists))}")
    if not found:
        raise _SmpError("no elements in any of the given slices")
    return found


def _dedupe(items: list[Any]) -> list[Any]:
    """``deduplicateScalars``, including its swap-with-last reordering."""
    s = list(items)
    last = len(s) - 1
    i = 0
    while i < last:
        j = i + 1
        while j <= last:
            if _go_eq(s[i], s[j]):
                s[j] = s[last]
                s.pop()
                last -= 1
                j -= 1
            j += 1
        i += 1
    return s


def _merge_list(original: list[Any], patch: list[Any], item_schema: MergeSchema,
                merge_key: str, is_delete_list: bool, backing: list[Any] | None = None) -> list[Any]:
    """``mergeSlice``.

    ``backing``, when given, is a copy of ``original`` that receives the in-place writes Go makes
    to the caller's backing array (deletions shift it left, appends land in the freed tail);
    ``mergePatchIntoOriginal`` then orders by that aliased view, and so must we.
    """
    if not original and not patch:
        return original
    is_map = _element_type(original, patch) == "map[string]interface {}"
    if not is_map:
        if is_delete_list:
            return [v for v in original if not any(_go_eq(v, d) for d in patch)]
        merged = _dedupe(original + patch)
    else:
        if not merge_key:
            raise _SmpError(f"cannot merge lists without merge key for {item_schema.name}")
        original = list(original)
        plain: list[Any] = []
        replace = False
        for item in patch:
            if _PATCH not in item:
                plain.append(item)
                continue
            directive = item[_PATCH]
            if _go_eq(directive, "delete"):
                if merge_key not in item:
                    raise _no_merge_key(item, merge_key)
                while (idx := _find_by_key(original, merge_key, item[merge_key])) >= 0:
                    if backing is not None:
                        backing[idx:len(original) - 1] = original[idx + 1:]
                    del original[idx]
            elif _go_eq(directive, "replace"):
                replace = True
            elif _go_eq(directive, "merge"):
                raise _SmpError("merging lists cannot yet be specified in the patch")
            else:
                raise _bad_patch_type(directive, item)
        if replace:
            original, patch, backing = plain, [], None
        else:
            patch = plain
        merged = list(original)
        for item in patch:
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            idx = _find_by_key(merged, merge_key, item[merge_key])
            if idx >= 0:
                merged[idx] = _merge_map(merged[idx], item, item_schema)
            else:
                if backing is not None and len(merged) < len(backing):
                    backing[len(merged)] = item
                merged.append(item)
    patch_items, server_only = _partition(merged, patch, merge_key)
    return _normalize_order(patch_items, server_only, patch, original, merge_key, is_map)


def _merge_list_field(original: list[Any], patch: list[Any], meta: FieldMeta,
                      is_delete_list: bool, backing: list[Any] | None = None) -> list[Any]:
    """``mergeSliceHandler``: merge lists with the merge strategy (or delete lists), else replace."""
    if meta.strategy == "merge" or is_delete_list:
        return _merge_list(original, patch, meta.schema or _EMPTY_SCHEMA, meta.merge_key,
                           is_delete_list, backing)
    return patch


def _check_order_list(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """``validatePatchWithSetOrderList``: patch items must appear in ``order``, in that order."""
    if not order or not patch_list:
        return
    items = _split_deletes(patch_list)[0] if merge_key else patch_list

    def same(left: Any, right: Any) -> bool:
        if not merge_key:
            return _go_eq(left, right)
        for side in (left, right):
            if not isinstance(side, dict):
                raise _bad_arg_type("map[string]interface {}", side)
            if merge_key not in side:
                raise _no_merge_key(side, merge_key)
        return _go_eq(left[merge_key], right[merge_key])

    pi = si = 0
    while pi < len(items) and si < len(order):
        if isinstance(items[pi], dict) and _PATCH in items[pi]:
            pi += 1
            continue
        if same(items[pi], order[si]):
            pi += 1
        si += 1
    if pi < len(items) and si >= len(order):
        raise _SmpError(f"The order in patch list:\n{_go_v(patch_list)}\n doesn't match "
                        f"{_ORDER_PREFIX} list:\n{_go_v(order)}\n")


def _apply_order_directives(original: dict[str, Any], patch: dict[str, Any], schema: MergeSchema) -> None:
    """``mergePatchIntoOriginal``: merge each list named by ``$setElementOrder/<f>`` and order it."""
    for key in [k for k in patch if k.startswith(_ORDER_PREFIX)]:
        order = patch.pop(key)
        if not isinstance(order, list):
            raise _bad_arg_type("[]interface {}", order)
        name = _extract_key(key, _ORDER_PREFIX)
        original_list: list[Any] = []
        patch_list: list[Any] = []
        if name in original:
            original_list = original[name]
            if not isinstance(original_list, list):
                raise _bad_arg_type("[]interface {}", original_list)
        if name in patch:
            patch_list = patch[name]
            if not isinstance(patch_list, list):
                raise _bad_arg_type("[]interface {}", patch_list)
        meta = schema.meta(name)
        backing = list(original_list)
        _check_order_list(patch_list, order, meta.merge_key)
        if name in original and name not in patch:
            merged = original_list
        elif name in patch and name not in original:
            merged = _remove_directives(patch_list)[0]
        elif name in patch:
            merged = _merge_list_field(original_list, patch_list, meta, False, backing)
        else:
            continue
        patch_items, server_only = _partition(merged, order, meta.merge_key)
        is_map = _element_type(backing, patch_list) == "map[string]interface {}"
        original[name] = _normalize_order(patch_items, server_only, order, backing,
                                          meta.merge_key, is_map)
        patch.pop(name, None)


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    """``$retainKeys``: drop fields of ``original`` not listed; every patched field must be listed."""
    if _RETAIN_KEYS not in patch:
        return
    retained = patch.pop(_RETAIN_KEYS)
    if not isinstance(retained, list):
        raise _SmpError(_ERR_BAD_RETAIN_KEYS, 400)
    names = {v for v in retained if isinstance(v, str)}
    for key, value in patch.items():
        if value is None or key.startswith((_DELETE_PREFIX, _ORDER_PREFIX)):
            continue
        if key not in names:
            raise _SmpError(_ERR_BAD_RETAIN_KEYS, 400)
    for key in [k for k in original if k not in names]:
        del original[key]


def _take_patch_value(original: dict[str, Any], key: str, value: Any) -> None:
    _discard_nulls(value)
    value, keep = _remove_directives(value)
    if keep:
        original[key] = value
    else:
        original.pop(key, None)


def _merge_map(original: dict[str, Any] | None, patch: dict[str, Any], schema: MergeSchema) -> dict[str, Any]:
    """``mergeMap`` with the server-side options (parallel lists merged, unmatched nulls ignored)."""
    if _PATCH in patch:
        directive = patch[_PATCH]
        if _go_eq(directive, "replace"):
            del patch[_PATCH]
            return patch
        if _go_eq(directive, "delete"):
            return {}
        raise _bad_patch_type(directive, patch)
    if original is None:
        original = {}
    _apply_retain_keys(original, patch)
    _apply_order_directives(original, patch, schema)
    for raw_key, value in patch.items():
        key, is_delete_list = raw_key, False
        if raw_key.startswith(_DELETE_PREFIX):
            key, is_delete_list = _extract_key(raw_key, _DELETE_PREFIX), True
        if value is None:
            original.pop(key, None)
            continue
        if key not in original or _go_type(original[key]) != _go_type(value):
            if not is_delete_list:
                _take_patch_value(original, key, value)
            continue
        current = original[key]
        meta = schema.meta(key)
        if isinstance(current, dict):
            original[key] = value if meta.strategy == "replace" else _merge_map(
                current, value, meta.schema or _EMPTY_SCHEMA)
        elif isinstance(current, list):
            original[key] = _merge_list_field(current, value, meta, is_delete_list)
        else:
            original[key] = value
    return original


def _smp_api_error(exc: _SmpError) -> ApiError:
    """``interpretStrategicMergePatchError``."""
    if exc.status == 400:
        return BadRequest(str(exc))
    if exc.status == 422:
        return PatchApplyError(str(exc))
    return PatchInternalError(str(exc))


def strategic_merge_patch(target: dict[str, Any], patch: dict[str, Any] | None,
                          schema: MergeSchema, *, share: bool = False) -> dict[str, Any]:
    """Apply a strategic merge patch to ``target`` using ``schema``'s merge keys and strategies.

    The result aliases nothing of ``target`` or ``patch``, unless ``share=True``: then subtrees
    the patch does not touch are ``target``'s own (for a caller that treats both as frozen, as
    the API server does with stored objects). ``target`` is never mutated either way.
    """
    if patch is None:
        return dict(target) if share else _copy(target)
    if not isinstance(patch, dict):
        raise BadRequest(f"json: cannot unmarshal {_json_kind(patch)} into Go value of type "
                         "map[string]interface {}")
    try:
        merged = _merge_map(_copy_along(target, patch) if share else _copy(target), _copy(patch), schema)
    except _SmpError as exc:
        raise _smp_api_error(exc) from None
    return _strip_along(merged, patch) if share else _strip_directives(merged)


def _patched_field(key: str) -> str:
    """The field a patch key acts on (``$deleteFromPrimitiveList/x`` and ``$setElementOrder/x`` act on x)."""
    if key.startswith((_DELETE_PREFIX + "/", _ORDER_PREFIX + "/")):
        return key.partition("/")[2]
    return key


def _copy_along(target: dict[str, Any], patch: Any) -> dict[str, Any]:
    """A copy of ``target`` that the merge may mutate: fresh along the fields ``patch`` names,
    shared (and never written) elsewhere. Stored objects stay frozen; untouched subtrees cost nothing."""
    out = dict(target)
    if not isinstance(patch, dict):
        return out
    for key, value in patch.items():
        name = _patched_field(key)
        current = out.get(name)
        if isinstance(current, dict) and isinstance(value, dict) and name == key:
            out[name] = _copy_along(current, value)
        elif isinstance(current, dict | list):
            out[name] = _copy(current)
    return out


def _strip_along(merged: Any, patch: Any) -> Any:
    """``_strip_directives`` limited to what the patch can have brought in (the stored object has no
    directive keys), so untouched subtrees stay shared."""
    if not isinstance(merged, dict) or not isinstance(patch, dict) or _PATCH in patch:
        return _strip_directives(merged)
    touched = {_patched_field(k): v for k, v in patch.items()}
    out: dict[str, Any] = {}
    for key, value in merged.items():
        if _is_directive_key(key):
            continue
        if key not in touched:
            out[key] = value
        elif isinstance(touched[key], dict) and key in patch:
            out[key] = _strip_along(value, touched[key])
        else:
            out[key] = _strip_directives(value)
    return out


# --------------------------------------------------------------------------- schemas


def _keyed(merge_key: str, item: str | MergeSchema, *, retain_keys: bool = False) -> FieldMeta:
    schema = item if isinstance(item, MergeSchema) else MergeSchema(item)
    return FieldMeta("merge", merge_key, retain_keys, schema)


def _struct(schema: MergeSchema, strategy: str = "", *, retain_keys: bool = False) -> FieldMeta:
    return FieldMeta(strategy, "", retain_keys, schema)


_SET: Final = FieldMeta("merge", "", False, MergeSchema("string"))

_OBJECT_META: Final = MergeSchema("ObjectMeta", {
    "ownerReferences": _keyed("uid", "OwnerReference"),
    "finalizers": _SET,
})


def _container(name: str) -> MergeSchema:
    return MergeSchema(name, {
        "ports": _keyed("containerPort", "ContainerPort"),
        "env": _keyed("name", "EnvVar"),
        "volumeMounts": _keyed("mountPath", "VolumeMount"),
        "volumeDevices": _keyed("devicePath", "VolumeDevice"),
    })


_CONTAINER: Final = _container("Container")

_POD_SPEC: Final = MergeSchema("PodSpec", {
    "volumes": _keyed("name", "Volume", retain_keys=True),
    "initContainers": _keyed("name", _CONTAINER),
    "containers": _keyed("name", _CONTAINER),
    "ephemeralContainers": _keyed("name", _container("EphemeralContainer")),
    "imagePullSecrets": _keyed("name", "LocalObjectReference"),
    "hostAliases": _keyed("ip", "HostAlias"),
    "topologySpreadConstraints": _keyed("topologyKey", "TopologySpreadConstraint"),
    "schedulingGates": _keyed("name", "PodSchedulingGate"),
    "resourceClaims": _keyed("name", "PodResourceClaim", retain_keys=True),
})

_POD_STATUS: Final = MergeSchema("PodStatus", {
    "conditions": _keyed("type", "PodCondition"),
    "hostIPs": _keyed("ip", "HostIP"),
    "podIPs": _keyed("ip", "PodIP"),
    "resourceClaimStatuses": _keyed("name", "PodResourceClaimStatus", retain_keys=True),
})


def _object(name: str, spec: MergeSchema | None = None, status: MergeSchema | None = None,
            **extra: FieldMeta) -> MergeSchema:
    fields: dict[str, FieldMeta] = {"metadata": _struct(_OBJECT_META)}
    if spec is not None:
        fields["spec"] = _struct(spec)
    if status is not None:
        fields["status"] = _struct(status)
    fields.update(extra)
    return MergeSchema(name, fields)


def _conditions(status_name: str, condition_name: str) -> MergeSchema:
    return MergeSchema(status_name, {"conditions": _keyed("type", condition_name)})


POD_TEMPLATE_SPEC_SCHEMA: Final = MergeSchema("PodTemplateSpec", {
    "metadata": _struct(_OBJECT_META), "spec": _struct(_POD_SPEC)})
POD_SCHEMA: Final = _object("Pod", _POD_SPEC, _POD_STATUS)
_JOB_SPEC: Final = MergeSchema("JobSpec", {"template": _struct(POD_TEMPLATE_SPEC_SCHEMA)})
JOB_SCHEMA: Final = _object("Job", _JOB_SPEC, _conditions("JobStatus", "JobCondition"))
CRONJOB_SCHEMA: Final = _object("CronJob", MergeSchema("CronJobSpec", {
    "jobTemplate": _struct(MergeSchema("JobTemplateSpec", {
        "metadata": _struct(_OBJECT_META), "spec": _struct(_JOB_SPEC)}))}))
NODE_SCHEMA: Final = _object(
    "Node", MergeSchema("NodeSpec", {"podCIDRs": _SET}),
    MergeSchema("NodeStatus", {"conditions": _keyed("type", "NodeCondition"),
                               "addresses": _keyed("type", "NodeAddress")}))
SERVICE_SCHEMA: Final = _object(
    "Service", MergeSchema("ServiceSpec", {"ports": _keyed("port", "ServicePort")}),
    _conditions("ServiceStatus", "Condition"))
GENERIC_METADATA_SCHEMA: Final = MergeSchema("Object", {"metadata": _struct(_OBJECT_META)})

_TEMPLATED_SPEC: Final = MergeSchema("Spec", {"template": _struct(POD_TEMPLATE_SPEC_SCHEMA)})


def _workload(kind: str, *, retain_strategy: bool = False) -> MergeSchema:
    spec_fields = dict(_TEMPLATED_SPEC.fields)
    if retain_strategy:
        spec_fields["strategy"] = _struct(MergeSchema("DeploymentStrategy"), retain_keys=True)
    return _object(kind, MergeSchema(f"{kind}Spec", spec_fields),
                   _conditions(f"{kind}Status", f"{kind}Condition"))


_BUILTIN_SCHEMAS: Final[dict[tuple[str, str], MergeSchema]] = {
    ("pods", ""): POD_SCHEMA,
    ("jobs", "batch"): JOB_SCHEMA,
    ("cronjobs", "batch"): CRONJOB_SCHEMA,
    ("nodes", ""): NODE_SCHEMA,
    ("services", ""): SERVICE_SCHEMA,
    ("podtemplates", ""): _object("PodTemplate", template=_struct(POD_TEMPLATE_SPEC_SCHEMA)),
    ("replicationcontrollers", ""): _object(
        "ReplicationController", _TEMPLATED_SPEC,
        _conditions("ReplicationControllerStatus", "ReplicationControllerCondition")),
    ("namespaces", ""): _object("Namespace", status=_conditions("NamespaceStatus", "NamespaceCondition")),
    ("serviceaccounts", ""): _object("ServiceAccount", secrets=_keyed("name", "ObjectReference")),
    ("persistentvolumeclaims", ""): _object(
        "PersistentVolumeClaim", status=_conditions("PersistentVolumeClaimStatus",
                                                    "PersistentVolumeClaimCondition")),
    ("poddisruptionbudgets", "policy"): _object(
        "PodDisruptionBudget",
        MergeSchema("PodDisruptionBudgetSpec", {"selector": _struct(MergeSchema("LabelSelector"), "replace")}),
        _conditions("PodDisruptionBudgetStatus", "Condition")),
    ("deployments", "apps"): _workload("Deployment", retain_strategy=True),
    ("replicasets", "apps"): _workload("ReplicaSet"),
    ("statefulsets", "apps"): _workload("StatefulSet"),
    ("daemonsets", "apps"): _workload("DaemonSet"),
}
for _plural, _group in (
    ("configmaps", ""), ("secrets", ""), ("endpoints", ""), ("events", ""), ("limitranges", ""),
    ("resourcequotas", ""), ("persistentvolumes", ""), ("events", "events.k8s.io"),
    ("endpointslices", "discovery.k8s.io"), ("leases", "coordination.k8s.io"),
    ("priorityclasses", "scheduling.k8s.io"), ("customresourcedefinitions", "apiextensions.k8s.io"),
    ("storageclasses", "storage.k8s.io"), ("ingresses", "networking.k8s.io"),
    ("networkpolicies", "networking.k8s.io"), ("roles", "rbac.authorization.k8s.io"),
    ("rolebindings", "rbac.authorization.k8s.io"), ("clusterroles", "rbac.authorization.k8s.io"),
    ("clusterrolebindings", "rbac.authorization.k8s.io"),
):
    _BUILTIN_SCHEMAS[(_plural, _group)] = GENERIC_METADATA_SCHEMA
_BUILTIN_GROUPS: Final[dict[str, list[str]]] = {}
for _plural, _group in _BUILTIN_SCHEMAS:
    _BUILTIN_GROUPS.setdefault(_plural, []).append(_group)
del _plural, _group


def schema_for(resource_plural: str) -> MergeSchema | None:
    """The strategic-merge schema of a built-in resource, or None (custom resource → 415).

    Accepts ``pods``, ``jobs.batch``, ``pods/status``, ``deployments.apps/scale``; ``/scale``
    subresources patch an ``autoscaling/v1`` Scale (metadata only).
    """
    resource, _, subresource = resource_plural.partition("/")
    plural, _, group = resource.partition(".")
    groups = _BUILTIN_GROUPS.get(plural, [])
    if group:
        if group not in groups:
            return None
    elif not groups:
        return None
    else:
        group = groups[0]
    if subresource == "scale":
        return GENERIC_METADATA_SCHEMA
    return _BUILTIN_SCHEMAS[(plural, group)]


# --------------------------------------------------------------------------- dispatch


def normalize_patch_type(patch_type: str) -> str:
    """Media type of a ``Content-Type`` header or a kubectl ``--type`` word (parameters dropped)."""
    media = patch_type.split(";", 1)[0].strip()
    return _ALIASES.get(media, media)


def _unsupported(builtin: bool) -> UnsupportedMediaType:
    if not builtin:
        return UnsupportedMediaType(CR_UNSUPPORTED_MEDIA_TYPE_MESSAGE)
    err = UnsupportedMediaType(_GO_RESTFUL_415)
    err.status = _generic_status(415, "UnsupportedMediaType", _GO_RESTFUL_415)
    return err


def _decode_body(body: bytes | str | dict[str, Any] | list[Any] | None, media: str) -> Any:
    if not isinstance(body, bytes | bytearray | str):
        return body
    try:
        return _decode_json(body)
    except _GoJSONError as exc:
        raise BadRequest("Invalid JSON Patch" if media == MERGE_PATCH else str(exc)) from None


def apply_patch(target: dict[str, Any], patch_body: bytes | str | dict[str, Any] | list[Any] | None,
                patch_type: str, *, resource: str, share: bool = False) -> dict[str, Any]:
    """Apply a PATCH body of ``patch_type`` to ``target`` as kube-apiserver would for ``resource``.

    ``patch_type`` is a content type (parameters allowed) or ``merge``/``json``/``strategic``;
    ``resource`` is a plural such as ``pods``, ``jobs.batch`` or ``jobsets.jobset.x-k8s.io``.
    ``share=True`` lets a strategic merge result share untouched subtrees with ``target``.
    Server-side apply is not handled here (``UsageError``).
    """
    media = normalize_patch_type(patch_type)
    schema = schema_for(resource)
    if media in (APPLY_PATCH_YAML, APPLY_PATCH_CBOR):
        raise UsageError(f"{media} is server-side apply: it is not handled by machinery.patch")
    supported = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH) if schema else (JSON_PATCH, MERGE_PATCH)
    if media not in supported:
        raise _unsupported(schema is not None)
    body = _decode_body(patch_body, media)
    if media == STRATEGIC_MERGE_PATCH:
        assert schema is not None
        return strategic_merge_patch(target, body, schema, share=share)
    if media == JSON_PATCH:
        result = json_patch(target, body)
    else:
        if isinstance(body, list):
            result = _pruned(body)
        elif isinstance(body, dict):
            result = json_merge_patch(target, body)
        else:
            raise BadRequest("Invalid JSON Patch")
    if not isinstance(result, dict):
        raise _not_an_object(result)
    return result
