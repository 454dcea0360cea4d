"""``jobset-ref serve``: a simulated cluster over HTTP for kubectl and real clients."""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jobset_ref.cli.common import (
    EXIT_REJECTED,
    CliError,
    add_validate_option,
    apply_sources,
    load_sources,
    parse_gates,
)
from jobset_ref.cli.nodes import MAX_PLANNED_PODS

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    srv = sub.add_parser("serve", help="serve a simulated cluster over HTTP to kubectl and real clients",
                         description="Apply the manifests to a simulated cluster with the reference controller, "
                                     "write a kubeconfig, print the server's URL and serve until SIGINT/SIGTERM. "
                                     "Virtual time starts at the wall clock's now (--epoch), so kubectl's ages "
                                     "read naturally; it then moves as --clock says.")
    srv.add_argument("manifests", nargs="*", metavar="MANIFEST", help="manifests to apply before serving (- for stdin)")
    srv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    srv.add_argument("--port", type=int, default=0, help="port to listen on (default 0: a free port)")
    add_validate_option(srv)
    srv.add_argument("--kubeconfig", default=None,
                     help="where to write a kubeconfig for the server (default: ./kubeconfig.fakekube)")
    srv.add_argument("--nodes", type=int, default=4, help="Ready nodes node-0... to add (default 4)")
    srv.add_argument("--seed", type=int, default=0, help="seed of the simulation's random streams (default 0)")
    srv.add_argument("--feature-gates", default=None, help="e.g. RestartJob=true,ElasticJobSet=false")
    srv.add_argument("--clock", choices=("manual", "realtime", "quiescent"), default="realtime",
                     help="what moves virtual time: realtime (default; --speed virtual s per wall s), "
                          "quiescent (jumps when no request came for --quiet-ms), manual (never)")
    srv.add_argument("--speed", type=float, default=1.0,
                     help="virtual seconds per wall second under the realtime clock (default 1)")
    srv.add_argument("--quiet-ms", type=float, default=50.0,
                     help="quiet wall milliseconds before a jump under the quiescent clock (default 50)")
    srv.add_argument("--kueue", action="store_true",
                     help="install Kueue v0.19.2 (with its JobSet and batch/Job integrations); automatic when a "
                          "manifest holds a kueue.x-k8s.io object")
    srv.add_argument("--no-controller", action="store_true",
                     help="install the JobSet CRD and webhooks only; another controller reconciles")
    srv.add_argument("--epoch", default="now", metavar="now|TIME",
                     help="the instant virtual time starts at: now (default: the wall clock's now, so kubectl's "
                          "ages read naturally) or an RFC 3339 time such as 2030-01-01T00:00:00Z (the fixed "
                          "epoch of tests and simulations)")
    srv.add_argument("--no-tls", action="store_true",
                     help="serve plain HTTP (default: HTTPS with a CA drawn for this server, written into the "
                          "kubeconfig as certificate-authority-data, as kube-apiserver serves)")


def _epoch(text: str) -> datetime:
    """``--epoch``: ``now`` (the wall clock, whole seconds) or an RFC 3339 time with a zone."""
    if text.strip().lower() == "now":
        now = time.time()  # noqa: TID251  # noqa: wall-clock (a served cluster for people starts now)
        return datetime.fromtimestamp(int(now), UTC)
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise CliError(f"--epoch {text!r} is neither 'now' nor an RFC 3339 time with a zone "
                       "(2030-01-01T00:00:00Z)")
    return when


def run(args: argparse.Namespace) -> int:
    """Apply the manifests, write the kubeconfig, print the URL, serve until SIGINT/SIGTERM."""
    import signal
    import threading

    import jobset_ref
    from fakekube import FakeCluster
    from fakekube.clock import set_epoch

    if not 0 <= args.port <= 65535:
        raise CliError(f"--port {args.port} is not a port number (0-65535; 0 picks a free one)")
    if not 0 <= args.nodes <= MAX_PLANNED_PODS:
        raise CliError(f"--nodes {args.nodes} must be between 0 and {MAX_PLANNED_PODS} (one node per pod the "
                       "simulation holds)")
    sources = load_sources(args.manifests) if args.manifests else []
    set_epoch(_epoch(args.epoch))  # this process serves one cluster: before it exists
    cluster = FakeCluster(seed=args.seed)
    kueue = args.kueue or any(str(d.get("apiVersion", "")).startswith("kueue.x-k8s.io/") for _, d in sources)
    jobset_ref.install(cluster, feature_gates=parse_gates(args.feature_gates), controller=not args.no_controller,
                       kueue=kueue or None)
    cluster.add_nodes(args.nodes)
    if apply_sources(cluster, sources, args.validate):
        print("jobset-ref: a manifest was rejected: nothing served", file=sys.stderr)
        return EXIT_REJECTED
    kubeconfig = Path(args.kubeconfig or "kubeconfig.fakekube").resolve()
    try:
        server = cluster.serve(host=args.host, port=args.port, clock=args.clock, speed=args.speed,
                               quiet_ms=args.quiet_ms, kubeconfig=kubeconfig, tls=not args.no_tls)
    except OSError as err:
        raise CliError(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    print(server.url, flush=True)
    print(f"kubeconfig: {kubeconfig}  (export KUBECONFIG={kubeconfig})", file=sys.stderr, flush=True)
    with server:
        told = 0
        while not stop.wait(0.2):
            for message in server.simulation_errors[told:]:  # a budget time ran into: one line each
                print(f"jobset-ref: {message}", file=sys.stderr, flush=True)
                told += 1
    return 0
