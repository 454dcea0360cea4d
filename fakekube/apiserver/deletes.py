"""The API server's delete: preconditions, finalizers and propagation policy, graceful deletion
(``genericregistry.Store.Delete``, Kubernetes 1.34).
"""

from __future__ import annotations

from typing import Any

from fakekube._core.clock import SECOND, format_time
from fakekube._core.jsonutil import deep_copy
from fakekube.apiserver.admission import DELETE
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server_core import ServerCore
from fakekube.errors import Conflict, Invalid, NotFound
from fakekube.store import MODIFIED

__all__ = ["DeleteVerbs"]

ORPHAN, FOREGROUND = "orphan", "foregroundDeletion"
PROPAGATION_POLICIES = ("Orphan", "Background", "Foreground")


class DeleteVerbs(ServerCore):
    """The delete verb of :class:`~fakekube.apiserver.server.ApiServer`."""

    # ================================================================== delete
    def delete(self, resource: str | ResourceType, name: str, *, namespace: str | None = None,
               propagation_policy: str | None = None, grace_period_seconds: int | None = None,
               preconditions: dict[str, str] | None = None, dry_run: bool = False,
               copy_result: bool = True) -> dict[str, Any]:
        """DELETE: finalizers and graceful deletion turn it into an update; else the object goes.

        Returns the object (when it lingers, or for kinds that return it, such as Pods) or a
        ``Status`` of ``Success``; ``copy_result`` as for :meth:`create`.
        """
        rt = self.resource(resource)
        ns = self._ns(rt, namespace)
        self._react("delete", rt, ns, name, None)
        if propagation_policy is not None and propagation_policy not in PROPAGATION_POLICIES:
            raise Invalid(f'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: '
                          f'"{propagation_policy}": supported values: "Foreground", "Background", "Orphan", "nil"',
                          details={"group": "meta.k8s.io", "kind": "DeleteOptions", "causes": [
                              {"reason": "FieldValueNotSupported", "field": "propagationPolicy",
                               "message": f'Unsupported value: "{propagation_policy}": supported values: '
                                          '"Foreground", "Background", "Orphan", "nil"'}]})
        old = self.store.get(rt.key, ns, name)
        if old is None:
            raise NotFound.for_object(rt.names, name)
        old_meta = old["metadata"]
        self._check_preconditions(rt, name, old_meta, preconditions or {})
        self._check_namespace(rt, ns, name, DELETE)
        if old_meta.get("deletionTimestamp") and rt.strategy.finalizing(old):
            return deep_copy(old) if copy_result else old  # a terminating Namespace stays as it is
        # Deletion only changes metadata: the new version shares everything else with the stored
        # (never mutated) old one.
        new = {**old, "metadata": dict(old_meta)}  # metadata fields are replaced, never edited in place
        meta = new["metadata"]
        finalizers = list(meta.get("finalizers") or [])
        policy = propagation_policy
        if policy is None:
            if ORPHAN in finalizers or FOREGROUND in finalizers:
                policy = None
            else:
                policy = rt.strategy.default_gc_policy
        if policy == "Orphan":
            finalizers = [f for f in finalizers if f != FOREGROUND]
            finalizers += [] if ORPHAN in finalizers else [ORPHAN]
        elif policy == "Foreground":
            finalizers = [f for f in finalizers if f != ORPHAN]
            finalizers += [] if FOREGROUND in finalizers else [FOREGROUND]
        elif policy == "Background":
            finalizers = [f for f in finalizers if f not in (ORPHAN, FOREGROUND)]
        grace = rt.strategy.grace_period(old, grace_period_seconds)
        if old_meta.get("deletionTimestamp"):
            # Already terminating: a shorter grace period may be applied, never a longer one.
            current = old_meta.get("deletionGracePeriodSeconds")
            if current is not None and grace < current and grace > 0:
                meta["deletionGracePeriodSeconds"] = grace
                meta["deletionTimestamp"] = format_time(self.now + grace * SECOND)
            elif grace == 0 and current:
                meta["deletionGracePeriodSeconds"] = 0
            if finalizers != list(old_meta.get("finalizers") or []):
                meta["finalizers"] = finalizers
            if not meta.get("finalizers") and not meta.get("deletionGracePeriodSeconds"):
                return self._delete_now(rt, new, dry_run, copy_result)
            result = old if new == old else new if dry_run else self._persist(rt, new, "delete", MODIFIED)
            return deep_copy(result) if copy_result else result
        marked = rt.strategy.prepare_for_delete(new, self._context())
        if not finalizers and grace == 0 and not marked:
            return self._delete_now(rt, new, dry_run, copy_result)
        if finalizers:
            meta["finalizers"] = finalizers
        else:
            meta.pop("finalizers", None)
        meta["deletionTimestamp"] = format_time(self.now + grace * SECOND)
        if not marked:
            meta["deletionGracePeriodSeconds"] = grace
        if rt.strategy.tracks_generation or "generation" in meta:
            meta["generation"] = int(meta.get("generation", 0)) + 1
        if dry_run:
            return deep_copy(new) if copy_result else new
        result = self._persist(rt, new, "delete", MODIFIED)
        return deep_copy(result) if copy_result else result

    def _check_preconditions(self, rt: ResourceType, name: str, meta: dict[str, Any],
                             pre: dict[str, str]) -> None:
        uid, rv = pre.get("uid"), pre.get("resourceVersion")
        if uid is None and rv is None:
            return
        label = f'{rt.names.qualified_kind} "{name}"'
        if uid is not None and uid != meta.get("uid"):
            raise Conflict(f"Operation cannot be fulfilled on {label}: the UID in the precondition ({uid}) does "
                           f"not match the UID in record ({meta.get('uid')}). The object might have been deleted "
                           "and then recreated")
        if rv is not None and rv != meta.get("resourceVersion"):
            raise Conflict(f"Operation cannot be fulfilled on {label}: the ResourceVersion in the precondition "
                           f"({rv}) does not match the ResourceVersion in record ({meta.get('resourceVersion')}). "
                           "The object might have been modified")

    def _delete_now(self, rt: ResourceType, obj: dict[str, Any], dry_run: bool,
                    copy_result: bool = True) -> dict[str, Any]:
        if not dry_run:
            obj = self._remove(rt, obj)
        if rt.strategy.return_deleted_object:
            return deep_copy(obj) if copy_result else obj
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                "details": {"name": obj["metadata"]["name"], "group": rt.group, "kind": rt.plural,
                            "uid": obj["metadata"]["uid"]}}
