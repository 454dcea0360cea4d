"""Field ownership (``metadata.managedFields``) and server-side apply, as pure functions.

A re-implementation of ``sigs.k8s.io/structured-merge-diff`` (field sets, FieldsV1, the typed
compare/merge/remove walkers, ``merge.Updater``) and of the bookkeeping
``k8s.io/apimachinery/pkg/util/managedfields`` does around it (manager identities, entry
order, conflict messages). Values are wire-form JSON (dicts, lists, scalars) typed by a
:class:`~fakekube.machinery.field_types.FieldType`; inputs are never mutated.

Paths and field sets are :mod:`fakekube.machinery.field_sets` (with FieldsV1, the encoding of a
set); the typed compare/merge/remove walkers are :mod:`fakekube.machinery.typed_walkers`. This
module keeps ownership: managers, the managedFields entries, and updates and applies.

Updates and applies
-------------------
:func:`update` records a non-apply write: the writer owns what it added or changed, and loses
(as does everyone) what it removed; other managers lose what it changed. :func:`apply` merges an
applied configuration into the live object, removes what the applier applied last time but no
longer does (unless someone else owns it), and refuses (:class:`ApplyConflicts`) to change a value
another manager owns unless forced, in which case that manager loses it.

Deterministic where Go iterates maps: objects are walked in document order; managers are
visited in identifier order.
"""


from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from fakekube.errors import go_quote
from fakekube.machinery.field_sets import (
    Element,
    ManagedFieldsError,
    Path,
    decode_fields,
    encode_fields,
    exclude,
    go_json,
    json_equal,
    path_string,
    sorted_paths,
)
from fakekube.machinery.field_types import FieldType
from fakekube.machinery.typed_walkers import (
    FieldPathError,
    compare,
    ensure_named_fields,
    merge,
    remove_items,
    to_field_set,
)

__all__ = [
    "APPLY",
    "FIELD_MANAGER_MAX_LENGTH",
    "STRIPPED_PATHS",
    "UPDATE",
    "ApplyConflicts",
    "FieldPathError",
    "Managed",
    "ManagedFieldsError",
    "Manager",
    "Ownership",
    "Path",
    "apply",
    "decode_managed_fields",
    "encode_managed_fields",
    "manager_from_user_agent",
    "update",
]

APPLY: Final = "Apply"
UPDATE: Final = "Update"
FIELD_MANAGER_MAX_LENGTH: Final = 128
MAX_UPDATE_MANAGERS: Final = 10
ANCIENT_CHANGES: Final = "ancient-changes"


def _f(name: str) -> Element:
    return ("f", name)


STRIPPED_PATHS: Final[frozenset[Path]] = frozenset({
    (_f("apiVersion"),), (_f("kind"),), (_f("metadata"),),
    *((_f("metadata"), _f(name)) for name in (
        "name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
        "managedFields", "resourceVersion")),
})
"""Paths no manager ever owns (``stripMetaManager``)."""


@dataclass(frozen=True, slots=True, order=True)
class Manager:
    """Who owns fields: a managedFields entry's identity (``BuildManagerIdentifier``).

    ``api_version`` is part of an Update manager's identity only; an applier keeps its identity
    across versions.
    """

    manager: str
    operation: str
    api_version: str = ""
    subresource: str = ""

    @classmethod
    def updater(cls, manager: str, api_version: str, subresource: str | None = None) -> Manager:
        return cls(manager or "unknown", UPDATE, api_version, subresource or "")

    @classmethod
    def applier(cls, manager: str, subresource: str | None = None) -> Manager:
        return cls(manager or "unknown", APPLY, "", subresource or "")

    @property
    def identifier(self) -> str:
        """The JSON upstream keys managers by (and sorts conflicts by)."""
        entry: dict[str, str] = {"manager": self.manager, "operation": self.operation}
        if self.api_version:
            entry["apiVersion"] = self.api_version
        if self.subresource:
            entry["subresource"] = self.subresource
        return _go_json_ordered(entry)

    def describe(self) -> str:
        """``printManager``: ``"kubectl"``, ``"ctrl" with subresource "status" using batch/v1``."""
        text = go_quote(self.manager)
        if self.subresource:
            text += f" with subresource {go_quote(self.subresource)}"
        if self.operation == UPDATE:
            text += f" using {self.api_version}"
        return text


