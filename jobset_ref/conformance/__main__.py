"""Run conformance scenarios without pytest: ``python -m jobset_ref.conformance [PATH ...]``.

    python -m jobset_ref.conformance                       # the packaged suite
    python -m jobset_ref.conformance my/scenarios one.yaml # your own files and folders
    python -m jobset_ref.conformance -k failure/ --list    # the ids a filter selects
    python -m jobset_ref.conformance --update-golden PATH  # rewrite golden traces (review the diff!)

One line per scenario (``PASS``, ``FAIL``, ``ERROR`` for an authoring error, ``XFAIL``/``XPASS``
for a scenario marked ``xfail:``, ``SKIP``), the failure reports, then a summary. The exit
status is 0 when nothing failed, 1 when a scenario failed (an ``XPASS`` fails: the ``xfail``
line must go), 2 when the scenario files could not be loaded or ``-k`` selects none.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from jobset_ref.conformance.runner import (
    ExpectationFailed,
    Scenario,
    ScenarioError,
    ScenarioSkipped,
    load_scenarios,
    run_scenario,
)

__all__ = ["SUMMARY_WORDS", "main", "run_one"]

SUMMARY_WORDS = {"PASS": "passed", "FAIL": "failed", "ERROR": "errors", "XFAIL": "xfailed", "XPASS": "xpassed",
                 "SKIP": "skipped"}


def run_one(scenario: Scenario, *, update_golden: bool = False) -> tuple[str, str]:
    """``(outcome, detail)`` of one run: PASS, FAIL, ERROR, XFAIL, XPASS or SKIP."""
    try:
        result = run_scenario(scenario, update_golden=update_golden)
    except ScenarioSkipped as skipped:
        return "SKIP", str(skipped)
    except ExpectationFailed as failed:
        if scenario.xfail:
            return "XFAIL", scenario.xfail
        return "FAIL", str(failed)
    except ScenarioError as err:
        return "ERROR", str(err)
    if scenario.xfail:
        return "XPASS", f"marked xfail ({scenario.xfail}) but passed: remove the xfail line"
    return "PASS", f"{result.elapsed:g}s virtual" + (", golden trace rewritten" if result.golden_updated else "")


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="python -m jobset_ref.conformance",
                                     description="Run JobSet conformance scenarios on a simulated cluster.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="scenario files or folders of them (default: the packaged suite)")
    parser.add_argument("-k", dest="select", action="append", default=[], metavar="TEXT",
                        help="run only scenarios whose id contains TEXT (repeatable: any of them)")
    parser.add_argument("--list", action="store_true", help="print the selected ids and run nothing")
    parser.add_argument("--update-golden", action="store_true",
                        help="rewrite the golden .trace files of scenarios with golden: true")
    args = parser.parse_args(argv)
    try:
        scenarios = load_scenarios(args.paths or None)
    except ScenarioError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.select:
        scenarios = [sc for sc in scenarios if any(text in sc.id for text in args.select)]
        if not scenarios:
            print(f"error: no scenario id contains {' or '.join(map(repr, args.select))}", file=sys.stderr)
            return 2
    if args.list:
        for sc in scenarios:
            print(sc.id, file=out)
        return 0
    counts: dict[str, int] = {}
    reports: list[str] = []
    for sc in scenarios:
        outcome, detail = run_one(sc, update_golden=args.update_golden)
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome in ("FAIL", "ERROR"):
            print(f"{outcome:5} {sc.id}", file=out)
            reports.append(f"{'=' * 20} {sc.id} ({sc.path})\n{sc.description.strip()}\n{detail}")
        else:
            print(f"{outcome:5} {sc.id}: {detail}", file=out)
    for report in reports:
        print(f"\n{report}", file=out)
    summary = ", ".join(f"{counts[o]} {word}" for o, word in SUMMARY_WORDS.items() if counts.get(o))
    print(f"\n{summary}", file=out)
    return 1 if any(counts.get(o) for o in ("FAIL", "ERROR", "XPASS")) else 0


if __name__ == "__main__":
    sys.exit(main())
