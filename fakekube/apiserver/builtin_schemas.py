"""OpenAPI v3 schemas of the built-in kinds this API server serves (committed, generated).

kube-apiserver publishes a schema for every kind in ``/openapi/v3``; kubectl reads them for
``explain``, for strategic merge patches and to learn that the server validates fields. This module
serves those schemas from ``builtin_schemas.json`` (next to it), loaded on first use. The file is
generated from the ``kubernetes`` Python client's models (a test dependency only), so fakekube
needs no extra package at run time::

    python -m fakekube.apiserver.builtin_schemas          # rewrites builtin_schemas.json
    python -m fakekube.apiserver.builtin_schemas --check  # exit status 1 if it is stale

What the generator derives, and from where:

* properties (JSON names from ``attribute_map``), their types (``openapi_types``), descriptions
  and ``required`` (the pydantic fields), and each kind's description (the class docstring);
* ``IntOrString`` fields (a client type ``object`` whose annotation is ``int | str``) become
  ``x-kubernetes-int-or-string``; other ``object`` fields (``RawExtension``, ``FieldsV1``, JSON)
  keep unknown fields; ``resource.Quantity`` fields, plain strings in the client, are named in
  :data:`QUANTITY_FIELDS` and become int-or-string as well;
* ``x-kubernetes-patch-strategy`` / ``x-kubernetes-patch-merge-key`` come from the strategic merge
  patch metadata of :mod:`fakekube.machinery.patch`, the one place the project keeps them, so
  kubectl computes patches with the merge keys this server applies them with;
* ``x-kubernetes-group-version-kind`` on every served kind and its list.

Not derivable, so left out: ``x-kubernetes-list-type`` / ``x-kubernetes-list-map-keys`` /
``x-kubernetes-map-type`` (the client models carry no list semantics), enums, integer formats
(``int32`` or ``int64``) and defaults. The client keeps no description for fields whose type is
another struct (``Pod.spec``), so ``kubectl explain`` shows the struct's own description there. Definition names follow kube-openapi
(``io.k8s.api.core.v1.PodSpec``); nested types are placed in the package of the kind that uses
them, apimachinery's ``meta/v1`` types and a few shared core types excepted. The client (release
1.37 models) knows fields newer than the Kubernetes version the fake reports; they are kept.
"""

from __future__ import annotations

import functools
import inspect
import json
import re
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final, Protocol

from fakekube._core.generated import regenerate_command
from fakekube.errors import UsageError
from fakekube.machinery import patch as patching

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

__all__ = [
    "DATA_PATH",
    "QUANTITY_FIELDS",
    "ROOTS",
    "definition_name",
    "description",
    "generate",
    "load",
    "ref",
    "render",
    "schema_for",
    "schemas",
]

#: The generated schemas, committed (regenerate with ``python -m fakekube.apiserver.builtin_schemas``).
DATA_PATH: Final = Path(__file__).with_name("builtin_schemas.json")

REF_PREFIX: Final = "#/components/schemas/"