def _go_json_ordered(entry: dict[str, str]) -> str:
    return "{" + ",".join(f"{go_json(k)}:{go_json(v)}" for k, v in entry.items()) + "}"


@dataclass(frozen=True, slots=True)
class Ownership:
    """The fields one manager owns, the API version it wrote them in and when it last changed them."""

    fields: frozenset[Path]
    api_version: str
    time: str | None = None


Managed = dict[Manager, Ownership]


def manager_from_user_agent(user_agent: str | None) -> str:
    """The manager kube-apiserver names a write that carries no ``fieldManager``: the User-Agent
    up to its first ``/``, printable characters only, at most 128 bytes (``prefixFromUserAgent``);
    ``unknown`` when that leaves nothing."""
    out: list[str] = []
    size = 0
    for ch in (user_agent or "").split("/", 1)[0]:
        if not ch.isprintable():
            continue
        width = len(ch.encode())
        if size + width > FIELD_MANAGER_MAX_LENGTH:
            break
        out.append(ch)
        size += width
    return "".join(out) or "unknown"


def decode_managed_fields(entries: Any) -> Managed:
    """``DecodeManagedFields``: entries keyed by manager identity; :class:`ManagedFieldsError` on bad input."""
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise ManagedFieldsError("managedFields must be a list")
    managed: Managed = {}
    for i, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            raise ManagedFieldsError(f"managed fields entry {i} must be an object")
        operation = entry.get("operation")
        if operation not in (APPLY, UPDATE):
            raise ManagedFieldsError("operation must be `Apply` or `Update`")
        api_version = entry.get("apiVersion") or ""
        if not api_version:
            raise ManagedFieldsError("apiVersion must not be empty")
        fields_type = entry.get("fieldsType") or ""
        if not fields_type:
            raise ManagedFieldsError(f"missing fieldsType in managed fields entry {i}")
        if fields_type != "FieldsV1":
            raise ManagedFieldsError(f'invalid fieldsType "{fields_type}" in managed fields entry {i}')
        who = Manager(str(entry.get("manager") or ""), operation,
                      "" if operation == APPLY else str(api_version), str(entry.get("subresource") or ""))
        time = entry.get("time")
        managed[who] = Ownership(frozenset(decode_fields(entry.get("fieldsV1") or {})), str(api_version),
                                 str(time) if time else None)
    return managed


def encode_managed_fields(managed: Managed) -> list[dict[str, Any]] | None:
    """Entries in upstream's order (operation, time, manager, apiVersion, subresource); None when empty."""
    if not managed:
        return None

    def order(item: tuple[Manager, Ownership]) -> tuple[Any, ...]:
        who, own = item
        return (who.operation, (1, own.time) if own.time else (0, ""), who.manager, own.api_version,
                who.subresource)

    out: list[dict[str, Any]] = []
    for who, own in sorted(managed.items(), key=order):
        entry: dict[str, Any] = {"manager": who.manager, "operation": who.operation, "apiVersion": own.api_version}
        if own.time:
            entry["time"] = own.time
        entry["fieldsType"] = "FieldsV1"
        entry["fieldsV1"] = encode_fields(own.fields)
        if who.subresource:
            entry["subresource"] = who.subresource
        out.append(entry)
    return out


def update(old: Any, new: Any, managed: Managed, who: Manager, t: FieldType, *, now: str,
           reset: frozenset[Path] = frozenset()) -> Managed:
    """Managers after a non-apply write from ``old`` to ``new`` by ``who``.

    ``who`` owns what it added or changed (outside ``reset``, the fields its strategy resets) and
    is stamped ``now`` when that is anything; every manager loses what was removed, others lose
    what ``who`` changed. More than 10 Update managers are folded, oldest first, into
    ``ancient-changes``.
    """
    c = compare(old, new, t).excluding(reset)
    changed = c.modified | c.added
    out = _without(managed, changed | c.removed)
    own = exclude(changed, reset) - STRIPPED_PATHS
    if own:
        previous = out.get(who)
        fields = own | previous.fields if previous is not None else own
        out[who] = Ownership(frozenset(fields), who.api_version or (previous.api_version if previous else ""), now)
    return _cap_update_managers(out)


