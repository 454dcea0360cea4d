"""apimachinery validators with the exact Kubernetes messages.

Mirrors, at ``kubernetes/apimachinery@v0.34.0`` (Kubernetes 1.34):

- ``pkg/util/validation/validation.go``: ``IsDNS1123Label``, ``IsDNS1123Subdomain``,
  ``IsDNS1035Label``, ``IsQualifiedName``, ``IsValidLabelValue``, ``RegexError``, ``MaxLenError``;
- ``pkg/api/validation/generic.go``: ``ValidateNameFunc`` and the ``NameIs*`` rules,
  ``maskTrailingDash``, ``ValidateNonnegativeField``;
- ``pkg/api/validation/objectmeta.go``: ``ValidateAnnotations``, ``ValidateOwnerReferences``,
  ``ValidateFinalizers``, ``ValidateNoNewFinalizers``, ``ValidateObjectMetaAccessor``,
  ``ValidateObjectMetaAccessorUpdate``;
- ``pkg/apis/meta/v1/validation/validation.go``: ``ValidateLabels``, ``ValidateLabelName``.

Everything here is pure: plain wire-form dicts in, lists of strings or :class:`FieldError` out.

Deterministic order: Go ranges over maps in random order; we visit label and annotation keys in
sorted order, so a map with several bad entries always reports them in the same order.

Lengths are counted in UTF-8 bytes, as Go's ``len(string)`` does.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from fakekube.errors import FieldError, UsageError, go_quote

__all__ = [
    "DNS1035_LABEL_MAX_LENGTH",
    "DNS1123_LABEL_MAX_LENGTH",
    "DNS1123_SUBDOMAIN_MAX_LENGTH",
    "FIELD_IMMUTABLE",
    "FINALIZER_DELETE_DEPENDENTS",
    "FINALIZER_ORPHAN_DEPENDENTS",
    "LABEL_VALUE_MAX_LENGTH",
    "NAME_RULES",
    "QUALIFIED_NAME_MAX_LENGTH",
    "TOTAL_ANNOTATION_SIZE_LIMIT",
    "NameRule",
    "empty_error",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "mask_trailing_dash",
    "max_len_error",
    "name_is_dns1035_label",
    "name_is_dns_label",
    "name_is_dns_subdomain",
    "name_rule_for",
    "regex_error",
    "validate_annotations",
    "validate_finalizers",
    "validate_label_name",
    "validate_labels",
    "validate_no_new_finalizers",
    "validate_nonnegative_field",
    "validate_object_meta",
    "validate_object_meta_update",
    "validate_owner_references",
]

# --------------------------------------------------------------------------- message builders

FIELD_IMMUTABLE = "field is immutable"
IS_NEGATIVE_ERROR = "must be greater than or equal to 0"


def max_len_error(length: int) -> str:
    """``validation.MaxLenError``."""
    return f"must be no more than {length} characters"


def empty_error() -> str:
    """``validation.EmptyError``."""
    return "must be non-empty"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``validation.RegexError``: note the doubled space before each ``or``."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    text = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def _blen(value: str) -> int:
    """Go's ``len(string)``: the UTF-8 byte length."""
    return len(value.encode("utf-8", "surrogatepass"))


def _full(pattern: str) -> re.Pattern[str]:
    # Go's "^...$" without (?m) anchors at the very end of the text; Python's fullmatch does too.
    return re.compile(pattern)


# --------------------------------------------------------------------------- string validators

_QNAME_CHAR = "[A-Za-z0-9]"
_QNAME_EXT_CHAR = "[-A-Za-z0-9_.]"
_QUALIFIED_NAME_FMT = "(" + _QNAME_CHAR + _QNAME_EXT_CHAR + "*)?" + _QNAME_CHAR
_QUALIFIED_NAME_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
QUALIFIED_NAME_MAX_LENGTH = 63
_QUALIFIED_NAME_RE = _full(_QUALIFIED_NAME_FMT)

