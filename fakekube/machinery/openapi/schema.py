"""The structural schema of a CRD version: :class:`StructuralSchema`, built once, then used to prune,
default and validate custom resources (see the package docstring for what each step reproduces).

Building walks ``openAPIV3Schema`` once into a :class:`~.nodes.Node` tree, keeping only the formats
``StripUnsupportedFormatsPostProcessorForVersion`` keeps and pruning every ``default`` at its own
position (``defaulting.PruneDefaults``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from fakekube._core.jsonutil import deep_copy
from fakekube.errors import ErrorType, FieldError, UsageError

from .cel import CelValidator
from .defaults import default_in_place
from .nodes import MISSING, Node, Rule
from .prune import prune_value
from .validate import Ratchet, Validator

__all__ = ["StructuralSchema"]


# Formats kept by StripUnsupportedFormatsPostProcessorForVersion (normalized: dashes removed).
_STRING_FORMATS: Final = frozenset({
    "bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3",
    "uuid4", "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte",
    "password", "date", "duration", "datetime",
})

_STRING_FORMATS_134: Final = frozenset({"k8sshortname", "k8slongname"})

_INT_KEYWORDS: Final = {
    "maxLength": "max_length", "minLength": "min_length", "maxItems": "max_items", "minItems": "min_items",
    "maxProperties": "max_properties", "minProperties": "min_properties",
}

_IGNORED_KEYWORDS: Final = frozenset({"description", "title", "example", "externalDocs", "$schema", "id"})


def _build(raw: Mapping[str, Any], formats: frozenset[str], defaulted: list[Node]) -> Node:
    """Turn a JSONSchemaProps mapping into a ``Node`` tree in one pass over its keys.

    Precomputes the subtree flags used to skip work, and collects nodes carrying a ``default``.
    """
    n = Node()
    has_defaults = has_rules = has_lists = False
    fmt = ""
    for key, val in raw.items():
        if key in _IGNORED_KEYWORDS:
            continue
        if key == "type":
            if val:
                n.type = str(val)
                if not n.int_or_string:
                    n.types = (n.type,)
        elif key == "properties":
            n.properties = props = {}
            if val:
                for pk, pv in val.items():
                    child = props[str(pk)] = _build(pv, formats, defaulted)
                    has_defaults = has_defaults or child.has_defaults or child.default is not MISSING
                    has_rules = has_rules or child.has_rules
                    has_lists = has_lists or child.has_list_checks
        elif key == "items":
            if isinstance(val, Mapping):
                n.items = it = _build(val, formats, defaulted)
                has_defaults = has_defaults or it.has_defaults or it.default is not MISSING
                has_rules = has_rules or it.has_rules
                has_lists = has_lists or it.has_list_checks
        elif key == "format":
            fmt = str(val or "")
        elif key == "required":
            if val:
                n.required = tuple(str(r) for r in val)
        elif key == "x-kubernetes-list-type":
            if val:
                n.list_type = str(val)
                has_lists = has_lists or n.list_type in ("map", "set")
        elif key == "x-kubernetes-list-map-keys":
            if val:
                n.list_map_keys = tuple(str(k) for k in val)
        elif key == "x-kubernetes-map-type":
            if val:
                n.map_type = str(val)
        elif key == "additionalProperties":
            if val is None:
                continue
            n.has_additional = True
            if isinstance(val, Mapping):
                n.additional = a = _build(val, formats, defaulted)
                has_defaults = has_defaults or a.has_defaults or a.default is not MISSING
                has_rules = has_rules or a.has_rules
                has_lists = has_lists or a.has_list_checks
            elif val is False:
                n.additional_false = True
        elif key == "default":
            n.default = deep_copy(val)
            defaulted.append(n)
        elif key == "enum":
            if val is not None:
                n.enum = tuple(deep_copy(e) for e in val)
        elif key == "x-kubernetes-int-or-string":
            if val:
                n.int_or_string = True
                n.types = ("integer", "string")
        elif key == "nullable":
            n.nullable = bool(val)
        elif key == "pattern":
            n.pattern = str(val or "")
        elif key in _INT_KEYWORDS:
            if val is not None:
                setattr(n, _INT_KEYWORDS[key], int(val))
        elif key == "minimum":
            n.minimum = val
        elif key == "maximum":
            n.maximum = val
        elif key == "multipleOf":
            n.multiple_of = val
        elif key == "exclusiveMinimum":
            n.exclusive_minimum = bool(val)
        elif key == "exclusiveMaximum":
            n.exclusive_maximum = bool(val)
        elif key == "uniqueItems":
            n.unique_items = bool(val)
        elif key == "x-kubernetes-preserve-unknown-fields":
            n.preserve_unknown = bool(val)
        elif key == "x-kubernetes-embedded-resource":
            n.embedded = bool(val)
        elif key == "x-kubernetes-validations":
            if val:
                n.rules = tuple(Rule(r) for r in val)
                has_rules = True
        elif key in ("anyOf", "allOf", "oneOf"):
            if val:
                built = tuple(_build(sub, formats, defaulted) for sub in val)
                if key == "anyOf":
                    n.any_of = built
                elif key == "oneOf":
                    n.one_of = built
                else:
                    n.all_of = built
                    has_rules = has_rules or any(b.has_rules or b.rules for b in built)
        elif key == "not":
            if isinstance(val, Mapping):
                n.not_ = _build(val, formats, defaulted)
    if fmt:
        # StripUnsupportedFormatsPostProcessorForVersion
        st = n.types[0] if len(n.types) == 1 else ""
        if st in ("", "string"):
            if fmt.replace("-", "") in formats:
                n.format = fmt
        elif (st == "integer" and fmt in ("int32", "int64")) or (st == "number" and fmt in ("float", "double")):
            n.format = fmt
    n.has_defaults = has_defaults
    n.has_rules = has_rules
    n.has_list_checks = has_lists
    return n


def _iter_nodes(root: Node) -> Iterator[Node]:
    """Every node of the structural spine (properties, additionalProperties, items)."""
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        if n.items is not None:
            stack.append(n.items)
        if n.additional is not None:
            stack.append(n.additional)
        if n.properties:
            stack.extend(reversed(n.properties.values()))


class StructuralSchema:
    """A CRD version's structural schema: prune, default and validate custom resources.

    Built from ``openAPIV3Schema``; the input mapping is not retained (defaults, enums and rules
    are copied), so the schema is immutable after construction. ``kube_minor`` picks the
    Kubernetes release whose message details are reproduced (see the module docstring).
    """

    __slots__ = ("_kube_minor", "_root")
    _kube_minor: int  # both set once in __init__ (object.__setattr__: the instance is immutable)
    _root: Node

    def __init__(self, schema: Mapping[str, Any], *, kube_minor: int = 34) -> None:
        if not isinstance(schema, Mapping):
            raise UsageError("StructuralSchema needs the openAPIV3Schema mapping of a CRD version")
        formats = _STRING_FORMATS | _STRING_FORMATS_134 if kube_minor >= 34 else _STRING_FORMATS
        defaulted: list[Node] = []
        root = _build(schema, formats, defaulted)
        # defaulting.PruneDefaults: every default is pruned by the schema at its own position.
        for node in defaulted:
            node.default = prune_value(node.default, node, None, None)
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_kube_minor", int(kube_minor))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("StructuralSchema is immutable")

    @classmethod
    def from_crd_version(cls, version: Mapping[str, Any], *, kube_minor: int = 34) -> StructuralSchema:
        """Build from one ``spec.versions[]`` entry of a CustomResourceDefinition."""
        try:
            schema = version["schema"]["openAPIV3Schema"]
        except (KeyError, TypeError) as exc:
            raise UsageError("CRD version has no schema.openAPIV3Schema") from exc
        return cls(schema, kube_minor=kube_minor)

    @property
    def kube_minor(self) -> int:
        """The Kubernetes minor version whose behaviour is reproduced."""
        return self._kube_minor

    @property
    def compiled_rule_count(self) -> int:
        """How many CEL rules have been compiled so far (they compile lazily, on first use)."""
        return sum(1 for node in _iter_nodes(self._root) for r in node.rules if r.compiled is not None)

    # ------------------------------------------------------------------ pruning

    def prune(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """Drop unknown fields and non-nullable nulls without default; returns a new object.

        Top-level ``apiVersion``, ``kind`` and ``metadata`` are kept verbatim (the server restores
        them after pruning); embedded resources keep theirs, with ``metadata`` coerced to ObjectMeta.
        """
        return self.prune_tracking(obj)[0]

    def prune_tracking(self, obj: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """``prune`` plus the sorted paths of the unknown fields dropped (``unknown field "<path>"``)."""
        if not isinstance(obj, Mapping):
            raise UsageError("prune needs an object (a mapping)")
        unknown: list[str] = []
        out = prune_value(dict(obj), self._root, "", unknown, resource_root=True)
        unknown.sort()
        return out, unknown

    # ------------------------------------------------------------------ defaulting

    def default(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """Apply schema defaults (``defaulting.Default``); returns a new object, the input is untouched."""
        if not isinstance(obj, Mapping):
            raise UsageError("default needs an object (a mapping)")
        out: dict[str, Any] = deep_copy(dict(obj))
        default_in_place(out, self._root)
        return out

    # ------------------------------------------------------------------ validation

    def validate(self, obj: Mapping[str, Any], old: Mapping[str, Any] | None = None, *,
                 warnings: list[str] | None = None) -> list[FieldError]:
        """Schema, list-type and CEL validation of a (pruned, defaulted) object; ``old`` on update.

        On update, errors in unchanged parts are ratcheted away; CEL errors ratcheted that way are
        appended to ``warnings`` (if given) as the server emits them as warnings.
        """
        return self._validate(obj, old, warnings, status_only=False)

    def type_errors(self, obj: Mapping[str, Any]) -> list[FieldError]:
        """The type errors :meth:`validate` would report for ``obj`` as a new object (values of
        the wrong JSON type: what the decoder refuses), from the schema pass alone. Neither the
        list-type nor the CEL pass reports a type error, and CEL does not run on a mistyped object."""
        errs: list[FieldError] = []
        Validator(self._kube_minor).openapi(obj, self._root, "", MISSING, None, errs, top=True)
        return [e for e in errs if e.type == ErrorType.TYPE_INVALID]

    def validate_status(self, obj: Mapping[str, Any], old: Mapping[str, Any], *,
                        warnings: list[str] | None = None) -> list[FieldError]:
        """Validation of an update through the ``status`` subresource (``statusStrategy.ValidateUpdate``):
        only ``status`` is schema-checked (messages name paths relative to it), list types and CEL
        rules run over the whole object."""
        return self._validate(obj, old, warnings, status_only=True)

    def _validate(self, obj: Mapping[str, Any], old: Mapping[str, Any] | None, warnings: list[str] | None,
                  *, status_only: bool) -> list[FieldError]:
        v = Validator(self._kube_minor)
        errs: list[FieldError] = []
        if status_only:
            status_node = (self._root.properties or {}).get("status")
            if "status" in obj and status_node is not None:
                old_status = old.get("status", MISSING) if isinstance(old, Mapping) else MISSING
                v.openapi(obj["status"], status_node, "", old_status, "status", errs, top=False)
            new_list = v.list_types(obj, self._root)
            if new_list and not (isinstance(old, Mapping) and v.list_types(old, self._root)):
                errs.extend(new_list)
        else:
            v.openapi(obj, self._root, "", MISSING if old is None else old, None, errs, top=True)
            if old is None or not v.list_types(old, self._root):
                errs.extend(v.list_types(obj, self._root))
        if self._root.has_rules:
            if any(e.type in _BLOCKING for e in errs):
                errs.append(FieldError.invalid(
                    "<nil>", None, "some validation rules were not checked because the object was invalid; "
                    "correct the existing errors to complete validation"))
            else:
                ratchet = Ratchet(obj, MISSING if old is None else old, None)
                CelValidator(self._kube_minor).cel(obj, self._root, None, MISSING if old is None else old,
                                                   ratchet, errs, warnings, resource_root=True, top=True)
        return errs


_BLOCKING: Final = frozenset({ErrorType.NOT_SUPPORTED, ErrorType.REQUIRED, ErrorType.TOO_LONG,
                              ErrorType.TOO_MANY, ErrorType.TYPE_INVALID})
