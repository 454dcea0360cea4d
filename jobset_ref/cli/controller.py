"""``jobset-ref controller``: the reference reconcilers out of process, against any API server."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from jobset_ref.cli.common import CliError, parse_gates

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    ctl = sub.add_parser("controller", help="run the reference JobSet controller against an API server "
                                            "(out of process, over HTTP) until SIGINT/SIGTERM",
                         description="Run the reference JobSet reconciler and its pod controller (exclusive "
                                     "placement) out of process, against the API server a kubeconfig names "
                                     "(token, CA and client certificates are read): a served simulation "
                                     "('jobset-ref serve --no-controller', the conformance runner's "
                                     "--controller-cmd) or a real cluster with the JobSet CRD and webhooks "
                                     "installed. It watches JobSets, Jobs and Pods and reconciles until SIGINT "
                                     "or SIGTERM. Exit 0 when stopped; 2 on bad input (no kubeconfig, an "
                                     "unknown feature gate).",
                         epilog="example: jobset-ref conformance --controller-cmd "
                                "'jobset-ref controller --kubeconfig {kubeconfig}'")
    ctl.add_argument("--kubeconfig", required=True, help="kubeconfig of the API server to reconcile")
    ctl.add_argument("--context", default=None, help="kubeconfig context (default: current-context)")
    ctl.add_argument("--feature-gates", default=os.environ.get("JOBSET_FEATURE_GATES") or None,
                     help="e.g. RestartJob=true,ElasticJobSet=false (default: $JOBSET_FEATURE_GATES, which the "
                          "conformance runner sets to each scenario's gates)")
    ctl.add_argument("--break", dest="breaks", action="append", default=[], metavar="MISTAKE",
                     help="test only: run a deliberately wrong controller, with this mistake of the catalogue "
                          "applied (repeatable; `jobset-ref conformance --mutants --list` lists them)")
    ctl.add_argument("--webhooks", action="store_true",
                     help="also serve the JobSet and pod admission webhooks on a free loopback port and register "
                          "them with the API server (MutatingWebhookConfiguration and ValidatingWebhookConfiguration, "
                          "deleted again on exit); implied by a --break of the webhooks")
    ctl.add_argument("--crd", action="store_true",
                     help="install this build's JobSet CRD first, replacing the one the API server has; implied "
                          "by a --break of the CRD")
    ctl.add_argument("-v", "--verbose", action="store_true", help="print the controller's decisions on stderr")


def run(args: argparse.Namespace) -> int:
    """The reference reconcilers out of process, until SIGINT/SIGTERM (exit 0)."""
    from jobset_ref.out_of_process import run_controller

    if not Path(args.kubeconfig).is_file():
        raise CliError(f"no kubeconfig at {args.kubeconfig!r}")
    return run_controller(args.kubeconfig, parse_gates(args.feature_gates), breaks=args.breaks, webhooks=args.webhooks, crd=args.crd,
                          verbose=args.verbose, context=args.context)
