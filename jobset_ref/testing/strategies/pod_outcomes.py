"""Strategies for how a JobSet's pods behave: :func:`pod_scripts` draws run times, exit codes,
readiness delays and termination reasons per ReplicatedJob (and sometimes per Job), as
:class:`PodScripts` that script them on a :class:`fakekube.FakeCluster`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from fakekube import FakeCluster, UsageError
from jobset_ref.api import constants as c
from jobset_ref.testing.strategies._arguments import Feature, _check_feature, _check_strategy, _want

__all__ = ["PodScript", "PodScripts", "pod_scripts"]

# =============================================================================== pod scripts


@dataclass(frozen=True, slots=True)
class PodScript:
    """``cluster.script_pods(selector, duration=…, exit_code=…, ready_after=…, reason=…)``."""

    selector: str
    duration: float | None
    exit_code: int = 0
    ready_after: float | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class PodScripts:
    """Scripts applied in order (a later matching script wins)."""

    scripts: tuple[PodScript, ...]

    def apply(self, cluster: FakeCluster) -> None:
        for s in self.scripts:
            cluster.script_pods(s.selector, duration=s.duration, exit_code=s.exit_code,
                                ready_after=s.ready_after, reason=s.reason)


def pod_scripts(jobset: Mapping[str, Any], *, min_duration: float = 1, max_duration: float = 60,
                forever: Feature = None, exit_codes: SearchStrategy[int] | None = None,
                per_job: Feature = None) -> SearchStrategy[PodScripts]:
    """How the pods of ``jobset`` behave: per ReplicatedJob (and, sometimes, per Job) run time,
    exit code, readiness delay and termination reason.

    ``forever``: pods may run until killed (``None`` sometimes). ``exit_codes`` defaults to
    mostly 0 with some 1 and 137.
    """
    if min_duration < 0 or min_duration > max_duration:
        raise UsageError(f"need 0 <= min_duration <= max_duration, got {min_duration}, {max_duration}")
    _check_feature("forever", forever)
    _check_feature("per_job", per_job)
    codes = exit_codes if exit_codes is not None else st.sampled_from([0, 0, 0, 1, 137])
    _check_strategy("exit_codes", codes)
    name = jobset.get("metadata", {}).get("name")
    if not name:
        raise UsageError("pod_scripts() needs a JobSet with metadata.name")
    rjobs = list((jobset.get("spec") or {}).get("replicatedJobs") or [])

    def one(draw: st.DrawFn, selector: str) -> PodScript:
        duration: float | None
        if forever is True or (forever is None and draw(st.integers(0, 4)) == 0):
            duration = None
        else:
            duration = float(draw(st.integers(int(min_duration), int(max_duration))))
        code = draw(codes)
        ready = draw(st.sampled_from([None, 0.0, 1.0, 3.0]))
        reason = draw(st.sampled_from([None, "OOMKilled"])) if code else None
        return PodScript(selector, duration, code, ready, reason)

    @st.composite
    def build(draw: st.DrawFn) -> PodScripts:
        scripts = [one(draw, f"{c.JOBSET_NAME_KEY}={name}")]
        for rjob in rjobs:
            if draw(st.booleans()):
                scripts.append(one(draw, f"{c.JOBSET_NAME_KEY}={name},{c.REPLICATED_JOB_NAME_KEY}={rjob['name']}"))
            if rjob.get("replicas", 1) and _want(draw, per_job) and per_job is not False:
                idx = draw(st.integers(0, rjob.get("replicas", 1) - 1))
                scripts.append(one(draw, f"{c.JOBSET_NAME_KEY}={name},{c.REPLICATED_JOB_NAME_KEY}={rjob['name']},"
                                         f"{c.JOB_INDEX_KEY}={idx}"))
        return PodScripts(tuple(scripts))

    return build()
