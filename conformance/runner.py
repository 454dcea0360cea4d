"""The conformance scenario runner: load a YAML scenario, drive a ``FakeCluster`` through its
timeline on virtual time, check its expectations, and explain failures.

The format is documented in ``conformance/README.md``. In short::

    description: one failing pod restarts the whole JobSet
    covers: [failurePolicy.maxRestarts, labels.restart-attempt]
    cluster: {seed: 0, nodes: [{count: 4}], pods: {runSeconds: 60}}
    manifests: [{example: pytorch.yaml}]
    timeline:
      - at: 10
        failPod: {hostname: pytorch-workers-0-1}
      - waitFor: {jobset: pytorch, conditions: [{type: RestartingJobSet, status: "True"}]}
        expectTime: 10
    end: {until: finished, expectTime: 132.01}
    expect:
      - jobset: pytorch
        match: {status: {restarts: 1, terminalState: Completed}}

``run_scenario(load_scenario(path))`` raises :class:`ExpectationFailed` (an ``AssertionError``)
with the expectation, expected vs actual values, an object summary and the trace tail;
:class:`ScenarioError` for a malformed scenario; :class:`ScenarioSkipped` when an input (the
shared upstream examples folder) is absent.
"""

from __future__ import annotations

import difflib
import json
import re
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, cast

import yaml

from fakekube import ApiError, FakeCluster, Reactor, SimulationError, UsageError
from fakekube.clock import format_offset, format_time, seconds, to_seconds
from fakekube.machinery import patch as patching
from fakekube.machinery import selectors

__all__ = [
    "EXAMPLES_DIR",
    "REPO_ROOT",
    "SCENARIOS_DIR",
    "UPSTREAM_DIR",
    "UPSTREAM_EXAMPLES",
    "ExpectationFailed",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "ScenarioSkipped",
    "discover",
    "load_scenario",
    "resolve_path",
    "run_scenario",
]

CONFORMANCE_DIR = Path(__file__).resolve().parent
REPO_ROOT = CONFORMANCE_DIR.parent
SCENARIOS_DIR = CONFORMANCE_DIR / "scenarios"
EXAMPLES_DIR = REPO_ROOT / "examples"
UPSTREAM_DIR = REPO_ROOT.parent / "shared" / "upstream"
UPSTREAM_EXAMPLES = UPSTREAM_DIR / "examples"

JOBSETS = "jobsets.jobset.x-k8s.io"
JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name"
TRACE_TAIL = 40
DEFAULT_TIMEOUT = 3600.0
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<absent>"})()

_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?$")


# ====================================================================== errors


class ScenarioError(Exception):
    """The scenario file itself is wrong (unknown key, bad value): an authoring mistake."""


class ScenarioSkipped(Exception):
    """An input the scenario needs is absent (e.g. ``../shared/upstream``)."""


class ExpectationFailed(AssertionError):
    """An expectation did not hold; ``str()`` is the full, readable report."""

    def __init__(self, headline: str, *, where: str, expectation: Any = None, mismatches: Iterable[str] = (),
                 context: str = "") -> None:
        self.headline = headline
        self.where = where
        self.expectation = expectation
        self.mismatches = list(mismatches)
        self.context = context
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"{self.headline}", f"  where: {self.where}"]
        if self.expectation is not None:
            text = yaml.safe_dump(self.expectation, sort_keys=False, default_flow_style=None, width=100).rstrip()
            lines += ["  expectation:", *(f"    {line}" for line in text.splitlines())]
        if self.mismatches:
            lines += ["  mismatches (expected vs actual):", *(f"    - {m}" for m in self.mismatches)]
        if self.context:
            lines += ["", self.context]
        return "\n".join(lines)


# ====================================================================== small helpers


def parse_seconds(value: Any, what: str) -> float:
    """``90``, ``1.5``, ``"90s"``, ``"10m"``, ``"1h30m"`` → seconds."""
    if isinstance(value, bool):
        raise ScenarioError(f"{what}: expected seconds (a number or a duration like '1m30s'), got {value!r}")
    if isinstance(value, int | float):
        if value < 0:
            raise ScenarioError(f"{what}: a time cannot be negative, got {value!r}")
        return float(value)
    if isinstance(value, str):
        match = _DURATION.match(value.strip())
        if match and any(match.groups()):
            h, m, s = (float(g) if g else 0.0 for g in match.groups())
            return h * 3600 + m * 60 + s
    raise ScenarioError(f"{what}: expected seconds (a number or a duration like '1m30s'), got {value!r}")


def _fmt_time(ns: int | None) -> str:
    """An instant as the virtual seconds a scenario writes (``62.01s``), exact."""
    if ns is None:
        return "never"
    value = to_seconds(ns)
    short = f"{value:g}"
    return f"{short if float(short) == value else repr(value)}s"


def _check_keys(obj: Any, allowed: Iterable[str], where: str, *, required: Iterable[str] = ()) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise ScenarioError(f"{where}: expected a mapping, got {type(obj).__name__} {obj!r}")
    allowed = set(allowed)
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise ScenarioError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; "
                            f"known keys: {', '.join(sorted(allowed))}")
    missing = [k for k in required if k not in obj]
    if missing:
        raise ScenarioError(f"{where}: missing required key(s) {', '.join(map(repr, missing))}")
    return obj


def _show(value: Any) -> str:
    if value is MISSING:
        return "<absent>"
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 300 else text[:297] + "..."


# ====================================================================== field paths

_TOKEN = re.compile(r"""
    (?P<name>[A-Za-z_$][\w\-$]*)                 # plain key
  | \[(?P<index>-?\d+)\]                         # list index
  | \[(?P<quoted>"(?:[^"\\]|\\.)*"|'[^']*')\]    # ["key.with.dots"]
  | \[(?P<fkey>[\w.\-/]+)=(?P<fval>[^\]]*)\]     # [name=value] list filter
  | (?P<dot>\.)
""", re.VERBOSE)


def _parse_path(path: str) -> list[tuple[str, Any]]:
    steps: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if m is None:
            raise ScenarioError(f"bad field path {path!r} at {path[pos:]!r}: use a.b[0].c, "
                                f"a[name=x].b or metadata.labels[\"k8s.io/key\"]")
        pos = m.end()
        if m.group("dot"):
            continue
        if m.group("name") is not None:
            steps.append(("key", m.group("name")))
        elif m.group("index") is not None:
            steps.append(("index", int(m.group("index"))))
        elif m.group("quoted") is not None:
            raw = m.group("quoted")
            steps.append(("key", json.loads(raw) if raw.startswith('"') else raw[1:-1]))
        else:
            steps.append(("filter", (m.group("fkey"), m.group("fval"))))
    return steps


