"""``jobset-ref``: explore the JobSet spec from the command line.

    jobset-ref simulate MANIFEST... [--nodes N] [--seed N] [--until 10m] [--fail POD@30s:1]
    jobset-ref validate MANIFEST...
    jobset-ref serve [MANIFEST...] [--port P] [--kubeconfig PATH] [--clock manual|realtime|quiescent]
    jobset-ref controller --kubeconfig PATH [--feature-gates ...]
    jobset-ref conformance [--controller-cmd CMD] [-k EXPR] [--junit-xml PATH] [--report PATH] [PATH...]

``simulate`` applies manifests to a fresh simulated cluster with the reference controller and
prints a timeline, the final status and ``kubectl get``-style tables. ``validate`` runs
admission only and prints what ``kubectl apply`` would. Bad input is one readable line on
stderr and exit code 2; a rejected manifest is exit code 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["main"]

EXIT_REJECTED = 1
EXIT_USAGE = 2
_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?$")


class CliError(Exception):
    """A problem with the user's input: printed as one line, exit code 2."""


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``10m``, ``1h30m`` → seconds."""
    match = _DURATION.match(text.strip())
    if not text.strip() or match is None or not any(match.groups()):
        raise CliError(f"invalid duration {text!r}: use seconds (90), or units like 30s, 10m, 1h30m")
    h, m, s = (float(g) if g else 0.0 for g in match.groups())
    return h * 3600 + m * 60 + s


def parse_gates(text: str | None) -> dict[str, bool]:
    gates: dict[str, bool] = {}
    for item in filter(None, (text or "").split(",")):
        name, sep, value = item.partition("=")
        if not sep or value.lower() not in ("true", "false"):
            raise CliError(f"invalid feature gate {item!r}: use Name=true or Name=false")
        gates[name.strip()] = value.lower() == "true"
    return gates


def parse_fault(text: str) -> tuple[str, float, int]:
    """``TARGET@TIME[:EXIT]`` where TARGET is a pod (name, prefix or hostname) or ``node/<name>``."""
    target, sep, rest = text.partition("@")
    if not sep or not target:
        raise CliError(f"invalid --fail {text!r}: use POD@TIME[:EXIT_CODE] or node/NAME@TIME")
    when, _, code = rest.partition(":")
    try:
        exit_code = int(code) if code else 1
    except ValueError:
        raise CliError(f"invalid exit code in --fail {text!r}: {code!r} is not an integer") from None
    return target, parse_duration(when), exit_code


def load_manifests(paths: Sequence[str]) -> list[dict[str, Any]]:
    import yaml

    docs: list[dict[str, Any]] = []
    for path in paths:
        file = Path(path)
        if not file.is_file():
            raise CliError(f"{path}: no such file")
        try:
            loaded = [d for d in yaml.safe_load_all(file.read_text()) if d is not None]
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            where = f" line {mark.line + 1}" if mark is not None else ""
            raise CliError(f"{path}:{where} malformed YAML: {getattr(err, 'problem', None) or err}") from None
        for doc in loaded:
            if not isinstance(doc, dict) or not doc.get("kind") or not doc.get("apiVersion"):
                raise CliError(f"{path}: every document needs apiVersion and kind")
            docs.append(doc)
    if not docs:
        raise CliError("no objects found in the given manifests")
    return docs


# ---------------------------------------------------------------------------- simulate


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jobset-ref", description="Explore JobSet semantics on a simulated cluster.")
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="apply manifests to a simulated cluster and print what happens")
    sim.add_argument("manifests", nargs="+", metavar="MANIFEST")
    sim.add_argument("--nodes", type=int, default=None, help="number of nodes (default: sized from the manifests)")
    sim.add_argument("--nodes-file", default=None, help="YAML list of nodes: name, labels, capacity, taints")
    sim.add_argument("--node-labels", default="", help="labels for every generated node: k=v,k2=v2")
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--feature-gates", default=None, help="e.g. RestartJob=true,ElasticJobSet=false")
    sim.add_argument("--until", default="1h", help="virtual time limit (default 1h); stops early when all "
                                                   "JobSets finished")
    sim.add_argument("--run-seconds", type=float, default=60.0,
                     help="how long pods without a script run before exiting 0 (default 60; 0 = forever)")
    sim.add_argument("--fail", action="append", default=[], metavar="TARGET@TIME[:EXIT]",
                     help="fail a pod (name, prefix or hostname) or node/NAME at a virtual time")
    sim.add_argument("--output", choices=("text", "json"), default="text")
    sim.add_argument("--trace", action="store_true", help="also print the full trace")
    val = sub.add_parser("validate", help="run admission only and print the result like kubectl apply")
    val.add_argument("manifests", nargs="+", metavar="MANIFEST")
    val.add_argument("--feature-gates", default=None)
    srv = sub.add_parser("serve", help="serve a simulated cluster over HTTP to kubectl and real clients")
    srv.add_argument("manifests", nargs="*", metavar="MANIFEST", help="manifests to apply before serving")
    srv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    srv.add_argument("--port", type=int, default=0, help="port to listen on (default 0: a free port)")
    srv.add_argument("--kubeconfig", default=None,
                     help="where to write a kubeconfig for the server (default: ./kubeconfig.fakekube)")
    srv.add_argument("--nodes", type=int, default=4, help="Ready nodes node-0... to add (default 4)")
    srv.add_argument("--seed", type=int, default=0)
    srv.add_argument("--feature-gates", default=None, help="e.g. RestartJob=true,ElasticJobSet=false")
    srv.add_argument("--clock", choices=("manual", "realtime", "quiescent"), default="realtime",
                     help="what moves virtual time: realtime (default; --speed virtual s per wall s), "
                          "quiescent (jumps when no request came for --quiet-ms), manual (never)")
    srv.add_argument("--speed", type=float, default=1.0, help="virtual seconds per wall second (realtime clock)")
    srv.add_argument("--quiet-ms", type=float, default=50.0, help="quiet wall milliseconds before a jump "
                                                                  "(quiescent clock)")
    srv.add_argument("--no-controller", action="store_true",
                     help="install the JobSet CRD and webhooks only; another controller reconciles")
    ctl = sub.add_parser("controller", help="run the reference JobSet controller against an API server "
                                            "(out of process, over HTTP) until SIGINT/SIGTERM")
    ctl.add_argument("--kubeconfig", required=True, help="kubeconfig of the API server to reconcile")
    ctl.add_argument("--context", default=None, help="kubeconfig context (default: current-context)")
    ctl.add_argument("--feature-gates", default=os.environ.get("JOBSET_FEATURE_GATES") or None,
                     help="e.g. RestartJob=true,ElasticJobSet=false (default: $JOBSET_FEATURE_GATES, which the "
                          "conformance runner sets to each scenario's gates)")
    ctl.add_argument("--break", dest="breaks", action="append", default=[], metavar="DEFECT",
                     help="test only: run a deliberately wrong controller (restart-attempt: never count restarts)")
    conf = sub.add_parser("conformance", add_help=False,
                          help="run the conformance scenarios (in process, or against --controller-cmd)")
    conf.add_argument("rest", nargs=argparse.REMAINDER)
    ctl.add_argument("-v", "--verbose", action="store_true", help="print the controller's decisions on stderr")
    return parser


def controller(args: argparse.Namespace) -> int:
    """The reference reconcilers out of process, until SIGINT/SIGTERM (exit 0)."""
    from jobset_ref.out_of_process import run_controller

    if not Path(args.kubeconfig).is_file():
        raise CliError(f"no kubeconfig at {args.kubeconfig!r}")
    return run_controller(args.kubeconfig, parse_gates(args.feature_gates), breaks=args.breaks,
                          verbose=args.verbose, context=args.context)


def serve(args: argparse.Namespace) -> int:
    """Apply the manifests, write the kubeconfig, print the URL, serve until SIGINT/SIGTERM."""
    import signal
    import threading

    import jobset_ref
    from fakekube import FakeCluster

    if not 0 <= args.port <= 65535:
        raise CliError(f"--port {args.port} is not a port number (0-65535; 0 picks a free one)")
    if args.nodes < 0:
        raise CliError(f"--nodes {args.nodes} must not be negative")
    docs = load_manifests(args.manifests) if args.manifests else []
    cluster = FakeCluster(seed=args.seed)
    jobset_ref.install(cluster, feature_gates=parse_gates(args.feature_gates), controller=not args.no_controller)
    cluster.add_nodes(args.nodes)
    for doc in docs:
        cluster.apply(doc)
    kubeconfig = Path(args.kubeconfig or "kubeconfig.fakekube").resolve()
    try:
        server = cluster.serve(host=args.host, port=args.port, clock=args.clock, speed=args.speed,
                               quiet_ms=args.quiet_ms, kubeconfig=kubeconfig)
    except OSError as err:
        raise CliError(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    print(server.url, flush=True)
    print(f"kubeconfig: {kubeconfig}  (export KUBECONFIG={kubeconfig})", file=sys.stderr, flush=True)
    with server:
        while not stop.wait(0.2):
            pass
    return 0


def _pods_per_template(doc: dict[str, Any]) -> list[tuple[int, int, dict[str, Any]]]:
    """(jobs, pods per job, pod spec) for each replicatedJob of a JobSet manifest."""
    out = []
    for rjob in (doc.get("spec") or {}).get("replicatedJobs") or []:
        job_spec = ((rjob.get("template") or {}).get("spec") or {})
        pods = int(job_spec.get("parallelism") or job_spec.get("completions") or 1)
        out.append((int(rjob.get("replicas", 1)), pods, ((job_spec.get("template") or {}).get("spec") or {})))
    return out


def default_nodes(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A cluster sized for the manifests: one node pool per Job when exclusive placement asks for a
    topology, node labels that satisfy the pods' nodeSelectors, and capacity for extended resources."""
    labels: dict[str, str] = {}
    extended: dict[str, int] = {}
    total_pods, pools, pool_key, pool_size = 0, 0, None, 1
    for doc in docs:
        if doc.get("kind") != "JobSet":
            continue
        annotations = (doc.get("metadata") or {}).get("annotations") or {}
        key = annotations.get("alpha.jobset.sigs.k8s.io/exclusive-topology")
        for jobs, pods, pod_spec in _pods_per_template(doc):
            total_pods += jobs * pods
            for k, v in (pod_spec.get("nodeSelector") or {}).items():
                labels.setdefault(k, v)
            for c in pod_spec.get("containers") or []:
                for name, value in ((c.get("resources") or {}).get("limits") or {}).items():
                    if "/" in name:
                        extended[name] = max(extended.get(name, 0), int(str(value)))
            if key:
                pools += jobs
                pool_key = key
                pool_size = max(pool_size, pods)
    capacity = {name: str(value) for name, value in extended.items()}
    if pool_key:
        return [{"name": f"pool-{p}-node-{i}", "labels": {**labels, pool_key: f"pool-{p}"}, "capacity": capacity}
                for p in range(pools) for i in range(pool_size)]
    per_node = 1 if extended else 8
    count = max(1, -(-total_pods // per_node))
    return [{"name": f"node-{i}", "labels": dict(labels), "capacity": capacity} for i in range(count)]


def _load_nodes_file(path: str) -> list[dict[str, Any]]:
    import yaml

    file = Path(path)
    if not file.is_file():
        raise CliError(f"{path}: no such file")
    try:
        data = yaml.safe_load(file.read_text())
    except yaml.YAMLError as err:
        raise CliError(f"{path}: malformed YAML: {err}") from None
    nodes = data.get("nodes") if isinstance(data, dict) else data
    if not isinstance(nodes, list) or not all(isinstance(n, dict) and n.get("name") for n in nodes):
        raise CliError(f"{path}: expected a list of nodes, each with a name (and optional labels, capacity, taints)")
    return nodes


def _match_pods(cluster: Any, target: str) -> list[dict[str, Any]]:
    pods = cluster.list("pods")
    exact = [p for p in pods if p["metadata"]["name"] == target]
    if exact:
        return exact
    by_host = [p for p in pods if (p.get("spec") or {}).get("hostname") == target
               and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
               and not p["metadata"].get("deletionTimestamp")]
    if by_host:
        return by_host
    return [p for p in pods if p["metadata"]["name"].startswith(target)
            and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")][:1]


def _finished(cluster: Any) -> bool:
    jobsets = cluster.list("jobsets.jobset.x-k8s.io")
    return bool(jobsets) and all((js.get("status") or {}).get("terminalState") for js in jobsets)


def simulate(args: argparse.Namespace) -> int:
    import jobset_ref
    from fakekube import FakeCluster
    from jobset_ref.tables import render_tables
    from jobset_ref.timeline import Timeline

    docs = load_manifests(args.manifests)
    until = parse_duration(args.until)
    faults = sorted((parse_fault(f) for f in args.fail), key=lambda f: f[1])
    gates = parse_gates(args.feature_gates)
    extra_labels = dict(parse_labels(args.node_labels))
    cluster = FakeCluster(seed=args.seed)
    jobset_ref.install(cluster, feature_gates=gates)
    _check_kinds(cluster, docs)
    nodes = _load_nodes_file(args.nodes_file) if args.nodes_file else default_nodes(docs)
    if args.nodes is not None:
        if args.nodes < 1:
            raise CliError("--nodes must be at least 1")
        template = nodes[0] if nodes else {"labels": {}, "capacity": {}}
        nodes = [{**template, "name": f"node-{i}"} for i in range(args.nodes)]
    for node in nodes:
        cluster.add_node(node["name"], labels={**(node.get("labels") or {}), **extra_labels},
                         capacity=node.get("capacity"), taints=node.get("taints"))
    if args.run_seconds > 0:
        cluster.script_pods("", duration=args.run_seconds, exit_code=0)
    timeline = Timeline(cluster)
    rejected = 0
    for doc in docs:
        try:
            cluster.apply(doc)
        except _api_error() as err:
            rejected += 1
            print(f"Error from server ({err.reason}): error when creating {_doc_ref(doc)}: {err.message}",
                  file=sys.stderr)
    progress = sys.stderr.isatty()
    for target, when, exit_code in faults:
        _run_until(cluster, min(when, until), progress)
        if cluster.elapsed < when:
            break
        _apply_fault(cluster, target, exit_code)
    if not _finished(cluster):
        _run_until(cluster, until, progress)
    cluster.run_until_idle()  # deliver what the last instant wrote before reading the timeline
    timeline.stop()
    result = {
        "seed": args.seed,
        "nodes": len(nodes),
        "elapsed_seconds": cluster.elapsed,
        "timeline": [e.as_dict() for e in timeline.entries],
        "jobsets": [{"name": js["metadata"]["name"], "namespace": js["metadata"]["namespace"],
                     "status": js.get("status") or {}} for js in cluster.list("jobsets.jobset.x-k8s.io")],
    }
    if args.output == "json":
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        print(f"# {len(docs)} object(s), {len(nodes)} node(s), seed {args.seed}; "
              f"simulated {cluster.elapsed:g}s of virtual time")
        print("\n".join(timeline.lines()))
        print()
        print(render_tables(cluster))
        if args.trace:
            print()
            print(cluster.trace.text(), end="")
    return EXIT_REJECTED if rejected else 0


def parse_labels(text: str) -> list[tuple[str, str]]:
    pairs = []
    for item in filter(None, (text or "").split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CliError(f"invalid node label {item!r}: use key=value")
        pairs.append((key.strip(), value.strip()))
    return pairs


def _run_until(cluster: Any, until: float, progress: bool) -> None:
    """Advance in steps, stopping as soon as every JobSet is finished; report progress on stderr."""
    step = 10.0
    while cluster.elapsed < until and not _finished(cluster):
        target = min(until, cluster.elapsed + step)
        try:
            cluster.run_until(lambda: _finished(cluster), timeout=target - cluster.elapsed)
        except _simulation_error():
            pass
        if progress:
            print(f"\r[jobset-ref] t={cluster.elapsed:,.0f}s", end="", file=sys.stderr, flush=True)
    if progress:
        print("\r", end="", file=sys.stderr)


def _apply_fault(cluster: Any, target: str, exit_code: int) -> None:
    if target.startswith("node/"):
        name = target.split("/", 1)[1]
        if not cluster.exists("nodes", name, None):
            raise CliError(f"--fail {target}: no node named {name!r}")
        cluster.fail_node(name)
        return
    pods = _match_pods(cluster, target)
    if not pods:
        raise CliError(f"--fail {target}: no running pod matches (use a pod name, a name prefix or a hostname "
                       "such as <jobset>-<rjob>-<job>-<pod>)")
    for pod in pods:
        cluster.fail_pod(pod["metadata"]["name"], pod["metadata"]["namespace"], exit_code=exit_code)


def _check_kinds(cluster: Any, docs: list[dict[str, Any]]) -> None:
    """Every document's kind must be served (after earlier documents' CRDs): else a usage error."""
    from fakekube import ApiError

    served_later = {(f"{d['spec']['group']}/{v['name']}", d["spec"]["names"]["kind"])
                    for d in docs if d.get("kind") == "CustomResourceDefinition" and isinstance(d.get("spec"), dict)
                    for v in d["spec"].get("versions") or []}
    for doc in docs:
        if (doc["apiVersion"], doc["kind"]) in served_later:
            continue
        try:
            cluster.api.registry.for_object(doc)
        except ApiError:
            raise CliError(f'unknown kind "{doc["kind"]}" in version "{doc["apiVersion"]}" '
                           "(apply its CustomResourceDefinition first)") from None


def _doc_ref(doc: dict[str, Any]) -> str:
    meta = doc.get("metadata") or {}
    return f'"{meta.get("name") or meta.get("generateName") or "?"}" ({doc.get("kind")})'


def _api_error() -> type[Exception]:
    from fakekube import ApiError

    return ApiError


def _simulation_error() -> type[Exception]:
    from fakekube import SimulationError

    return SimulationError


# ---------------------------------------------------------------------------- validate


def validate(args: argparse.Namespace) -> int:
    import jobset_ref
    from fakekube import ApiError, FakeCluster

    docs = load_manifests(args.manifests)
    cluster = FakeCluster(seed=0, simulate=False)
    jobset_ref.install(cluster, feature_gates=parse_gates(args.feature_gates))
    _check_kinds(cluster, docs)
    rejected = 0
    for doc in docs:
        try:
            cluster.api.create(cluster.api.registry.for_object(doc), doc,
                               namespace=(doc.get("metadata") or {}).get("namespace"), dry_run=True)
        except ApiError as err:
            rejected += 1
            print(f"Error from server ({err.reason}): error when creating {_doc_ref(doc)}: {err.message}")
            continue
        kind = doc["kind"].lower()
        group = doc["apiVersion"].split("/")[0] if "/" in doc["apiVersion"] else ""
        print(f"{kind}.{group}/{doc['metadata'].get('name', '')} created (dry run)" if group
              else f"{kind}/{doc['metadata'].get('name', '')} created (dry run)")
    return EXIT_REJECTED if rejected else 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["conformance"]:  # its own argument parser (shared with python -m jobset_ref.conformance)
        from jobset_ref.conformance.__main__ import main as conformance_main

        return conformance_main(argv[1:], prog="jobset-ref conformance")
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) if exit_.code in (0, None) else EXIT_USAGE
    try:
        if args.command == "simulate":
            return simulate(args)
        if args.command == "serve":
            return serve(args)
        if args.command == "controller":
            return controller(args)
        return validate(args)
    except CliError as err:
        print(f"jobset-ref: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("jobset-ref: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # a readable line, never a traceback
        from fakekube import ApiError, UsageError

        if isinstance(err, ApiError | UsageError):
            print(f"jobset-ref: {err}", file=sys.stderr)
            return EXIT_USAGE
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
