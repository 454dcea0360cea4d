"""``/openapi/v3``: the OpenAPI v3 documents kubectl reads for ``apply``, ``explain`` and patches.

* :func:`root` is ``/openapi/v3``: one entry per served group-version (``api/v1``,
  ``apis/batch/v1``, ``apis/jobset.x-k8s.io/v1alpha2``) pointing at its document with a
  ``?hash=`` of the document's content, so kubectl's cache refetches a document only when it changed.
* :func:`document` is ``/openapi/v3/<api/v1 | apis/g/v>``: ``paths`` with the operations of every
  resource of the group-version (each carrying ``x-kubernetes-group-version-kind``; ``PATCH``,
  ``PUT`` and ``POST`` list the ``fieldValidation`` query parameter, from which kubectl's
  ``queryParamVerifierV3`` concludes that the server validates fields, so ``kubectl apply`` sends
  ``fieldValidation=Strict`` instead of validating client-side) and ``components.schemas``: the
  kinds' schemas with everything they refer to.

Built-in kinds' schemas are the generated ones of :mod:`fakekube.apiserver.builtin_schemas`; their
``PATCH`` operations accept ``application/strategic-merge-patch+json``, and the schemas carry the
merge keys this server applies. A custom resource's schema is its CRD's ``openAPIV3Schema`` for
the served version, named as kube-apiserver names it (``io.x-k8s.jobset.v1alpha2.JobSet``), with
``metadata`` referring to ``ObjectMeta``; its ``PATCH`` does not accept strategic merge patches, so
kubectl sends JSON merge patches, as against a real server.

Documents are built on demand and cached per API server until the group-version's resources (or
a CRD serving one of them) change. They are shared: serialize them, do not modify them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import weakref
from collections.abc import Mapping
from typing import Any, Final

from fakekube.apiserver import builtin_schemas as bs
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.http.custom_resources import crd_for
from fakekube.http.discovery import GIT_VERSION

__all__ = ["document", "document_hash", "root"]

_META: Final = "io.k8s.apimachinery.pkg.apis.meta.v1."
_OBJECT_META: Final = _META + "ObjectMeta"
_LIST_META: Final = _META + "ListMeta"
_STATUS: Final = _META + "Status"
_DELETE_OPTIONS: Final = _META + "DeleteOptions"
_POD: Final = "io.k8s.api.core.v1.Pod"

_PATCH_TYPES: Final = ("application/apply-patch+yaml", "application/json-patch+json",
                       "application/merge-patch+json")
_SMP: Final = "application/strategic-merge-patch+json"

#: Subresources with a request or response body this module can describe: name → (kind of the
#: body as ``(group, version, kind)`` or None for the parent's kind, operations).
_SUBRESOURCE_OPS: Final[dict[str, tuple[tuple[str, str, str] | None, tuple[str, ...]]]] = {
    "status": (None, ("get", "put", "patch")),
    "binding": (("", "v1", "Binding"), ("post",)),
    "eviction": (("policy", "v1", "Eviction"), ("post",)),
    "finalize": (None, ("put",)),
}


def _query(name: str, kind: str, text: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "description": text, "schema": {"type": kind, "uniqueItems": True}}


_PARAMS: Final[dict[str, dict[str, Any]]] = {p["name"]: p for p in (
    _query("allowWatchBookmarks", "boolean", "Ask for BOOKMARK events on a watch."),
    _query("continue", "string", "The continue token of the previous page of a paginated list."),
    _query("fieldSelector", "string", "Restrict the list to objects whose fields match. Defaults to everything."),
    _query("labelSelector", "string", "Restrict the list to objects whose labels match. Defaults to everything."),
    _query("limit", "integer", "The most items one page of a list returns; more pages follow with continue."),
    _query("resourceVersion", "string", "Which resource version the list or watch starts from."),
    _query("resourceVersionMatch", "string", "How resourceVersion applies to a list: Exact or NotOlderThan."),
    _query("sendInitialEvents", "boolean", "Start a watch with the current objects, then a bookmark."),
    _query("timeoutSeconds", "integer", "How long a list or watch call may last."),
    _query("watch", "boolean", "Watch for changes instead of listing."),
    _query("dryRun", "string", "All: validate and admit the request without persisting it."),
    _query("fieldManager", "string", "The name of the actor making the change, for managed fields."),
    _query("fieldValidation", "string", "How the server treats unknown or duplicate fields in the request body: "
                                        "Ignore (drop them), Warn (drop them and warn) or Strict (reject the "
                                        "request)."),
    _query("force", "boolean", "Take over fields owned by other managers (apply requests only)."),
    _query("gracePeriodSeconds", "integer", "Seconds before the object is deleted; 0 deletes at once."),
    _query("ignoreStoreReadErrorWithClusterBreakingPotential", "boolean",
           "Delete an object that cannot be read from storage (unsafe)."),
    _query("orphanDependents", "boolean", "Deprecated: use propagationPolicy."),
    _query("propagationPolicy", "string", "Whether and how dependents are garbage collected: Orphan, Background "
                                          "or Foreground."),
    _query("pretty", "string", "Pretty-print the output."),
)}
_LIST_PARAMS: Final = ("allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit",
                       "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch")
_WRITE_PARAMS: Final = ("dryRun", "fieldManager", "fieldValidation")
_PATCH_PARAMS: Final = ("dryRun", "fieldManager", "fieldValidation", "force")
_DELETE_PARAMS: Final = ("dryRun", "gracePeriodSeconds", "ignoreStoreReadErrorWithClusterBreakingPotential",
                         "orphanDependents", "propagationPolicy")


# --------------------------------------------------------------------------- names

def _path_key(rt: ResourceType) -> str:
    """The root's key of a resource's group-version: ``api/v1`` or ``apis/<group>/<version>``."""
    return f"apis/{rt.group}/{rt.version}" if rt.group else f"api/{rt.version}"


def _custom_definition(group: str, version: str, kind: str) -> str:
    """kube-apiserver's name of a custom resource's schema: the group reversed, then version and kind."""
    return ".".join([*reversed(group.split(".")), version, kind])


def _definitions(rt: ResourceType) -> tuple[str, str] | None:
    """The schema names of a resource's kind and list kind (None when there is no schema)."""
    if rt.custom:
        return (_custom_definition(rt.group, rt.version, rt.kind),
                _custom_definition(rt.group, rt.version, rt.kind + "List"))
    kind, listed = bs.definition_name(rt.api_version, rt.kind), bs.definition_name(rt.api_version, rt.kind + "List")
    return None if kind is None or listed is None else (kind, listed)


