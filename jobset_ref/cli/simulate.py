"""``jobset-ref simulate``: apply manifests (or a conformance scenario) to a fresh simulated
cluster with the reference controller, play what-if actions at chosen virtual times, and show
what happened: a timeline with causes, tables or whole objects, one object's history, a Gantt chart.

What-ifs are timeline steps of the conformance scenario format, played by its interpreter
(``jobset_ref.conformance.actions``): ``--fail`` is shorthand for ``failPod``/``failNode``,
``--at TIME STEP`` takes any step (``'failPod: {hostname: x}'``, ``resume: js``, ``patch: {...}``,
``delete: {...}``, ``advance: 30``...), and a scenario file brings its own cluster, manifests and timeline.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jobset_ref.cli.common import (
    EXIT_EXPECTATION,
    EXIT_OK,
    EXIT_REJECTED,
    EXIT_WHAT_IF,
    CliError,
    add_validate_option,
    apply_sources,
    parse_documents,
    parse_duration,
    parse_fault,
    parse_gates,
    parse_labels,
    read_text,
    unmapped,
)
from jobset_ref.cli.nodes import default_nodes, load_nodes_file, plan_nodes
from jobset_ref.run_time import DEFAULT_RUN_SECONDS

__all__ = ["EXPECT_CHOICES", "SHOW_KINDS", "add_parser", "run"]

SHOW_KINDS = ("jobsets", "jobs", "pods", "services")
EXPECT_CHOICES = ("any", "Completed", "Failed")
JOBSETS = "jobsets.jobset.x-k8s.io"

EXIT_CODES_HELP = """exit codes:
  0  the run went as asked (and --expect held)
  1  the API server rejected something: a manifest (unknown field, webhook denial, a kind that is
     not served) or a what-if action; nothing is simulated after a rejected manifest
  2  bad input: a flag, a missing file, malformed YAML or scenario
  3  a what-if never happened: its target matched nothing, it came after every JobSet had
     finished (not played; the run stops at the finish), or it would change nothing (resume of a
     running JobSet, suspend of a suspended or finished one): the timeline says why. Also: a
     --follow target never existed, or the manifests hold no JobSet
  4  --expect did not hold: a JobSet ended otherwise, or had not ended by --until
