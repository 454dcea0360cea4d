"""The simulation's budget of Jobs per JobSet, checked when the controller would create them.

Kubernetes admits any JobSet whose replicas * parallelism fit an int32, and so does the reference
webhook. An in-memory cluster cannot hold millions of Jobs, so the controller stops the
simulation with a :class:`fakekube.SimulationError` naming the JobSet before it builds the first
of too many Jobs. The check runs only where Jobs would be created (never at admission, never
for a JobSet another controller manages); pods have their own budget in fakekube's simulated Job
controller, which an API-only cluster (``simulate=False``) does not run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from fakekube import SimulationError

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet

__all__ = ["MAX_SIMULATED_JOBS", "check_job_budget"]

MAX_SIMULATED_JOBS: Final = 10_000
"""How many Jobs one JobSet may have in the simulation (the sum of its replicas)."""


def check_job_budget(js: JobSet) -> None:
    """Raise ``SimulationError`` if ``js`` asks for more Jobs than the simulation holds."""
    jobs = sum(max(rjob.replicas, 0) for rjob in js.replicated_jobs)
    if jobs > MAX_SIMULATED_JOBS:
        raise SimulationError(
            f"the JobSet {js.namespace}/{js.name} asks for {jobs} Jobs; the simulation's budget is "
            f"{MAX_SIMULATED_JOBS} Jobs per "
            "JobSet (jobset_ref.controller.budget.MAX_SIMULATED_JOBS), so it stops here, before creating them. "
            "Kubernetes admits such a JobSet; make it smaller to simulate it, or delete it to go on")