#: Every kind the schemas start from: ``(apiVersion, kind, client model, resource for patch
#: metadata)``. Lists, request bodies of subresources (``Binding``, ``Eviction``) and the
#: apimachinery kinds every group-version document refers to come with them.
ROOTS: Final[tuple[tuple[str, str, str, str], ...]] = (
    ("v1", "Pod", "V1Pod", "pods"),
    ("v1", "PodList", "V1PodList", ""),
    ("v1", "Binding", "V1Binding", ""),
    ("v1", "Namespace", "V1Namespace", "namespaces"),
    ("v1", "NamespaceList", "V1NamespaceList", ""),
    ("v1", "Node", "V1Node", "nodes"),
    ("v1", "NodeList", "V1NodeList", ""),
    ("v1", "Service", "V1Service", "services"),
    ("v1", "ServiceList", "V1ServiceList", ""),
    ("v1", "Event", "CoreV1Event", "events"),
    ("v1", "EventList", "CoreV1EventList", ""),
    ("v1", "ConfigMap", "V1ConfigMap", "configmaps"),
    ("v1", "ConfigMapList", "V1ConfigMapList", ""),
    ("v1", "PersistentVolumeClaim", "V1PersistentVolumeClaim", "persistentvolumeclaims"),
    ("v1", "PersistentVolumeClaimList", "V1PersistentVolumeClaimList", ""),
    ("v1", "ServiceAccount", "V1ServiceAccount", "serviceaccounts"),
    ("v1", "ServiceAccountList", "V1ServiceAccountList", ""),
    ("v1", "Secret", "V1Secret", "secrets"),
    ("v1", "SecretList", "V1SecretList", ""),
    ("batch/v1", "Job", "V1Job", "jobs.batch"),
    ("batch/v1", "JobList", "V1JobList", ""),
    ("discovery.k8s.io/v1", "EndpointSlice", "V1EndpointSlice", "endpointslices.discovery.k8s.io"),
    ("discovery.k8s.io/v1", "EndpointSliceList", "V1EndpointSliceList", ""),
    ("rbac.authorization.k8s.io/v1", "Role", "V1Role", "roles.rbac.authorization.k8s.io"),
    ("rbac.authorization.k8s.io/v1", "RoleList", "V1RoleList", ""),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", "V1RoleBinding", "rolebindings.rbac.authorization.k8s.io"),
    ("rbac.authorization.k8s.io/v1", "RoleBindingList", "V1RoleBindingList", ""),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", "V1ClusterRole", "clusterroles.rbac.authorization.k8s.io"),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleList", "V1ClusterRoleList", ""),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "V1ClusterRoleBinding",
     "clusterrolebindings.rbac.authorization.k8s.io"),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBindingList", "V1ClusterRoleBindingList", ""),
    ("scheduling.k8s.io/v1", "PriorityClass", "V1PriorityClass", "priorityclasses.scheduling.k8s.io"),
    ("scheduling.k8s.io/v1", "PriorityClassList", "V1PriorityClassList", ""),
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", "V1ValidatingAdmissionPolicy",
     "validatingadmissionpolicies.admissionregistration.k8s.io"),
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyList", "V1ValidatingAdmissionPolicyList", ""),
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", "V1ValidatingAdmissionPolicyBinding",
     "validatingadmissionpolicybindings.admissionregistration.k8s.io"),
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBindingList",
     "V1ValidatingAdmissionPolicyBindingList", ""),
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", "V1MutatingWebhookConfiguration",
     "mutatingwebhookconfigurations.admissionregistration.k8s.io"),
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfigurationList", "V1MutatingWebhookConfigurationList", ""),
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "V1ValidatingWebhookConfiguration",
     "validatingwebhookconfigurations.admissionregistration.k8s.io"),
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfigurationList", "V1ValidatingWebhookConfigurationList",
     ""),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "V1CustomResourceDefinition",
     "customresourcedefinitions.apiextensions.k8s.io"),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinitionList", "V1CustomResourceDefinitionList", ""),
    ("policy/v1", "Eviction", "V1Eviction", ""),
    ("meta/v1", "DeleteOptions", "V1DeleteOptions", ""),
    ("meta/v1", "Status", "V1Status", ""),
    ("meta/v1", "WatchEvent", "V1WatchEvent", ""),
)

#: ``resource.Quantity`` fields (``Dict[str, str]`` or ``str`` in the client): client model →
#: JSON field names.
QUANTITY_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "V1ResourceRequirements": ("limits", "requests"),
    "V1VolumeResourceRequirements": ("limits", "requests"),
    "V1EmptyDirVolumeSource": ("sizeLimit",),
    "V1PodSpec": ("overhead",),
    "V1NodeStatus": ("allocatable", "capacity"),
    "V1PersistentVolumeClaimStatus": ("allocatedResources", "capacity"),
    "V1ContainerStatus": ("allocatedResources",),
}

# Where a client model's definition lives (see the module docstring).
_PACKAGES: Final[dict[str, str]] = {
    "": "io.k8s.api.core", "batch": "io.k8s.api.batch", "discovery.k8s.io": "io.k8s.api.discovery",
    "policy": "io.k8s.api.policy", "scheduling.k8s.io": "io.k8s.api.scheduling",
    "resource.k8s.io": "io.k8s.api.resource", "events.k8s.io": "io.k8s.api.events",
    "rbac.authorization.k8s.io": "io.k8s.api.rbac",
    "admissionregistration.k8s.io": "io.k8s.api.admissionregistration",
    "apiextensions.k8s.io": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
    "meta": "io.k8s.apimachinery.pkg.apis.meta",
}
#: Client-name prefixes the generator uses where two groups have a type of the same name.
_PREFIX_GROUPS: Final[dict[str, str]] = {
    "Core": "", "Discovery": "discovery.k8s.io", "Events": "events.k8s.io",
    "Apiextensions": "apiextensions.k8s.io", "Resource": "resource.k8s.io",
    "Rbac": "rbac.authorization.k8s.io", "Admissionregistration": "admissionregistration.k8s.io",
}
_META_TYPES: Final = frozenset({
    "ObjectMeta", "ListMeta", "LabelSelector", "LabelSelectorRequirement", "OwnerReference",
    "ManagedFieldsEntry", "Status", "StatusDetails", "StatusCause", "DeleteOptions", "Preconditions",
    "Condition", "WatchEvent",
})
#: Core types that other groups' kinds embed.
_CORE_TYPES: Final = frozenset({"PodTemplateSpec", "ObjectReference", "TypedLocalObjectReference",
                                "LocalObjectReference"})
