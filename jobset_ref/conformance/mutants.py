"""``--mutants``: run the scenarios against every mistake of the catalogue, in process.

For each mistake (``jobset_ref.mistakes``) the reference is edited, every selected scenario runs,
and the mistake is *killed* by the scenarios that fail (or error, or pass where they are marked
xfail) while it is applied, or it *survives*. The scenarios first run against the unedited
reference: a suite that fails there proves nothing about mistakes, so the run stops.

A survivor is *explained* when its mistake says why no scenario can catch it (``survives``);
an unexplained survivor, an explained one that is now killed (remove its ``survives``), or a
declared ``caught_by`` scenario that passes makes the run fail, as a strict xfail does.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TextIO

from jobset_ref.conformance.runner import (
    ExpectationFailed,
    Scenario,
    ScenarioError,
    ScenarioSkipped,
    run_scenario,
)
from jobset_ref.mistakes import Mistake, applied

__all__ = ["MutantResult", "killers", "run_mutants", "score_line"]

FAILED = "failed"


@dataclass(frozen=True, slots=True)
class MutantResult:
    """What the scenarios did against one mistake."""

    mistake: Mistake
    killed_by: tuple[str, ...]
    ran: tuple[str, ...]

    @property
    def killed(self) -> bool:
        return bool(self.killed_by)

    @property
    def problems(self) -> list[str]:
        """Why this result fails the run (empty when it is as the catalogue says)."""
        m = self.mistake
        if not self.killed:
            return [] if m.survives else [f"{m.name} survived every scenario and its entry gives no reason "
                                          "(add a scenario that catches it, or a `survives` reason)"]
        if m.survives:
            return [f"{m.name} is now killed (by {', '.join(self.killed_by)}): remove its `survives` reason "
                    "and name those scenarios in caught_by"]
        missed = [s for s in m.caught_by if s in self.ran and s not in self.killed_by]
        return [f"{m.name}: caught_by names {s}, which passed with the mistake applied" for s in missed]


def _fails(scenario: Scenario) -> bool:
    """Whether ``scenario`` fails against the reference as it is now (a pass of an xfail fails)."""
    try:
        run_scenario(scenario)
    except ScenarioSkipped:
        return False
    except (ExpectationFailed, ScenarioError):
        return not scenario.xfail
    except Exception:  # a mistake may crash the run: that is a kill too
        return True
    return bool(scenario.xfail)


def killers(mistake: Mistake, scenarios: Sequence[Scenario]) -> tuple[str, ...]:
    """The ids of ``scenarios`` that fail while ``mistake`` is applied, in order."""
    with applied([mistake]):
        return tuple(sc.id for sc in scenarios if _fails(sc))


#: What a forked worker runs (set before the pool forks: the scenarios are not pickled).
_WORK: list[Scenario] = []


def _killers_in_worker(mistake: Mistake) -> tuple[str, ...]:
    return killers(mistake, _WORK)


def _all_killers(scenarios: Sequence[Scenario], mistakes: Sequence[Mistake], jobs: int) -> Iterator[tuple[str, ...]]:
    """Each mistake's killers, in order; over ``jobs`` forked processes when there are several."""
    if jobs <= 1 or len(mistakes) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for m in mistakes:
            yield killers(m, scenarios)
        return
    _WORK[:] = scenarios
    try:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(mistakes))) as pool:
            yield from pool.imap(_killers_in_worker, mistakes)
    finally:
        _WORK.clear()


def run_mutants(scenarios: Sequence[Scenario], mistakes: Sequence[Mistake], *, out: TextIO, jobs: int = 1,
                progress: Callable[[str], None] | None = None) -> list[MutantResult] | None:
    """Run ``scenarios`` against each of ``mistakes`` (in ``jobs`` processes); None when the unedited
    suite already fails. Results and output are in ``mistakes`` order whatever ``jobs`` is."""
    broken = [sc.id for sc in scenarios if _fails(sc)]
    if broken:
        print(f"error: {len(broken)} scenario(s) fail against the unedited reference ({', '.join(broken)}); "
              "mutants are measured against a passing suite", file=out)
        return None
    ran = tuple(sc.id for sc in scenarios)
    results = []
    width = max((len(m.name) for m in mistakes), default=0)
    for m, killed_by in zip(mistakes, _all_killers(scenarios, mistakes, jobs), strict=True):
        result = MutantResult(m, killed_by, ran)
        results.append(result)
        if result.killed:
            print(f"KILLED    {m.name:{width}}  by {', '.join(result.killed_by)}", file=out)
        else:
            why = f"  (explained: {m.survives})" if m.survives else "  (unexplained)"
            print(f"SURVIVED  {m.name:{width}}{why}", file=out)
        if progress is not None:
            progress(m.name)
    return results


def score_line(results: Sequence[MutantResult]) -> str:
    """``mutants: 61 killed, 2 survived (2 explained) of 63: 96.8% killed``."""
    killed = sum(r.killed for r in results)
    survived = [r for r in results if not r.killed]
    explained = sum(bool(r.mistake.survives) for r in survived)
    share = 100.0 * killed / len(results) if results else 0.0
    return (f"mutants: {killed} killed, {len(survived)} survived ({explained} explained) of {len(results)}: "
            f"{share:.1f}% killed")