def resolve_path(obj: Any, path: str) -> Any:
    """The value at ``path`` (``status.replicatedJobsStatus[name=workers].ready``,
    ``metadata.labels["jobset.sigs.k8s.io/job-index"]``, ``spec.containers[0].name``), or
    ``MISSING``."""
    value = obj
    for kind, arg in _parse_path(path):
        if kind == "key":
            if not isinstance(value, dict) or arg not in value:
                return MISSING
            value = value[arg]
        elif kind == "index":
            if not isinstance(value, list) or not -len(value) <= arg < len(value):
                return MISSING
            value = value[arg]
        else:
            key, want = arg
            if not isinstance(value, list):
                return MISSING
            found = [item for item in value if isinstance(item, dict) and str(item.get(key)) == want]
            if not found:
                return MISSING
            value = found[0]
    return value


# ====================================================================== value matching


def match_value(expected: Any, actual: Any, path: str) -> list[str]:
    """Mismatches between an expected value and an actual one.

    Dicts match as subsets (keys not mentioned are ignored; ``null`` means absent or null);
    lists match element-wise with equal length; ``{$regex: ..}``, ``{$contains: ..}``,
    ``{$len: n}``, ``{$absent: true}``, ``{$any: true}`` are matchers; scalars compare
    equal (``1`` vs ``"1"`` are different).
    """
    if isinstance(expected, dict) and expected and all(isinstance(k, str) and k.startswith("$") for k in expected):
        return _match_operator(expected, actual, path)
    if expected is None:
        return [] if actual is MISSING or actual is None else [f"{path}: expected absent/null, got {_show(actual)}"]
    if actual is MISSING:
        return [f"{path}: expected {_show(expected)}, got <absent>"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object {_show(expected)}, got {_show(actual)}"]
        out: list[str] = []
        for key, want in expected.items():
            sub = f"{path}.{key}" if re.fullmatch(r"[A-Za-z_]\w*", str(key)) else f'{path}["{key}"]'
            out += match_value(want, actual.get(key, MISSING), sub.lstrip("."))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{path}: expected a list {_show(expected)}, got {_show(actual)}"]
        if len(expected) != len(actual):
            return [f"{path}: expected {len(expected)} item(s) {_show(expected)}, got {len(actual)}: {_show(actual)}"]
        out = []
        for i, (want, have) in enumerate(zip(expected, actual, strict=True)):
            out += match_value(want, have, f"{path}[{i}]")
        return out
    if type(expected) is not type(actual) and not (isinstance(expected, int | float) and isinstance(actual, int | float)
                                                   and not isinstance(actual, bool) and not isinstance(expected, bool)):
        return [f"{path}: expected {_show(expected)} ({type(expected).__name__}), got {_show(actual)} "
                f"({type(actual).__name__})"]
    return [] if expected == actual else [f"{path}: expected {_show(expected)}, got {_show(actual)}"]


def _match_operator(expected: dict[str, Any], actual: Any, path: str) -> list[str]:
    out: list[str] = []
    for op, arg in expected.items():
        if op == "$absent":
            if bool(arg) != (actual is MISSING):
                out.append(f"{path}: expected {'absent' if arg else 'present'}, got {_show(actual)}")
        elif op == "$any":
            if actual is MISSING:
                out.append(f"{path}: expected a value, got <absent>")
        elif op == "$regex":
            if not isinstance(actual, str) or re.search(arg, actual) is None:
                out.append(f"{path}: expected a string matching /{arg}/, got {_show(actual)}")
        elif op == "$contains":
            if isinstance(actual, str):
                if str(arg) not in actual:
                    out.append(f"{path}: expected a string containing {arg!r}, got {_show(actual)}")
            elif isinstance(actual, list):
                if not any(not match_value(arg, item, path) for item in actual):
                    out.append(f"{path}: expected a list containing {_show(arg)}, got {_show(actual)}")
            else:
                out.append(f"{path}: expected a string or list containing {_show(arg)}, got {_show(actual)}")
        elif op == "$len":
            if not isinstance(actual, list | dict | str) or len(actual) != arg:
                got = len(actual) if isinstance(actual, list | dict | str) else _show(actual)
                out.append(f"{path}: expected length {arg}, got {got}")
        elif op == "$not":
            if not match_value(arg, actual, path):
                out.append(f"{path}: expected anything but {_show(arg)}, got {_show(actual)}")
        else:
            raise ScenarioError(f"unknown matcher {op!r} at {path}; known: $absent, $any, $regex, $contains, "
                                "$len, $not")
    return out


# ====================================================================== scenario model

SOURCE_KEYS = ("upstream", "example", "file", "inline")
SOURCE_OPTIONS = ("select", "embedded", "patch", "jsonPatch", "namespace", "expectError", "note")
STEP_ACTIONS = ("apply", "patch", "update", "delete", "suspend", "resume", "failPod", "completePod", "evictPod",
                "deletePod", "failNode", "addNodes", "advance", "waitFor", "expect", "inject", "clearFaults",
                "script")
STEP_OPTIONS = ("at", "after", "note", "expectError", "expectTime", "timeout")
TOP_KEYS = ("description", "covers", "xfail", "skip", "cluster", "manifests", "timeline", "end", "expect", "golden",
            "invariants", "notes")
CLUSTER_KEYS = ("seed", "featureGates", "install", "simulate", "nodes", "nodesFile", "pools", "pods", "scripts")
SELECT_KEYS = ("jobset", "job", "pod", "service", "pvc", "node", "kind", "name", "namespace", "selector", "jobsOf",
               "podsOf")
CHECK_KEYS = ("exists", "deleting", "labels", "annotations", "fields", "match", "conditions", "conditionList",
              "conditionTimes", "names", "count", "each", "includeDeleting")
OTHER_EXPECT_KEYS = ("events", "dns", "trace", "now", "note", "sequence", "contains", "absent", "answers",
                     "resolvesToPods", "nxdomain", "notContains")


@dataclass
class Scenario:
    """A parsed scenario file."""

    path: Path
    id: str
    description: str
    covers: list[str]
    data: dict[str, Any]
    xfail: str | None = None
    skip: str | None = None
    golden: bool = False

    @property
    def golden_path(self) -> Path:
        return self.path.with_suffix(".trace")

    def upstream_refs(self) -> list[str]:
        """Every ``upstream:`` example this scenario reads (manifests and apply steps)."""
        refs = [m["upstream"] for m in self.data.get("manifests") or [] if isinstance(m, dict) and "upstream" in m]
        for step in self.data.get("timeline") or []:
            src = step.get("apply") if isinstance(step, dict) else None
            if isinstance(src, dict) and "upstream" in src:
                refs.append(src["upstream"])
        return refs

    def example_refs(self) -> list[str]:
        refs = [m["example"] for m in self.data.get("manifests") or [] if isinstance(m, dict) and "example" in m]
        nodes_file = (self.data.get("cluster") or {}).get("nodesFile")
        if isinstance(nodes_file, str) and nodes_file.startswith("examples/"):
            refs.append(nodes_file.removeprefix("examples/"))
        for step in self.data.get("timeline") or []:
            src = step.get("apply") if isinstance(step, dict) else None
            if isinstance(src, dict) and "example" in src:
                refs.append(src["example"])
        return refs


def discover(root: Path = SCENARIOS_DIR) -> list[Path]:
    """Scenario files under ``root``, sorted."""
    return sorted(p for p in root.rglob("*.yaml") if p.is_file())


def scenario_id(path: Path, root: Path = SCENARIOS_DIR) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).with_suffix("").as_posix()
    except ValueError:
        return path.stem