#: Types of another API version that a v1 kind embeds, by name prefix → group.
_VERSIONED_GROUPS: Final[dict[str, str]] = {"V1alpha3Workload": "scheduling.k8s.io",
                                            "V1alpha3TopologyConstraint": "scheduling.k8s.io"}

_PATCH_SCHEMA: Final = {
    "description": "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
    "type": "object",
}
PATCH_DEFINITION: Final = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"


# --------------------------------------------------------------------------- loading (runtime)

@functools.cache
def load() -> dict[str, Any]:
    """The committed data: ``{"source", "kinds": {"v1/Pod": definition, ...}, "schemas": {...}}``."""
    data: dict[str, Any] = json.loads(DATA_PATH.read_text(encoding="utf-8"))
    return data


def schemas() -> Mapping[str, dict[str, Any]]:
    """Every generated definition by name (shared: do not modify)."""
    result: Mapping[str, dict[str, Any]] = load()["schemas"]
    return result


def definition_name(api_version: str, kind: str) -> str | None:
    """The definition of a built-in kind (``io.k8s.api.core.v1.Pod`` for ``v1``/``Pod``), or None."""
    name: str | None = load()["kinds"].get(f"{api_version}/{kind}")
    return name


def ref(name: str) -> str:
    """The ``$ref`` of a definition in a group-version document."""
    return REF_PREFIX + name


def description(definition: str, field: str | None = None) -> str:
    """The description of a definition, or of one of its fields ("" when there is none)."""
    schema = schemas().get(definition)
    if schema is None:
        raise UsageError(f"no built-in OpenAPI definition named {definition!r}")
    if field is not None:
        schema = schema.get("properties", {}).get(field, {})
    text: str = schema.get("description", "")
    return text


# --------------------------------------------------------------------------- generation (test time)

_MODEL_NAME = re.compile(r"^(?:(Core|Discovery|Events|Apiextensions|Resource|Rbac|Admissionregistration)(V\d\w*?)|V(\d+(?:alpha\d+|beta\d+)?))"
                         r"([A-Z]\w*)$")


class _ClientModel(Protocol):
    """What the generator reads of a ``kubernetes`` client model class (a pydantic model)."""

    openapi_types: ClassVar[dict[str, str]]  # attribute -> the client's type text
    attribute_map: ClassVar[dict[str, str]]  # attribute -> JSON field name
    model_fields: ClassVar[dict[str, FieldInfo]]


