"""The client tests and controllers use: Kubernetes verbs over the in-memory API server.

Objects go in and come out as plain wire-form dicts, always deep copies: what you pass is never
kept by the server and what you get back is yours to change. ``kind`` arguments accept any name
the API server's discovery knows: ``Pod``, ``pods``, ``po``, ``jobs.batch``, ``JobSet``.

fakekube's own simulators use :class:`fakekube.runtime._shared_client.SharedClient` instead,
the same verbs without the copies.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

from fakekube._core.clock import SimTime
from fakekube.apiserver.field_manager import WriteInfo
from fakekube.apiserver.server import ApiServer, WatchEvent
from fakekube.errors import ApiWarning, UsageError
from fakekube.runtime.watch_handle import WatchHandle

__all__ = ["Client"]


def _require_obj(obj: Any, verb: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise UsageError(f"{verb}() takes a wire-form object (a dict with apiVersion, kind and metadata), "
                         f"got {type(obj).__name__}")
    return obj


def _write_info(field_validation: str | None) -> WriteInfo | None:
    """What a write with ``field_validation`` collects (see :func:`_issue_warnings`).

    No ``field_validation`` (an in-process write): nothing is checked, as kube-apiserver's
    typed clients never send unknown fields, and nothing is collected."""
    return None if field_validation is None else WriteInfo()


def _issue_warnings(info: WriteInfo | None) -> None:
    """Issue what a successful write collected as :class:`ApiWarning`, attributed to the first
    caller outside fakekube (the test's line, not the harness verb that made the call)."""
    if info is not None and info.warnings:
        level = _first_frame_outside_fakekube()
        for text in info.warnings:
            warnings.warn(ApiWarning(text), stacklevel=level)


_FAKEKUBE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _first_frame_outside_fakekube() -> int:
    """The ``stacklevel`` (seen from :func:`_issue_warnings`) of the nearest frame whose code is
    not fakekube's (Python 3.12's ``skip_file_prefixes``, which 3.11 lacks)."""
    frame = sys._getframe(1)  # _issue_warnings: stacklevel 1
    level = 1
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(_FAKEKUBE_DIR):
        frame = frame.f_back
        level += 1
    return level


class _Verbs:
    """The verbs of a client bound to one API server; ``_shares`` (fixed per class) says whether
    objects cross the boundary as copies (``Client``) or as the server's own (``SharedClient``).
    ``user_agent`` names the caller's writes in the managedFields of objects that have them (as
    kube-apiserver names a write without a field manager after its User-Agent)."""

    _shares: ClassVar[bool]
    #: Writes are built by one of fakekube's simulators (see ``fakekube.runtime.context.SIMULATORS``).
    _trusted: ClassVar[bool] = False

    def __init__(self, server: ApiServer, *, user_agent: str = "client") -> None:
        self.server = server
        self.user_agent = user_agent

    # ------------------------------------------------------------------ reads
    def get(self, kind: str, name: str, namespace: str | None = "default") -> dict[str, Any]:
        """GET one object."""
        return self.server.get(kind, name, namespace, copy=not self._shares)

    def list(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None) -> list[dict[str, Any]]:
        """Items only; use ``list_object`` for the ``<Kind>List`` with its resourceVersion."""
        items: list[dict[str, Any]] = self.list_object(kind, namespace, label_selector=label_selector,
                                                       field_selector=field_selector)["items"]
        return items

    def list_object(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
                    field_selector: str | None = None) -> dict[str, Any]:
        return self.server.list(kind, namespace, label_selector=label_selector, field_selector=field_selector,
                                copy=not self._shares)

    def watch(self, kind: str, handler: Callable[[WatchEvent], None], *, namespace: str | None = None,
              resource_version: str | None = None, label_selector: str | None = None,
              field_selector: str | None = None, delay: SimTime = 0) -> WatchHandle:
        return self.server.watch(kind, handler, namespace=namespace, resource_version=resource_version,
                                 label_selector=label_selector, field_selector=field_selector,
                                 copy=not self._shares, delay=delay)

    # ------------------------------------------------------------------ writes
    def _kind_of(self, obj: dict[str, Any]) -> Any:
        return self.server.registry.for_object(obj)

    @property
    def _writer(self) -> str | None:
        """What the API server's ``trusted=`` gets: this client's name when it writes for a simulator."""
        return self.user_agent if self._trusted else None

    # ``field_validation`` (``Strict``, ``Warn`` or ``Ignore``) checks the body against the kind's
    # schema as ``?fieldValidation=`` does: Strict rejects unknown fields (400), Warn issues an
    # ApiWarning for each. Without it nothing is checked.
    def create(self, obj: dict[str, Any], *, namespace: str | None = None, dry_run: bool = False,
               field_validation: str | None = None) -> dict[str, Any]:
        obj = _require_obj(obj, "create")
        info = _write_info(field_validation)
        created = self.server.create(self._kind_of(obj), obj, namespace=namespace, dry_run=dry_run,
                                     copy_result=not self._shares, fresh_body=self._shares,
                                     user_agent=self.user_agent, field_validation=field_validation, info=info,
                                     trusted=self._writer)
        _issue_warnings(info)
        return created

    def update(self, obj: dict[str, Any], *, dry_run: bool = False,
               field_validation: str | None = None) -> dict[str, Any]:
        obj = _require_obj(obj, "update")
        info = _write_info(field_validation)
        updated = self.server.update(self._kind_of(obj), obj, dry_run=dry_run, copy_result=not self._shares,
                                     fresh_body=self._shares, user_agent=self.user_agent,
                                     field_validation=field_validation, info=info, trusted=self._writer)
        _issue_warnings(info)
        return updated

    def update_status(self, obj: dict[str, Any]) -> dict[str, Any]:
        obj = _require_obj(obj, "update_status")
        return self.server.update(self._kind_of(obj), obj, subresource="status", copy_result=not self._shares,
                                  fresh_body=self._shares, user_agent=self.user_agent, trusted=self._writer)

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = "default", *,
              patch_type: str = "merge", subresource: str | None = None,
              field_validation: str | None = None) -> dict[str, Any]:
        info = _write_info(field_validation)
        patched = self.server.patch(kind, name, patch, namespace=namespace, patch_type=patch_type,
                                    subresource=subresource, copy_result=not self._shares,
                                    user_agent=self.user_agent, field_validation=field_validation, info=info,
                                    trusted=self._writer)
        _issue_warnings(info)
        return patched

    def delete(self, kind: str, name: str, namespace: str | None = "default", *,
               propagation_policy: str | None = None, grace_period_seconds: int | None = None,
               preconditions: dict[str, str] | None = None) -> dict[str, Any]:
        return self.server.delete(kind, name, namespace=namespace, propagation_policy=propagation_policy,
                                  grace_period_seconds=grace_period_seconds, preconditions=preconditions,
                                  copy_result=not self._shares)

    def create_subresource(self, kind: str, name: str, subresource: str, body: dict[str, Any],
                           namespace: str | None = "default") -> dict[str, Any]:
        return self.server.create_subresource(kind, name, subresource, body, namespace=namespace)

    def bind(self, pod_name: str, node_name: str, namespace: str = "default") -> dict[str, Any]:
        """``POST pods/<name>/binding``."""
        return self.create_subresource("pods", pod_name, "binding", {
            "apiVersion": "v1", "kind": "Binding", "metadata": {"name": pod_name, "namespace": namespace},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node_name}}, namespace)

    def evict(self, pod_name: str, namespace: str = "default",
              grace_period_seconds: int | None = None) -> dict[str, Any]:
        """``POST pods/<name>/eviction``."""
        body: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "Eviction",
                                "metadata": {"name": pod_name, "namespace": namespace}}
        if grace_period_seconds is not None:
            body["deleteOptions"] = {"gracePeriodSeconds": grace_period_seconds}
        return self.create_subresource("pods", pod_name, "eviction", body, namespace)

    @property
    def now(self) -> SimTime:
        return self.server.now


class Client(_Verbs):
    """A client bound to one API server. ``user_agent`` names the caller in nothing but the trace.

    Every object crosses as a deep copy: bodies are copied on the way in, results (and watch
    events) on the way out.
    """

    _shares = False
