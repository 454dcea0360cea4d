"""Run conformance scenarios without pytest: ``python -m jobset_ref.conformance [PATH ...]``.

    python -m jobset_ref.conformance                       # the packaged suite
    python -m jobset_ref.conformance my/scenarios one.yaml # your own files and folders
    python -m jobset_ref.conformance -k 'failure/ and not restart' --list  # the ids a filter selects
    python -m jobset_ref.conformance --update-golden PATH  # rewrite golden traces (review the diff!)
    python -m jobset_ref.conformance --controller-cmd 'my-controller --kubeconfig {kubeconfig}' \
        --junit-xml results.xml --report report.md         # check a controller out of process
    python -m jobset_ref.conformance --mutants             # does the suite catch each known mistake?

(``jobset-ref conformance`` takes the same arguments.) With ``--controller-cmd`` each scenario's
cluster is served over HTTP with the CRD and webhooks but no reconciler, CMD is started with
``KUBECONFIG`` set (``{kubeconfig}`` in CMD is replaced by the path) and stopped after the
scenario; expected virtual times allow ``--time-tolerance`` seconds either way and golden traces
are not compared (``docs/conformance.md``).

One line per scenario (``PASS``, ``FAIL``, ``ERROR`` for an authoring error, ``XFAIL``/``XPASS``
for a scenario marked ``xfail:``, ``SKIP``), the failure reports, then a summary. The exit
status is 0 when nothing failed, 1 when a scenario failed (an ``XPASS`` fails: the ``xfail``
line must go), 2 when the scenario files could not be loaded, ``-k`` does not parse or selects
none, or the ``--controller-cmd`` program is not found.

``--mutants [NAME,...]`` runs the selected scenarios in process against each mistake of the
catalogue (``jobset_ref.mistakes``; all of them by default): one ``KILLED`` line naming the
scenarios that failed, or ``SURVIVED``, per mistake, then a score. It exits 1 when a mistake
survives without an explanation in the catalogue, an explained one is now killed, or a
scenario the catalogue says catches a mistake does not. With ``--list`` it lists the mistakes.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from jobset_ref.conformance.external import DEFAULT_START_TIMEOUT, STOP_AFTER_NOT_STARTED, why_stop
from jobset_ref.conformance.report import Outcome, junit_xml, markdown_report
from jobset_ref.conformance.runner import (
    ExpectationFailed,
    ExternalOptions,
    Scenario,
    ScenarioError,
    ScenarioSkipped,
    load_scenarios,
    run_scenario,
)
from jobset_ref.conformance.selection import SelectionError, compile_selection

__all__ = ["SUMMARY_WORDS", "command_problem", "main", "run_one"]

SUMMARY_WORDS = {"PASS": "passed", "FAIL": "failed", "ERROR": "errors", "XFAIL": "xfailed", "XPASS": "xpassed",
                 "SKIP": "skipped"}


def run_one(scenario: Scenario, *, update_golden: bool = False,
            external: ExternalOptions | None = None) -> tuple[str, str]:
    """``(outcome, detail)`` of one run: PASS, FAIL, ERROR, XFAIL, XPASS or SKIP."""
    try:
        result = run_scenario(scenario, update_golden=update_golden, external=external)
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


def command_problem(command: str) -> str | None:
    """Why ``command`` cannot be started (checked once, before any scenario runs), or None."""
    try:
        words = shlex.split(command)
    except ValueError as err:
        return f"cannot split {command!r} into words: {err}"
    if not words:
        return "needs a command"
    program = words[0]
    if shutil.which(program) is None:
        where = "is not executable" if os.path.exists(program) else "is not found (not on PATH)"
        return f"{program!r} {where}"
    return None


def wall() -> float:
    return time.monotonic()  # noqa: TID251  # noqa: wall-clock (how long each scenario took, for JUnit)


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None,
         prog: str = "python -m jobset_ref.conformance") -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog=prog,
                                     description="Run JobSet conformance scenarios on a simulated cluster.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="scenario files or folders of them (default: the packaged suite)")
    parser.add_argument("-k", dest="select", action="append", default=[], metavar="EXPR",
                        help="run only scenarios whose id matches EXPR: words are substrings of the id, "
                             "combined with and/or/not and parentheses, as pytest -k (repeatable: any of them)")
    parser.add_argument("--list", action="store_true", help="print the selected ids and run nothing")
    parser.add_argument("--update-golden", action="store_true",
                        help="rewrite the golden .trace files of scenarios with golden: true")
    parser.add_argument("--controller-cmd", default=None, metavar="CMD",
                        help="run CMD as the JobSet controller, out of process, against each scenario's served "
                             "cluster ({kubeconfig} is replaced by the kubeconfig path, {feature_gates} by the "
                             "scenario's JobSet feature gates; KUBECONFIG and JOBSET_FEATURE_GATES are set)")
    parser.add_argument("--time-tolerance", type=float, default=2.0, metavar="SECONDS",
                        help="with --controller-cmd: how far an expected virtual time may be off (default 2)")
    parser.add_argument("--controller-start-timeout", type=float, default=DEFAULT_START_TIMEOUT, metavar="SECONDS",
                        help="with --controller-cmd: wall seconds the command has to open its first watch in each "
                             f"scenario (default {DEFAULT_START_TIMEOUT:g}); the run stops when the first "
                             f"{STOP_AFTER_NOT_STARTED} scenarios fail because it never did")
    parser.add_argument("--junit-xml", default=None, metavar="PATH", help="write JUnit XML results to PATH")
    parser.add_argument("--report", default=None, metavar="PATH",
                        help="write a Markdown report (each behaviour of the coverage matrix) to PATH")
    parser.add_argument("--mutants", nargs="?", const="", default=None, metavar="NAME,...",
                        help="run the scenarios in process against each mistake of the catalogue (or the named "
                             "ones) and report which scenarios kill it; with --list, list the mistakes")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="with --mutants: run N mistakes at once, in forked processes (default: the number "
                             "of CPUs); the output is the same whatever N")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code in (0, None) else 2
    if args.time_tolerance < 0:
        print("error: --time-tolerance takes a non-negative number of seconds", file=sys.stderr)
        return 2
    if not args.controller_start_timeout > 0:
        print("error: --controller-start-timeout takes a positive number of seconds", file=sys.stderr)
        return 2
    if args.controller_cmd is not None:
        problem = command_problem(args.controller_cmd)
        if problem:
            print(f"error: --controller-cmd: {problem}", file=sys.stderr)
            return 2
    if args.mutants is not None and (args.controller_cmd or args.update_golden):
        print("error: --mutants runs in process; it takes neither --controller-cmd nor --update-golden "
              "(to check one mistake out of process: --controller-cmd 'jobset-ref controller --break NAME "
              "--kubeconfig {kubeconfig}')", file=sys.stderr)
        return 2
    try:
        chosen = [compile_selection(text) for text in args.select]
    except SelectionError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    external = (ExternalOptions(args.controller_cmd, tolerance=args.time_tolerance,
                                start_timeout=args.controller_start_timeout) if args.controller_cmd else None)
    try:
        scenarios = load_scenarios(args.paths or None)
    except ScenarioError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if chosen:
        scenarios = [sc for sc in scenarios if any(match(sc.id) for match in chosen)]
        if not scenarios:
            print(f"error: no scenario id matches -k {' or '.join(map(repr, args.select))}", file=sys.stderr)
            return 2
    if args.mutants is not None:
        if args.jobs < 1:
            print("error: --jobs takes a positive number of processes", file=sys.stderr)
            return 2
        return _mutants(args.mutants, scenarios, list_only=args.list, jobs=args.jobs, out=out)
    if args.list:
        for sc in scenarios:
            print(sc.id, file=out)
        return 0
    counts: dict[str, int] = {}
    reports: list[str] = []
    outcomes: list[Outcome] = []
    for sc in scenarios:
        started = wall()
        outcome, detail = run_one(sc, update_golden=args.update_golden, external=external)
        outcomes.append(Outcome(sc, outcome, detail, wall() - started))
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome in ("FAIL", "ERROR"):
            print(f"{outcome:5} {sc.id}", file=out)
            reports.append(f"{'=' * 20} {sc.id} ({sc.path})\n{sc.description.strip()}\n{detail}")
        else:
            print(f"{outcome:5} {sc.id}: {detail}", file=out)
        stop = why_stop([(o.status, o.detail) for o in outcomes]) if external else None
        if stop:
            reports.append(f"stopped: {stop}; {len(scenarios) - len(outcomes)} scenario(s) not run")
            break
    for report in reports:
        print(f"\n{report}", file=out)
    if args.junit_xml:
        Path(args.junit_xml).write_text(junit_xml(outcomes))
    if args.report:
        Path(args.report).write_text(markdown_report(
            outcomes, mode=f"`{args.controller_cmd}` (out of process)" if external else "the reference, in process",
            subset=" or ".join(f"-k {e!r}" for e in args.select) if args.select else
            "the run stopped early" if len(outcomes) < len(scenarios) else ""))
    failed = counts.get("FAIL", 0) + counts.get("ERROR", 0) + counts.get("XPASS", 0)
    summary = ", ".join([f"{counts.get('PASS', 0)} passed", f"{failed} failed",
                         *(f"{counts[o]} {SUMMARY_WORDS[o]}" for o in ("XFAIL", "SKIP") if counts.get(o))])
    print(f"\n{summary}", file=out)
    return 1 if any(counts.get(o) for o in ("FAIL", "ERROR", "XPASS")) else 0


def _mutants(names: str, scenarios: list[Scenario], *, list_only: bool, jobs: int, out: TextIO) -> int:
    from fakekube import UsageError
    from jobset_ref.conformance.mutants import run_mutants, score_line
    from jobset_ref.mistakes import CATALOGUE, mistakes

    try:
        chosen = mistakes(n.strip() for n in names.split(",") if n.strip()) if names else list(CATALOGUE.values())
    except UsageError as err:
        print(f"error: --mutants: {err}", file=sys.stderr)
        return 2
    if list_only:
        width = max(len(m.name) for m in chosen)
        for m in chosen:
            print(f"{m.name:{width}}  {m.side:10}  {m.description}", file=out)
        return 0
    results = run_mutants(scenarios, chosen, out=out, jobs=jobs)
    if results is None:
        return 1
    problems = [p for r in results for p in r.problems]
    for problem in problems:
        print(f"problem: {problem}", file=out)
    print(f"\n{score_line(results)}", file=out)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