class _Generator:
    """Walks the client models from :data:`ROOTS` and builds the definitions."""

    def __init__(self) -> None:
        import kubernetes.client

        self.client = kubernetes.client
        self.names: dict[str, str] = {}         # client model → definition name
        self.schemas: dict[str, dict[str, Any]] = {}
        self.models: dict[str, type] = {}       # definition name → client model

    # ----------------------------------------------------------- naming
    def _model(self, name: str) -> type[_ClientModel]:
        model: type[_ClientModel] | None = getattr(self.client, name, None)  # when the checks below pass
        if not inspect.isclass(model) or not hasattr(model, "openapi_types"):
            raise UsageError(f"the kubernetes client has no model {name!r}")
        return model

    def _name(self, model: str, parent_group: str, parent_version: str) -> str:
        m = _MODEL_NAME.match(model)
        if m is None:
            raise UsageError(f"cannot tell the API version of client model {model!r}")
        prefix, prefixed_version, version, short = m.groups()
        if prefix is not None:
            group, version = _PREFIX_GROUPS[prefix], prefixed_version.lower()
        elif short in _META_TYPES:
            group = "meta"
        elif short in _CORE_TYPES:
            group = ""
        elif "v" + version != parent_version:
            found = [g for p, g in _VERSIONED_GROUPS.items() if model.startswith(p)]
            if not found:
                raise UsageError(f"client model {model!r} is of another API version than the kind using it; "
                                 "name its group in _VERSIONED_GROUPS")
            group = found[0]
        else:
            group = parent_group
        return f"{_PACKAGES[group]}.{'v' + version if prefix is None else version}.{short}"

    def _group_version(self, definition: str) -> tuple[str, str]:
        package, version, _ = definition.rsplit(".", 2)
        group = next(g for g, p in _PACKAGES.items() if p == package)
        return group, version

    def visit(self, model: str, definition: str) -> None:
        """Build ``definition`` from client ``model`` and every model it refers to."""
        known = self.names.get(model)
        if known is not None:
            if known != definition:
                raise UsageError(f"client model {model!r} would be both {known} and {definition}")
            return
        self.names[model] = definition
        cls = self._model(model)
        self.models[definition] = cls
        group, version = self._group_version(definition)
        properties: dict[str, Any] = {}
        required: list[str] = []
        quantities = QUANTITY_FIELDS.get(model, ())
        fields = {f.serialization_alias or name: f for name, f in cls.model_fields.items()}
        for attr, type_text in cls.openapi_types.items():
            json_name = cls.attribute_map[attr]
            field = fields[json_name]
            if json_name in quantities:
                schema = self._quantity(type_text)
            else:
                schema = self._type(type_text, field.annotation, group, version)
            text = (field.description or "").strip()
            if text:
                schema = ({"allOf": [schema], "description": text} if "$ref" in schema
                          else {"description": text, **schema})
            properties[json_name] = schema
            if field.is_required():
                required.append(json_name)
        missing = set(quantities) - set(properties)
        if missing:
            raise UsageError(f"QUANTITY_FIELDS names {sorted(missing)} that {model} does not have")
        out: dict[str, Any] = {}
        text = _class_description(cls)
        if text:
            out["description"] = text
        out["type"] = "object"
        out["properties"] = dict(sorted(properties.items()))
        if required:
            out["required"] = sorted(required)
        self.schemas[definition] = out

    def _quantity(self, type_text: str) -> dict[str, Any]:
        quantity = {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}
        if type_text == "str":
            return quantity
        if type_text == "Dict[str, str]":
            return {"type": "object", "additionalProperties": quantity}
        raise UsageError(f"a Quantity field of client type {type_text!r}")

    def _type(self, text: str, annotation: Any, group: str, version: str) -> dict[str, Any]:
        simple = _SIMPLE_TYPES.get(text)
        if simple is not None:
            return dict(simple)
        if text.startswith("List[") and text.endswith("]"):
            return {"type": "array", "items": self._type(text[5:-1], _unwrap(annotation, list), group, version)}
        if text.startswith("Dict[str, ") and text.endswith("]"):
            return {"type": "object",
                    "additionalProperties": self._type(text[10:-1], _unwrap(annotation, dict), group, version)}
        if text == "object":
            if _is_int_or_string(annotation):
                return {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}
            return {"x-kubernetes-preserve-unknown-fields": True}
        definition = self._name(text, group, version)
        self.visit(text, definition)
        return {"$ref": ref(definition)}


_SIMPLE_TYPES: Final[dict[str, dict[str, Any]]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number", "format": "double"},
    "bool": {"type": "boolean"},
    "datetime": {"type": "string", "format": "date-time"},
    "date": {"type": "string", "format": "date"},
    "bytes": {"type": "string", "format": "byte"},
}


def _strip_optional(annotation: Any) -> Any:
    """``Optional[X]`` → ``X``; ``Annotated[X, ...]`` → ``X``."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
            continue
        if origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) == 1:
                annotation = args[0]
                continue
        return annotation


def _unwrap(annotation: Any, container: type) -> Any:
    """The element annotation of ``List[X]`` / ``Dict[str, X]`` (Any when it cannot be told)."""
    annotation = _strip_optional(annotation)
    if typing.get_origin(annotation) is container:
        return typing.get_args(annotation)[-1]
    return Any


def _is_int_or_string(annotation: Any) -> bool:
    annotation = _strip_optional(annotation)
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return False
    args = {_strip_optional(a) for a in typing.get_args(annotation) if a is not type(None)}
    return args == {int, str}


def _class_description(cls: type) -> str:
    """The kind's description: the docstring above the generator's ``Attributes:`` note."""
    doc = inspect.getdoc(cls) or ""
    text = doc.split("\nAttributes:", 1)[0].strip()
    return " ".join(text.split("\n")) if text else ""


def _patch_annotations(gen: _Generator, definition: str, schema: patching.MergeSchema,
                       done: dict[tuple[str, str], tuple[str, str]]) -> None:
    """Put the strategic-merge metadata of ``schema`` on ``definition``'s properties (and below)."""
    properties = gen.schemas[definition]["properties"]
    for field, meta in schema.fields.items():
        prop = properties.get(field)
        if prop is None:
            raise UsageError(f"patch metadata names {definition}.{field}, which the client model lacks")
        strategy = ",".join(s for s in (meta.strategy, "retainKeys" if meta.retain_keys else "") if s)
        annotation = (strategy, meta.merge_key)
        previous = done.setdefault((definition, field), annotation)
        if previous != annotation:
            raise UsageError(f"conflicting patch metadata for {definition}.{field}: {previous} and {annotation}")
        if strategy:
            prop["x-kubernetes-patch-strategy"] = strategy
        if meta.merge_key:
            prop["x-kubernetes-patch-merge-key"] = meta.merge_key
        if meta.schema is not None and meta.schema.fields:
            child = _referenced(prop)
            if child is None:
                raise UsageError(f"patch metadata descends into {definition}.{field}, which is not a struct")
            _patch_annotations(gen, child, meta.schema, done)


