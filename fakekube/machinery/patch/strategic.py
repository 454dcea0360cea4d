"""Strategic merge patch (``application/strategic-merge-patch+json``).

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

The merge keys and strategies of built-in resources are in :mod:`.schemas`.

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

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from fakekube._core.gocompat import go_json_kind, go_s, go_stable_sort, go_type, go_v
from fakekube._core.jsonutil import deep_copy, json_equal
from fakekube.errors import ApiError, BadRequest

from .errors import PatchApplyError, PatchInternalError

__all__ = ["FieldMeta", "MergeSchema", "strategic_merge_patch"]


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


def _go_eq(a: Any, b: Any) -> bool:
    """Go interface equality: same dynamic type and value."""
    return go_type(a) == go_type(b) and json_equal(a, b)


def _bad_arg_type(expected: str, actual: Any) -> _SmpError:
    actual_type = go_type(actual)
    return _SmpError(f"expected a {expected}, but received a "
                     f"{'%!s(<nil>)' if actual_type == 'nil' else actual_type}")


def _no_merge_key(item: dict[str, Any], key: str) -> _SmpError:
    return _SmpError(f"map: {go_v(item)} does not contain declared merge key: {key}")


def _bad_patch_type(directive: Any, item: dict[str, Any]) -> _SmpError:
    return _SmpError(f"unknown patch type: {go_s(directive)} in map: {go_v(item)}")


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
    return key[:1] == "$" and (key in (_PATCH, _RETAIN_KEYS) or key.startswith(_ORDER_PREFIX + "/")
                               or key.startswith(_DELETE_PREFIX + "/"))


def _strip_directives(value: Any) -> Any:
    """A copy without directive keys (a typed decode drops them as unknown fields)."""
    if isinstance(value, dict):
        return {k: _strip_directives(v) if isinstance(v, dict | list) else v
                for k, v in value.items() if not _is_directive_key(k)}
    if isinstance(value, list):
        return [_strip_directives(v) if isinstance(v, dict | list) else v for v in value]
    return value


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

    return go_stable_sort(items, less) + deletes


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
            current = go_type(item)
            if not found:
                found = current
                if current == "[]interface {}":
                    raise _SmpError(_ERR_NO_LIST_OF_LISTS, 422)
            elif current != found:
                raise _SmpError(f"list element types are not identical: {go_v(list(lists))}")
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
        raise _SmpError(f"The order in patch list:\n{go_v(patch_list)}\n doesn't match "
                        f"{_ORDER_PREFIX} list:\n{go_v(order)}\n")


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
        if key not in original or go_type(original[key]) != go_type(value):
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
        return dict(target) if share else deep_copy(target)
    if not isinstance(patch, dict):
        raise BadRequest(f"json: cannot unmarshal {go_json_kind(patch)} into Go value of type "
                         "map[string]interface {}")
    if share:
        quick = _scalar_fields(target, patch)
        if quick is None:
            quick = _primitive_deletion(target, patch, schema)
        if quick is not None:
            return quick
    return _merged(target, patch, schema, share)


def _merged(target: dict[str, Any], patch: dict[str, Any], schema: MergeSchema, share: bool) -> dict[str, Any]:
    """The general algorithm (the reference every shortcut must agree with)."""
    try:
        merged = _merge_map(_copy_along(target, patch) if share else deep_copy(target), deep_copy(patch), schema)
    except _SmpError as exc:
        raise _smp_api_error(exc) from None
    stripped: dict[str, Any] = _strip_along(merged, patch) if share else _strip_directives(merged)
    return stripped


def _primitive_deletion(target: dict[str, Any], patch: dict[str, Any], schema: MergeSchema) -> dict[str, Any] | None:
    """What :func:`_merged` (with sharing) answers for the commonest patch a controller sends:
    ``{"<map>": {"$deleteFromPrimitiveList/<list>": [strings]}}`` (the Job controller's finalizer
    removal), where ``target``'s ``<map>`` is a map merged field by field and its ``<list>`` is a
    list of strings or absent. The list loses every string the patch names; nothing else
    changes and everything else stays shared. None for any other patch or target."""
    if len(patch) != 1:
        return None
    (field_name, inner), = patch.items()
    current = target.get(field_name)
    if field_name[:1] == "$" or not isinstance(inner, dict) or len(inner) != 1 or not isinstance(current, dict) \
            or schema.meta(field_name).strategy == "replace":
        return None
    (directive, removed), = inner.items()
    head, sep, name = directive.partition("/")
    if not sep or head != _DELETE_PREFIX or not isinstance(removed, list) \
            or not all(type(value) is str for value in removed):
        return None
    values = current.get(name)
    if values is not None and not (type(values) is list and all(type(value) is str for value in values)):
        return None
    fields = dict(current)
    if values is not None:
        fields[name] = [value for value in values if value not in removed]
    out = dict(target)
    out[field_name] = _without_directive_keys(fields)
    return _without_directive_keys(out)


_SCALARS: Final = (str, int, float, bool)


def _scalar_fields(target: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any] | None:
    """What :func:`_merged` (with sharing) answers for a patch that only sets top-level fields to
    strings, numbers or booleans (an Event's count, message and timestamps): ``target``'s fields
    with those values (a new field last, in the patch's order), everything else shared. None for
    any other patch."""
    for key, value in patch.items():
        if key[:1] == "$" or type(value) not in _SCALARS:
            return None
    out = dict(target)
    out.update(patch)
    return _without_directive_keys(out)


def _without_directive_keys(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` (a map of the merge result's own) without its directive keys."""
    for key in [k for k in value if k[:1] == "$" and _is_directive_key(k)]:
        del value[key]
    return value


def _patched_field(key: str) -> str:
    """The field a patch key acts on (``$deleteFromPrimitiveList/x`` and ``$setElementOrder/x`` act on x)."""
    if key[:1] == "$" and key.startswith((_DELETE_PREFIX + "/", _ORDER_PREFIX + "/")):
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
            out[name] = deep_copy(current)
    return out


def _strip_along(merged: Any, patch: Any) -> Any:
    """``_strip_directives`` limited to what the patch can have brought in (the stored object has no
    directive keys), so untouched subtrees stay shared."""
    if not isinstance(merged, dict) or not isinstance(patch, dict) or _PATCH in patch:
        return _strip_directives(merged)
    touched = {_patched_field(k): v for k, v in patch.items()}
    out = dict(merged)  # in merged's order; the fields the patch did not touch stay shared
    for key, value in touched.items():
        if key in out:
            out[key] = (_strip_along(out[key], value) if isinstance(value, dict) and key in patch
                        else _strip_directives(out[key]))
    return _without_directive_keys(out)
