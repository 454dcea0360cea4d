"""Do the property tests catch the mistakes? ``python -m jobset_ref.mistakes.properties``.

For each mistake of the catalogue (or those named), run ``pytest property_tests -x
--jobset-mistake NAME`` in a subprocess with a time bound, and print KILLED (by the first test
that failed), SURVIVED, TIMEOUT or ERROR, then the figure::

    python -m jobset_ref.mistakes.properties                       # every controller-side mistake
    python -m jobset_ref.mistakes.properties first-failed-job-is-last job-key-sha256
    python -m jobset_ref.mistakes.properties --side all --timeout 600 --jobs 2
    python -m jobset_ref.mistakes.properties --tests property_tests/test_jobset_policies.py

The property tests live in a source checkout (``property_tests/``), not in the wheel. Under
``--jobset-mistake`` hypothesis runs the profile's examples without shrinking and without its
example database, so a failure is reported at once and no failing example of a mistake is saved
for the ordinary runs. Exit status: 0 when every run finished (killed or
survived), 1 when one timed out or errored, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from fakekube import UsageError
from jobset_ref.mistakes import CATALOGUE, mistakes

__all__ = ["Outcome", "main", "run_one"]

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TESTS = REPO_ROOT / "property_tests"
_FAILED = re.compile(r"^FAILED (\S+)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the property tests did against one mistake."""

    name: str
    verdict: str  # KILLED | SURVIVED | TIMEOUT | ERROR
    detail: str
    seconds: float


def _wall() -> float:
    return time.monotonic()  # noqa: TID251  # noqa: wall-clock (bounds and reports real subprocesses)


def run_one(name: str, tests: Sequence[Path], timeout: float) -> Outcome:
    """``pytest <tests> -x --jobset-mistake <name>`` in a subprocess (its own scratch directory)."""
    cmd = [sys.executable, "-m", "pytest", *(str(t.resolve()) for t in tests), "-x", "-q", "-rf", "-p", "no:cacheprovider",
           "--jobset-mistake", name]
    start = _wall()
    with tempfile.TemporaryDirectory(prefix="jobset-mistake-") as scratch:
        try:
            proc = subprocess.run(cmd, cwd=scratch, capture_output=True, text=True, timeout=timeout,
                                  env={**os.environ, "PYTHONHASHSEED": "0"}, check=False)
        except subprocess.TimeoutExpired:
            return Outcome(name, "TIMEOUT", f"no answer within {timeout:g}s", _wall() - start)
    took = _wall() - start
    if proc.returncode == 0:
        return Outcome(name, "SURVIVED", "", took)
    if proc.returncode == 1:
        failed = _FAILED.search(proc.stdout)
        return Outcome(name, "KILLED", _test_id(failed.group(1), scratch) if failed else "a test failed", took)
    tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1:] or [""]
    return Outcome(name, "ERROR", f"pytest exit {proc.returncode}: {tail[0]}", took)


def _test_id(reported: str, cwd: str) -> str:
    """pytest reports the failing test relative to its working directory: make it relative to the repository."""
    path, sep, rest = reported.partition("::")
    try:
        path = str((Path(cwd) / path).resolve().relative_to(REPO_ROOT))
    except ValueError:
        pass
    return path + sep + rest


def figure(outcomes: Sequence[Outcome]) -> str:
    """``property tests: 30 killed, 12 survived, 1 timed out, 0 errors of 43: 69.8% killed``."""
    count = {v: sum(o.verdict == v for o in outcomes) for v in ("KILLED", "SURVIVED", "TIMEOUT", "ERROR")}
    share = 100.0 * count["KILLED"] / len(outcomes) if outcomes else 0.0
    return (f"property tests: {count['KILLED']} killed, {count['SURVIVED']} survived, {count['TIMEOUT']} timed out, "
            f"{count['ERROR']} errors of {len(outcomes)}: {share:.1f}% killed")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jobset_ref.mistakes.properties",
                                     description="run the property tests against each mistake of the catalogue")
    parser.add_argument("names", nargs="*", help="mistakes to run (default: every mistake of --side)")
    parser.add_argument("--side", choices=("controller", "webhooks", "all"), default="controller",
                        help="which mistakes when no name is given (default: controller)")
    parser.add_argument("--tests", type=Path, action="append", default=None, metavar="PATH",
                        help=f"a property test file or folder (repeatable; default: {DEFAULT_TESTS})")
    parser.add_argument("--timeout", type=float, default=420.0, help="seconds one mistake may take (default: 420)")
    parser.add_argument("--jobs", type=int, default=1, help="mistakes run at once (default: 1)")
    args = parser.parse_args(argv)
    try:
        chosen = mistakes(args.names) if args.names else [
            m for m in CATALOGUE.values() if args.side == "all" or m.side == args.side]
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    tests: list[Path] = args.tests or [DEFAULT_TESTS]
    missing = [str(t) for t in tests if not t.exists()]
    if missing:
        print(f"error: no property tests at {', '.join(missing)} (they live in a source checkout; give --tests PATH)",
              file=sys.stderr)
        return 2
    if args.jobs < 1 or args.timeout <= 0:
        print("error: --jobs and --timeout take positive numbers", file=sys.stderr)
        return 2
    width = max(len(m.name) for m in chosen) if chosen else 0
    outcomes: list[Outcome] = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for out in pool.map(lambda m: run_one(m.name, tests, args.timeout), chosen):
            outcomes.append(out)
            print(f"{out.verdict:<9} {out.name:{width}}  {out.detail}  ({out.seconds:.0f}s)", flush=True)
    print(figure(outcomes))
    return 0 if all(o.verdict in ("KILLED", "SURVIVED") for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