def _referenced(prop: Mapping[str, Any]) -> str | None:
    """The definition a property (or its list items or map values) refers to."""
    for candidate in (prop, prop.get("items") or {}, prop.get("additionalProperties") or {}):
        if "$ref" in candidate:
            return str(candidate["$ref"]).removeprefix(REF_PREFIX)
        for sub in candidate.get("allOf") or ():
            if "$ref" in sub:
                return str(sub["$ref"]).removeprefix(REF_PREFIX)
    return None


def generate() -> dict[str, Any]:
    """Build the data from the installed ``kubernetes`` client (needs it installed)."""
    import kubernetes

    gen = _Generator()
    kinds: dict[str, str] = {}
    for api_version, kind, model, _ in ROOTS:
        group, _, version = api_version.rpartition("/")
        definition = f"{_PACKAGES[group]}.{version}.{kind}"
        gen.visit(model, definition)
        kinds[f"{api_version}/{kind}"] = definition
        if group != "meta":
            gen.schemas[definition]["x-kubernetes-group-version-kind"] = [
                {"group": group, "kind": kind, "version": version}]
    done: dict[tuple[str, str], tuple[str, str]] = {}
    for api_version, kind, _, resource in ROOTS:
        if resource:
            merge_schema = patching.schema_for(resource)
            if merge_schema is None:
                raise UsageError(f"fakekube.machinery.patch has no strategic-merge schema for {resource}")
            _patch_annotations(gen, kinds[f"{api_version}/{kind}"], merge_schema, done)
    gen.schemas[PATCH_DEFINITION] = dict(_PATCH_SCHEMA)
    return {
        "source": f"kubernetes Python client {kubernetes.__version__}",
        "kinds": dict(sorted(kinds.items())),
        "schemas": dict(sorted(gen.schemas.items())),
    }


def render(data: Mapping[str, Any]) -> str:
    """The exact text of ``builtin_schemas.json`` for ``data``."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m fakekube.apiserver.builtin_schemas [--check]``: regenerate (or check) the data file."""
    return regenerate_command(argv, path=DATA_PATH, render=lambda: render(generate()),
                              module="fakekube.apiserver.builtin_schemas")


if __name__ == "__main__":
    raise SystemExit(main())


# --------------------------------------------------------------------------- structural schemas
def _inline(node: Any, stack: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(v, stack) for v in node]
    if not isinstance(node, dict):
        return node
    target = node.get("$ref")
    if isinstance(target, str):
        return _inline_definition(target.removeprefix(REF_PREFIX), stack)
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and set(node) <= {"allOf", "description", "default"}:
        return _inline(all_of[0], stack)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("description", "x-kubernetes-group-version-kind") or key.startswith("x-kubernetes-patch-"):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _inline(prop, stack) for name, prop in value.items()}
        else:
            out[key] = _inline(value, stack)
    return out


def _inline_definition(name: str, stack: tuple[str, ...]) -> Any:
    if name in stack:  # JSONSchemaProps refers to itself: stop, keeping whatever is below
        return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return _inline(schemas()[name], (*stack, name))


@functools.cache
def schema_for(api_version: str, kind: str) -> dict[str, Any] | None:
    """The structural schema (no ``$ref``, no descriptions) of a built-in kind, for finding unknown
    fields (``fieldValidation``); None for anything else. Custom resources have their CRD's schema.

    Self-referencing types (a CRD's ``JSONSchemaProps``) are cut at the first repetition with
    ``x-kubernetes-preserve-unknown-fields``. The result is shared: do not modify it.
    """
    name = definition_name(api_version, kind)
    if name is None:
        return None
    schema: dict[str, Any] = _inline_definition(name, ())
    return schema
