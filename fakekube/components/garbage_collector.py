"""The garbage collector (``pkg/controller/garbagecollector``), on the simulated control plane.

It keeps its own graph from watches of every resource (owner UID → dependents) and acts through
the API only:

- an object whose owners are all gone (missing, or present with another UID) is deleted, with
  the policy its own finalizers imply (``orphan`` → Orphan, ``foregroundDeletion`` →
  Foreground, else Background); an object with an owner of a kind the server does not serve is
  left alone until that kind is served;
- an owner deleted with ``Orphan`` has its reference stripped from every dependent, then loses
  the ``orphan`` finalizer;
- an owner deleted with ``Foreground`` has all its dependents deleted, and loses
  ``foregroundDeletion`` once no dependent that blocks it (``blockOwnerDeletion: true``) is left.
"""

from __future__ import annotations

import itertools
from functools import partial
from typing import Any

from fakekube._core.jsonutil import deep_copy
from fakekube._core.lru import Lru
from fakekube.apiserver.server import WatchEvent
from fakekube.errors import Conflict, NotFound, UsageError
from fakekube.machinery.objects import ObjectMeta, OwnerReference
from fakekube.runtime.context import Runtime

__all__ = ["GarbageCollector"]

ORPHAN, FOREGROUND = "orphan", "foregroundDeletion"
ABSENT_OWNER_CACHE_ENTRIES = 500
Ref = tuple[str, str, str]  # (resource key, namespace, name)
Entry = tuple[Ref, dict[str, Any], int]  # (ref, last seen object, sequence number of that event)


