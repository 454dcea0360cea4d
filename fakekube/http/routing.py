"""What a request path and method ask for, as kube-apiserver's ``RequestInfoFactory`` reads them.

``/api/v1/namespaces/ns/pods/p/status`` → group ``""``, version ``v1``, namespace ``ns``,
resource ``pods``, name ``p``, subresource ``status``. The verb comes from the method and the
query (``GET`` without a name is ``list``, or ``watch`` with ``watch=true`` or the deprecated
``/watch/`` prefix). Paths outside the resource tree (``/api``, ``/version``, ``/openapi/v3``)
are not parsed here.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RequestInfo", "parse_resource_path"]

#: Subresources of a namespace that address the namespace itself (``/api/v1/namespaces/x/status``).
NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})

_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch"}


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """A request on the resource tree."""

    verb: str
    group: str
    version: str
    resource: str
    namespace: str | None = None
    name: str | None = None
    subresource: str | None = None

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("true", "1")


def parse_resource_path(method: str, path: str, query: dict[str, str]) -> RequestInfo | None:
    """The resource request of ``path``, or None when the path is not one (then it is a 404)."""
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 2 and parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    elif len(parts) >= 3 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return None
    watch_prefix = bool(rest) and rest[0] == "watch"
    if watch_prefix:
        rest = rest[1:]
    if not rest:
        return None
    namespace: str | None = None
    if rest[0] == "namespaces" and len(rest) > 1:
        namespace = rest[1]
        if len(rest) == 2 or (len(rest) == 3 and rest[2] in NAMESPACE_SUBRESOURCES):
            # The namespace object itself: /api/v1/namespaces/<name>[/status]
            rest = ["namespaces", rest[1], *rest[2:]]
            namespace = None
        else:
            rest = rest[2:]
    if len(rest) > 3:
        return None
    resource = rest[0]
    name = rest[1] if len(rest) > 1 else None
    subresource = rest[2] if len(rest) > 2 else None
    if method == "GET" or method == "HEAD":
        if name is None:
            verb = "watch" if watch_prefix or _truthy(query.get("watch")) else "list"
        else:
            verb = "watch" if watch_prefix else "get"
    elif method == "DELETE":
        verb = "delete" if name is not None else "deletecollection"
    elif method in _VERBS:
        verb = _VERBS[method]
    else:
        verb = method.lower()
    return RequestInfo(verb, group, version, resource, namespace, name, subresource)