def _without(managed: Managed, lost: set[Path], keep: Manager | None = None) -> Managed:
    out: Managed = {}
    for who, own in managed.items():
        if who != keep and lost:
            remaining = own.fields - lost
            if not remaining:
                continue
            if len(remaining) != len(own.fields):
                own = Ownership(frozenset(remaining), own.api_version, own.time)
        out[who] = own
    return out


def _cap_update_managers(managed: Managed) -> Managed:
    updaters = [who for who in managed if who.operation == UPDATE]
    if len(updaters) <= MAX_UPDATE_MANAGERS:
        return managed
    out = dict(managed)
    updaters.sort(key=lambda who: ((1, out[who].time) if out[who].time else (0, ""), who.identifier))
    first_of_version: dict[str, Manager] = {}
    length = len(updaters)
    for who in updaters:
        if length <= MAX_UPDATE_MANAGERS:
            break
        own = out[who]
        bucket = Manager(ANCIENT_CHANGES, UPDATE, own.api_version)
        first = first_of_version.get(own.api_version)
        if first is None:
            first_of_version[own.api_version] = who
            continue
        if bucket not in out:
            out[bucket] = out.pop(first)
        out[bucket] = Ownership(own.fields | out[bucket].fields, own.api_version, own.time)
        del out[who]
        length -= 1
    return out


class ApplyConflicts(Exception):
    """An apply would change values other managers own: ``(manager, path)`` pairs, in message order."""

    def __init__(self, conflicts: list[tuple[Manager, Path]]) -> None:
        self.conflicts = conflicts
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """``getConflictMessage``."""
        if len(self.conflicts) == 1:
            who, path = self.conflicts[0]
            return f"Apply failed with 1 conflict: conflict with {who.describe()}: {path_string(path)}"
        lines: list[str] = []
        current: Manager | None = None
        for who, path in self.conflicts:
            if who != current:
                lines.append(f"conflicts with {who.describe()}:")
                current = who
            lines.append(f"- {path_string(path)}")
        return f"Apply failed with {len(self.conflicts)} conflicts: " + "\n".join(lines)

    def causes(self) -> list[dict[str, str]]:
        """``details.causes``: one ``FieldManagerConflict`` per conflicting field."""
        return [{"reason": "FieldManagerConflict", "message": f"conflict with {who.describe()}",
                 "field": path_string(path)} for who, path in self.conflicts]


def apply(live: Any, config: Any, managed: Managed, who: Manager, api_version: str, t: FieldType, *,
          force: bool, reset: frozenset[Path] = frozenset()) -> tuple[Any, Managed]:
    """Apply ``config`` as ``who`` (``Updater.Apply``): the new object (None when nothing
    changed) and the managers after it. ``who``'s entry is left unstamped: the caller stamps it
    when the object changed. Raises :class:`ApplyConflicts` unless ``force``."""
    merged = merge(live, config, t)
    last = managed.get(who)
    applied = exclude(to_field_set(config, t), reset)
    managers = dict(managed)
    managers[who] = Ownership(frozenset(applied), api_version, last.time if last is not None else None)
    if last is not None and last.fields:
        merged = _prune(merged, managers, last.fields, t)
    c = compare(live, merged, t).excluding(reset)
    changed = c.modified | c.added
    conflicts: list[tuple[Manager, Path]] = []
    for other in sorted(managers, key=lambda m: m.identifier):
        if other != who:
            clash = managers[other].fields & changed
            conflicts.extend((other, p) for p in sorted_paths(clash))
    if conflicts and not force:
        raise ApplyConflicts(conflicts)
    out = _without(managers, changed | c.removed, keep=who)
    mine = applied - STRIPPED_PATHS
    if mine:
        out[who] = Ownership(frozenset(mine), api_version, out[who].time)
    else:
        out.pop(who, None)
    return (None if json_equal(live, merged) else merged), out


def _prune(merged: Any, managers: Managed, last: frozenset[Path], t: FieldType) -> Any:
    """Remove what the applier applied last time and no manager owns now (``Updater.prune``)."""
    owned: set[Path] = set()
    for own in managers.values():
        owned |= own.fields
    drop = ensure_named_fields(last, t) - ensure_named_fields(owned, t)
    return remove_items(merged, drop, t) if drop else merged