_LABEL_VALUE_FMT = "(" + _QUALIFIED_NAME_FMT + ")?"
_LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
LABEL_VALUE_MAX_LENGTH = 63
_LABEL_VALUE_RE = _full(_LABEL_VALUE_FMT)

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_LABEL_MAX_LENGTH = 63
_DNS1123_LABEL_RE = _full(_DNS1123_LABEL_FMT)

_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
_DNS1123_SUBDOMAIN_RE = _full(_DNS1123_SUBDOMAIN_FMT)

_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_ERR = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
DNS1035_LABEL_MAX_LENGTH = 63
_DNS1035_LABEL_RE = _full(_DNS1035_LABEL_FMT)


def _memoized(check: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """Cache a pure string check: the same label keys and values recur on every write."""
    cached = functools.lru_cache(maxsize=1 << 16)(lambda value: tuple(check(value)))

    @functools.wraps(check)
    def wrapper(value: str) -> list[str]:
        return list(cached(value))

    return wrapper


@_memoized
def is_qualified_name(value: str) -> list[str]:
    """``validation.IsQualifiedName``: an optional DNS-subdomain prefix and ``/``, then a name part."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + empty_error())
        else:
            errs.extend("prefix part " + msg for msg in is_dns1123_subdomain(prefix))
    else:
        return [
            "a qualified name "
            + regex_error(_QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part " + empty_error())
    elif _blen(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        errs.append(
            "name part " + regex_error(_QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


@_memoized
def is_valid_label_value(value: str) -> list[str]:
    """``validation.IsValidLabelValue``: empty, or a qualified-name-like string of at most 63 bytes."""
    errs: list[str] = []
    if _blen(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(_LABEL_VALUE_ERR, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


@_memoized
def is_dns1123_label(value: str) -> list[str]:
    """``validation.IsDNS1123Label``; a valid subdomain that is not a label gets ``must not contain dots``."""
    errs: list[str] = []
    if _blen(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_ERR, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


@_memoized
def is_dns1123_subdomain(value: str) -> list[str]:
    """``validation.IsDNS1123Subdomain``."""
    errs: list[str] = []
    if _blen(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


@_memoized
def is_dns1035_label(value: str) -> list[str]:
    """``validation.IsDNS1035Label``."""
    errs: list[str] = []
    if _blen(value) > DNS1035_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1035_LABEL_MAX_LENGTH))
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errs.append(regex_error(_DNS1035_LABEL_ERR, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


# --------------------------------------------------------------------------- name rules

NameRule = Callable[[str, bool], list[str]]
"""``ValidateNameFunc(name string, prefix bool) []string``; ``prefix`` is true for generateName."""


def mask_trailing_dash(name: str) -> str:
    """``maskTrailingDash``: for a generateName ending in ``-``, drop two bytes and append ``a``.

    Go slices bytes (``name[:len(name)-2]``); for the ASCII names that can ever be valid the
    result is the same as slicing characters.
    """
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """``NameIsDNSSubdomain``: Pods, Jobs, Nodes, Events, custom resources, most kinds."""
    return is_dns1123_subdomain(mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """``NameIsDNSLabel`` (= ``ValidateNamespaceName``): Namespaces."""
    return is_dns1123_label(mask_trailing_dash(name) if prefix else name)


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    """``NameIsDNS1035Label``: Services (``RelaxedServiceNameValidation`` is alpha-only in 1.34)."""
    return is_dns1035_label(mask_trailing_dash(name) if prefix else name)


NAME_RULES: dict[str, NameRule] = {
    "pods": name_is_dns_subdomain,
    "jobs": name_is_dns_subdomain,
    "nodes": name_is_dns_subdomain,
    "events": name_is_dns_subdomain,
    "endpointslices": name_is_dns_subdomain,
    "priorityclasses": name_is_dns_subdomain,
    "persistentvolumeclaims": name_is_dns_subdomain,
    "configmaps": name_is_dns_subdomain,
    "secrets": name_is_dns_subdomain,
    "serviceaccounts": name_is_dns_subdomain,
    "leases": name_is_dns_subdomain,
    "namespaces": name_is_dns_label,
    "services": name_is_dns1035_label,
}
"""Name rule per resource plural (the ``ValidateXxxName`` each kind's validation passes)."""


def name_rule_for(resource: str) -> NameRule:
    """The name rule for ``resource``; anything not listed (custom resources) uses DNS-1123 subdomain."""
    return NAME_RULES.get(resource, name_is_dns_subdomain)


# --------------------------------------------------------------------------- map validators


def _check_str_map(values: Mapping[str, Any], path: str) -> None:
    for k, v in values.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise UsageError(
                f"{path} must map strings to strings; got {type(k).__name__} -> {type(v).__name__} "
                f"for key {k!r} (decode the object before validating it)"
            )


def validate_label_name(key: str, path: str) -> list[FieldError]:
    """``ValidateLabelName``: one ``Invalid`` per qualified-name message, the key as the value."""
    return [FieldError.invalid(path, key, msg) for msg in is_qualified_name(key)]


_VALID_LABELS: set[tuple[str, str]] = set()
_VALID_ANNOTATION_KEYS: set[str] = set()
_VALID_CACHE_LIMIT = 1 << 17


def _remember(cache: set[Any], items: Iterable[Any]) -> None:
    """Record items known valid (bounded: a long simulation with ever-new values starts over)."""
    if len(cache) > _VALID_CACHE_LIMIT:
        cache.clear()
    cache.update(items)


def validate_labels(labels: Mapping[str, str] | None, path: str) -> list[FieldError]:
    """``ValidateLabels``: the path is the whole map; bad keys and bad values are reported as values."""
    if not labels:
        return []
    try:
        if _VALID_LABELS.issuperset(labels.items()):  # every pair seen valid before (pairs of strings only)
            return []
    except TypeError:  # an unhashable value: the checks below say what is wrong
        pass
    _check_str_map(labels, path)
    errs: list[FieldError] = []
    for key in sorted(labels):
        value = labels[key]
        errs.extend(validate_label_name(key, path))
        errs.extend(FieldError.invalid(path, value, msg) for msg in is_valid_label_value(value))
    if not errs:
        _remember(_VALID_LABELS, labels.items())
    return errs


TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)


def validate_annotations(annotations: Mapping[str, str] | None, path: str) -> list[FieldError]:
    """``ValidateAnnotations``: keys are lower-cased, then checked as qualified names; total ≤ 256 KiB."""
    if not annotations:
        return []
    if _VALID_ANNOTATION_KEYS.issuperset(annotations) and all(type(v) is str for v in annotations.values()) \
            and 4 * (sum(map(len, annotations)) + sum(map(len, annotations.values()))) <= TOTAL_ANNOTATION_SIZE_LIMIT:
        return []  # known keys, and even 4 UTF-8 bytes a character stays within the limit
    _check_str_map(annotations, path)
    errs: list[FieldError] = []
    for key in sorted(annotations):
        # "case doesn't matter": upstream lower-cases with strings.ToLower; the bad value keeps the case.
        errs.extend(FieldError.invalid(path, key, msg) for msg in is_qualified_name(key.lower()))
    if not errs:
        _remember(_VALID_ANNOTATION_KEYS, annotations)
    total = sum(_blen(k) + _blen(v) for k, v in annotations.items())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(FieldError.too_long(path, "", TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


FINALIZER_ORPHAN_DEPENDENTS = "orphan"
FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion"


def validate_finalizers(finalizers: Sequence[str] | None, path: str) -> list[FieldError]:
    """``ValidateFinalizers``: each name is a qualified name (path not indexed); orphan excludes foreground."""
    if not finalizers:
        return []
    errs: list[FieldError] = []
    for name in finalizers:
        errs.extend(FieldError.invalid(path, name, msg) for msg in is_qualified_name(name))
    if FINALIZER_ORPHAN_DEPENDENTS in finalizers and FINALIZER_DELETE_DEPENDENTS in finalizers:
        errs.append(FieldError.invalid(
            path, list(finalizers),
            f"finalizer {FINALIZER_ORPHAN_DEPENDENTS} and {FINALIZER_DELETE_DEPENDENTS} cannot be both set",
        ))
    return errs


def validate_no_new_finalizers(new: Sequence[str] | None, old: Sequence[str] | None,
                               path: str) -> list[FieldError]:
    """``ValidateNoNewFinalizers``: the extra names print as Go's ``%#v`` of a sorted ``[]string``."""
    extra = sorted(set(new or ()) - set(old or ()))
    if not extra:
        return []
    rendered = "[]string{" + ", ".join(go_quote(name) for name in extra) + "}"
    return [FieldError.forbidden(
        path, f"no new finalizers can be added if the object is being deleted, found new finalizers {rendered}")]


# --------------------------------------------------------------------------- owner references

_BANNED_OWNERS = {("", "v1", "Event")}


def _parse_group_version(api_version: str) -> tuple[str, str] | None:
    """``schema.ParseGroupVersion``: ``None`` for a malformed string (more than one ``/``)."""
    if api_version in ("", "/"):
        return "", ""
    slashes = api_version.count("/")
    if slashes == 0:
        return "", api_version
    if slashes == 1:
        group, version = api_version.split("/")
        return group, version
    return None


def _owner_reference_wire(ref: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON ``metav1.OwnerReference`` marshals to (field order, omitempty pointers)."""
    out: dict[str, Any] = {
        "apiVersion": ref.get("apiVersion") or "",
        "kind": ref.get("kind") or "",
        "name": ref.get("name") or "",
        "uid": ref.get("uid") or "",
    }
    for key in ("controller", "blockOwnerDeletion"):
        if ref.get(key) is not None:
            out[key] = ref[key]
    return out


def _validate_owner_reference(ref: Mapping[str, Any], path: str) -> list[FieldError]:
    """``validateOwnerReference``: child paths are *not* indexed (``ownerReferences.uid``), as in Go."""
    errs: list[FieldError] = []
    api_version = ref.get("apiVersion") or ""
    kind = ref.get("kind") or ""
    gv = _parse_group_version(api_version)
    group, version = gv if gv is not None else ("", "")
    if not version:
        errs.append(FieldError.invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
    if not kind:
        errs.append(FieldError.invalid(f"{path}.kind", kind, "must not be empty"))
    if not ref.get("name"):
        errs.append(FieldError.invalid(f"{path}.name", ref.get("name") or "", "must not be empty"))
    if not ref.get("uid"):
        errs.append(FieldError.invalid(f"{path}.uid", ref.get("uid") or "", "must not be empty"))
    if (group, version, kind) in _BANNED_OWNERS:
        # schema.GroupVersionKind.String(): "<group>/<version>, Kind=<kind>"
        errs.append(FieldError.invalid(
            path, _owner_reference_wire(ref), f"{group}/{version}, Kind={kind} is disallowed from being an owner"))
    return errs


def validate_owner_references(refs: Sequence[Mapping[str, Any]] | None, path: str) -> list[FieldError]:
    """``ValidateOwnerReferences``: each reference, then at most one ``controller: true``."""
    if not refs:
        return []
    errs: list[FieldError] = []
    first_controller = ""
    for ref in refs:
        errs.extend(_validate_owner_reference(ref, path))
        if ref.get("controller") is True:
            current = f"{ref.get('kind') or ''}/{ref.get('name') or ''}"
            if first_controller:
                errs.append(FieldError.invalid(
                    path, [_owner_reference_wire(r) for r in refs],
                    "Only one reference can have Controller set to true. "
                    f'Found "true" in references for {first_controller} and {current}',
                ))
            else:
                first_controller = current
    return errs


# --------------------------------------------------------------------------- object meta


def validate_nonnegative_field(value: int, path: str) -> list[FieldError]:
    """``ValidateNonnegativeField``."""
    return [FieldError.invalid(path, value, IS_NEGATIVE_ERROR)] if value < 0 else []


def validate_object_meta(meta: Mapping[str, Any], *, namespaced: bool, name_rule: NameRule,
                         path: str = "metadata") -> list[FieldError]:
    """``ValidateObjectMetaAccessor``: run on create, *after* name generation (as upstream).

    Order: generateName, name, namespace, generation, labels, annotations, ownerReferences,
    finalizers. ``managedFields`` validation is not modelled.
    """
    errs: list[FieldError] = []
    generate_name = meta.get("generateName") or ""
    if generate_name:
        errs.extend(FieldError.invalid(f"{path}.generateName", generate_name, msg)
                    for msg in name_rule(generate_name, True))
    name = meta.get("name") or ""
    if not name:
        errs.append(FieldError.required(f"{path}.name", "name or generateName is required"))
    else:
        errs.extend(FieldError.invalid(f"{path}.name", name, msg) for msg in name_rule(name, False))
    namespace = meta.get("namespace") or ""
    if namespaced:
        if not namespace:
            errs.append(FieldError.required(f"{path}.namespace"))
        else:
            errs.extend(FieldError.invalid(f"{path}.namespace", namespace, msg)
                        for msg in name_is_dns_label(namespace, False))
    elif namespace:
        errs.append(FieldError.forbidden(f"{path}.namespace", "not allowed on this type"))
    errs.extend(validate_nonnegative_field(int(meta.get("generation") or 0), f"{path}.generation"))
    errs.extend(validate_labels(meta.get("labels"), f"{path}.labels"))
    errs.extend(validate_annotations(meta.get("annotations"), f"{path}.annotations"))
    errs.extend(validate_owner_references(meta.get("ownerReferences"), f"{path}.ownerReferences"))
    errs.extend(validate_finalizers(meta.get("finalizers"), f"{path}.finalizers"))
    return errs


# (field, zero value) pairs checked by ValidateImmutableField, in upstream order.
_IMMUTABLE_META: tuple[tuple[str, Any], ...] = (
    ("name", ""),
    ("namespace", ""),
    ("uid", ""),
    ("creationTimestamp", None),
    ("deletionTimestamp", None),
    ("deletionGracePeriodSeconds", None),
)


def validate_object_meta_update(new: Mapping[str, Any], old: Mapping[str, Any],
                                path: str = "metadata", *, old_is_valid: bool = False) -> list[FieldError]:
    """``ValidateObjectMetaAccessorUpdate``: immutables, generation, RV present, maps re-validated.

    Like upstream this expects the API server's ``BeforeUpdate`` to have run first (old uid,
    creationTimestamp, deletionTimestamp and grace period copied in when the client omitted
    them; current resourceVersion filled in for unconditional updates). Finalizer *names* are
    not re-validated on update, as upstream.

    ``old_is_valid=True`` (the API server's stored object, validated when written) skips
    re-validating a labels, annotations or ownerReferences value that did not change: the
    answer would be the same, and it is the bulk of the cost of a status write.
    """
    errs: list[FieldError] = []
    if old.get("deletionTimestamp"):
        errs.extend(validate_no_new_finalizers(new.get("finalizers"), old.get("finalizers"),
                                               f"{path}.finalizers"))
    if not new.get("resourceVersion"):
        errs.append(FieldError.invalid(f"{path}.resourceVersion", new.get("resourceVersion") or "",
                                       "must be specified for an update"))
    new_generation = int(new.get("generation") or 0)
    if new_generation < int(old.get("generation") or 0):
        errs.append(FieldError.invalid(f"{path}.generation", new_generation, "must not be decremented"))
    for key, zero in _IMMUTABLE_META:
        new_value = new.get(key)
        new_value = zero if new_value is None else new_value
        old_value = old.get(key)
        old_value = zero if old_value is None else old_value
        if new_value != old_value:
            errs.append(FieldError.invalid(f"{path}.{key}", new_value, FIELD_IMMUTABLE))
    for key, check in (("labels", validate_labels), ("annotations", validate_annotations),
                       ("ownerReferences", validate_owner_references)):
        if old_is_valid and new.get(key) == old.get(key):
            continue
        errs.extend(check(new.get(key), f"{path}.{key}"))
    return errs