def _friendly(group: str, version: str) -> str:
    """``CoreV1``, ``BatchV1``, ``ApiextensionsV1``, ``JobsetXK8sIoV1alpha2`` (operation ids)."""
    name = group.removesuffix(".k8s.io") if group else "core"
    words = name.replace("-", ".").split(".")
    return "".join(w[:1].upper() + w[1:] for w in words) + version[:1].upper() + version[1:]


def _ref(name: str) -> dict[str, str]:
    return {"$ref": bs.ref(name)}


# --------------------------------------------------------------------------- operations

def _gvk(group: str, version: str, kind: str) -> dict[str, str]:
    return {"group": group, "version": version, "kind": kind}


def _response(schema: str, *codes: str) -> dict[str, Any]:
    body = {"description": "OK", "content": {"application/json": {"schema": _ref(schema)}}}
    responses: dict[str, Any] = {code: {**body, "description": {"200": "OK", "201": "Created",
                                                                  "202": "Accepted"}[code]} for code in codes}
    responses["401"] = {"description": "Unauthorized"}
    return responses


def _operation(verb: str, op_id: str, tag: str, gvk: dict[str, str], *, params: tuple[str, ...] = (),
               body: dict[str, Any] | None = None, responses: dict[str, Any], action: str,
               text: str) -> dict[str, Any]:
    op: dict[str, Any] = {"tags": [tag], "description": text, "operationId": op_id}
    if params:
        op["parameters"] = [_PARAMS[p] for p in params]
    if body is not None:
        op["requestBody"] = body
    op["responses"] = responses
    op["x-kubernetes-action"] = action
    op["x-kubernetes-group-version-kind"] = gvk
    return op


