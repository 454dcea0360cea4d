"""One HTTP request in, one :class:`Response` out: routing, decoding, the API call, encoding.

Everything a client can send ends as a response: API errors as their ``Status``, malformed or
oversized bodies as 400/413/415 Status objects, anything unexpected as a 500 Status with a
generic message (the traceback goes to ``ClusterServer.errors``, never on the wire).
"""

from __future__ import annotations

import dataclasses
import json
import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import Message
from io import BufferedIOBase
from typing import Any, Protocol

from fakekube.apiserver.field_manager import WriteInfo
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import WatchEvent
from fakekube.errors import ApiError, BadRequest, MethodNotAllowed, NotFound, SimulationError, UsageError
from fakekube.http import discovery, events_v1, openapi_v3, tables
from fakekube.http.clocks import wall
from fakekube.http.custom_resources import crd_for
from fakekube.http.paging import Pager
from fakekube.http.pod_logs import read_log
from fakekube.http.routing import RequestInfo, parse_resource_path
from fakekube.http.served import ServedCluster
from fakekube.http.watch import WatchQueue
from fakekube.machinery import patch as patching
from fakekube.machinery import wire

__all__ = ["MAX_BODY_BYTES", "RequestHandler", "RequestServer", "Response"]

#: kube-apiserver's limit on request bodies (``--max-request-bytes`` default, 3 MiB).
MAX_BODY_BYTES = 3 * 1024 * 1024
#: An oversized body up to this size is read and dropped before the 413; a larger one closes the connection.
DRAIN_BYTES = 32 * 1024 * 1024
#: A watch without ``timeoutSeconds`` ends after this many wall seconds (the server's minimum request timeout).
DEFAULT_WATCH_TIMEOUT = 1800.0
#: Wall seconds between two bookmarks on a quiet watch that allows them.
BOOKMARK_INTERVAL = 60.0
#: Wall seconds a watch stream waits for events before it checks its deadline and the server.
WATCH_POLL = 0.5

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = ("application/json-patch+json", "application/merge-patch+json",
               "application/strategic-merge-patch+json", APPLY_PATCH, "application/apply-patch+cbor")
HEALTH_PATHS = ("/healthz", "/livez", "/readyz")
NOT_FOUND_MESSAGE = "the server could not find the requested resource"
#: A view's conversion of stored objects to the wire form it serves (``events.k8s.io/v1`` Events).
View = Callable[[dict[str, Any]], dict[str, Any]]
PROTOBUF_MESSAGE = (
    "the body of the request was in an unknown format - accepted media types include: application/json, "
    "application/yaml (this fake API server does not decode protobuf: imperative `kubectl create <kind>` "
    "sends protobuf; use `kubectl create ... --dry-run=client -o yaml | kubectl apply -f -` instead)")


def _status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                              "message": message, "reason": reason}
    if details is not None:
        status["details"] = details
    status["code"] = code
    return status


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass
class Response:
    code: int
    body: bytes = b""
    content_type: str = JSON
    headers: list[tuple[str, str]] = field(default_factory=list)
    stream: Iterator[bytes] | None = None
    close: bool = False

    @classmethod
    def json(cls, obj: Any, code: int = 200, headers: list[tuple[str, str]] | None = None) -> Response:
        return cls(code, _dumps(obj), headers=headers or [])

    @classmethod
    def status(cls, status: dict[str, Any], *, close: bool = False) -> Response:
        return cls(int(status.get("code") or 500), _dumps(status), close=close)

    @classmethod
    def unauthorized(cls) -> Response:
        """kube-apiserver's answer to credentials it does not accept (the connection closes: a
        request body, never read, cannot be left on it)."""
        return cls.status(_status(401, "Unauthorized", "Unauthorized"), close=True)

    @classmethod
    def internal_error(cls) -> Response:
        return cls.status(_status(500, "InternalError", "Internal error occurred: the fake API server failed to "
                                  "handle this request (see ClusterServer.errors)"), close=True)

    @classmethod
    def text(cls, text: str, code: int = 200) -> Response:
        return cls(code, text.encode(), content_type="text/plain; charset=utf-8")


# ---------------------------------------------------------------------- media types
def _media(value: str | None) -> str:
    return (value or "").split(";", 1)[0].strip().lower()