def load_scenario(path: Path, root: Path = SCENARIOS_DIR) -> Scenario:
    """Parse and structurally check a scenario file (unknown keys are errors)."""
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        raise ScenarioError(f"{path}: malformed YAML: {err}") from None
    where = str(path)
    _check_keys(data, TOP_KEYS, where, required=("description", "covers"))
    covers = data["covers"]
    if not isinstance(covers, list) or not covers or not all(isinstance(c, str) for c in covers):
        raise ScenarioError(f"{where}: covers must be a non-empty list of catalogue ids (see conformance/matrix.py)")
    for key in ("xfail", "skip"):
        if key in data and (not isinstance(data[key], str) or not data[key]):
            raise ScenarioError(f"{where}: {key} takes a reason string")
    _check_keys(data.get("cluster") or {}, CLUSTER_KEYS, f"{where}: cluster")
    for i, src in enumerate(data.get("manifests") or []):
        _check_source(src, f"{where}: manifests[{i}]")
    for i, step in enumerate(data.get("timeline") or []):
        _check_keys(step, (*STEP_ACTIONS, *STEP_OPTIONS), f"{where}: timeline[{i}]")
        actions = [k for k in step if k in STEP_ACTIONS]
        if len(actions) != 1:
            raise ScenarioError(f"{where}: timeline[{i}] needs exactly one action of {', '.join(STEP_ACTIONS)}; "
                                f"got {actions or 'none'}")
        if actions[0] == "apply":
            _check_source(step["apply"], f"{where}: timeline[{i}].apply")
    _check_keys(data.get("end") or {}, ("until", "at", "timeout", "expectTime", "settle"), f"{where}: end")
    return Scenario(path=path, id=scenario_id(path, root), description=data["description"], covers=list(covers),
                    data=data, xfail=data.get("xfail"), skip=data.get("skip"), golden=bool(data.get("golden")))


def _check_source(src: Any, where: str) -> None:
    _check_keys(src, (*SOURCE_KEYS, *SOURCE_OPTIONS), where)
    given = [k for k in SOURCE_KEYS if k in src]
    if len(given) != 1:
        raise ScenarioError(f"{where}: a manifest source needs exactly one of {', '.join(SOURCE_KEYS)}")


# ====================================================================== the run


@dataclass
class RunResult:
    """What a successful run leaves behind (for tests of the runner and for curiosity)."""

    scenario: Scenario
    cluster: FakeCluster
    elapsed: float
    golden_updated: bool = False


@dataclass
class _Recorder:
    """First virtual time each (kind, namespace, name, condition type, status) was observed, and
    invariant violations seen on the way (restarts decreasing, terminalState changing)."""

    first: dict[tuple[str, str, str, str, str], int] = field(default_factory=dict)
    restarts: dict[tuple[str, str], int] = field(default_factory=dict)
    terminal: dict[tuple[str, str], str] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)


