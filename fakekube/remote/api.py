"""``RemoteApiServer``: the verbs fakekube's clients and informers call on an ``ApiServer``,
carried over HTTP/JSON to any kube-apiserver. A ``Runtime`` built on it runs controllers out of
process exactly as in process: ``Client`` and ``SharedClient`` call these verbs unchanged (their
copy options are moot: every answer is freshly decoded)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from fakekube.apiserver.resources import Registry, ResourceType
from fakekube.apiserver.server import WatchEvent, WriteInfo
from fakekube.clock import SimTime
from fakekube.errors import BadRequest, UsageError
from fakekube.machinery import patch as patching
from fakekube.remote.discovery import discover
from fakekube.remote.transport import Transport
from fakekube.remote.watch import RemoteWatch

__all__ = ["RemoteApiServer"]


class RemoteApiServer:
    """The API server at the other end of ``transport``; ``post(fn)`` queues ``fn`` to run on the
    driver's thread (watch deliveries); ``now()`` is the local loop's time."""

    def __init__(self, transport: Transport, post: Callable[[Callable[[], None]], None],
                 now: Callable[[], SimTime], namespace: str = "default") -> None:
        self.transport = transport
        self.post = post
        self._now = now
        self.namespace = namespace
        self.registry: Registry = discover(transport)

    @property
    def now(self) -> SimTime:
        return self._now()

    def resource(self, name: str | ResourceType) -> ResourceType:
        if isinstance(name, ResourceType):
            return name
        try:
            return self.registry.resolve(name)
        except UsageError:  # served since discovery ran (a CRD installed later): look again once
            self.registry = discover(self.transport)
            return self.registry.resolve(name)

    # ------------------------------------------------------------------ paths
    def _ns(self, rt: ResourceType, namespace: str | None) -> str:
        return (namespace or self.namespace) if rt.namespaced else ""

    def path(self, rt: ResourceType, namespace: str | None, name: str | None = None,
             subresource: str | None = None) -> str:
        base = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
        if rt.namespaced and namespace:
            base += f"/namespaces/{quote(namespace, safe='')}"
        base += f"/{rt.plural}"
        if name is not None:
            base += f"/{quote(name, safe='')}"
        if subresource:
            base += f"/{subresource}"
        return base

    @staticmethod
    def _query(**options: Any) -> dict[str, str]:
        return {key: str(value) for key, value in options.items() if value is not None}

    # ------------------------------------------------------------------ reads
    def get(self, resource: str | ResourceType, name: str, namespace: str | None = None, **_: Any) -> dict[str, Any]:
        rt = self.resource(resource)
        return self.transport.request_object("GET", self.path(rt, self._ns(rt, namespace), name))

    def list(self, resource: str | ResourceType, namespace: str | None = None, *,
             label_selector: str | None = None, field_selector: str | None = None, **_: Any) -> dict[str, Any]:
        rt = self.resource(resource)
        lst = self.transport.request_object("GET", self.path(rt, namespace if rt.namespaced else None),
                                     query=self._query(labelSelector=label_selector or None,
                                                       fieldSelector=field_selector or None))
        for item in lst.get("items") or []:
            item.setdefault("kind", rt.kind)
            item.setdefault("apiVersion", rt.api_version)
        return lst

    def watch(self, resource: str | ResourceType, handler: Callable[[WatchEvent], None], *,
              namespace: str | None = None, resource_version: str | None = None,
              label_selector: str | None = None, field_selector: str | None = None,
              **_: Any) -> RemoteWatch:
        """A reflector in a reader thread (``delay`` and ``copy`` do not apply out of process)."""
        rt = self.resource(resource)
        path = self.path(rt, namespace if rt.namespaced else None)
        query = self._query(labelSelector=label_selector or None, fieldSelector=field_selector or None)
        return RemoteWatch(self.transport, self.post, path, query, handler, resource_version)

    # ------------------------------------------------------------------ writes
    def _write(self, method: str, path: str, body: Any, *, query: dict[str, str], content_type: str = "application/json",
               user_agent: str | None = None, info: WriteInfo | None = None) -> dict[str, Any]:
        warnings: list[str] = []
        result = self.transport.request_object(method, path, query=query, body=body, content_type=content_type,
                                        user_agent=user_agent, warnings=warnings)
        if info is not None:
            for text in warnings:
                info.warn(text)
        return result

    def create(self, resource: str | ResourceType, body: dict[str, Any], *, namespace: str | None = None,
               dry_run: bool = False, field_manager: str | None = None, field_validation: str | None = None,
               user_agent: str | None = None, info: WriteInfo | None = None, **_: Any) -> dict[str, Any]:
        rt = self.resource(resource)
        ns = self._ns(rt, namespace or (body.get("metadata") or {}).get("namespace"))
        query = self._query(dryRun="All" if dry_run else None, fieldManager=field_manager,
                            fieldValidation=field_validation)
        return self._write("POST", self.path(rt, ns), body, query=query, user_agent=user_agent, info=info)

    def update(self, resource: str | ResourceType, body: dict[str, Any], *, namespace: str | None = None,
               subresource: str | None = None, dry_run: bool = False, field_manager: str | None = None,
               field_validation: str | None = None, user_agent: str | None = None, info: WriteInfo | None = None,
               **_: Any) -> dict[str, Any]:
        rt = self.resource(resource)
        meta = body.get("metadata") if isinstance(body, dict) else None
        if not isinstance(meta, dict) or not meta.get("name"):
            raise BadRequest(f"an update of a {rt.kind} needs metadata.name")
        ns = self._ns(rt, namespace or meta.get("namespace"))
        query = self._query(dryRun="All" if dry_run else None, fieldManager=field_manager,
                            fieldValidation=field_validation)
        return self._write("PUT", self.path(rt, ns, meta["name"], subresource), body, query=query,
                           user_agent=user_agent, info=info)

    def patch(self, resource: str | ResourceType, name: str, patch: Any, *, namespace: str | None = None,
              patch_type: str = "merge", subresource: str | None = None, dry_run: bool = False,
              field_manager: str | None = None, field_validation: str | None = None, force: bool | None = None,
              user_agent: str | None = None, info: WriteInfo | None = None, **_: Any) -> dict[str, Any]:
        rt = self.resource(resource)
        media = patching.normalize_patch_type(patch_type)
        query = self._query(dryRun="All" if dry_run else None, fieldManager=field_manager,
                            fieldValidation=field_validation, force=None if force is None else str(force).lower())
        return self._write("PATCH", self.path(rt, self._ns(rt, namespace), name, subresource), patch, query=query,
                           content_type=media, user_agent=user_agent, info=info)

    def create_subresource(self, resource: str | ResourceType, name: str, subresource: str, body: dict[str, Any],
                           *, namespace: str | None = None, **_: Any) -> dict[str, Any]:
        rt = self.resource(resource)
        return self._write("POST", self.path(rt, self._ns(rt, namespace), name, subresource), body, query={})

    def delete(self, resource: str | ResourceType, name: str, *, namespace: str | None = None,
               propagation_policy: str | None = None, grace_period_seconds: int | None = None,
               preconditions: dict[str, str] | None = None, dry_run: bool = False, **_: Any) -> dict[str, Any]:
        rt = self.resource(resource)
        options: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if propagation_policy is not None:
            options["propagationPolicy"] = propagation_policy
        if grace_period_seconds is not None:
            options["gracePeriodSeconds"] = grace_period_seconds
        if preconditions:
            options["preconditions"] = preconditions
        if dry_run:
            options["dryRun"] = ["All"]
        return self._write("DELETE", self.path(rt, self._ns(rt, namespace), name), options, query={})