def _json_body(schema: str) -> dict[str, Any]:
    return {"content": {"*/*": {"schema": _ref(schema)}}, "required": True}


def _patch_body(strategic: bool) -> dict[str, Any]:
    types = (*_PATCH_TYPES, _SMP) if strategic else _PATCH_TYPES
    return {"content": {t: {"schema": _ref(bs.PATCH_DEFINITION)} for t in sorted(types)}, "required": True}


def _path_params(namespaced: bool, named: str | None) -> list[dict[str, Any]]:
    params = []
    if named is not None:
        params.append({"name": "name", "in": "path", "description": f"name of the {named}", "required": True,
                       "schema": {"type": "string", "uniqueItems": True}})
    if namespaced:
        params.append({"name": "namespace", "in": "path", "required": True,
                       "description": "object name and auth scope, such as for teams and projects",
                       "schema": {"type": "string", "uniqueItems": True}})
    params.append(_PARAMS["pretty"])
    return params


def _resource_paths(rt: ResourceType, kind_def: str, list_def: str) -> dict[str, dict[str, Any]]:
    """The paths of one resource and its subresources."""
    gv = _friendly(rt.group, rt.version)
    tag = gv[:1].lower() + gv[1:-len(rt.version)] + "_" + rt.version
    scope = "Namespaced" if rt.namespaced else ""
    base = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
    collection = f"{base}/namespaces/{{namespace}}/{rt.plural}" if rt.namespaced else f"{base}/{rt.plural}"
    gvk = _gvk(rt.group, rt.version, rt.kind)
    strategic = not rt.custom
    paths: dict[str, dict[str, Any]] = {}

    paths[collection] = {
        "get": _operation("get", f"list{gv}{scope}{rt.kind}", tag, gvk, params=_LIST_PARAMS,
                          responses=_response(list_def, "200"), action="list", text=f"list or watch objects of kind {rt.kind}"),
        "post": _operation("post", f"create{gv}{scope}{rt.kind}", tag, gvk, params=_WRITE_PARAMS,
                           body=_json_body(kind_def), responses=_response(kind_def, "200", "201", "202"),
                           action="post", text=f"create a {rt.kind}"),
        "delete": _operation("delete", f"delete{gv}Collection{scope}{rt.kind}", tag, gvk,
                             params=(*_DELETE_PARAMS, *_LIST_PARAMS), body=_json_body(_DELETE_OPTIONS),
                             responses=_response(_STATUS, "200"), action="deletecollection",
                             text=f"delete collection of {rt.kind}"),
        "parameters": _path_params(rt.namespaced, None),
    }
    item = f"{collection}/{{name}}"
    paths[item] = {
        "get": _operation("get", f"read{gv}{scope}{rt.kind}", tag, gvk, responses=_response(kind_def, "200"),
                          action="get", text=f"read the specified {rt.kind}"),
        "put": _operation("put", f"replace{gv}{scope}{rt.kind}", tag, gvk, params=_WRITE_PARAMS,
                          body=_json_body(kind_def), responses=_response(kind_def, "200", "201"), action="put",
                          text=f"replace the specified {rt.kind}"),
        "patch": _operation("patch", f"patch{gv}{scope}{rt.kind}", tag, gvk, params=_PATCH_PARAMS,
                            body=_patch_body(strategic), responses=_response(kind_def, "200", "201"),
                            action="patch", text=f"partially update the specified {rt.kind}"),
        "delete": _operation("delete", f"delete{gv}{scope}{rt.kind}", tag, gvk, params=_DELETE_PARAMS,
                             body=_json_body(_DELETE_OPTIONS), responses=_response(_STATUS, "200", "202"),
                             action="delete", text=f"delete a {rt.kind}"),
        "parameters": _path_params(rt.namespaced, rt.kind),
    }
    for sub in sorted(rt.subresources):
        known = _SUBRESOURCE_OPS.get(sub)
        if known is None:
            continue  # no schema for its body here (scale, log): left out of the document
        body_kind, verbs = known
        if body_kind is None:
            sub_gvk, sub_def = gvk, kind_def
        else:
            sub_gvk = _gvk(*body_kind)
            found = bs.definition_name(f"{body_kind[0]}/{body_kind[1]}".lstrip("/"), body_kind[2])
            if found is None:
                continue
            sub_def = found
        suffix = sub[:1].upper() + sub[1:]
        ops: dict[str, Any] = {}
        for verb in verbs:
            if verb == "get":
                ops["get"] = _operation("get", f"read{gv}{scope}{rt.kind}{suffix}", tag, sub_gvk,
                                        responses=_response(sub_def, "200"), action="get",
                                        text=f"read {sub} of the specified {rt.kind}")
            elif verb == "put":
                ops["put"] = _operation("put", f"replace{gv}{scope}{rt.kind}{suffix}", tag, sub_gvk,
                                        params=_WRITE_PARAMS, body=_json_body(sub_def),
                                        responses=_response(sub_def, "200", "201"), action="put",
                                        text=f"replace {sub} of the specified {rt.kind}")
            elif verb == "patch":
                ops["patch"] = _operation("patch", f"patch{gv}{scope}{rt.kind}{suffix}", tag, sub_gvk,
                                          params=_PATCH_PARAMS, body=_patch_body(strategic),
                                          responses=_response(sub_def, "200", "201"), action="patch",
                                          text=f"partially update {sub} of the specified {rt.kind}")
            else:
                ops["post"] = _operation("post", f"create{gv}{scope}{rt.kind}{suffix}", tag, sub_gvk,
                                         params=_WRITE_PARAMS, body=_json_body(sub_def),
                                         responses=_response(sub_def, "200", "201", "202"), action="post",
                                         text=f"create {sub} of a {rt.kind}")
        ops["parameters"] = _path_params(rt.namespaced, rt.kind)
        paths[f"{item}/{sub}"] = ops
    if rt.namespaced:
        paths[f"{base}/{rt.plural}"] = {
            "get": _operation("get", f"list{gv}{rt.kind}ForAllNamespaces", tag, gvk, params=_LIST_PARAMS,
                              responses=_response(list_def, "200"), action="list",
                              text=f"list or watch objects of kind {rt.kind}"),
            "parameters": [_PARAMS["pretty"]],
        }
    return paths