class _Run:
    def __init__(self, scenario: Scenario, *, update_golden: bool = False) -> None:
        self.scenario = scenario
        self.data = scenario.data
        self.update_golden = update_golden
        self.where = "setup"
        cluster_cfg = self.data.get("cluster") or {}
        seed = cluster_cfg.get("seed", 0)
        if not isinstance(seed, int):
            raise ScenarioError(f"{scenario.path}: cluster.seed must be an int")
        # check_frozen: every scenario also proves no component edits a stored (shared) object in place.
        self.cluster = FakeCluster(seed=seed, simulate=cluster_cfg.get("simulate", True), check_frozen=True)
        self.recorder = _Recorder()
        self.watches: list[Any] = []
        self.monitor: Any = None

    # ------------------------------------------------------------------ failure helpers
    def fail(self, headline: str, *, expectation: Any = None, mismatches: Iterable[str] = ()) -> ExpectationFailed:
        return ExpectationFailed(f"{self.scenario.id}: {headline}",
                                 where=f"{self.where} (t={format_offset(self.cluster.loop.now)})",
                                 expectation=expectation, mismatches=mismatches, context=self.context())

    def context(self) -> str:
        from jobset_ref.testing.assertions import summary_table

        parts: list[str] = []
        try:
            parts += ["--- objects ---", summary_table(self.cluster)]
        except Exception as err:  # the report must never hide the failure itself
            parts.append(f"(could not summarise objects: {err})")
        tail = self.cluster.trace.tail(TRACE_TAIL)
        parts += [f"--- trace tail (last {len(tail)} lines; seed {self.cluster.seed}) ---", *tail]
        return "\n".join(parts)

    # ------------------------------------------------------------------ setup
    def setup(self) -> None:
        cfg = self.data.get("cluster") or {}
        if cfg.get("install", True):
            import jobset_ref

            try:
                jobset_ref.install(self.cluster, feature_gates=cfg.get("featureGates"))
            except UsageError as err:
                raise ScenarioError(f"{self.scenario.path}: cluster.featureGates: {err}") from None
            self._watch(JOBSETS)
            from jobset_ref.testing.invariants import Monitor

            if self.data.get("invariants", True):
                self.monitor = Monitor(self.cluster)
        self._watch("jobs.batch")
        for node in self._node_specs(cfg):
            self.cluster.add_node(node["name"], labels=node.get("labels"), capacity=node.get("capacity"),
                                  taints=node.get("taints"))
        pods = cfg.get("pods")
        if pods is not None:
            self._script({"selector": "", **pods}, "cluster.pods")
        for i, script in enumerate(cfg.get("scripts") or []):
            self._script(script, f"cluster.scripts[{i}]")
        self.cluster.run_until_idle()

    def _node_specs(self, cfg: dict[str, Any]) -> list[dict[str, Any]]:
        specs: list[dict[str, Any]] = []
        if "nodesFile" in cfg:
            path = REPO_ROOT / cfg["nodesFile"]
            if not path.is_file():
                raise ScenarioError(f"{self.scenario.path}: cluster.nodesFile {cfg['nodesFile']!r} does not exist "
                                    f"(paths are relative to the repository root)")
            loaded = yaml.safe_load(path.read_text())
            nodes = loaded.get("nodes") if isinstance(loaded, dict) else loaded
            if not isinstance(nodes, list):
                raise ScenarioError(f"{path}: expected a list of nodes (or a mapping with 'nodes:')")
            specs += [self._check_node(n, f"{path}") for n in nodes]
        for i, node in enumerate(cfg.get("nodes") or []):
            where = f"{self.scenario.path}: cluster.nodes[{i}]"
            _check_keys(node, ("name", "count", "namePrefix", "labels", "capacity", "taints"), where)
            if "count" in node:
                prefix = node.get("namePrefix", "node")
                start = sum(1 for s in specs if s["name"].startswith(f"{prefix}-"))
                specs += [{"name": f"{prefix}-{start + j}", **{k: node[k] for k in ("labels", "capacity", "taints")
                                                             if k in node}} for j in range(node["count"])]
            else:
                specs.append(self._check_node(node, where))
        for i, pool in enumerate(cfg.get("pools") or []):
            where = f"{self.scenario.path}: cluster.pools[{i}]"
            _check_keys(pool, ("count", "nodesPerPool", "topologyKey", "namePrefix", "labels", "capacity", "taints"),
                        where, required=("count", "topologyKey"))
            prefix = pool.get("namePrefix", "pool")
            for p in range(pool["count"]):
                for n in range(pool.get("nodesPerPool", 1)):
                    specs.append({"name": f"{prefix}-{p}-node-{n}",
                                  "labels": {**(pool.get("labels") or {}), pool["topologyKey"]: f"{prefix}-{p}"},
                                  **{k: pool[k] for k in ("capacity", "taints") if k in pool}})
        if not specs and "nodes" not in cfg and "pools" not in cfg and "nodesFile" not in cfg:
            specs = [{"name": f"node-{i}"} for i in range(4)]
        return specs

    @staticmethod
    def _check_node(node: Any, where: str) -> dict[str, Any]:
        _check_keys(node, ("name", "labels", "capacity", "taints"), where, required=("name",))
        return dict(node)

    def _script(self, script: dict[str, Any], where: str) -> None:
        _check_keys(script, ("selector", "runSeconds", "exitCode", "readyAfter", "reason"), where)
        run = script.get("runSeconds")
        ready = script.get("readyAfter")
        self.cluster.script_pods(script.get("selector", ""),
                                 duration=None if run is None else parse_seconds(run, f"{where}.runSeconds"),
                                 exit_code=int(script.get("exitCode", 0)),
                                 ready_after=None if ready is None else parse_seconds(ready, f"{where}.readyAfter"),
                                 reason=script.get("reason"))

    def _watch(self, resource: str) -> None:
        rec = self.recorder
        loop = self.cluster.loop
        is_jobset = resource == JOBSETS

        def on_event(event: Any) -> None:
            obj = event.object
            if event.type not in ("ADDED", "MODIFIED") or not isinstance(obj, dict):
                return
            meta = obj.get("metadata") or {}
            key = (meta.get("namespace", ""), meta.get("name", ""))
            status = obj.get("status") or {}
            for cond in status.get("conditions") or []:
                rec.first.setdefault((resource, *key, str(cond.get("type")), str(cond.get("status"))), loop.now)
            if is_jobset:
                restarts = int(status.get("restarts") or 0)
                if restarts < rec.restarts.get(key, 0):
                    rec.violations.append(f"JobSet {key[0]}/{key[1]}: status.restarts decreased from "
                                          f"{rec.restarts[key]} to {restarts} at t={format_offset(loop.now)}")
                rec.restarts[key] = max(restarts, rec.restarts.get(key, 0))
                terminal = status.get("terminalState") or ""
                before = rec.terminal.get(key, "")
                if before and terminal != before:
                    rec.violations.append(f"JobSet {key[0]}/{key[1]}: terminalState changed from {before!r} to "
                                          f"{terminal!r} at t={format_offset(loop.now)}")
                if terminal:
                    rec.terminal[key] = terminal

        self.watches.append(self.cluster.client.watch(resource, on_event, copy=False))

    # ------------------------------------------------------------------ sources
    def load_source(self, src: dict[str, Any], where: str) -> list[dict[str, Any]]:
        if "upstream" in src:
            if not UPSTREAM_EXAMPLES.is_dir():
                raise ScenarioSkipped(f"the upstream examples folder {UPSTREAM_EXAMPLES} is absent "
                                      f"(scenario reads upstream: {src['upstream']})")
            path = UPSTREAM_EXAMPLES / src["upstream"]
        elif "example" in src:
            path = EXAMPLES_DIR / src["example"]
        elif "file" in src:
            path = self.scenario.path.parent / src["file"]
        else:
            path = None
        if path is not None:
            if not path.is_file():
                raise ScenarioError(f"{where}: {path} does not exist")
            text = path.read_text()
        else:
            inline = src["inline"]
            text = inline if isinstance(inline, str) else None
            docs = [inline] if isinstance(inline, dict) else inline if isinstance(inline, list) else None
            if text is None and docs is None:
                raise ScenarioError(f"{where}: inline takes a mapping, a list of mappings or YAML text")
        if path is not None or text is not None:
            docs = [d for d in yaml.safe_load_all(text or "") if d is not None]
        assert docs is not None
        select = src.get("select")
        if select is not None:
            _check_keys(select, ("kind", "name"), f"{where}.select")
            docs = [d for d in docs if all(
                (d.get("kind") if k == "kind" else (d.get("metadata") or {}).get("name")) == v
                for k, v in select.items())]
            if not docs:
                raise ScenarioError(f"{where}: select {select} matched no document")
        if "embedded" in src:  # a manifest held as YAML text inside another object (e.g. an Argo Workflow)
            texts = [resolve_path(d, src["embedded"]) for d in docs]
            if not texts or not all(isinstance(t, str) for t in texts):
                raise ScenarioError(f"{where}: embedded {src['embedded']!r} is not a YAML string in the document")
            docs = [d for t in texts for d in yaml.safe_load_all(t) if d is not None]
        out = []
        for doc in docs:
            doc = json.loads(json.dumps(doc))
            if "patch" in src:
                doc = patching.json_merge_patch(doc, src["patch"])
            if "jsonPatch" in src:
                doc = patching.json_patch(doc, src["jsonPatch"])
            out.append(doc)
        return out

    def apply_source(self, src: dict[str, Any], where: str) -> None:
        docs = self.load_source(src, where)
        expect_error = src.get("expectError")
        for doc in docs:
            self.call(partial(self.cluster.apply, doc, namespace=src.get("namespace")), expect_error,
                      f"apply {doc.get('kind')} {(doc.get('metadata') or {}).get('name')}")

    def call(self, fn: Callable[[], Any], expect_error: Any, what: str) -> None:
        """Run an API action; check the error it raises against ``expectError`` (or that none is raised)."""
        try:
            fn()
        except ApiError as err:
            self.cluster.run_until_idle()
            if expect_error is None:
                raise self.fail(f"{what} was rejected unexpectedly",
                                mismatches=[f"HTTP {err.code} {err.reason}: {err.message}"]) from None
            mismatches = self._match_error(expect_error, err)
            if mismatches:
                raise self.fail(f"{what} was rejected differently than expected", expectation=expect_error,
                                mismatches=mismatches) from None
            return
        if expect_error is not None:
            raise self.fail(f"{what} succeeded, but an error was expected", expectation=expect_error)

    @staticmethod
    def _match_error(expected: Any, err: ApiError) -> list[str]:
        _check_keys(expected, ("code", "reason", "message", "messageContains", "causes", "status"), "expectError")
        out: list[str] = []
        if "code" in expected and expected["code"] != err.code:
            out.append(f"code: expected {expected['code']}, got {err.code}")
        if "reason" in expected and expected["reason"] != err.reason:
            out.append(f"reason: expected {expected['reason']!r}, got {err.reason!r}")
        if "message" in expected and expected["message"] != err.message:
            out.append(f"message:\n        expected: {expected['message']}\n        got:      {err.message}")
        contains = expected.get("messageContains")
        for part in [contains] if isinstance(contains, str) else contains or []:
            if part not in err.message:
                out.append(f"message: expected to contain: {part}\n        got: {err.message}")
        if "causes" in expected:
            out += match_value(expected["causes"], err.details.get("causes", MISSING), "details.causes")
        if "status" in expected:
            out += match_value(expected["status"], err.status, "status")
        return out

    # ------------------------------------------------------------------ reading objects (bypasses reactors)
    def _resource(self, kind: str) -> Any:
        try:
            return self.cluster.api.registry.resolve(kind)
        except UsageError as err:
            raise ScenarioError(f"{self.where}: {err}") from None

    def get_object(self, kind: str, name: str, namespace: str = "default") -> dict[str, Any] | None:
        rt = self._resource(kind)
        return self.cluster.api.store.get(rt.key, namespace if rt.namespaced else "", name)

    def list_objects(self, kind: str, namespace: str | None = "default", selector: str | None = None
             ) -> list[dict[str, Any]]:
        rt = self._resource(kind)
        items = self.cluster.api.store.list(rt.key, namespace if rt.namespaced else None)
        if selector:
            try:
                parsed = selectors.parse_label_selector(selector)
            except Exception as err:
                raise ScenarioError(f"{self.where}: bad label selector {selector!r}: {err}") from None
            items = [o for o in items if parsed.matches((o.get("metadata") or {}).get("labels") or {})]
        return list(items)

    @staticmethod
    def _live(pod: dict[str, Any]) -> bool:
        return (not pod["metadata"].get("deletionTimestamp")
                and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"))

    def find_pods(self, target: Any, what: str) -> list[dict[str, Any]]:
        """Pods named by a target: a name or hostname string, or {name|hostname|selector, all}."""
        if isinstance(target, str):
            target = {"name": target}
        _check_keys(target, ("name", "hostname", "selector", "namespace", "all", "exitCode", "reason"),
                    f"{self.where}: {what}")
        ns = target.get("namespace", "default")
        pods = self.list_objects("pods", ns, target.get("selector"))
        if "name" in target:
            exact = [p for p in pods if p["metadata"]["name"] == target["name"]]
            pods = exact or [p for p in pods if (p.get("spec") or {}).get("hostname") == target["name"]]
        if "hostname" in target:
            pods = [p for p in pods if (p.get("spec") or {}).get("hostname") == target["hostname"]]
        live = [p for p in pods if self._live(p)]
        if not live:
            raise self.fail(f"{what}: no live pod matches {target}",
                            mismatches=[f"pods seen: {[p['metadata']['name'] for p in pods] or 'none'}"])
        return live if target.get("all") else live[:1]

    # ------------------------------------------------------------------ timeline
    def run_timeline(self) -> None:
        for i, step in enumerate(self.data.get("timeline") or []):
            action = next(k for k in step if k in STEP_ACTIONS)
            self.where = f"timeline[{i}] {action}" + (f" ({step['note']})" if step.get("note") else "")
            self._advance_to_step(step)
            self._do(action, step)

    def _advance_to_step(self, step: dict[str, Any]) -> None:
        now = self.cluster.loop.now
        if "at" in step:
            target = seconds(parse_seconds(step["at"], f"{self.where}.at"))
            if target < now:
                raise ScenarioError(f"{self.scenario.path}: {self.where}: at={step['at']} is before the current "
                                    f"virtual time {format_offset(now)} (steps run in file order; use after:)")
        elif "after" in step:
            target = now + seconds(parse_seconds(step["after"], f"{self.where}.after"))
        else:
            return
        self.advance_to(target)

    def advance_to(self, target: int) -> None:
        try:
            self.cluster.loop.run_to(target)
            self.cluster.run_until_idle()
        except SimulationError as err:
            raise self.fail(f"the simulation stopped: {err}") from None

    def _do(self, action: str, step: dict[str, Any]) -> None:
        arg = step[action]
        expect_error = step.get("expectError")
        c = self.cluster
        if action == "apply":
            self.apply_source(arg, self.where)
        elif action in ("patch", "update"):
            _check_keys(arg, ("kind", "name", "namespace", "patch", "type", "subresource"), self.where,
                        required=("kind", "name", "patch"))
            self.call(lambda: c.patch(arg["kind"], arg["name"], arg["patch"], arg.get("namespace", "default"),
                                      patch_type=arg.get("type", "merge"), subresource=arg.get("subresource")),
                      expect_error, f"patch {arg['kind']} {arg['name']}")
        elif action in ("suspend", "resume"):
            name = arg if isinstance(arg, str) else arg.get("name")
            ns = "default" if isinstance(arg, str) else arg.get("namespace", "default")
            self.call(lambda: c.patch(JOBSETS, name, {"spec": {"suspend": action == "suspend"}}, ns),
                      expect_error, f"{action} JobSet {name}")
        elif action == "delete":
            _check_keys(arg, ("kind", "name", "namespace", "propagationPolicy"), self.where, required=("kind", "name"))
            self.call(lambda: c.delete(arg["kind"], arg["name"], arg.get("namespace", "default"),
                                       propagation_policy=arg.get("propagationPolicy")),
                      expect_error, f"delete {arg['kind']} {arg['name']}")
        elif action in ("failPod", "completePod", "evictPod", "deletePod"):
            for pod in self.find_pods(arg, action):
                name, ns = pod["metadata"]["name"], pod["metadata"]["namespace"]
                if action == "failPod":
                    opts = arg if isinstance(arg, dict) else {}
                    c.fail_pod(name, ns, exit_code=int(opts.get("exitCode", 1)), reason=opts.get("reason", "Error"))
                elif action == "completePod":
                    c.complete_pod(name, ns)
                elif action == "evictPod":
                    self.call(partial(c.evict_pod, name, ns), expect_error, f"evict pod {name}")
                else:
                    self.call(partial(c.delete_pod, name, ns), expect_error, f"delete pod {name}")
        elif action == "failNode":
            c.fail_node(self._node_of(arg))
        elif action == "addNodes":
            for node in self._node_specs({"nodes": arg if isinstance(arg, list) else [arg]}):
                c.add_node(node["name"], labels=node.get("labels"), capacity=node.get("capacity"), taints=node.get("taints"))
            c.run_until_idle()
        elif action == "script":
            self._script(arg, self.where)
        elif action == "inject":
            self._inject(arg)
        elif action == "clearFaults":
            c.clear_faults()
        elif action == "advance":
            self.advance_to(c.loop.now + seconds(parse_seconds(arg, f"{self.where}.advance")))
        elif action == "waitFor":
            self.wait_for(arg, step)
        elif action == "expect":
            self.check_all(arg if isinstance(arg, list) else [arg], self.where)

    def _node_of(self, arg: Any) -> str:
        """``failNode: <node name>`` or ``failNode: {pod: <pod name or hostname>}`` (the node it runs on)."""
        if isinstance(arg, dict):
            _check_keys(arg, ("pod", "namespace"), f"{self.where}: failNode", required=("pod",))
            pod = self.find_pods({"name": arg["pod"], "namespace": arg.get("namespace", "default")}, "failNode")[0]
            node = (pod.get("spec") or {}).get("nodeName")
            if not node:
                raise self.fail(f"failNode: pod {pod['metadata']['name']} is not scheduled on a node")
            return str(node)
        if not isinstance(arg, str) or self.get_object("nodes", arg, "") is None:
            raise ScenarioError(f"{self.scenario.path}: {self.where}: failNode takes the name of an existing node "
                                f"or {{pod: <name or hostname>}}, got {arg!r}")
        return arg

    def _inject(self, arg: dict[str, Any]) -> None:
        from fakekube import errors

        _check_keys(arg, ("verb", "resource", "subresource", "namespace", "name", "error", "delaySeconds", "nth",
                          "times"), self.where)
        kwargs: dict[str, Any] = {k: arg[k] for k in ("verb", "resource", "subresource", "namespace", "name", "nth",
                                                      "times") if k in arg}
        if "resource" in kwargs and kwargs["resource"] != "*":
            kwargs["resource"] = self._resource(kwargs["resource"]).key
        if "error" in arg:
            spec = arg["error"]
            _check_keys(spec, ("code", "reason", "message"), f"{self.where}.error", required=("message",))
            classes = {cls.CODE: cls for cls in vars(errors).values()
                       if isinstance(cls, type) and issubclass(cls, ApiError)}
            cls = classes.get(int(spec.get("code", 500)), ApiError)
            kwargs["error"] = cls(spec["message"], code=spec.get("code"), reason=spec.get("reason"))
        if "delaySeconds" in arg:
            kwargs["delay_seconds"] = parse_seconds(arg["delaySeconds"], f"{self.where}.delaySeconds")
        try:
            self.cluster.inject(Reactor(**kwargs))
        except UsageError as err:
            raise ScenarioError(f"{self.scenario.path}: {self.where}: {err}") from None

    def wait_for(self, expectation: Any, step: dict[str, Any]) -> None:
        items = expectation if isinstance(expectation, list) else [expectation]
        timeout = parse_seconds(step.get("timeout", DEFAULT_TIMEOUT), f"{self.where}.timeout")
        start = self.cluster.loop.now
        try:
            held_at = self.cluster.loop.run_until(lambda: not any(self.check(e) for e in items),
                                                  timeout=seconds(timeout))
        except SimulationError:
            mismatches = [m for e in items for m in self.check(e)]
            raise self.fail(f"waitFor did not hold within {timeout:g}s of virtual time (from "
                            f"t={format_offset(start)})", expectation=expectation, mismatches=mismatches) from None
        self.cluster.run_until_idle()
        self._check_time(step, held_at, "waitFor held")

    def _check_time(self, step: dict[str, Any], held_at: int, what: str) -> None:
        if "expectTime" not in step:
            return
        want = seconds(parse_seconds(step["expectTime"], f"{self.where}.expectTime"))
        if want != held_at:
            raise self.fail(f"{what} at the wrong virtual time",
                            mismatches=[f"expected t={_fmt_time(want)}, got t={_fmt_time(held_at)}"])

    # ------------------------------------------------------------------ the end
    def run_end(self) -> None:
        end = self.data.get("end") or {}
        self.where = "end"
        if "at" in end:
            if "until" in end:
                raise ScenarioError(f"{self.scenario.path}: end takes either at: or until:, not both")
            target = seconds(parse_seconds(end["at"], "end.at"))
            if target < self.cluster.loop.now:
                raise ScenarioError(f"{self.scenario.path}: end.at={end['at']} is before the last step "
                                    f"(t={format_offset(self.cluster.loop.now)})")
            self.advance_to(target)
        else:
            until = end.get("until", "finished")
            timeout = parse_seconds(end.get("timeout", DEFAULT_TIMEOUT), "end.timeout")
            if until == "finished":
                predicate: Callable[[], bool] = self._all_finished
                what: Any = "every JobSet has a terminalState"
            else:
                items = until if isinstance(until, list) else [until]
                predicate = lambda: not any(self.check(e) for e in items)  # noqa: E731
                what = until
            try:
                held_at = self.cluster.loop.run_until(predicate, timeout=seconds(timeout))
            except SimulationError:
                mismatches = (self._unfinished() if until == "finished"
                              else [m for e in items for m in self.check(e)])
                raise self.fail(f"end condition did not hold within {timeout:g}s of virtual time",
                                expectation={"until": what}, mismatches=mismatches) from None
            self.cluster.run_until_idle()
            self._check_time(end, held_at, "the end condition held")
        if "settle" in end:
            self.advance_to(self.cluster.loop.now + seconds(parse_seconds(end["settle"], "end.settle")))

    def _jobsets(self) -> list[dict[str, Any]]:
        if self.cluster.api.registry.by_key(JOBSETS) is None:
            return []
        return self.list_objects(JOBSETS, None)

    def _all_finished(self) -> bool:
        return all((js.get("status") or {}).get("terminalState") for js in self._jobsets())

    def _unfinished(self) -> list[str]:
        return [f"JobSet {js['metadata']['name']}: terminalState absent; conditions "
                f"{_show((js.get('status') or {}).get('conditions', []))}"
                for js in self._jobsets() if not (js.get("status") or {}).get("terminalState")]

    # ------------------------------------------------------------------ expectations
    def check_all(self, items: list[Any], where: str) -> None:
        for i, item in enumerate(items):
            self.where = f"{where}[{i}]" + (f" ({item['note']})" if isinstance(item, dict) and item.get("note") else "")
            mismatches = self.check(item)
            if mismatches:
                raise self.fail("expectation failed", expectation=item, mismatches=mismatches)

    def check(self, item: Any) -> list[str]:
        """Mismatches of one expectation item against the cluster now (empty: it holds)."""
        _check_keys(item, (*SELECT_KEYS, *CHECK_KEYS, *OTHER_EXPECT_KEYS), f"{self.scenario.path}: {self.where}")
        if "events" in item:
            return self._check_events(item)
        if "dns" in item:
            return self._check_dns(item)
        if "trace" in item:
            return self._check_trace(item)
        if "now" in item:
            want = seconds(parse_seconds(item["now"], "now"))
            now = self.cluster.loop.now
            return [] if want == now else [f"now: expected t={_fmt_time(want)}, got t={_fmt_time(now)}"]
        return self._check_objects(item)

    def _selection(self, item: dict[str, Any]) -> tuple[str, str | None, str | None, str]:
        """(kind, name or None, label selector or None, description)."""
        shortcuts = {"jobset": JOBSETS, "job": "jobs", "pod": "pods", "service": "services",
                     "pvc": "persistentvolumeclaims", "node": "nodes"}
        for key, kind in shortcuts.items():
            if key in item:
                return kind, str(item[key]), item.get("selector"), f"{key} {item[key]}"
        if "jobsOf" in item:
            return "jobs", None, f"{JOBSET_NAME_LABEL}={item['jobsOf']}", f"jobs of JobSet {item['jobsOf']}"
        if "podsOf" in item:
            return "pods", None, f"{JOBSET_NAME_LABEL}={item['podsOf']}", f"pods of JobSet {item['podsOf']}"
        if "kind" in item:
            return item["kind"], item.get("name"), item.get("selector"), f"{item['kind']} {item.get('name') or ''}"
        raise ScenarioError(f"{self.scenario.path}: {self.where}: an expectation needs a target: one of "
                            f"{', '.join(SELECT_KEYS[:6])}, jobsOf, podsOf, kind (+name/selector), events, dns, "
                            f"trace, now")

    def _check_objects(self, item: dict[str, Any]) -> list[str]:
        kind, name, selector, what = self._selection(item)
        ns = item.get("namespace", "default")
        if name is not None:
            obj = self.get_object(kind, name, ns)
            if obj is None and kind == "pods":
                by_host = [p for p in self.list_objects("pods", ns) if (p.get("spec") or {}).get("hostname") == name]
                live = [p for p in by_host if self._live(p)] or by_host
                obj = live[-1] if live else None
            if item.get("exists", True) is False:
                return [] if obj is None else [f"{what}: expected absent, but it exists"]
            if obj is None:
                return [f"{what}: expected to exist, but it does not"]
            return self._check_one(obj, item, what, kind)
        objs = self.list_objects(kind, ns, selector)
        if not item.get("includeDeleting", False):
            objs = [o for o in objs if not o["metadata"].get("deletionTimestamp")]
        out: list[str] = []
        names = [o["metadata"]["name"] for o in objs]
        if "names" in item and sorted(item["names"]) != names:
            out.append(f"{what}: names: expected {sorted(item['names'])}, got {names}")
        if "count" in item and item["count"] != len(objs):
            out.append(f"{what}: count: expected {item['count']}, got {len(objs)} {names}")
        if item.get("exists") is False and objs:
            out.append(f"{what}: expected none, got {names}")
        if "each" in item:
            for obj in objs:
                out += self._check_one(obj, item["each"], f"{what}: {obj['metadata']['name']}", kind)
        unsupported = set(item) & {"labels", "annotations", "fields", "match", "conditions", "conditionList",
                                   "conditionTimes", "deleting"}
        if unsupported:
            raise ScenarioError(f"{self.scenario.path}: {self.where}: {sorted(unsupported)} apply to one object; "
                                f"for a list use each: {{...}}")
        return out

    def _check_one(self, obj: dict[str, Any], checks: dict[str, Any], what: str, kind: str) -> list[str]:
        _check_keys(checks, (*SELECT_KEYS, *CHECK_KEYS, "note"), f"{self.scenario.path}: {self.where}")
        out: list[str] = []
        meta = obj.get("metadata") or {}
        if "deleting" in checks and bool(meta.get("deletionTimestamp")) != bool(checks["deleting"]):
            out.append(f"{what}: deleting: expected {checks['deleting']}, got deletionTimestamp="
                       f"{meta.get('deletionTimestamp')}")
        for key in ("labels", "annotations"):
            if key in checks:
                out += [f"{what}: {m}" for m in match_value(checks[key], meta.get(key) or {}, f"metadata.{key}")]
        for path, want in (checks.get("fields") or {}).items():
            out += [f"{what}: {m}" for m in match_value(want, resolve_path(obj, path), path)]
        if "match" in checks:
            out += [f"{what}: {m}" for m in match_value(checks["match"], obj, "")]
        conds = (obj.get("status") or {}).get("conditions") or []
        if "conditionList" in checks:
            have = [f"{c.get('type')}={c.get('status')}" for c in conds]
            if have != list(checks["conditionList"]):
                out.append(f"{what}: conditions: expected {checks['conditionList']}, got {have}")
        for want in checks.get("conditions") or []:
            _check_keys(want, ("type", "status", "reason", "message", "lastTransitionTime", "absent"),
                        f"{self.scenario.path}: {self.where}: conditions", required=("type",))
            found = [c for c in conds if c.get("type") == want["type"]]
            if want.get("absent"):
                if found:
                    out.append(f"{what}: condition {want['type']}: expected absent, got {_show(found[0])}")
                continue
            if not found:
                out.append(f"{what}: condition {want['type']}: expected {_show(want)}, got <absent> "
                           f"(conditions: {[c.get('type') for c in conds]})")
                continue
            expected = {k: v for k, v in want.items() if k != "type"}
            if isinstance(expected.get("lastTransitionTime"), int | float):
                expected["lastTransitionTime"] = format_time(seconds(expected["lastTransitionTime"]))
            if "status" in expected and isinstance(expected["status"], bool):
                expected["status"] = "True" if expected["status"] else "False"
            out += [f"{what}: {m}" for m in match_value(expected, found[0], f"condition {want['type']}")]
        for ctype, want_t in (checks.get("conditionTimes") or {}).items():
            ctype_name, _, status = str(ctype).partition("=")
            resource = self._resource(kind).key
            got = self.recorder.first.get((resource, meta.get("namespace", ""), meta.get("name", ""), ctype_name,
                                           status or "True"))
            want_ns = None if want_t is None else seconds(parse_seconds(want_t, f"conditionTimes.{ctype}"))
            if (got is None) != (want_ns is None) or (got is not None and want_ns is not None
                                                     and got != want_ns):
                out.append(f"{what}: condition {ctype_name}={status or 'True'} first held at: expected "
                           f"t={_fmt_time(want_ns)}, got t={_fmt_time(got)}")
        return out

    def _check_events(self, item: dict[str, Any]) -> list[str]:
        spec = item["events"]
        if isinstance(spec, str):
            spec = {"jobset": spec}
        _check_keys(spec, ("jobset", "kind", "name", "namespace", "reason", "type"), f"{self.where}.events")
        kind = "JobSet" if "jobset" in spec else spec.get("kind")
        name = spec.get("jobset", spec.get("name"))
        recorded: Iterable[dict[str, Any]] = cast(Any, self.cluster.events)(
            namespace=spec.get("namespace", "default"), kind=kind, name=name)
        events = [e for e in recorded
                  if ("reason" not in spec or e.get("reason") == spec["reason"])
                  and ("type" not in spec or e.get("type") == spec["type"])]
        seen = [{k: e.get(k) for k in ("type", "reason", "message", "count")} for e in events]
        out: list[str] = []
        if "sequence" in item:
            out += match_value(item["sequence"], seen, "events")
        if "contains" in item:
            pos = 0
            for want in item["contains"]:
                while pos < len(seen) and match_value(want, seen[pos], "event"):
                    pos += 1
                if pos == len(seen):
                    out.append(f"events: expected (in order) {_show(want)}; events were:\n"
                               + "\n".join(f"        {_show(s)}" for s in seen))
                    break
                pos += 1
        for want in item.get("absent") or []:
            hits = [s for s in seen if not match_value(want, s, "event")]
            if hits:
                out.append(f"events: expected none like {_show(want)}, got {_show(hits)}")
        if "count" in item and item["count"] != len(seen):
            out.append(f"events: expected {item['count']}, got {len(seen)}: {_show(seen)}")
        return out

    def _check_dns(self, item: dict[str, Any]) -> list[str]:
        ns = item.get("namespace", "default")
        answers = self.cluster.dns.resolve(item["dns"], namespace=ns)
        out: list[str] = []
        if "answers" in item and sorted(item["answers"]) != sorted(answers):
            out.append(f"dns {item['dns']}: expected {sorted(item['answers'])}, got {sorted(answers)}")
        if item.get("nxdomain") and answers:
            out.append(f"dns {item['dns']}: expected no answer, got {answers}")
        if "resolvesToPods" in item:
            want_pods = item["resolvesToPods"]
            ips: list[str] = []
            for target in want_pods if isinstance(want_pods, list) else [want_pods]:
                pods = [p for p in self.list_objects("pods", ns) if p["metadata"]["name"] == target
                        or ((p.get("spec") or {}).get("hostname") == target and self._live(p))]
                if not pods:
                    out.append(f"dns {item['dns']}: no live pod {target!r} to compare with")
                for p in pods:
                    ip = (p.get("status") or {}).get("podIP")
                    if ip:
                        ips.append(ip)
                    else:
                        out.append(f"dns {item['dns']}: pod {p['metadata']['name']} has no podIP yet")
            if not out and sorted(ips) != sorted(answers):
                out.append(f"dns {item['dns']}: expected the IPs of {want_pods} {sorted(ips)}, got {sorted(answers)}")
        return out

    def _check_trace(self, item: dict[str, Any]) -> list[str]:
        spec = item["trace"]
        if isinstance(spec, str):
            spec = {"contains": spec}
        lines = self.cluster.trace.lines
        out: list[str] = []
        for needle in [spec["contains"]] if isinstance(spec.get("contains"), str) else spec.get("contains") or []:
            if not any(needle in line for line in lines):
                out.append(f"trace: expected a line containing {needle!r}")
        for needle in [spec["notContains"]] if isinstance(spec.get("notContains"), str) else spec.get(
                "notContains") or []:
            hits = [line for line in lines if needle in line]
            if hits:
                out.append(f"trace: expected no line containing {needle!r}, got {hits[:3]}")
        return out

    # ------------------------------------------------------------------ invariants and golden
    def check_invariants(self) -> None:
        """The shared JobSet invariants (``jobset_ref.testing.invariants``): history checks over the
        whole run, snapshot checks of every JobSet now (the controllers have settled)."""
        from jobset_ref.testing import invariants

        self.where = "invariants"
        found = list(self.recorder.violations)
        if self.monitor is not None:
            found += [str(v) for v in self.monitor.check()]
        gates = (self.data.get("cluster") or {}).get("featureGates")
        for js in self._jobsets():
            meta = js["metadata"]
            found += [str(v) for v in invariants.check_jobset(self.cluster, meta["name"], meta["namespace"],
                                                              settled=True, feature_gates=gates)]
        if found:
            raise self.fail("an invariant was violated", mismatches=found)

    def check_golden(self) -> bool:
        path = self.scenario.golden_path
        text = self.cluster.trace.text()
        if self.update_golden:
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
                return True
            return False
        self.where = "golden trace"
        if not path.exists():
            raise self.fail(f"golden trace {path.name} is missing",
                            mismatches=["run: pytest conformance --update-golden (then review and commit the file)"])
        expected = path.read_text()
        if expected != text:
            diff = list(difflib.unified_diff(expected.splitlines(), text.splitlines(), f"{path.name} (golden)",
                                             f"{path.name} (this run)", lineterm="", n=2))
            shown = diff[:80] + ([f"... {len(diff) - 80} more diff lines"] if len(diff) > 80 else [])
            raise self.fail(f"the trace differs from the golden file {path.name} (refresh with --update-golden "
                            f"if the change is intended)", mismatches=["\n      ".join(["diff:", *shown])])
        return False

    def stop(self) -> None:
        for w in self.watches:
            w.stop()
        if self.monitor is not None:
            self.monitor.stop()


def run_scenario(scenario: Scenario, *, update_golden: bool = False) -> RunResult:
    """Run ``scenario`` start to end; raises :class:`ExpectationFailed` on the first failure."""
    if scenario.skip:
        raise ScenarioSkipped(scenario.skip)
    run = _Run(scenario, update_golden=update_golden)
    try:
        run.setup()
        for i, src in enumerate(scenario.data.get("manifests") or []):
            run.where = f"manifests[{i}]"
            run.apply_source(src, run.where)
        run.run_timeline()
        run.run_end()
        run.check_all(list(scenario.data.get("expect") or []), "expect")
        if scenario.data.get("invariants", True):
            run.check_invariants()
        run.cluster.api.store.verify_frozen()
        updated = run.check_golden() if scenario.golden else False
    except (ScenarioError, ScenarioSkipped, ExpectationFailed):
        raise
    except Exception as err:  # a crash in the code under test: report it like a failed expectation
        frames = traceback.extract_tb(err.__traceback__)[-6:]
        raise run.fail(f"the simulation raised {type(err).__name__}: {err}",
                       mismatches=[f"{f.filename}:{f.lineno} in {f.name}: {f.line}" for f in frames]) from err
    finally:
        run.stop()
    return RunResult(scenario=scenario, cluster=run.cluster, elapsed=run.cluster.elapsed, golden_updated=updated)


def describe_keys() -> Mapping[str, tuple[str, ...]]:
    """The vocabulary of the format, for the README and for error messages."""
    return {"top": TOP_KEYS, "cluster": CLUSTER_KEYS, "source": (*SOURCE_KEYS, *SOURCE_OPTIONS),
            "step": (*STEP_ACTIONS, *STEP_OPTIONS), "select": SELECT_KEYS, "check": CHECK_KEYS,
            "other": OTHER_EXPECT_KEYS}
