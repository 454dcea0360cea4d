"""JSON patch (``application/json-patch+json``, RFC 6902).

JSON patch (:func:`json_patch`) reproduces v4 quirks: negative array indices count from the end
(``add`` at ``-1`` appends), ``replace`` of a missing object member adds it, ``copy`` from a
missing object member copies ``null``, ``test`` treats missing and ``null`` alike, a path without
a leading ``/`` ignores its first segment, ``replace`` of the root with a non-container is a no-op,
copies may add at most 3 MiB (``--json-patch-max-copy-bytes`` default). Numbers compare by value
(``1 == 1.0``); Go compares their bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from fakekube._core.gocompat import go_atoi, go_json_kind
from fakekube._core.jsonutil import compact_json, deep_copy, json_equal
from fakekube.errors import ApiError, BadRequest

from .errors import PatchApplyError

__all__ = ["JSON_PATCH_MAX_COPY_BYTES", "MAX_JSON_PATCH_OPERATIONS", "json_patch"]

MAX_JSON_PATCH_OPERATIONS: Final = 10000
JSON_PATCH_MAX_COPY_BYTES: Final = 3 * 1024 * 1024


def _too_many_operations(count: int) -> ApiError:
    return ApiError(
        "Request entity too large: The allowed maximum operations in a JSON patch is "
        f"{MAX_JSON_PATCH_OPERATIONS}, got {count}",
        code=413, reason="RequestEntityTooLarge")


class _OpError(Exception):
    """An evanphx v4 error; ``str()`` is the library's (pkg/errors-wrapped) message."""


_MISSING: Final = "missing value"
_BAD_INDEX: Final = "invalid index referenced"
_UNESCAPE = re.compile(r"~[01]")


def _atoi(text: str) -> int:
    """``strconv.Atoi`` with its error messages."""
    try:
        return go_atoi(text)
    except ValueError as exc:
        raise _OpError(str(exc)) from None


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
        raise _OpError(f"json: cannot unmarshal {go_json_kind(value)} into Go value of type string")
    return value


def _path(op: Mapping[str, Any]) -> str:
    return _string_field(op, "path", "operation missing path field")


def _from(op: Mapping[str, Any]) -> str:
    return _string_field(op, "from", "operation, missing from field")


def _marshal_size(value: Any) -> int:
    """Bytes ``json.Marshal`` writes for ``value`` (HTML-escaping <, >, & as Go does)."""
    if value is None:
        return 0
    text = compact_json(value)
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
            _add(con, key, deep_copy(op.get("value")))
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
                self.root = deep_copy(value)
            return
        con, key = self._locate(path, f"replace operation does not apply: doc is missing path: {path}")
        try:
            _get(con, key)
        except _OpError:
            raise _OpError(
                f"replace operation does not apply: doc is missing key: {path}: {_MISSING}") from None
        try:
            _set(con, key, deep_copy(op.get("value")))
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
            if "value" not in op or not json_equal(self.root, op["value"]):
                raise failed
            return
        con, key = self._locate(path, f"test operation does not apply: is missing path: {path}")
        try:
            current = _get(con, key)
        except _OpError as exc:
            raise _OpError(f"error in test for path: '{path}': {exc}") from None
        if "value" not in op or not json_equal(current, op["value"]):
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
            _add(con, key, deep_copy(value))
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
        raise BadRequest(f"json: cannot unmarshal {go_json_kind(ops)} into Go value of type jsonpatch.Patch")
    for op in ops:
        if op is not None and not isinstance(op, dict):
            raise BadRequest(
                f"json: cannot unmarshal {go_json_kind(op)} into Go value of type jsonpatch.Operation")
    if len(ops) > MAX_JSON_PATCH_OPERATIONS:
        raise _too_many_operations(len(ops))
    return ops


def json_patch(target: Any, ops: list[dict[str, Any]] | None) -> Any:
    """Apply an RFC 6902 JSON patch (evanphx v4 semantics); atomic, ``target`` is untouched.

    Raises ``BadRequest`` for a malformed operation list, a 413 ``ApiError`` beyond 10000
    operations and :class:`PatchApplyError` (422) when an operation fails.
    """
    patcher = _JsonPatcher(deep_copy(target))
    for op in _check_operations(ops):
        try:
            patcher.apply(op)
        except _OpError as exc:
            raise PatchApplyError(str(exc)) from None
    return patcher.root