# --------------------------------------------------------------------------- schemas

def _custom_schemas(rt: ResourceType, crd: Mapping[str, Any] | None, kind_def: str,
                    list_def: str) -> dict[str, dict[str, Any]]:
    """A custom resource's schema (from its CRD) and its list's."""
    version: dict[str, Any] = next((v for v in ((crd or {}).get("spec") or {}).get("versions") or []
                    if v.get("name") == rt.version), {})
    raw = ((version.get("schema") or {}).get("openAPIV3Schema")
           or {"type": "object", "x-kubernetes-preserve-unknown-fields": True})
    schema = copy.deepcopy(dict(raw))
    properties = schema.setdefault("properties", {})
    type_meta = bs.schemas()[_POD]["properties"]  # apiVersion and kind read the same in every kind
    properties["apiVersion"] = copy.deepcopy(type_meta["apiVersion"])
    properties["kind"] = copy.deepcopy(type_meta["kind"])
    properties["metadata"] = {"allOf": [_ref(_OBJECT_META)],
                              "description": "Standard object's metadata. More info: https://git.k8s.io/community/"
                                             "contributors/devel/sig-architecture/api-conventions.md#metadata"}
    schema["properties"] = dict(sorted(properties.items()))
    schema["x-kubernetes-group-version-kind"] = [{"group": rt.group, "kind": rt.kind, "version": rt.version}]
    listed = {
        "description": f"{rt.kind}List is a list of {rt.kind}",
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": properties["apiVersion"],
            "items": {"description": f"List of {rt.plural}. More info: https://git.k8s.io/community/contributors/"
                                     "devel/sig-architecture/api-conventions.md",
                      "type": "array", "items": _ref(kind_def)},
            "kind": properties["kind"],
            "metadata": {"allOf": [_ref(_LIST_META)],
                         "description": "Standard list metadata. More info: https://git.k8s.io/community/"
                                        "contributors/devel/sig-architecture/api-conventions.md#types-kinds"},
        },
        "x-kubernetes-group-version-kind": [{"group": rt.group, "kind": rt.kind + "List", "version": rt.version}],
    }
    return {kind_def: schema, list_def: listed}


