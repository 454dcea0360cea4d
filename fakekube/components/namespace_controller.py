"""The namespace controller (``pkg/controller/namespace``), on the simulated control plane.

A DELETE only marks a namespace ``Terminating`` (the API server keeps it while its
``spec.finalizers`` hold the ``kubernetes`` token); this controller empties it and lets it go,
acting through the API only:

- a namespace seen with a ``deletionTimestamp`` is synced 5 s later
  (``namespaceDeletionGracePeriod``), again 5 s after each change to it;
- a sync (``namespacedResourcesDeleter.Delete``) sets ``status.phase: Terminating`` if needed,
  then for every namespaced resource the server serves (custom resources included, in resource
  key order where upstream walks a Go map) deletes every object with
  ``propagationPolicy: Background`` -- so the content's own finalizers and grace periods apply
  and pods terminate gracefully -- and lists what is left;
- it writes the five deletion conditions (``NamespaceDeletionDiscoveryFailure``,
  ``NamespaceDeletionGroupVersionParsingFailure``, ``NamespaceDeletionContentFailure``,
  ``NamespaceContentRemaining``, ``NamespaceFinalizersRemaining``) with upstream's reasons and
  messages, whenever one of them changes;
- content left behind is waited for: the longest ``terminationGracePeriodSeconds`` of the
  namespace's live pods while that much time has not passed since the deletion, else 15 s when
  what is left has finalizers; the next sync comes ``estimate / 2 + 1`` seconds later. Content
  left without either, and any API error, fail the sync: it is retried after 5 ms · 2ⁿ, at most
  60 s (``nsControllerRateLimiter``);
- once nothing is left it removes ``kubernetes`` from ``spec.finalizers`` through
  ``PUT namespaces/<name>/finalize`` (the rest sorted, as a Go string set lists them); the
  server removes the namespace when no finalizer is left.

Not modelled: discovery failures (every served resource is known), the informer's 5-minute
resync, the rate limiter's overall 10 qps bucket, and a wait for content remaining keeping the
failure count of earlier failed syncs (client-go forgets it only on success; here any sync that
returns normally forgets it). Retrying a write on conflict stops after 10 attempts (upstream
does not stop).
"""

from __future__ import annotations

from typing import Any

from fakekube._core.clock import MILLISECOND, SECOND, format_time, parse_time
from fakekube._core.jsonutil import deep_copy
from fakekube.apiserver.resources import ResourceType
from fakekube.errors import ApiError, Conflict, NotFound
from fakekube.runtime.context import Runtime
from fakekube.runtime.controller import Backoff, Result
from fakekube.runtime.informer import Informer

__all__ = ["NamespaceController", "NamespaceDeletionError"]

FINALIZER_TOKEN = "kubernetes"
NAMESPACE_DELETION_GRACE_PERIOD = 5 * SECOND
FINALIZER_ESTIMATE_SECONDS = 15
RATE_LIMITER = Backoff(5 * MILLISECOND, 60 * SECOND)
CONFLICT_RETRIES = 10

DISCOVERY_FAILURE = "NamespaceDeletionDiscoveryFailure"
GV_PARSING_FAILURE = "NamespaceDeletionGroupVersionParsingFailure"
CONTENT_FAILURE = "NamespaceDeletionContentFailure"
CONTENT_REMAINING = "NamespaceContentRemaining"
FINALIZERS_REMAINING = "NamespaceFinalizersRemaining"
#: Every condition type the deleter maintains, in the order it first adds them, with the
#: reason and message of its "all is well" (status False) variant.
OK_CONDITIONS: dict[str, tuple[str, str]] = {
    DISCOVERY_FAILURE: ("ResourcesDiscovered", "All resources successfully discovered"),
    GV_PARSING_FAILURE: ("ParsedGroupVersions", "All legacy kube types successfully parsed"),
    CONTENT_FAILURE: ("ContentDeleted", "All content successfully deleted, may be waiting on finalization"),
    CONTENT_REMAINING: ("ContentRemoved", "All content successfully removed"),
    FINALIZERS_REMAINING: ("ContentRemoved", "All content successfully removed"),
}


class NamespaceDeletionError(Exception):
    """A sync that could not finish (``utilerrors.NewAggregate`` of what went wrong): retried
    after the controller's rate limit."""


class _Remaining:
    """``gvrDeletionMetadata``: the wait estimated for one resource and what is left of it."""

    __slots__ = ("count", "estimate", "finalizers")

    def __init__(self, estimate: int = 0, count: int = 0, finalizers: dict[str, int] | None = None) -> None:
        self.estimate = estimate
        self.count = count
        self.finalizers = finalizers or {}


