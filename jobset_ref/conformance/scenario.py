"""Scenario loading: the format's vocabulary, the :class:`Scenario` model, its loaders (one file,
or any files and folders: :func:`load_scenarios`) and the errors of an authoring mistake or a
missing input (format: ``conformance/README.md`` in the repository).

Where inputs live: the packaged scenarios (``SCENARIOS_DIR``), the manifests they apply
(``MANIFESTS_DIR``, ``manifest:`` sources) and the README's example manifests (``EXAMPLES_DIR``,
``example:`` sources, read by the ``stories`` scenarios; the repository's ``examples/`` links to
them) ship in the wheel. One input exists only beside a source checkout and is optional:
``../shared/upstream/examples`` (``upstream:`` sources); a scenario that needs it when it is
absent raises :class:`ScenarioSkipped`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

import fakekube.faults as faults
from fakekube.clock import parse_duration

__all__ = [
    "CHECK_KEYS",
    "CLUSTER_KEYS",
    "EXAMPLES_DIR",
    "MANIFESTS_DIR",
    "NODES_FILE_KEYS",
    "OTHER_EXPECT_KEYS",
    "PACKAGE_DIR",
    "REPO_ROOT",
    "SCENARIOS_DIR",
    "SELECT_KEYS",
    "SOURCE_KEYS",
    "SOURCE_OPTIONS",
    "STEP_ACTIONS",
    "STEP_OPTIONS",
    "TOP_KEYS",
    "UPSTREAM_DIR",
    "UPSTREAM_EXAMPLES",
    "ExpectationFailed",
    "Scenario",
    "ScenarioError",
    "ScenarioSkipped",
    "check_keys",
    "describe_keys",
    "discover",
    "in_source_tree",
    "load_scenario",
    "load_scenarios",
    "parse_seconds",
    "scenario_id",
]

PACKAGE_DIR = Path(__file__).resolve().parent
#: The packaged scenarios, ``<area>/<name>.yaml`` (and ``<name>.trace`` golden traces).
SCENARIOS_DIR = PACKAGE_DIR / "scenarios"
#: The packaged manifests that ``manifest: <path>`` sources read.
MANIFESTS_DIR = PACKAGE_DIR / "manifests"
#: The README's example manifests (``example: <path>`` sources); the repository's ``examples/`` links here.
EXAMPLES_DIR = PACKAGE_DIR.parent / "examples"
#: The source checkout holding the package (meaningful only when ``in_source_tree()``).
REPO_ROOT = PACKAGE_DIR.parents[1]
UPSTREAM_DIR = REPO_ROOT.parent / "shared" / "upstream"
UPSTREAM_EXAMPLES = UPSTREAM_DIR / "examples"


def in_source_tree() -> bool:
    """True when the package runs from a checkout of the repository (not from an installed wheel)."""
    return (REPO_ROOT / "pyproject.toml").is_file() and (REPO_ROOT / "jobset_ref").is_dir()

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


# ====================================================================== helpers


def parse_seconds(value: Any, what: str) -> float:
    """``90``, ``1.5``, ``"90s"``, ``"10m"``, ``"1h30m"`` → seconds (``fakekube.clock.parse_duration``)."""
    try:
        return parse_duration(value)
    except ValueError as err:
        raise ScenarioError(f"{what}: {err}") from None


def check_keys(obj: Any, allowed: Iterable[str], where: str, *, required: Iterable[str] = ()) -> dict[str, Any]:
    """:func:`fakekube.faults.check_keys`, raising :class:`ScenarioError`."""
    return faults.check_keys(obj, allowed, where, required=required, error=ScenarioError)


# ====================================================================== scenario model

SOURCE_KEYS = ("manifest", "upstream", "example", "file", "inline")
#: The sources ``cluster.nodesFile`` may name (or a plain path: relative to the scenario file).
NODES_FILE_KEYS = ("manifest", "example", "file")
SOURCE_OPTIONS = ("select", "embedded", "patch", "jsonPatch", "namespace", "expectError", "note")
STEP_ACTIONS = ("apply", "patch", "update", "delete", "suspend", "resume", "failPod", "completePod", "evictPod",
                "deletePod", "failNode", "addNodes", "advance", "waitFor", "expect", "inject", "breakWatch",
                "delayDelivery", "clearFaults", "script")
STEP_OPTIONS = ("at", "after", "note", "expectError", "expectTime", "timeout")
TOP_KEYS = ("description", "covers", "xfail", "skip", "cluster", "manifests", "timeline", "end", "expect", "golden",
            "invariants", "notes")
CLUSTER_KEYS = ("seed", "featureGates", "install", "simulate", "nodes", "nodesFile", "pools", "pods", "scripts",
                "kueue")
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

    def source_refs(self, key: str) -> list[str]:
        """The paths of every ``<key>:`` source this scenario reads (manifests, apply steps and,
        for ``example``/``file``/``manifest``, ``cluster.nodesFile``), in file order."""
        sources: list[Any] = list(self.data.get("manifests") or [])
        sources += [step.get("apply") for step in self.data.get("timeline") or [] if isinstance(step, dict)]
        nodes_file = (self.data.get("cluster") or {}).get("nodesFile")
        sources.append({"file": nodes_file} if isinstance(nodes_file, str) else nodes_file)
        return [src[key] for src in sources if isinstance(src, dict) and isinstance(src.get(key), str)]

    def upstream_refs(self) -> list[str]:
        """Every ``upstream:`` example this scenario reads."""
        return self.source_refs("upstream")

    def manifest_refs(self) -> list[str]:
        """Every packaged manifest (``manifest:``) this scenario reads."""
        return self.source_refs("manifest")

    def example_refs(self) -> list[str]:
        """Every file of the repository's ``examples/`` this scenario reads."""
        return self.source_refs("example")