"""


def add_parser(sub: Any) -> None:
    sim = sub.add_parser(
        "simulate", help="apply manifests to a simulated cluster and print what happens",
        description="Apply manifests (or one conformance scenario file) to a fresh simulated cluster with the\n"
                    "reference JobSet controller, play what-if actions at virtual times, and print a timeline,\n"
                    "the final state and tables. The run stops when every JobSet has finished (or at --until).",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    sim.add_argument("manifests", nargs="+", metavar="MANIFEST",
                     help="YAML files (- for stdin), or one conformance scenario file (with timeline:)")
    sim.add_argument("--nodes", type=int, default=None, metavar="N",
                     help="number of nodes (default: sized from the manifests); with exclusive placement they "
                          "form topology domains of one Job's pod count each")
    sim.add_argument("--nodes-file", default=None, metavar="PATH", help="YAML list of nodes: name, labels, capacity, taints")
    sim.add_argument("--node-labels", default="", metavar="K=V,...", help="labels for every generated node: k=v,k2=v2")
    sim.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the simulation's random streams (default 0)")
    sim.add_argument("--kueue", action="store_true",
                     help="install Kueue v0.19.2 (with its JobSet and batch/Job integrations); automatic when a "
                          "manifest holds a kueue.x-k8s.io object")
    sim.add_argument("--feature-gates", default=None, metavar="NAME=BOOL,...", help="JobSet feature gates, e.g. RestartJob=true,"
                                                           "InPlaceRestart=true")
    sim.add_argument("--until", default=None, metavar="DURATION",
                     help="virtual time limit (default 1h, or a scenario's end:); the run stops earlier when every "
                          "JobSet has finished, unless --run-after-finish")
    sim.add_argument("--run-after-finish", action="store_true",
                     help="keep running to --until after the JobSets finished (to see ttlSecondsAfterFinished)")
    sim.add_argument("--run-seconds", type=float, default=DEFAULT_RUN_SECONDS, metavar="SECONDS",
                     help=f"how long pods without a script run before exiting 0 (default {DEFAULT_RUN_SECONDS:g}, "
                          "as the pytest fixtures; 0 = forever); the pod annotation fakekube.io/run-seconds wins")
    sim.add_argument("--fail", action="append", default=[], metavar="TARGET@TIME[:EXIT]",
                     help="fail a pod (by name or hostname, e.g. pytorch-workers-0-1) or node/NAME at a virtual "
                          "time; exit code default 1")
    sim.add_argument("--at", nargs=2, action="append", default=[], metavar=("TIME", "STEP"),
                     help="play a conformance timeline step at a virtual time, as YAML: 'resume: js', "
                          "'failPod: {hostname: js-w-0-0, exitCode: 137}', 'failNode: pool-0-node-1', "
                          "'patch: {kind: JobSet, name: js, patch: {spec: {suspend: true}}}', "
                          "'delete: {kind: Job, name: js-w-0}'")
    add_validate_option(sim)
    sim.add_argument("--expect", choices=EXPECT_CHOICES, default="any",
                     help="the terminal state every JobSet must reach (exit 4 otherwise); default any: "
                          "the final state is reported, never judged")
    sim.add_argument("-o", "--output", choices=("text", "wide", "json", "yaml"), default="text",
                     help="text (default): timeline and tables; wide: wider tables (labels, hostnames, images); "
                          "json/yaml: everything (timeline, every shown object whole, JobSet status)")
    sim.add_argument("--show", default=None, metavar="KINDS",
                     help=f"which kinds the tables or objects show (default {','.join(SHOW_KINDS)}, and for "
                          "-o json|yaml also nodes,events; any served kind, with the columns kubectl prints: "
                          "configmaps, endpointslices, workloads,clusterqueues,localqueues under Kueue...)")
    sim.add_argument("--follow", action="append", default=[], metavar="KIND/NAME",
                     help="print the history of an object (every change, as a diff): pod/NAME (a pod name, its "
                          "hostname or a name prefix), job/NAME, jobset/NAME, service/NAME; under Kueue also "
                          "workload/NAME, clusterqueue/NAME, localqueue/NAME")
    sim.add_argument("--gantt", default=None, metavar="PATH",
                     help="write a Gantt chart of the pods across virtual time (.html or .svg)")
    sim.add_argument("--trace", action="store_true", help="also print the full API trace")


# ---------------------------------------------------------------------------- inputs


def _is_scenario(doc: Any) -> bool:
    return isinstance(doc, dict) and "kind" not in doc and bool({"timeline", "manifests", "cluster"} & set(doc))


def _cli_steps(args: argparse.Namespace) -> list[dict[str, Any]]:
    """``--fail`` and ``--at`` as conformance timeline steps, in virtual-time order."""
    from jobset_ref.conformance.scenario import STEP_ACTIONS, ScenarioError, check_keys

    steps: list[tuple[float, int, dict[str, Any]]] = []
    for i, text in enumerate(args.fail):
        target, when, exit_code = parse_fault(text)
        if target.startswith("node/"):
            step: dict[str, Any] = {"failNode": target.split("/", 1)[1]}
        else:
            step = {"failPod": {"name": target, "exitCode": exit_code}}
        steps.append((when, i, {"at": when, "note": f"--fail {text}", **step}))
    for i, (when_text, body) in enumerate(args.at):
        when = parse_duration(when_text)
        parsed = parse_documents(f"--at {when_text}", body)
        action = parsed[0] if len(parsed) == 1 else None
        try:
            check_keys(action, STEP_ACTIONS, f"--at {when_text} {body!r}")
        except ScenarioError as err:
            raise CliError(str(err)) from None
        assert isinstance(action, dict)
        if len(action) != 1:
            raise CliError(f"--at {when_text} {body!r}: one step per --at (one of {', '.join(STEP_ACTIONS)})")
        steps.append((when, len(args.fail) + i, {"at": when, "note": f"--at {when_text} {shlex.quote(body)}", **action}))
    return [s for _, _, s in sorted(steps, key=lambda s: (s[0], s[1]))]


def _nodes(args: argparse.Namespace, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if args.nodes_file:
        nodes = load_nodes_file(args.nodes_file)
    elif args.nodes is not None:
        nodes, note = plan_nodes(docs, args.nodes)
        if note:
            print(f"jobset-ref: note: {note}", file=sys.stderr)
    else:
        nodes = default_nodes(docs)
    extra = dict(parse_labels(args.node_labels))
    return [{**node, "labels": {**(node.get("labels") or {}), **extra}} for node in nodes]


# ---------------------------------------------------------------------------- the run


class _Simulation:
    """One run: the scenario interpreter (``Actions``) around a plain cluster, plus the observers."""

    def __init__(self, args: argparse.Namespace) -> None:
        from fakekube import FakeCluster
        from jobset_ref.conformance.actions import Actions
        from jobset_ref.conformance.scenario import Scenario, ScenarioError, load_scenario

        self.args = args
        self.sources: list[tuple[str, dict[str, Any]]] = []
        first = args.manifests[0]
        docs0 = parse_documents(first, read_text(first))
        self.scenario_file = len(docs0) == 1 and _is_scenario(docs0[0])
        if self.scenario_file:
            if len(args.manifests) > 1 or first == "-":
                raise CliError("a scenario file is simulated on its own (one path, not stdin)")
            if args.nodes is not None or args.nodes_file or args.feature_gates:
                raise CliError("a scenario file sets its own cluster: drop --nodes/--nodes-file/--feature-gates")
            try:
                scenario = load_scenario(Path(first), Path(first).resolve().parent)
            except ScenarioError as err:
                raise CliError(str(err)) from None
            data = dict(scenario.data)
            data["cluster"] = {**(data.get("cluster") or {}), **({"seed": args.seed} if args.seed else {})}
        else:
            from jobset_ref.cli.common import load_sources

            self.sources = load_sources(args.manifests)
            docs = [d for _, d in self.sources]
            cluster_cfg: dict[str, Any] = {"seed": args.seed, "featureGates": parse_gates(args.feature_gates),
                                           "nodes": _nodes(args, docs)}
            if args.run_seconds > 0:
                cluster_cfg["pods"] = {"runSeconds": args.run_seconds}
            if args.kueue or any(str(d.get("apiVersion", "")).startswith("kueue.x-k8s.io/") for d in docs):
                cluster_cfg["kueue"] = True
            data = {"description": "jobset-ref simulate", "covers": ["cli"], "cluster": cluster_cfg}
            scenario = Scenario(path=Path(first if first != "-" else "stdin").resolve(), id="simulate",
                                description="jobset-ref simulate", covers=["cli"], data=data)
        data["invariants"] = False  # judging is the conformance command's job; simulate shows
        cli_steps = _cli_steps(args)
        self.what_ifs = {id(step) for step in cli_steps}  # the command line's steps (a scenario brings others)
        data["timeline"] = [*(data.get("timeline") or []), *cli_steps]
        scenario.data = data
        self.scenario = scenario
        self.run = Actions(scenario)
        # simulate explores one run: a plain cluster (the conformance runner's frozen-object checks cost time)
        seed = (data.get("cluster") or {}).get("seed", 0)
        self.run.cluster = self.cluster = FakeCluster(seed=seed if isinstance(seed, int) else 0)
        if not self.scenario_file and args.run_seconds < 0:
            raise CliError("--run-seconds must not be negative")
        self.until = parse_duration(args.until) if args.until is not None else None
        if self.until is not None:
            late = [s for s in data["timeline"] if isinstance(s.get("at"), int | float) and s["at"] > self.until]
            if late:
                raise CliError(f"{late[0].get('note', 'a step')} comes after --until {args.until}")

    def setup(self) -> None:
        from jobset_ref.conformance.scenario import ScenarioError

        try:
            self.run.setup()
        except ScenarioError as err:
            text = str(err)
            if not self.scenario_file:  # the CLI's options, not a scenario file, set the cluster up
                text = text.replace(f"{self.scenario.path}: cluster.featureGates: ", "--feature-gates: ")
            raise CliError(text) from None


def _finished(cluster: Any) -> bool:
    """Every JobSet has a terminal state; without a JobSet, every Job has finished and no pod is live."""
    jobsets = cluster.list(JOBSETS)
    if jobsets:
        return all((js.get("status") or {}).get("terminalState") for js in jobsets)
    from fakekube.faults import is_live

    return (all(any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
                    for c in (job.get("status") or {}).get("conditions") or []) for job in cluster.list("jobs.batch"))
            and not any(is_live(pod) for pod in cluster.list("pods")))


def _why_not_played(sim: _Simulation, step: dict[str, Any]) -> str | None:
    """Advance to a what-if's time (stopping early when everything has finished, unless
    ``--run-after-finish``), then say why playing it would change nothing (None: play it)."""
    from fakekube import ApiError, SimulationError, UsageError
    from fakekube.clock import seconds

    cluster, loop = sim.cluster, sim.cluster.loop
    target = seconds(step["at"])
    stop_early = not sim.args.run_after_finish
    if loop.now < target:
        try:
            loop.run_until((lambda: _finished(cluster)) if stop_early else (lambda: False), timeout=target - loop.now)
        except SimulationError:
            pass
        cluster.run_until_idle()
    if stop_early and _finished(cluster):
            if cluster.list(JOBSETS):
                return (f"every JobSet had already finished (the last at t={_finished_at(cluster):g}s): pick an "
                        f"earlier time, or add --run-after-finish")
            return "nothing was running any more (there is no JobSet): pick an earlier time"
    action = "suspend" if "suspend" in step else "resume" if "resume" in step else None
    if action is None:
        return None
    arg = step[action]
    # What the scenario's YAML holds (not checked here): a name that is not a string makes
    # cluster.get raise UsageError, which plays the step.
    name: Any = arg if isinstance(arg, str) else (arg or {}).get("name")
    namespace = "default" if isinstance(arg, str) else (arg or {}).get("namespace", "default")
    try:
        js = cluster.get(JOBSETS, name, namespace)
    except (ApiError, UsageError):
        return None  # played: the API server answers (NotFound, a bad name)
    state = (js.get("status") or {}).get("terminalState")
    if state:
        return f"JobSet {namespace}/{name} had already {state.lower()} (at t={_finished_at(cluster, js):g}s): " \
               f"a finished JobSet is not {action}ed"
    suspended = bool((js.get("spec") or {}).get("suspend"))
    if action == "suspend" and suspended:
        return f"JobSet {namespace}/{name} is already suspended"
    if action == "resume" and not suspended:
        return f"JobSet {namespace}/{name} is not suspended: there is nothing to resume"
    return None


def _play_timeline(sim: _Simulation, timeline: Any) -> list[str]:
    """The scenario's steps and the what-ifs; a what-if that would change nothing is not played: the
    timeline says why, and so do the returned problems."""
    problems = []
    for i, step in enumerate(sim.scenario.data["timeline"]):
        if id(step) in sim.what_ifs:
            why = _why_not_played(sim, step)
            if why is not None:
                timeline.note("What-if", step["note"], f"not played: {why}")
                problems.append(f"{step['note']}: not played: {why}")
                continue
        sim.run.play(i, step)
    return problems


def _finished_at(cluster: Any, *only: dict[str, Any]) -> float:
    """When the last JobSet (of ``only``, or of all) reached its terminal state (virtual seconds)."""
    from fakekube.clock import parse_time, to_seconds

    times = [parse_time(c["lastTransitionTime"]) for js in (only or cluster.list(JOBSETS))
             for c in (js.get("status") or {}).get("conditions") or []
             if c.get("type") == (js.get("status") or {}).get("terminalState") and c.get("lastTransitionTime")]
    return to_seconds(max(times)) if times else cluster.elapsed


def _run_until(cluster: Any, until: float, progress: bool, *, stop_when_finished: bool) -> None:
    """Advance in steps (stopping as soon as every JobSet is finished, if asked); progress on stderr."""
    from fakekube import SimulationError

    step = 10.0
    done: Callable[[], bool] = (lambda: _finished(cluster)) if stop_when_finished else (lambda: False)
    while cluster.elapsed < until and not done():
        target = min(until, cluster.elapsed + step)
        try:
            cluster.run_until(done, timeout=target - cluster.elapsed)
        except SimulationError:
            pass
        if progress:
            print(f"\r[jobset-ref] t={cluster.elapsed:,.0f}s", end="", file=sys.stderr, flush=True)
    if progress:
        print("\r", end="", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from jobset_ref.cli.follow import Follower
    from jobset_ref.conformance.scenario import ExpectationFailed, ScenarioError
    from jobset_ref.timeline import Timeline

    default_show = [*SHOW_KINDS, "nodes", "events"] if args.output in ("json", "yaml") else list(SHOW_KINDS)
    show = [k.strip() for k in args.show.split(",") if k.strip()] if args.show is not None else default_show
    sim = _Simulation(args)
    sim.setup()
    cluster = sim.cluster
    for kind in show:
        try:
            cluster.api.registry.resolve(kind)
        except Exception:
            raise CliError(f"--show {kind}: the cluster serves no such kind") from None
    followers = [Follower(cluster, spec) for spec in args.follow]
    gantt = None
    if args.gantt:
        from jobset_ref.gantt import GanttRecorder, check_path

        check_path(args.gantt)
        gantt = GanttRecorder(cluster)
    timeline = Timeline(cluster)
    status = EXIT_OK
    problems: list[str] = []
    # ---- manifests
    if sim.scenario_file:
        try:
            for i, src in enumerate(sim.scenario.data.get("manifests") or []):
                sim.run.where = f"manifests[{i}]"
                sim.run.apply_source(src, sim.run.where)
        except ExpectationFailed as failed:
            problems.append(_headline(failed))
            status = EXIT_REJECTED
        except ScenarioError as err:
            raise CliError(str(err)) from None
    else:
        errors = unmapped(cluster, sim.sources)
        for line in errors:
            print(line, file=sys.stderr)
        rejected = len(errors) or apply_sources(cluster, sim.sources, args.validate)
        if rejected:
            problems.append(f"{rejected} object(s) rejected: nothing simulated")
            status = EXIT_REJECTED
    if status != EXIT_OK:  # nothing to show: the manifests never ran
        timeline.stop()
        for line in problems:
            print(f"jobset-ref: {line}", file=sys.stderr)
        return status
    # ---- what-ifs and the run
    progress = sys.stderr.isatty()
    no_jobset = not sim.scenario_file and not cluster.list(JOBSETS)
    if no_jobset:
        timeline.note("JobSet", "(none)", f"no JobSet among the {len(sim.sources)} object(s): the JobSet "
                                          f"controller has nothing to do")
    if status == EXIT_OK:
        try:
            not_played = _play_timeline(sim, timeline)
            if not_played:
                problems += not_played
                status = EXIT_WHAT_IF
            if sim.scenario_file and sim.until is None:
                sim.run.run_end()
            else:
                _run_until(cluster, sim.until if sim.until is not None else 3600.0, progress,
                           stop_when_finished=not args.run_after_finish)
        except ExpectationFailed as failed:
            status = EXIT_REJECTED if "rejected" in failed.headline else EXIT_WHAT_IF
            late = status == EXIT_WHAT_IF and _finished(cluster)
            problems.append(_headline(failed) + (f"\n  every JobSet had already finished (the last at "
                                                 f"t={_finished_at(cluster):g}s): pick an earlier time" if late else ""))
        except ScenarioError as err:
            raise CliError(str(err)) from None
    cluster.run_until_idle()  # deliver what the last instant wrote before reading the timeline
    timeline.stop()
    for f in followers:
        f.stop()
        if not f.events:
            problems.append(f"--follow {f.spec}: no {f.kind} named {f.name!r} existed during the run")
            status = EXIT_WHAT_IF if status == EXIT_OK else status
    jobsets = cluster.list(JOBSETS) if cluster.api.registry.by_key(JOBSETS) is not None else []
    if status == EXIT_OK and args.expect != "any":
        for js in jobsets:
            state = (js.get("status") or {}).get("terminalState") or "not finished"
            if state != args.expect:
                problems.append(f"--expect {args.expect}: JobSet {js['metadata']['name']} is {state} at "
                                f"t={cluster.elapsed:g}s")
                status = EXIT_EXPECTATION
        if not jobsets:
            problems.append(f"--expect {args.expect}: there is no JobSet")
            status = EXIT_EXPECTATION
    if no_jobset and status == EXIT_OK:
        problems.append("no JobSet among the manifests: nothing for the JobSet controller to do")
        status = EXIT_WHAT_IF
    _print(args, sim, timeline, show, followers, jobsets)
    if gantt is not None:
        gantt.stop()
        gantt.write(args.gantt, title=" ".join(Path(m).name for m in args.manifests))
        print(f"jobset-ref: wrote {args.gantt}", file=sys.stderr)
    for line in problems:
        print(f"jobset-ref: {line}", file=sys.stderr)
    return status


def _headline(failed: Any) -> str:
    """An interpreter failure without its trace context: headline and mismatches."""
    headline = failed.headline.split(": ", 1)[1] if failed.headline.startswith("simulate: ") else failed.headline
    headline = headline.replace(" was rejected unexpectedly", " was rejected")
    return "\n".join([headline, *(f"  {m}" for m in failed.mismatches)])


def _outcome(js: dict[str, Any]) -> str:
    status = js.get("status") or {}
    state = status.get("terminalState")
    if not state:
        return f"JobSet {js['metadata']['name']}: not finished (restarts {status.get('restarts', 0)})"
    cond: dict[str, Any] = next((c for c in status.get("conditions") or [] if c.get("type") == state and c.get("status") == "True"),
                {})
    why = ": ".join(x for x in (cond.get("reason"), cond.get("message")) if x)
    job_restarts = sum(sum(r.get("jobRestarts") or []) for r in status.get("replicatedJobsStatus") or [])
    return f"JobSet {js['metadata']['name']}: {state}" + (f" ({why})" if why else "") + \
        f", restarts {status.get('restarts', 0)}" + (f", single-Job restarts {job_restarts}" if job_restarts else "")


def _print(args: argparse.Namespace, sim: _Simulation, timeline: Any, show: list[str], followers: list[Any],
           jobsets: list[dict[str, Any]]) -> None:
    from jobset_ref.cli.show import objects_of, render

    cluster = sim.cluster
    if args.output in ("json", "yaml"):
        result = {
            "seed": cluster.seed,
            "nodes": len(cluster.list("nodes")),
            "elapsed_seconds": cluster.elapsed,
            "timeline": [e.as_dict() for e in timeline.entries],
            "jobsets": [{"name": js["metadata"]["name"], "namespace": js["metadata"]["namespace"],
                         "status": js.get("status") or {}} for js in jobsets],
            "objects": {kind: objects_of(cluster, kind) for kind in show},
            "history": {f.spec: f.as_dicts() for f in followers},
        }
        if args.output == "json":
            print(json.dumps(result, indent=2, sort_keys=True))
        else:
            import yaml

            print(yaml.safe_dump(result, sort_keys=True, default_flow_style=False), end="")
        return
    what = f"scenario {args.manifests[0]}" if sim.scenario_file else f"{len(sim.sources)} object(s)"
    print(f"# {what}, {len(cluster.list('nodes'))} node(s), seed {cluster.seed}; "
          f"simulated {cluster.elapsed:g}s of virtual time")
    print("\n".join(timeline.lines()))
    for js in jobsets:
        print(f"# {_outcome(js)}")
    for f in followers:
        print()
        print("\n".join(f.lines()))
    print()
    print(render(cluster, show, wide=args.output == "wide"))
    if args.trace:
        print()
        print(cluster.trace.text(), end="")