def _aggregate(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message alone, several (deduplicated) in brackets."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def _gvr(rtype: ResourceType) -> str:
    """``schema.GroupVersionResource.String()``: ``/v1, Resource=pods``, ``batch/v1, Resource=jobs``."""
    return f"{rtype.group}/{rtype.version}, Resource={rtype.plural}"


class NamespaceController:
    name = "namespace-controller"

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.client = rt.shared_client("namespace-controller")
        self.queue = rt.controller("namespace-controller", self._sync, backoff=RATE_LIMITER,
                                   retry_on=(ApiError, NamespaceDeletionError), verb="sync")
        self._namespaces: Informer | None = None
        self._running = False

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self._running = True
        self.queue.start()
        if self._namespaces is None:
            self._namespaces = self.rt.informer("namespaces")
            self._namespaces.add_handler(self._on_namespace)
        for ns in self._namespaces.list():
            self._enqueue(ns)

    def stop(self) -> None:
        self._running = False
        self.queue.stop()

    def _on_namespace(self, event: str, ns: dict[str, Any], old: dict[str, Any] | None) -> None:
        if self._running and event != "DELETED":
            self._enqueue(ns)

    def _enqueue(self, ns: dict[str, Any]) -> None:
        """``enqueueNamespace``: only a namespace being deleted, after the grace period."""
        if ns["metadata"].get("deletionTimestamp"):
            self.queue.enqueue(("", ns["metadata"]["name"]), NAMESPACE_DELETION_GRACE_PERIOD)

    # ------------------------------------------------------------------ sync
    def _sync(self, key: tuple[str, str]) -> Result | None:
        name = key[1]
        if self._namespaces is None or self._namespaces.get(name) is None:  # syncNamespaceFromKey: gone from the lister
            return None
        try:
            ns = self.client.get("namespaces", name, None)
            if not ns["metadata"].get("deletionTimestamp"):
                return None
            ns = self._retry_on_conflict(ns, self._ensure_terminating)
        except NotFound:
            return None
        if not (ns.get("spec") or {}).get("finalizers"):
            return None  # finalized: other finalizers, or a second DELETE, are someone else's
        estimate = self._delete_all_content(ns)
        if estimate > 0:
            wait = estimate // 2 + 1
            self.rt.trace.add(f"namespace-controller sync /{name}: some content remains in the namespace, "
                              f"estimate {estimate} seconds before it is removed (retry in {wait}s)")
            return Result(requeue_after=wait * SECOND)
        try:
            self._retry_on_conflict(ns, self._finalize)
        except NotFound:
            pass
        return None

    def _retry_on_conflict(self, ns: dict[str, Any], write: Any) -> dict[str, Any]:
        """``retryOnConflictError``: on a conflict, read the namespace again and redo the write."""
        latest = ns
        for _ in range(CONFLICT_RETRIES):
            try:
                result: dict[str, Any] = write(latest)
                return result
            except Conflict:
                previous = latest
                latest = self.client.get("namespaces", previous["metadata"]["name"], None)
                if latest["metadata"]["uid"] != previous["metadata"]["uid"]:
                    raise NamespaceDeletionError("namespace uid has changed across retries") from None
        raise NamespaceDeletionError(f"namespace {ns['metadata']['name']} still conflicts after "
                                     f"{CONFLICT_RETRIES} attempts")

    def _ensure_terminating(self, ns: dict[str, Any]) -> dict[str, Any]:
        """``updateNamespaceStatusFunc``."""
        if (ns.get("status") or {}).get("phase") == "Terminating":
            return ns
        body = deep_copy(ns)
        body.setdefault("status", {})["phase"] = "Terminating"
        return self.client.update_status(body)

    def _finalize(self, ns: dict[str, Any]) -> dict[str, Any]:
        """``finalizeNamespace``: PUT ``/finalize`` without the ``kubernetes`` token."""
        spec = ns.get("spec") or {}
        rest = sorted({f for f in spec.get("finalizers") or () if f != FINALIZER_TOKEN})
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": dict(ns["metadata"]),
                "spec": {**spec, "finalizers": rest}}
        try:
            result: dict[str, Any] = self.rt.server.update("namespaces", body, subresource="finalize",
                                                           copy_result=False, fresh_body=True,
                                                           user_agent=self.client.user_agent)
        except NotFound:
            return ns
        return result

    # ------------------------------------------------------------------ content
    def _delete_all_content(self, ns: dict[str, Any]) -> int:
        """``deleteAllContent``: the longest wait estimated; raises if some resource failed."""
        name = ns["metadata"]["name"]
        deleted_at = parse_time(ns["metadata"]["deletionTimestamp"])
        errors: list[str] = []
        estimate = 0
        remaining: dict[str, int] = {}
        finalizers: dict[str, int] = {}
        for rtype in self.rt.server.registry.all():
            if not rtype.namespaced:
                continue
            left, error = self._delete_resource(rtype, name, deleted_at)
            if error is not None:
                errors.append(error)
            estimate = max(estimate, left.estimate)
            if left.count:
                remaining[f"{rtype.plural}.{rtype.group}"] = left.count
                for finalizer, count in left.finalizers.items():
                    finalizers[finalizer] = finalizers.get(finalizer, 0) + count
        self._update_conditions(ns, self._failures(remaining, finalizers, errors))
        if errors:
            raise NamespaceDeletionError(_aggregate(errors))
        return estimate

    def _delete_resource(self, rtype: ResourceType, namespace: str, deleted_at: int) -> tuple[_Remaining, str | None]:
        """``deleteAllContentForGroupVersionResource``: delete the collection, then see what is left."""
        try:
            estimate = self._pod_estimate(namespace) if rtype.key == "pods" else 0
        except ApiError as err:
            return _Remaining(), err.message
        if self.rt.now - deleted_at >= estimate * SECOND:
            estimate = 0
        try:
            for item in self.client.list(rtype.key, namespace):
                try:
                    self.client.delete(rtype.key, item["metadata"]["name"], namespace,
                                       propagation_policy="Background")
                except NotFound:
                    continue
            left = self.client.list(rtype.key, namespace)
        except ApiError as err:
            return _Remaining(estimate), err.message
        if not left:
            return _Remaining(), None
        held: dict[str, int] = {}
        for item in left:
            for finalizer in item["metadata"].get("finalizers") or ():
                held[finalizer] = held.get(finalizer, 0) + 1
        if estimate:
            return _Remaining(estimate, len(left), held), None
        if held:
            return _Remaining(FINALIZER_ESTIMATE_SECONDS, len(left), held), None
        return (_Remaining(0, len(left)),
                f"unexpected items still remain in namespace: {namespace} for gvr: {_gvr(rtype)}")

    def _pod_estimate(self, namespace: str) -> int:
        """``estimateGracefulTerminationForPods``: the longest grace period of the pods not yet finished."""
        estimate = 0
        for pod in self.client.list("pods", namespace):
            if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                continue
            grace = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
            if grace is not None and grace > estimate:
                estimate = int(grace)
        return estimate

    # ------------------------------------------------------------------ conditions
    @staticmethod
    def _failures(remaining: dict[str, int], finalizers: dict[str, int],
                  errors: list[str]) -> dict[str, tuple[str, str]]:
        """``namespaceConditionUpdater``: the conditions that are True, as (reason, message)."""
        failing: dict[str, tuple[str, str]] = {}
        if remaining:
            parts = sorted(f"{resource} has {n} resource instances" for resource, n in remaining.items())
            failing[CONTENT_REMAINING] = ("SomeResourcesRemain", "Some resources are remaining: " + ", ".join(parts))
        if finalizers:
            parts = sorted(f"{finalizer} in {n} resource instances" for finalizer, n in finalizers.items())
            failing[FINALIZERS_REMAINING] = ("SomeFinalizerRemain",
                                             "Some finalizers are remaining: " + ", ".join(parts))
        if errors:
            failing[CONTENT_FAILURE] = ("ContentDeletionFailed", f"Failed to delete all resource types, "
                                        f"{len(errors)} remaining: " + ", ".join(sorted(errors)))
        return failing

    def _update_conditions(self, ns: dict[str, Any], failing: dict[str, tuple[str, str]]) -> None:
        """``updateConditions``: write the status when a condition's status, reason or message changed
        (``lastTransitionTime`` moves only with the status)."""
        now = format_time(self.rt.now)
        conditions = [dict(c) for c in (ns.get("status") or {}).get("conditions") or ()]
        changed = False
        for ctype, ok in OK_CONDITIONS.items():
            status, (reason, message) = ("True", failing[ctype]) if ctype in failing else ("False", ok)
            current = next((c for c in conditions if c.get("type") == ctype), None)
            if current is None:
                conditions.append({"type": ctype, "status": status, "lastTransitionTime": now,
                                   "reason": reason, "message": message})
                changed = True
            elif (current.get("status"), current.get("reason"), current.get("message")) != (status, reason, message):
                if current.get("status") != status:
                    current["lastTransitionTime"] = now
                current.update(status=status, reason=reason, message=message)
                changed = True
        if not changed:
            return
        body = deep_copy(ns)
        body.setdefault("status", {})["conditions"] = conditions
        try:
            self.client.update_status(body)
        except ApiError as err:
            self.rt.trace.add(f"namespace-controller couldn't update status condition for namespace "
                              f"\"{ns['metadata']['name']}\": {err.message}")