def discover(root: Path = SCENARIOS_DIR) -> list[Path]:
    """Scenario files (``*.yaml``) under ``root``, sorted."""
    return sorted(p for p in root.rglob("*.yaml") if p.is_file())


def scenario_id(path: Path, root: Path = SCENARIOS_DIR) -> str:
    """``<area>/<name>``: the path below ``root`` without its suffix (the file's stem if outside)."""
    try:
        return path.resolve().relative_to(root.resolve()).with_suffix("").as_posix()
    except ValueError:
        return path.stem


def load_scenarios(paths: Iterable[str | Path] | None = None) -> list[Scenario]:
    """Load scenario files from anywhere: each path is a scenario file or a folder whose
    ``*.yaml`` files (recursively) are all scenarios; ``None`` loads the packaged suite.

    A scenario's id is its path below the folder given (``failure/no-rule-matches``); a file
    given on its own is named by its stem, or by its place in the packaged suite. Raises
    :class:`ScenarioError` for a missing path, a folder without scenarios, an authoring error in
    any file, or two scenarios with the same id.
    """
    entries = [SCENARIOS_DIR] if paths is None else [Path(p) for p in paths]
    if not entries:
        raise ScenarioError("no scenario paths given")
    found: dict[Path, Path] = {}  # resolved file -> the root its id is relative to
    for entry in entries:
        if entry.is_dir():
            files = discover(entry)
            if not files:
                raise ScenarioError(f"{entry}: no scenario files (*.yaml) in this folder")
            for f in files:
                found.setdefault(f.resolve(), entry)
        elif entry.is_file():
            packaged = SCENARIOS_DIR in entry.resolve().parents
            found.setdefault(entry.resolve(), SCENARIOS_DIR if packaged else entry.resolve().parent)
        else:
            raise ScenarioError(f"{entry}: no such scenario file or folder")
    scenarios = [load_scenario(path, root) for path, root in found.items()]
    by_id: dict[str, Scenario] = {}
    for sc in scenarios:
        if sc.id in by_id:
            raise ScenarioError(f"two scenarios have the id {sc.id!r}: {by_id[sc.id].path} and {sc.path} "
                                f"(give their folders instead, or rename one)")
        by_id[sc.id] = sc
    return scenarios


def load_scenario(path: Path, root: Path = SCENARIOS_DIR) -> Scenario:
    """Parse and structurally check a scenario file (unknown keys are errors)."""
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as err:
        raise ScenarioError(f"{path}: cannot read the scenario file: {err.strerror or err}") from None
    except yaml.YAMLError as err:
        raise ScenarioError(f"{path}: malformed YAML: {err}") from None
    where = str(path)
    check_keys(data, TOP_KEYS, where, required=("description", "covers"))
    covers = data["covers"]
    if not isinstance(covers, list) or not covers or not all(isinstance(c, str) for c in covers):
        raise ScenarioError(f"{where}: covers must be a non-empty list of catalogue ids "
                            f"(see jobset_ref/conformance/matrix.py)")
    for key in ("xfail", "skip"):
        if key in data and (not isinstance(data[key], str) or not data[key]):
            raise ScenarioError(f"{where}: {key} takes a reason string")
    check_keys(data.get("cluster") or {}, CLUSTER_KEYS, f"{where}: cluster")
    nodes_file = (data.get("cluster") or {}).get("nodesFile")
    if nodes_file is not None and not isinstance(nodes_file, str):
        check_keys(nodes_file, NODES_FILE_KEYS, f"{where}: cluster.nodesFile")
        if len(nodes_file) != 1 or not all(isinstance(v, str) for v in nodes_file.values()):
            raise ScenarioError(f"{where}: cluster.nodesFile takes a path (relative to the scenario file) or "
                                f"one of {', '.join(f'{{{k}: <path>}}' for k in NODES_FILE_KEYS)}")
    for i, src in enumerate(data.get("manifests") or []):
        _check_source(src, f"{where}: manifests[{i}]")
    for i, step in enumerate(data.get("timeline") or []):
        check_keys(step, (*STEP_ACTIONS, *STEP_OPTIONS), f"{where}: timeline[{i}]")
        actions = [k for k in step if k in STEP_ACTIONS]
        if len(actions) != 1:
            raise ScenarioError(f"{where}: timeline[{i}] needs exactly one action of {', '.join(STEP_ACTIONS)}; "
                                f"got {actions or 'none'}")
        if actions[0] == "apply":
            _check_source(step["apply"], f"{where}: timeline[{i}].apply")
    check_keys(data.get("end") or {}, ("until", "at", "timeout", "expectTime", "settle"), f"{where}: end")
    return Scenario(path=path, id=scenario_id(path, root), description=data["description"], covers=list(covers),
                    data=data, xfail=data.get("xfail"), skip=data.get("skip"), golden=bool(data.get("golden")))


def _check_source(src: Any, where: str) -> None:
    check_keys(src, (*SOURCE_KEYS, *SOURCE_OPTIONS), where)
    given = [k for k in SOURCE_KEYS if k in src]
    if len(given) != 1:
        raise ScenarioError(f"{where}: a manifest source needs exactly one of {', '.join(SOURCE_KEYS)}")


def describe_keys() -> Mapping[str, tuple[str, ...]]:
    """The vocabulary of the format, for the README and for error messages."""
    return {"top": TOP_KEYS, "cluster": CLUSTER_KEYS, "source": (*SOURCE_KEYS, *SOURCE_OPTIONS),
            "step": (*STEP_ACTIONS, *STEP_OPTIONS), "select": SELECT_KEYS, "check": CHECK_KEYS,
            "other": OTHER_EXPECT_KEYS}