def _refs(node: Any, out: set[str]) -> None:
    """Every definition name ``node`` refers to (``properties`` may have a field named ``$ref``)."""
    if isinstance(node, dict):
        target = node.get("$ref")
        if isinstance(target, str):
            out.add(target.removeprefix(bs.REF_PREFIX))
        for value in node.values():
            _refs(value, out)
    elif isinstance(node, list):
        for value in node:
            _refs(value, out)


def _closure(roots: dict[str, dict[str, Any]], paths: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``roots`` plus every built-in definition reachable from them or from ``paths``."""
    result = dict(roots)
    pending: set[str] = set()
    _refs(paths, pending)
    _refs(roots, pending)
    builtin = bs.schemas()
    while pending:
        name = pending.pop()
        if name in result:
            continue
        schema = builtin.get(name)
        if schema is None:
            continue  # a custom resource schema's own $ref, which kube-apiserver would have refused
        result[name] = schema
        _refs(schema, pending)
    return dict(sorted(result.items()))


def _build(resources: list[tuple[ResourceType, Mapping[str, Any] | None]]) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    roots: dict[str, dict[str, Any]] = {}
    for rt, crd in resources:
        names = _definitions(rt)
        if names is None:
            continue
        kind_def, list_def = names
        if rt.custom:
            roots.update(_custom_schemas(rt, crd, kind_def, list_def))
        paths.update(_resource_paths(rt, kind_def, list_def))
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": GIT_VERSION},
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": _closure(roots, paths)},
    }


# --------------------------------------------------------------------------- cache and public API

def document_hash(doc: Mapping[str, Any]) -> str:
    """The ``hash`` of a document: SHA-512 of its canonical JSON, upper-case hex."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha512(text.encode()).hexdigest().upper()


class _Entry:
    __slots__ = ("doc", "fingerprint", "hash")

    def __init__(self, fingerprint: tuple[Any, ...], doc: dict[str, Any]) -> None:
        self.fingerprint = fingerprint
        self.doc = doc
        self.hash = document_hash(doc)


_CACHE: weakref.WeakKeyDictionary[ApiServer, dict[str, _Entry]] = weakref.WeakKeyDictionary()


def _group_versions(server: ApiServer) -> dict[str, list[tuple[ResourceType, Mapping[str, Any] | None]]]:
    found: dict[str, list[tuple[ResourceType, Mapping[str, Any] | None]]] = {}
    for rt in server.registry.all():
        found.setdefault(_path_key(rt), []).append((rt, crd_for(server, rt)))
    return found


def _entry(server: ApiServer, key: str, resources: list[tuple[ResourceType, Mapping[str, Any] | None]]) -> _Entry:
    # The registry replaces a ResourceType whenever it changes one; a CRD's resourceVersion changes
    # with every write (printer columns and schema included).
    fingerprint = tuple((rt, None if crd is None else (crd["metadata"].get("uid"),
                                                       crd["metadata"].get("resourceVersion")))
                        for rt, crd in resources)
    cache = _CACHE.setdefault(server, {})
    entry = cache.get(key)
    if entry is None or entry.fingerprint != fingerprint:
        entry = cache[key] = _Entry(fingerprint, _build(resources))
    return entry


def root(server: ApiServer) -> dict[str, Any]:
    """``/openapi/v3``: ``{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=…"}, …}}``."""
    paths = {}
    for key, resources in sorted(_group_versions(server).items()):
        entry = _entry(server, key, resources)
        paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={entry.hash}"}
    return {"paths": paths}


def document(server: ApiServer, path: str) -> dict[str, Any] | None:
    """The document of ``/openapi/v3/<path>`` (``api/v1``, ``apis/batch/v1``; a leading ``/`` and a
    ``?hash=`` are ignored), or None when no served group-version has that path (a 404)."""
    key = path.split("?", 1)[0].strip("/")
    resources = _group_versions(server).get(key)
    if resources is None:
        return None
    return _entry(server, key, resources).doc
