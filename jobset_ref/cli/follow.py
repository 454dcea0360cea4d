"""``simulate --follow KIND/NAME``: the history of one object (or of every pod that bore a
hostname): each change the API server stored, as a diff of field paths at its virtual time."""

from __future__ import annotations

from typing import Any

from fakekube.clock import format_offset
from jobset_ref.cli.common import CliError

__all__ = ["Follower", "diff"]

_KINDS = {"pod": "pods", "pods": "pods", "job": "jobs.batch", "jobs": "jobs.batch", "jobset": "jobsets.jobset.x-k8s.io",
          "jobsets": "jobsets.jobset.x-k8s.io", "service": "services", "svc": "services", "services": "services",
          "node": "nodes", "nodes": "nodes"}
#: Kueue's kinds, followed when Kueue is installed.
_KUEUE_KINDS = {"workload": "workloads.kueue.x-k8s.io", "clusterqueue": "clusterqueues.kueue.x-k8s.io",
                "localqueue": "localqueues.kueue.x-k8s.io"}
_KINDS.update({**_KUEUE_KINDS, **{f"{k}s": v for k, v in _KUEUE_KINDS.items()},
               "cq": _KUEUE_KINDS["clusterqueue"], "lq": _KUEUE_KINDS["localqueue"]})
_SINGULAR = {"svc": "service", "cq": "clusterqueue", "lq": "localqueue"}
_NOISE = ("metadata.resourceVersion", "metadata.managedFields")


def _flatten(value: Any, path: str, out: dict[str, Any]) -> dict[str, Any]:
    if isinstance(value, dict) and value:
        for key, child in value.items():
            _flatten(child, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list) and value and any(isinstance(v, dict | list) for v in value):
        for i, child in enumerate(value):
            _flatten(child, f"{path}[{i}]", out)
    elif not path.startswith(_NOISE):
        out[path] = value
    return out


def diff(old: dict[str, Any] | None, new: dict[str, Any]) -> list[str]:
    """``+ path: value``, ``- path`` and ``~ path: old -> new`` lines, in path order."""
    before, after = _flatten(old, "", {}) if old is not None else {}, _flatten(new, "", {})
    lines = []
    for path in sorted(before.keys() | after.keys()):
        if path not in before:
            lines.append(f"+ {path}: {after[path]!r}" if old is not None else f"  {path}: {after[path]!r}")
        elif path not in after:
            lines.append(f"- {path}")
        elif before[path] != after[path]:
            lines.append(f"~ {path}: {before[path]!r} -> {after[path]!r}")
    return lines


class Follower:
    """Watches one kind and records every version of the objects ``spec`` names (``pod/NAME``:
    a pod name, its hostname or a name prefix; other kinds: a name or prefix)."""

    def __init__(self, cluster: Any, spec: str) -> None:
        kind, sep, name = spec.partition("/")
        if not sep or not name or kind.lower() not in _KINDS:
            raise CliError(f"--follow {spec!r}: use KIND/NAME with KIND one of pod, job, jobset, service, node "
                           "(with Kueue also workload, clusterqueue, localqueue)")
        resource = _KINDS[kind.lower()]
        if cluster.api.registry.by_key(resource) is None:
            raise CliError(f"--follow {spec!r}: Kueue is not installed (it is when a manifest holds a "
                           "kueue.x-k8s.io object, or with --kueue)")
        self.spec = spec
        self.cluster = cluster
        self.kind = _SINGULAR.get(kind.lower(), kind.lower().rstrip("s"))
        self.name = name
        self.events: list[tuple[int, str, str, dict[str, Any] | None, dict[str, Any]]] = []
        self._last: dict[str, dict[str, Any]] = {}
        self._watch = cluster.runtime.shared_client("follow").watch(resource, self._on_event)

    def _matches(self, obj: dict[str, Any]) -> bool:
        name = obj["metadata"]["name"]
        hostname = (obj.get("spec") or {}).get("hostname") if self.kind == "pod" else None
        return name == self.name or hostname == self.name or name.startswith(f"{self.name}-")

    def _on_event(self, event: Any) -> None:
        obj = event.object
        if not isinstance(obj, dict) or not self._matches(obj):
            return
        name = obj["metadata"]["name"]
        old = self._last.get(name)
        if event.type == "DELETED":
            self._last.pop(name, None)
        else:
            self._last[name] = obj
        self.events.append((self.cluster.loop.now, event.type, name, old, obj))

    def stop(self) -> None:
        self._watch.stop()

    def as_dicts(self) -> list[dict[str, Any]]:
        return [{"time": format_offset(now), "type": etype, "name": name,
                 "changes": diff(old, obj) if etype != "DELETED" else []}
                for now, etype, name, old, obj in self.events]

    def lines(self) -> list[str]:
        out = [f"# history of {self.spec} ({len({e[2] for e in self.events})} object(s), "
               f"{len(self.events)} change(s))"]
        if not self.events:
            out.append(f"  (no {self.kind} matched {self.name!r})")
        for now, etype, name, old, obj in self.events:
            out.append(f"{format_offset(now)}  {etype:<8} {self.kind}/{name}")
            if etype != "DELETED":
                out += [f"    {line}" for line in diff(old, obj)]
        return out
