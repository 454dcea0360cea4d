"""``jobset-ref``: explore the JobSet spec from the command line.

    jobset-ref simulate MANIFEST... [--nodes N] [--fail POD@30s:1] [--at 2m 'resume: js'] [--gantt run.html]
    jobset-ref simulate SCENARIO.yaml                    # a conformance scenario's cluster, manifests and timeline
    jobset-ref validate MANIFEST... [-o yaml]            # admission only, like kubectl apply --dry-run=server
    jobset-ref serve [MANIFEST...] [--port P] [--kubeconfig PATH] [--clock manual|realtime|quiescent]
    jobset-ref controller --kubeconfig PATH [--feature-gates ...]
    jobset-ref conformance [--controller-cmd CMD] [-k EXPR] [--junit-xml PATH] [--report PATH] [PATH...]

One module per command (``simulate``, ``validate``, ``serve``, ``controller``, ``conformance``)
and shared helpers (``common``: exit codes, parsers, manifest loading; ``nodes``; ``show``;
``follow``). Exit codes: 0 as asked; 1 the API server rejected something (a manifest, a kind
that is not served, a what-if action); 2 bad input, printed as one line; 3 a what-if never
happened; 4 ``--expect`` did not hold.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from jobset_ref.cli import conformance as conformance_command
from jobset_ref.cli import controller, serve, simulate, validate
from jobset_ref.cli.common import (
    EXIT_EXPECTATION,
    EXIT_REJECTED,
    EXIT_USAGE,
    EXIT_WHAT_IF,
    CliError,
    load_manifests,
    parse_duration,
    parse_fault,
    parse_gates,
    parse_labels,
)
from jobset_ref.cli.nodes import default_nodes

__all__ = [
    "EXIT_EXPECTATION",
    "EXIT_REJECTED",
    "EXIT_USAGE",
    "EXIT_WHAT_IF",
    "CliError",
    "default_nodes",
    "load_manifests",
    "main",
    "parse_duration",
    "parse_fault",
    "parse_gates",
    "parse_labels",
]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("jobset-ref")
    except PackageNotFoundError:  # pragma: no cover - a source tree without an install
        return "unknown"


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jobset-ref", description="Explore JobSet semantics on a simulated cluster.",
        epilog="exit codes: 0 as asked; 1 rejected by the API server (a manifest, a kind that is not served, a "
               "what-if action); 2 bad input (also a manifest too large to simulate); 3 a what-if never happened; 4 --expect did not hold. "
               "'jobset-ref COMMAND --help' tells more.")
    parser.add_argument("--version", action="version", version=f"jobset-ref {_version()}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    simulate.add_parser(sub)
    validate.add_parser(sub)
    serve.add_parser(sub)
    controller.add_parser(sub)
    conformance_command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["conformance"]:  # its own argument parser (shared with python -m jobset_ref.conformance)
        return conformance_command.run(argv[1:])
    parser = _build_parser()
    if not argv:
        parser.print_help()
        return EXIT_USAGE
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) if exit_.code in (0, None) else EXIT_USAGE
    commands = {"simulate": simulate.run, "validate": validate.run, "serve": serve.run, "controller": controller.run}
    try:
        return commands[args.command](args)
    except CliError as err:
        print(f"jobset-ref: {err}", file=sys.stderr)
        return err.code
    except KeyboardInterrupt:
        print("jobset-ref: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # a readable line, never a traceback
        from fakekube import ApiError, SimulationError, UsageError

        if isinstance(err, ApiError | UsageError | SimulationError):
            print(f"jobset-ref: {err}", file=sys.stderr)
            return EXIT_USAGE
        raise