class GarbageCollector:
    name = "garbage-collector"

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.client = rt.shared_client("garbage-collector")
        # uid -> (ref, object, seq): seq numbers the events seen, so an owner's dependents can be
        # visited in the order of their last change (the graph's order) without reordering the
        # dependents sets on every write.
        self.objects: dict[str, Entry] = {}
        self.dependents: dict[str, dict[str, None]] = {}  # owner uid -> dependent uids
        self._seq = itertools.count()
        self._watches: dict[str, Any] = {}
        self._crds: Any = None
        self.queue = rt.controller("garbage-collector", self._process)
        # (namespace, uid) of owners found missing (upstream's ReferenceCache of 500 entries)
        self._absent_owners: Lru[tuple[str, str], bool] = Lru(ABSENT_OWNER_CACHE_ENTRIES)
        # dependents with an owner of a kind the server does not serve: looked at again once a
        # CustomResourceDefinition is served (upstream retries them with the queue's backoff)
        self._unresolved: dict[str, None] = {}

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self.queue.start()
        for rtype in self.rt.server.registry.all():
            self._watch(rtype.key)
        self._crds = self.client.watch("customresourcedefinitions", self._on_crd)

    def stop(self) -> None:
        self.queue.stop()
        for watch in self._watches.values():
            watch.stop()
        self._watches.clear()
        if self._crds is not None:
            self._crds.stop()
            self._crds = None

    def _watch(self, key: str) -> None:
        if key in self._watches or key == "events":
            return
        self._watches[key] = self.client.watch(key, partial(self._on_event, key))

    def _on_crd(self, event: WatchEvent) -> None:
        spec = event.object.get("spec") or {}
        key = f"{(spec.get('names') or {}).get('plural', '')}.{spec.get('group', '')}"
        if event.type != "DELETED" and self.rt.server.registry.by_key(key) is not None:
            self._watch(key)
            unresolved, self._unresolved = self._unresolved, {}
            for uid in unresolved:
                self.queue.enqueue(("dependent", uid))

    # ------------------------------------------------------------------ graph upkeep
    def _on_event(self, resource: str, event: WatchEvent) -> None:
        kind = event.type
        if kind not in ("ADDED", "MODIFIED", "DELETED"):
            return
        obj = event.object
        meta: ObjectMeta = obj["metadata"]
        uid = meta["uid"]
        previous = self.objects.get(uid)
        if previous is not None and kind != "DELETED":
            owners = meta.get("ownerReferences")
            old_owners = previous[1]["metadata"].get("ownerReferences")
            if owners is old_owners or owners == old_owners:
                # The common case: a write that leaves the owner references alone changes no edge
                # of the graph and needs no look as a dependent.
                self.objects[uid] = (previous[0], obj, next(self._seq))
                if meta.get("deletionTimestamp"):
                    self._check_owner(uid, meta)
                return
        ref: Ref = (resource, meta.get("namespace") or "", meta["name"])
        if previous is not None:
            for owner in previous[1]["metadata"].get("ownerReferences") or ():
                bucket = self.dependents.get(owner["uid"])
                if bucket is not None:
                    bucket.pop(uid, None)
        if kind == "DELETED":
            self.objects.pop(uid, None)
            self._unresolved.pop(uid, None)
            for dep_uid in self._dependents_of(uid):
                self._enqueue_dependent(dep_uid)
            for owner in meta.get("ownerReferences") or ():
                self._enqueue_owner(owner["uid"])
            return
        self.objects[uid] = (ref, obj, next(self._seq))
        refs = meta.get("ownerReferences") or ()
        for owner in refs:
            self.dependents.setdefault(owner["uid"], {})[uid] = None
        # processGraphChanges: a dependent needs a look only when its owner references change and
        # one of those owners is not (yet) in the graph; owners' own deletions enqueue their dependents.
        old_owners = previous[1]["metadata"].get("ownerReferences") if previous is not None else None
        if refs and refs != old_owners and any(o.get("uid") not in self.objects for o in refs):
            self.queue.enqueue(("dependent", uid))
        if meta.get("deletionTimestamp"):
            self._check_owner(uid, meta)

    def _check_owner(self, uid: str, meta: ObjectMeta) -> None:
        """An object being deleted with the ``orphan`` or ``foregroundDeletion`` finalizer needs work."""
        finalizers = meta.get("finalizers") or ()
        if ORPHAN in finalizers or FOREGROUND in finalizers:
            self.queue.enqueue(("owner", uid))

    def _dependents_of(self, uid: str) -> list[str]:
        """The known dependents of ``uid``, least recently changed first."""
        objects = self.objects
        return sorted((d for d in self.dependents.get(uid, ()) if d in objects), key=lambda d: objects[d][2])

    def _enqueue_dependent(self, uid: str) -> None:
        if uid in self.objects:
            self.queue.enqueue(("dependent", uid))

    def _enqueue_owner(self, uid: str) -> None:
        entry = self.objects.get(uid)
        if entry is not None and entry[1]["metadata"].get("deletionTimestamp"):
            self.queue.enqueue(("owner", uid))

    # ------------------------------------------------------------------ work
    def _process(self, key: tuple[str, str]) -> None:
        what, uid = key
        entry = self.objects.get(uid)
        if entry is None:
            return
        if what == "owner":
            self._process_owner(uid, entry[0], entry[1])
        else:
            self._attempt_to_delete(uid, entry[0], entry[1])

    def _owner_state(self, namespace: str, owner: OwnerReference) -> str:
        """``solid``, ``waiting`` (in foreground deletion), ``dangling`` or ``unresolvable`` (a kind
        the server does not serve) — from a live lookup, unless the owner is known to be absent
        (``isDangling``'s ``absentOwnerCache``: a UID that was missing never comes back, so the
        entry cannot go stale)."""
        try:
            rtype = self.rt.server.registry.for_object(
                {"apiVersion": owner.get("apiVersion", ""), "kind": owner.get("kind", "")})
        except (NotFound, UsageError):  # a kind the server does not serve (yet)
            return "unresolvable"
        absent_key = (namespace if rtype.namespaced else "", owner.get("uid", ""))
        if self._absent_owners.get(absent_key) is not None:
            return "dangling"
        try:
            live = self.client.get(rtype.key, owner.get("name", ""), namespace if rtype.namespaced else None)
        except NotFound:
            self._absent_owners.add(absent_key, True)
            return "dangling"
        meta: ObjectMeta = live["metadata"]
        if meta.get("uid") != owner.get("uid"):
            self._absent_owners.add(absent_key, True)
            return "dangling"
        if meta.get("deletionTimestamp") and FOREGROUND in (meta.get("finalizers") or ()):
            return "waiting"
        return "solid"

    def _attempt_to_delete(self, uid: str, ref: Ref, obj: dict[str, Any]) -> None:
        meta: ObjectMeta = obj["metadata"]
        owners = meta.get("ownerReferences") or []
        if not owners or (meta.get("deletionTimestamp") and not meta.get("finalizers")):
            return
        states = [(o, self._owner_state(ref[1], o)) for o in owners]
        if any(s == "unresolvable" for _, s in states):
            # Upstream's restMappingError: nothing is decided for this object (not even the stale
            # references of its other owners) until the kind is served; it retries, and so do we
            # when a CustomResourceDefinition comes to be served (``_on_crd``).
            self._unresolved[uid] = None
            return
        solid = [o for o, s in states if s == "solid"]
        if solid:
            stale = [o["uid"] for o, s in states if s != "solid"]
            if stale:
                patch = {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": u} for u in stale]}}
                self._patch(ref, patch, "strategic")
            return
        if meta.get("deletionTimestamp"):
            return
        waiting = any(s == "waiting" for _, s in states)
        finalizers = meta.get("finalizers") or ()
        if waiting and self.dependents.get(uid):
            policy = "Foreground"
        elif ORPHAN in finalizers:
            policy = "Orphan"
        elif FOREGROUND in finalizers:
            policy = "Foreground"
        else:
            policy = "Background"
        self.rt.trace.add(f"garbage-collector delete {ref[0]} {ref[1] + '/' if ref[1] else ''}{ref[2]} "
                          f"(owners gone; propagationPolicy={policy})")
        try:
            self.client.delete(ref[0], ref[2], ref[1] or None, propagation_policy=policy,
                               preconditions={"uid": uid})
        except (NotFound, Conflict):
            return

    def _process_owner(self, uid: str, ref: Ref, obj: dict[str, Any]) -> None:
        meta: ObjectMeta = obj["metadata"]
        finalizers = list(meta.get("finalizers") or ())
        deps = self._dependents_of(uid)
        if ORPHAN in finalizers:
            for dep in deps:
                dep_ref = self.objects[dep][0]
                self._patch(dep_ref, {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": uid}]}},
                            "strategic")
            self._remove_finalizer(ref, ORPHAN)
            return
        if FOREGROUND not in finalizers:
            return
        blocking = 0
        for dep in deps:
            dep_ref, dep_obj, _ = self.objects[dep]
            dep_meta: ObjectMeta = dep_obj["metadata"]
            blocks = any(o.get("uid") == uid and o.get("blockOwnerDeletion")
                         for o in dep_meta.get("ownerReferences") or ())
            if blocks:
                blocking += 1
            if not dep_meta.get("deletionTimestamp"):
                self.queue.enqueue(("dependent", dep))
        if blocking == 0:
            self._remove_finalizer(ref, FOREGROUND)

    def _patch(self, ref: Ref, patch: dict[str, Any], patch_type: str) -> None:
        try:
            self.client.patch(ref[0], ref[2], patch, ref[1] or None, patch_type=patch_type)
        except NotFound:
            return

    def _remove_finalizer(self, ref: Ref, finalizer: str) -> None:
        try:
            live = deep_copy(self.client.get(ref[0], ref[2], ref[1] or None))
        except NotFound:
            return
        remaining = [f for f in live["metadata"].get("finalizers") or () if f != finalizer]
        live["metadata"]["finalizers"] = remaining
        try:
            self.client.update(live)
        except (NotFound, Conflict):
            self._enqueue_owner(live["metadata"]["uid"])