def decode_body(raw: bytes, content_type: str, duplicates: list[str] | None = None) -> Any:
    """JSON (also for patch types) or YAML; JSON types only, as kube-apiserver decodes."""
    media = _media(content_type)
    if media == PROTOBUF:
        raise ApiError.from_status(_status(415, "UnsupportedMediaType", PROTOBUF_MESSAGE))
    if media in ("", JSON, "*/*") or (media.endswith("+json") and media in PATCH_TYPES):
        try:
            found = wire.Duplicates()
            value = wire.load_json(raw, found)
            if duplicates is not None:
                duplicates.extend(found.messages)
            return value
        except wire.NotJson as err:
            raise BadRequest(f"the request body is not a JSON object: {err}") from None
        except (ValueError, UnicodeDecodeError) as err:
            raise BadRequest(f"json parse error: {err}") from None
    if media in (YAML, "application/x-yaml", "text/yaml", APPLY_PATCH):
        return _decode_yaml(raw, duplicates)
    raise ApiError.from_status(_status(
        415, "UnsupportedMediaType", f'the body of the request was in an unknown format - accepted media types '
        f'include: {JSON}, {YAML}' + (f'; got "{media}"' if media else "")))


def _decode_yaml(raw: bytes, duplicates: list[str] | None = None) -> Any:
    import yaml  # lazy: only YAML bodies need it

    found = wire.Duplicates()
    try:
        docs = list(wire.load_yaml_documents(raw, found))
        if duplicates is not None:
            duplicates.extend(found.messages)
        value = docs[0] if docs else None
    except wire.NotJson as err:
        raise BadRequest(f"error converting YAML to JSON: {err}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise BadRequest(f"error converting YAML to JSON: {err}") from None
    return value


def read_body(headers: Message, rfile: BufferedIOBase) -> bytes:
    """The request body, at most :data:`MAX_BODY_BYTES` (413 past that)."""
    if (headers.get("Transfer-Encoding") or "").lower() == "chunked":
        chunks: list[bytes] = []
        total = 0
        while True:
            size_line = rfile.readline(1024)
            try:
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
            except ValueError:
                raise BadRequest("malformed chunked request body") from None
            if size == 0:
                rfile.readline(1024)
                return b"".join(chunks)
            total += size
            if total > MAX_BODY_BYTES:
                raise _too_large()
            chunks.append(rfile.read(size))
            rfile.readline(1024)
    length_header = headers.get("Content-Length")
    if not length_header:
        return b""
    try:
        length = int(length_header)
    except ValueError:
        raise BadRequest(f"invalid Content-Length {length_header!r}") from None
    if length > MAX_BODY_BYTES:
        if length <= DRAIN_BYTES:  # read it away, so the client (still sending) sees the 413
            while length > 0:
                length -= len(rfile.read(min(length, 1 << 20))) or length
        raise _too_large()
    return rfile.read(length) if length > 0 else b""


def _too_large() -> ApiError:
    return ApiError.from_status(_status(413, "RequestEntityTooLarge",
                                        f"Request entity too large: limit is {MAX_BODY_BYTES}"))


# ---------------------------------------------------------------------- the handler
class RequestServer(Protocol):
    """What the handler reads of the server it handles requests for (``ClusterServer`` is one)."""

    @property
    def cluster(self) -> ServedCluster: ...

    @property
    def lock(self) -> threading.RLock:
        """The served cluster's lock."""
        ...

    @property
    def url(self) -> str: ...

    @property
    def closed(self) -> bool:
        """The server is shutting down: open watch streams end."""
        ...

    def open_watch(self) -> WatchQueue:
        """A bounded queue for one watch stream's events, known to the server until closed."""
        ...

    def close_watch(self, queue: WatchQueue) -> None: ...


class RequestHandler:
    """Turns requests into calls on the served cluster's API server."""

    def __init__(self, server: RequestServer) -> None:
        self.server = server
        self.cluster = server.cluster
        self.api = server.cluster.api
        self.lock = server.lock
        self.pager = Pager()

    def handle(self, method: str, path: str, query: dict[str, str], headers: Message,
               rfile: BufferedIOBase) -> Response:
        try:
            return self._route(method, path, query, headers, rfile)
        except ApiError as err:
            # An oversized or undecodable body was not read whole: the connection cannot be reused.
            return Response.status(err.status, close=err.code in (400, 413, 415))
        except UsageError as err:  # a name the registry does not know, reached through the URL
            return Response.status(_status(404, "NotFound", NOT_FOUND_MESSAGE, {}) if "unknown resource" in str(err)
                                   else _status(400, "BadRequest", str(err)))
        except SimulationError as err:  # a request the simulation cannot take (its budget): said, not hidden
            return Response.status(_status(500, "InternalError", f"Internal error occurred: {err}"))

    # ------------------------------------------------------------------ routing
    def _route(self, method: str, path: str, query: dict[str, str], headers: Message,
               rfile: BufferedIOBase) -> Response:
        clean = "/" + "/".join(p for p in path.split("/") if p)
        if clean in HEALTH_PATHS or clean.startswith(tuple(p + "/" for p in HEALTH_PATHS)):
            return Response.text("ok")
        info = parse_resource_path(method, clean, query)
        if info is None:
            if method not in ("GET", "HEAD"):
                return self._not_found() if not clean.startswith(("/api", "/version", "/openapi")) \
                    else Response.status(_status(405, "MethodNotAllowed", "the server does not allow this method "
                                                 "on the requested resource", {}))
            return self._document(clean, headers)
        if info.group == events_v1.GROUP and info.resource == "events":
            return self._events_v1(info, query, headers, rfile)
        with self.lock:
            rt = self._resource_type(info)
        if info.verb in ("get", "list", "watch"):
            if info.verb == "watch":
                return self._watch(rt, info, query, headers)
            return self._read(rt, info, query, headers)
        body = read_body(headers, rfile)
        return self._write(rt, info, query, headers, body)

    def _events_v1(self, info: RequestInfo, query: dict[str, str], headers: Message, rfile: BufferedIOBase) -> Response:
        """``events.k8s.io/v1`` Events: the core ``events`` resource, each object converted on the
        way in and out (:mod:`fakekube.http.events_v1`)."""
        if info.version != events_v1.VERSION or info.subresource is not None \
                or (info.namespace is None and info.verb not in ("list", "watch", "deletecollection")):
            raise NotFound(NOT_FOUND_MESSAGE, details={})
        with self.lock:
            rt = self.api.registry.by_key("events")
        if rt is None:
            raise NotFound(NOT_FOUND_MESSAGE, details={})
        if query.get("fieldSelector"):
            query = {**query, "fieldSelector": events_v1.field_selector(query["fieldSelector"]) or ""}
        core = dataclasses.replace(info, group="", version="v1")
        if info.verb == "watch":
            return self._watch(rt, core, query, headers, view=events_v1.to_v1)
        if info.verb in ("get", "list"):
            return self._read(rt, core, query, headers, view=events_v1.to_v1)
        return self._write(rt, core, query, headers, read_body(headers, rfile), view=events_v1.to_v1)

    def _not_found(self) -> Response:
        return Response.status(_status(404, "NotFound", NOT_FOUND_MESSAGE, {}))

    def _document(self, path: str, headers: Message) -> Response:
        """Discovery, /version and OpenAPI: documents built from the registry."""
        parts = path.strip("/").split("/")
        if not (path in ("/version", "/api", "/apis") or (parts[0] == "api" and len(parts) == 2)
                or (parts[0] == "apis" and len(parts) in (2, 3)) or parts[:2] == ["openapi", "v3"]):
            return self._not_found()
        with self.lock:
            registry = self.api.registry
            if path == "/version":
                return Response.json(discovery.version_info())
            if path in ("/api", "/apis"):
                version = discovery.aggregated_discovery_version(headers.get("Accept"))
                if version is not None:
                    aggregated = discovery.aggregated_discovery(registry, core=path == "/api", version=version)
                    return Response(200, _dumps(aggregated),
                                    content_type=discovery.aggregated_discovery_media_type(version))
                if path == "/api":
                    return Response.json(discovery.api_versions(self.server.url.split("://", 1)[1]))
                return Response.json(discovery.api_group_list(registry))
            doc: dict[str, Any] | None = None
            if parts[0] == "openapi":
                doc = openapi_v3.root(self.api) if len(parts) == 2 else openapi_v3.document(self.api, "/".join(parts[2:]))
            elif parts[0] == "api" or len(parts) == 3:
                doc = discovery.api_resource_list(registry, "/".join(parts[1:]))
            else:
                doc = _api_group(discovery.api_group_list(registry), parts[1])
        return Response.json(doc) if doc is not None else self._not_found()

    def _resource_type(self, info: RequestInfo) -> ResourceType:
        key = f"{info.resource}.{info.group}" if info.group else info.resource
        rt = self.api.registry.by_key(key)
        if rt is None or rt.version != info.version:
            raise NotFound(NOT_FOUND_MESSAGE, details={})
        if info.namespace is not None and not rt.namespaced:
            raise NotFound(NOT_FOUND_MESSAGE, details={})
        if rt.namespaced and info.namespace is None and info.verb not in ("list", "watch", "deletecollection"):
            raise NotFound(NOT_FOUND_MESSAGE, details={})
        if info.subresource is not None and info.subresource not in rt.subresources \
                and (rt.key, info.subresource) not in self.api.subresource_handlers \
                and not (rt.key == "pods" and info.subresource == "log"):
            raise NotFound(NOT_FOUND_MESSAGE, details={})
        return rt

    # ------------------------------------------------------------------ reads
    def _read(self, rt: ResourceType, info: RequestInfo, query: dict[str, str], headers: Message,
              view: View | None = None) -> Response:
        table = tables.table_version(headers.get("Accept"))
        with self.lock:
            if info.verb == "get":
                obj = self.api.get(rt, info.name or "", info.namespace, copy=False)
                if info.subresource == "log":
                    return Response.text(read_log(obj, container=query.get("container") or "",
                                                  tail=_int_param(query, "tailLines"),
                                                  limit=_int_param(query, "limitBytes")))
                if table:
                    return Response.json(self._table(rt, [obj], table, query))
                return Response.json(view(obj) if view else obj)
            limit = _int_param(query, "limit")
            key = (rt.key, info.namespace or "", query.get("labelSelector", ""), query.get("fieldSelector", ""))

            def read() -> tuple[list[dict[str, Any]], str]:
                lst = self.api.list(rt, info.namespace, label_selector=query.get("labelSelector") or None,
                                    field_selector=query.get("fieldSelector") or None, copy=False)
                return lst["items"], lst["metadata"]["resourceVersion"]

            page = self.pager.page(key, limit, query.get("continue"), read, lambda: str(self.api.store.rv))
            meta: dict[str, Any] = {"resourceVersion": page.resource_version}
            if page.continue_token:
                meta["continue"] = page.continue_token
                meta["remainingItemCount"] = page.remaining
            if table:
                doc = self._table(rt, page.items, table, query, list_metadata=meta)
            elif view is not None:
                items = [view(o) for o in page.items]
                doc = {"kind": f"{rt.kind}List", "apiVersion": items[0]["apiVersion"] if items else
                       view({})["apiVersion"], "metadata": meta, "items": items}
            else:
                doc = {"kind": f"{rt.kind}List", "apiVersion": rt.api_version, "metadata": meta, "items": page.items}
        return Response.json(doc)

    def _table(self, rt: ResourceType, objects: list[dict[str, Any]], api_version: str, query: dict[str, str], *,
               headers: bool = True, list_metadata: dict[str, Any] | None = None,
               now: int | None = None) -> dict[str, Any]:
        """``objects`` as a Table, ages at virtual instant ``now`` (default: the current one; under the
        lock: a custom resource's columns come from its CRD)."""
        with self.lock:
            crd = crd_for(self.api, rt) if rt.custom else None
            if now is None:
                now = self.cluster.loop.now
        return tables.table(rt, objects, now=now, crd=crd,
                            include_object=query.get("includeObject", "Metadata"), headers=headers,
                            list_metadata=list_metadata, api_version=api_version)

    # ------------------------------------------------------------------ watch
    def _watch(self, rt: ResourceType, info: RequestInfo, query: dict[str, str], headers: Message,
               view: View | None = None) -> Response:
        table = tables.table_version(headers.get("Accept"))
        timeout = _float_param(query, "timeoutSeconds")
        bookmarks = query.get("allowWatchBookmarks", "").lower() in ("true", "1")
        initial = query.get("sendInitialEvents", "").lower() in ("true", "1")
        queue = self.server.open_watch()
        try:
            with self.lock:
                watch = self.api.watch(
                    rt, lambda event: queue.put(event, self.cluster.loop.now), namespace=info.namespace, resource_version=query.get("resourceVersion") or None,
                    label_selector=query.get("labelSelector") or None,
                    field_selector=query.get("fieldSelector") or None, copy=False,
                    send_initial_events=initial, allow_bookmarks=bookmarks)
                self.cluster.loop.run_until_idle()
        except BaseException:
            self.server.close_watch(queue)
            raise
        deadline = wall() + (timeout if timeout is not None and timeout > 0 else DEFAULT_WATCH_TIMEOUT)

        first_row = [True]

        def encode(event: WatchEvent, at: int) -> bytes:
            obj = event.object
            if table and event.type in ("ADDED", "MODIFIED", "DELETED"):
                obj = self._table(rt, [obj], table, query, headers=first_row[0], now=at)
                first_row[0] = False
            elif view is not None and event.type in ("ADDED", "MODIFIED", "DELETED"):
                obj = view(obj)
            return _dumps({"type": event.type, "object": obj}) + b"\n"

        def bookmark() -> bytes | None:
            with self.lock:
                if watch.pending or len(queue):
                    return None
                rv = str(self.api.store.rv)
            api_version = view({})["apiVersion"] if view is not None else rt.api_version
            return _dumps({"type": "BOOKMARK", "object": {"kind": rt.kind, "apiVersion": api_version,
                                                          "metadata": {"resourceVersion": rv}}}) + b"\n"

        def stream() -> Iterator[bytes]:
            last_sent = wall()
            try:
                while not self.server.closed:
                    remaining = deadline - wall()
                    if remaining <= 0:
                        if bookmarks and (mark := bookmark()) is not None:
                            yield mark
                        return
                    events = queue.take(min(remaining, WATCH_POLL))
                    if events is None:
                        return
                    for event, at in events:
                        yield encode(event, at)
                        if event.type == "ERROR":
                            return
                    if events:
                        last_sent = wall()
                    elif bookmarks and wall() - last_sent >= BOOKMARK_INTERVAL:
                        mark = bookmark()
                        if mark is not None:
                            last_sent = wall()
                            yield mark
            finally:
                with self.lock:
                    watch.stop()
                self.server.close_watch(queue)

        return Response(200, stream=stream())

    # ------------------------------------------------------------------ writes
    def _write(self, rt: ResourceType, info: RequestInfo, query: dict[str, str], headers: Message,
               raw: bytes, view: View | None = None) -> Response:
        dry_run = _dry_run(query)
        content_type = headers.get("Content-Type") or ""
        verb = info.verb
        if view is not None and verb in ("patch", "create", "update"):
            return self._write_events_v1(rt, info, query, headers, raw, dry_run)
        if verb == "patch":
            media = _media(content_type)
            if media == PROTOBUF:
                decode_body(raw, media)  # raises the 415
            if media not in PATCH_TYPES:
                return Response.status(_status(415, "UnsupportedMediaType", "the body of the request was in an "
                                               "unknown format - accepted media types include: " + ", ".join(
                                                   PATCH_TYPES[:4])), close=False)
            write = WriteInfo()
            if media in (PATCH_TYPES[1], PATCH_TYPES[2]):  # merge, strategic: duplicate fields, for field validation
                found = wire.Duplicates()
                try:
                    wire.load_json(raw, found)
                    write.duplicates.extend(found.messages)
                except ValueError:
                    pass  # the patch decoder reports it, in kube-apiserver's words
            with self.lock:  # the raw body: the patch decoders give kube-apiserver's own messages
                result = self.api.patch(rt, info.name or "", raw, namespace=info.namespace, patch_type=media,
                                        subresource=info.subresource, dry_run=dry_run, force=_force(query),
                                        info=write, **self._options(query, headers))
                self.cluster.loop.run_until_idle()
            return _answer(result, 201 if write.created else 200, write)
        if verb in ("delete", "deletecollection"):
            options = decode_body(raw, content_type) if raw.strip() else {}
            return self._delete(rt, info, query, options if isinstance(options, dict) else {}, dry_run, view)
        write = WriteInfo()
        body = decode_body(raw, content_type, write.duplicates) if raw.strip() else None
        if not isinstance(body, dict):
            raise BadRequest("the body of the request must be a JSON object"
                             + ("" if raw.strip() else ", not empty"))
        with self.lock:
            if verb == "create":
                if info.name is not None and info.subresource is not None:
                    result = self.api.create_subresource(rt, info.name, info.subresource, body,
                                                         namespace=info.namespace)
                elif info.name is not None:
                    raise MethodNotAllowed("the server does not allow this method on the requested resource")
                else:
                    result = self.api.create(rt, body, namespace=info.namespace, dry_run=dry_run, info=write,
                                             **self._options(query, headers))
                code = 201
            elif verb == "update":
                if info.name is None:
                    raise MethodNotAllowed("the server does not allow this method on the requested resource")
                meta = body.get("metadata")
                body_name = meta.get("name") if isinstance(meta, dict) else None
                if body_name != info.name:
                    raise BadRequest(f"the name of the object ({body_name}) does not match the name on the URL "
                                     f"({info.name})")
                result = self.api.update(rt, body, namespace=info.namespace, subresource=info.subresource,
                                         dry_run=dry_run, info=write, **self._options(query, headers))
                code = 200
            else:
                raise MethodNotAllowed("the server does not allow this method on the requested resource")
            self.cluster.loop.run_until_idle()
        return _answer(result, code, write)

    def _write_events_v1(self, rt: ResourceType, info: RequestInfo, query: dict[str, str], headers: Message,
                         raw: bytes, dry_run: bool) -> Response:
        """A create, update or patch of an ``events.k8s.io/v1`` Event: the body (for a patch: the
        stored Event in this version, patched) is checked by this version's rules, converted to
        core and written as a core create or update."""
        write = WriteInfo()
        options = self._options(query, headers)
        with self.lock:
            if info.verb == "patch":
                media = _media(headers.get("Content-Type"))
                if media not in PATCH_TYPES[:3]:
                    return Response.status(_status(415, "UnsupportedMediaType", "the body of the request was in an "
                                                   "unknown format - accepted media types include: "
                                                   + ", ".join(PATCH_TYPES[:3])
                                                   + " (this fake API server does not apply server-side to "
                                                   "events.k8s.io/v1 Events: use core v1 Events)"))
                old = self.api.get(rt, info.name or "", info.namespace, copy=False)
                body = patching.apply_patch(events_v1.to_v1(old), raw, media, resource=rt.key, share=False)
                if not isinstance(body, dict):
                    raise BadRequest("the patch produced an object that is not a JSON object")
            else:
                decoded = decode_body(raw, headers.get("Content-Type") or "", write.duplicates) if raw.strip() else None
                if not isinstance(decoded, dict):
                    raise BadRequest("the body of the request must be a JSON object" + ("" if raw.strip() else ", not empty"))
                body = decoded
            given = body.get("metadata")
            meta: dict[str, Any] = given if isinstance(given, dict) else {}
            name = str(meta.get("name") or meta.get("generateName") or "")
            if info.verb == "update" and meta.get("name") != info.name:
                raise BadRequest(f"the name of the object ({meta.get('name')}) does not match the name on the URL "
                                 f"({info.name})")
            unknown = events_v1.unknown_core_names(body)
            if unknown and options["field_validation"] == "Strict":
                raise BadRequest('Event in version "v1" cannot be handled as a Event: strict decoding error: '
                                 + ", ".join(f'unknown field "{f}"' for f in unknown))
            events_v1.validate(body, name)
            core = events_v1.to_core(body)
            if info.verb == "create":
                result = self.api.create(rt, core, namespace=info.namespace, dry_run=dry_run, info=write, **options)
                code = 201
            else:
                result = self.api.update(rt, core, namespace=info.namespace, dry_run=dry_run, info=write, **options)
                code = 200
            self.cluster.loop.run_until_idle()
        if options["field_validation"] != "Ignore":
            write.warnings.extend(f'unknown field "{f}"' for f in unknown)
        return _answer(events_v1.to_v1(result), code, write)

    @staticmethod
    def _options(query: dict[str, str], headers: Message) -> dict[str, Any]:
        """``fieldManager`` (absent: "" -- the write is named after its User-Agent, as upstream),
        ``fieldValidation`` (absent: the server default, Warn) and the User-Agent."""
        return {"field_manager": query.get("fieldManager", ""), "field_validation": query.get("fieldValidation"),
                "user_agent": headers.get("User-Agent") or ""}

    def _delete(self, rt: ResourceType, info: RequestInfo, query: dict[str, str], options: dict[str, Any],
                dry_run: bool, view: View | None = None) -> Response:
        policy = options.get("propagationPolicy") or query.get("propagationPolicy") or None
        orphan = options.get("orphanDependents")
        if orphan is None and "orphanDependents" in query:
            orphan = query["orphanDependents"].lower() in ("true", "1")
        if policy is None and orphan is not None:
            policy = "Orphan" if orphan else "Background"
        grace = options.get("gracePeriodSeconds")
        if grace is None and "gracePeriodSeconds" in query:
            grace = _int_param(query, "gracePeriodSeconds")
        if grace is not None and (not isinstance(grace, int) or isinstance(grace, bool)):
            raise BadRequest(f"gracePeriodSeconds must be an integer, got {grace!r}")
        preconditions = options.get("preconditions") or None
        dry_run = dry_run or options.get("dryRun") == ["All"]
        with self.lock:
            if info.verb == "deletecollection":
                lst = self.api.list(rt, info.namespace, label_selector=query.get("labelSelector") or None,
                                    field_selector=query.get("fieldSelector") or None, copy=False)
                deleted = []
                for obj in lst["items"]:
                    meta = obj["metadata"]
                    try:
                        self.api.delete(rt, meta["name"], namespace=meta.get("namespace"),
                                        propagation_policy=policy, grace_period_seconds=grace, dry_run=dry_run)
                    except NotFound:
                        continue
                    deleted.append(obj)
                self.cluster.loop.run_until_idle()
                return Response.json({"kind": f"{rt.kind}List",
                                      "apiVersion": view({})["apiVersion"] if view else rt.api_version,
                                      "metadata": {"resourceVersion": str(self.api.store.rv)},
                                      "items": [view(o) for o in deleted] if view else deleted})
            result = self.api.delete(rt, info.name or "", namespace=info.namespace, propagation_policy=policy,
                                     grace_period_seconds=grace, preconditions=preconditions, dry_run=dry_run)
            lingering = not dry_run and self.api.store.get(rt.key, info.namespace or "", info.name or "") is not None
            self.cluster.loop.run_until_idle()
        # As kube-apiserver: 202 only for an object not yet gone whose deletion asked orphanDependents=false
        # (answering 202 for every lingering object would break existing clients, upstream says).
        if view is not None and result.get("kind") == rt.kind:
            result = view(result)
        return Response.json(result, 202 if lingering and orphan is False else 200)


def _answer(result: dict[str, Any], code: int, write: WriteInfo) -> Response:
    """A write's answer, its warnings as ``Warning: 299 - "..."`` headers (as kube-apiserver sends them)."""
    return Response.json(result, code, headers=[("Warning", f'299 - "{_escape_warning(w)}"') for w in write.warnings])


def _escape_warning(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _force(query: dict[str, str]) -> bool | None:
    raw = query.get("force")
    if raw in (None, ""):
        return None
    if raw.lower() not in ("true", "false", "1", "0"):
        raise BadRequest(f'invalid value for force: "{raw}" is not a boolean')
    return raw.lower() in ("true", "1")


def _api_group(group_list: dict[str, Any], name: str) -> dict[str, Any] | None:
    """``/apis/{group}``: the ``APIGroup`` entry of the group list."""
    for group in group_list.get("groups") or []:
        if group.get("name") == name:
            return {"kind": "APIGroup", "apiVersion": "v1", **{k: v for k, v in group.items() if k != "kind"}}
    return None


# ---------------------------------------------------------------------- query parameters
def _int_param(query: dict[str, str], name: str) -> int | None:
    raw = query.get(name)
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except ValueError:
        raise BadRequest(f'invalid value for {name}: "{raw}" is not an integer') from None


def _float_param(query: dict[str, str], name: str) -> float | None:
    raw = query.get(name)
    if raw in (None, ""):
        return None
    try:
        value = float(raw)
    except ValueError:
        raise BadRequest(f'invalid value for {name}: "{raw}" is not a number') from None
    if not math.isfinite(value):
        raise BadRequest(f'invalid value for {name}: "{raw}" is not a number')
    return value


def _dry_run(query: dict[str, str]) -> bool:
    value = query.get("dryRun")
    if value in (None, ""):
        return False
    if value != "All":
        raise BadRequest(f'Invalid dry run value: Unsupported value: "{value}": supported values: "All"')
    return True

