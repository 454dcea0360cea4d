"""The state of one scenario run: its cluster, where the run is in the file, the recorder of
condition times, failure reports, and objects read straight from the store (so injected faults
never hit the runner's own reads).

The runner imports only fakekube's public modules (the import-linter contracts check it). Its
one deliberate reach past the harness's verbs is here and in ``runner``: it reads objects from
``cluster.api.store`` and resolves kinds with ``cluster.api.registry`` (reads that no fault
reactor intercepts and the trace never records, so a scenario's expectations cannot perturb the
run they check), and ends each run with ``store.verify_frozen()``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fakekube import FakeCluster, UsageError
from fakekube.clock import format_offset, to_seconds
from fakekube.faults import is_live
from fakekube.machinery.selectors import parse_label_selector
from jobset_ref.conformance.external import ExternalController, ExternalOptions
from jobset_ref.conformance.scenario import ExpectationFailed, Scenario, ScenarioError

__all__ = ["JOBSETS", "JOBSET_NAME_LABEL", "TRACE_TAIL", "Recorder", "RunContext", "fmt_time"]

JOBSETS = "jobsets.jobset.x-k8s.io"
JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name"
TRACE_TAIL = 40


def fmt_time(ns: int | None) -> str:
    """An instant as the virtual seconds a scenario writes (``62.01s``), exact."""
    if ns is None:
        return "never"
    value = to_seconds(ns)
    short = f"{value:g}"
    return f"{short if float(short) == value else repr(value)}s"


@dataclass
class Recorder:
    """First virtual time each (kind, namespace, name, condition type, status) was observed, and
    invariant violations seen on the way (restarts decreasing, terminalState changing)."""

    first: dict[tuple[str, str, str, str, str], int] = field(default_factory=dict)
    restarts: dict[tuple[str, str], int] = field(default_factory=dict)
    terminal: dict[tuple[str, str], str] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)


class RunContext:
    """A run's state and the helpers every part of it uses."""

    def __init__(self, scenario: Scenario, *, update_golden: bool = False,
                 external: ExternalOptions | None = None) -> None:
        self.scenario = scenario
        self.data = scenario.data
        self.update_golden = update_golden
        self.where = "setup"
        cluster_cfg = self.data.get("cluster") or {}
        seed = cluster_cfg.get("seed", 0)
        if not isinstance(seed, int):
            raise ScenarioError(f"{scenario.path}: cluster.seed must be an int")
        # check_frozen: every scenario also proves no component edits a stored (shared) object in place.
        self.cluster = FakeCluster(seed=seed, simulate=cluster_cfg.get("simulate", True), check_frozen=True,
                                   strict=True)
        self.recorder = Recorder()
        self.watches: list[Any] = []
        self.monitor: Any = None
        #: External mode: the served cluster and the controller command (started by ``setup``).
        self.external_options = external
        self.external: ExternalController | None = None

    # ------------------------------------------------------------------ failure helpers
    def fail(self, headline: str, *, expectation: Any = None, mismatches: Iterable[str] = ()) -> ExpectationFailed:
        return ExpectationFailed(f"{self.scenario.id}: {headline}",
                                 where=f"{self.where} (t={format_offset(self.cluster.loop.now)})",
                                 expectation=expectation, mismatches=mismatches, context=self.context())

    def context(self) -> str:
        from jobset_ref.testing.assertions import summary_table

        parts: list[str] = []
        try:
            parts += ["--- objects ---", summary_table(self.cluster)]
        except Exception as err:  # the report must never hide the failure itself
            parts.append(f"(could not summarise objects: {err})")
        tail = self.cluster.trace.tail(TRACE_TAIL)
        parts += [f"--- trace tail (last {len(tail)} lines; seed {self.cluster.seed}) ---", *tail]
        if self.external is not None:
            parts += self.external.diagnostics()
        return "\n".join(parts)

    # ------------------------------------------------------------------ reading objects (bypasses reactors)
    def _resource(self, kind: str) -> Any:
        try:
            return self.cluster.api.registry.resolve(kind)
        except UsageError as err:
            raise ScenarioError(f"{self.where}: {err}") from None

    def get_object(self, kind: str, name: str, namespace: str = "default") -> dict[str, Any] | None:
        rt = self._resource(kind)
        return self.cluster.api.store.get(rt.key, namespace if rt.namespaced else "", name)

    def list_objects(self, kind: str, namespace: str | None = "default", selector: str | None = None
             ) -> list[dict[str, Any]]:
        rt = self._resource(kind)
        items = self.cluster.api.store.list(rt.key, namespace if rt.namespaced else None)
        if selector:
            try:
                parsed = parse_label_selector(selector)
            except Exception as err:
                raise ScenarioError(f"{self.where}: bad label selector {selector!r}: {err}") from None
            items = [o for o in items if parsed.matches((o.get("metadata") or {}).get("labels") or {})]
        return list(items)

    @staticmethod
    def _live(pod: dict[str, Any]) -> bool:
        return is_live(pod)

    def _jobsets(self) -> list[dict[str, Any]]:
        if self.cluster.api.registry.by_key(JOBSETS) is None:
            return []
        return self.list_objects(JOBSETS, None)

    # ------------------------------------------------------------------ teardown
    def times_match(self, want: int, got: int) -> bool:
        """Exact in process; within the tolerance window out of process."""
        return want == got if self.external is None else self.external.close_enough(want, got)

    def stop(self) -> None:
        if self.external is not None:
            self.external.stop()
        for w in self.watches:
            w.stop()
        if self.monitor is not None:
            self.monitor.stop()
