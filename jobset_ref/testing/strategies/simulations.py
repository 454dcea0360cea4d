"""Strategies for whole simulated runs: :func:`scenarios` draws a :class:`Scenario`, a JobSet on
a cluster shape with pod scripts and a fault timeline, that plays itself on a fresh
:class:`fakekube.FakeCluster` with the reference controller installed."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from fakekube import FakeCluster
from jobset_ref.testing.strategies._arguments import Feature, _check_strategy
from jobset_ref.testing.strategies.clusters import ClusterShape, cluster_shapes
from jobset_ref.testing.strategies.jobset_specs import jobsets
from jobset_ref.testing.strategies.pod_outcomes import PodScripts, pod_scripts
from jobset_ref.testing.strategies.timelines import (
    FAULT_KINDS,
    Fault,
    FaultContext,
    FaultTimeline,
    fault_timelines,
)

__all__ = ["Scenario", "scenarios"]

# =============================================================================== scenarios


@dataclass(frozen=True, slots=True)
class Scenario:
    """A JobSet on a cluster shape with pod scripts and a fault timeline.

    ``run(seed)`` builds a :class:`FakeCluster`, installs the reference controller with
    ``feature_gates``, applies the shape, the scripts and the JobSet, plays the timeline and
    advances to ``horizon`` virtual seconds; ``after_each`` is called after every fault.
    """

    jobset: dict[str, Any]
    shape: ClusterShape
    scripts: PodScripts
    timeline: FaultTimeline
    horizon: float = 120
    feature_gates: dict[str, bool] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.jobset["metadata"]["name"])

    @property
    def namespace(self) -> str:
        return str(self.jobset["metadata"].get("namespace") or "default")

    def start(self, seed: int = 0, *, shuffle_ties: bool = False, armed: Sequence[Fault] = ()) -> FakeCluster:
        """The cluster with everything applied, at t=0 (before any timeline fault). ``armed``
        faults (e.g. :class:`InjectConflict`, :class:`DelayWatch`) are applied just before the
        JobSet, so they can hit its very first writes."""
        from jobset_ref.installation import install  # late: it imports the controller

        cluster = FakeCluster(seed, shuffle_ties=shuffle_ties)
        self.shape.apply(cluster)
        install(cluster, feature_gates=self.feature_gates or None)
        self.scripts.apply(cluster)
        ctx = FaultContext(self.name, self.namespace)
        for fault in armed:
            fault.apply(cluster, ctx)
        cluster.apply(copy.deepcopy(self.jobset))
        return cluster

    def run(self, seed: int = 0, *, shuffle_ties: bool = False,
            after_each: Callable[[FakeCluster, Fault, str], None] | None = None,
            cluster: FakeCluster | None = None, armed: Sequence[Fault] = ()) -> tuple[FakeCluster, list[str]]:
        cluster = cluster if cluster is not None else self.start(seed, shuffle_ties=shuffle_ties, armed=armed)
        hook = None if after_each is None else (lambda f, line: after_each(cluster, f, line))
        log = self.timeline.run(cluster, self.name, namespace=self.namespace, until=self.horizon, after_each=hook)
        return cluster, log


def scenarios(*, jobsets_strategy: SearchStrategy[dict[str, Any]] | None = None,
              shapes: SearchStrategy[ClusterShape] | None = None, fault_kinds: Sequence[str] = FAULT_KINDS,
              max_faults: int = 4, horizon: float = 120, feature_gates: Mapping[str, bool] | None = None,
              forever: Feature = None, exit_codes: SearchStrategy[int] | None = None) -> SearchStrategy[Scenario]:
    """:class:`Scenario` values: a JobSet, a cluster, pod scripts (``forever``/``exit_codes`` as in
    :func:`pod_scripts`) and a fault timeline of up to ``max_faults`` faults of ``fault_kinds``
    within ``horizon``."""
    if jobsets_strategy is not None:
        _check_strategy("jobsets_strategy", jobsets_strategy)
    if shapes is not None:
        _check_strategy("shapes", shapes)
    gates = dict(feature_gates or {})
    js_strategy = jobsets_strategy if jobsets_strategy is not None else jobsets(feature_gates=gates)
    shape_strategy = shapes if shapes is not None else cluster_shapes()

    @st.composite
    def build(draw: st.DrawFn) -> Scenario:
        js = draw(js_strategy)
        shape = draw(shape_strategy)
        scripts = draw(pod_scripts(js, max_duration=max(1.0, horizon / 2), forever=forever, exit_codes=exit_codes))
        timeline = draw(fault_timelines(js, max_size=max_faults, horizon=horizon * 0.75, kinds=fault_kinds,
                                        nodes=len(shape.nodes)))
        return Scenario(js, shape, scripts, timeline, horizon, gates)

    return build()
