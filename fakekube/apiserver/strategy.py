"""Per-kind rules the API server applies (Kubernetes' ``rest.RESTCreateStrategy`` and friends).

A ``Strategy`` defaults, prepares and validates objects of one kind; the generic request flow in
``server.py`` calls it at the points the real ``genericregistry.Store`` does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakekube._core.clock import SimTime
from fakekube.errors import FieldError
from fakekube.machinery import validation as v

__all__ = ["Context", "Strategy"]

NameRule = Callable[[str, bool], list[str]]


@dataclass(frozen=True, slots=True)
class Context:
    """What a strategy may know about the request besides the objects."""

    now: SimTime
    subresource: str | None = None


_OUTSIDE_SPEC = frozenset({"metadata", "status"})  # the fields whose changes do not bump generation


class Strategy:
    """Defaults for a kind with no special rules; subclasses override what differs."""

    name_rule: NameRule = staticmethod(v.name_is_dns_subdomain)
    allow_unconditional_update: bool = True
    tracks_generation: bool = True
    default_gc_policy: str = "Background"
    return_deleted_object: bool = False

    # --- create ---------------------------------------------------------------
    def default(self, obj: dict[str, Any]) -> None:
        """Schema defaults applied on decode (``SetDefaults_*``); mutate ``obj`` in place."""

    def prepare_for_create(self, obj: dict[str, Any], ctx: Context) -> None:
        """``PrepareForCreate``: e.g. clear status."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """Kind-specific validation of a new object (ObjectMeta is validated by the server)."""
        return []

    # --- update ---------------------------------------------------------------
    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any], ctx: Context) -> None:
        """Main-resource update: status cannot change here (when the kind has a status subresource)."""

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any], ctx: Context) -> None:
        """``/status`` update: everything but status keeps its old value (an override may keep more
        of ``new``)."""
        if "spec" in old:
            new["spec"] = old["spec"]
        else:
            new.pop("spec", None)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.validate(new)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return []

    def spec_changed(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        """Whether ``generation`` must be bumped: anything outside metadata and status changed."""
        compared = 0
        for key, value in new.items():
            if key in _OUTSIDE_SPEC:
                continue
            if key not in old or (old[key] is not value and old[key] != value):
                return True
            compared += 1
        return compared != len(old.keys() - _OUTSIDE_SPEC)  # a field only old has

    # --- delete ---------------------------------------------------------------
    def grace_period(self, obj: dict[str, Any], requested: int | None) -> int:
        """Seconds of graceful deletion (0 means delete at once); only Pods are graceful."""
        return 0

    def prepare_for_delete(self, obj: dict[str, Any], ctx: Context) -> bool:
        """The first DELETE of a kind that terminates in steps (Namespaces, ``REST.Delete``) makes
        its own changes to ``obj`` (a copy whose subtrees may be shared with the stored object:
        replace them, never edit them) and returns True: the object stays, with
        ``deletionTimestamp`` now and no grace period, whatever its finalizers. Other kinds return
        False and the generic rules (finalizers, grace period) decide."""
        return False

    def finalizing(self, obj: dict[str, Any]) -> bool:
        """Whether the kind's own finalization still holds ``obj`` once its deletion was asked for
        (a Namespace's ``spec.finalizers``): a DELETE then returns it unchanged, and a write that
        clears ``metadata.finalizers`` does not remove it (``ShouldDeleteDuringUpdate``)."""
        return False
