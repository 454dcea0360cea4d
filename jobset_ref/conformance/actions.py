"""Actions: building the scenario's cluster (nodes, pod scripts, watches), applying manifest
sources, and playing the timeline (API actions, faults, waits) up to its end condition."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from fakekube import ApiError, SimulationError, UsageError
from fakekube.clock import format_offset, seconds
from fakekube.faults import (
    FAULT_ACTIONS,
    BreakWatch,
    DelayDelivery,
    DeletePod,
    EvictPod,
    Inject,
    NoTarget,
    PodTarget,
    parse_fault,
)
from fakekube.machinery.patch import json_merge_patch, json_patch
from jobset_ref.conformance import scenario as loading
from jobset_ref.conformance.checks import Checks
from jobset_ref.conformance.context import JOBSETS
from jobset_ref.conformance.external import ExternalController
from jobset_ref.conformance.matching import match_error, resolve_path
from jobset_ref.conformance.scenario import (
    STEP_ACTIONS,
    ScenarioError,
    ScenarioSkipped,
    check_keys,
    parse_seconds,
)

__all__ = ["DEFAULT_TIMEOUT", "Actions"]

DEFAULT_TIMEOUT = 3600.0


class Actions(Checks):
    """Setup, sources and the timeline on top of the checks (``waitFor``/``expect`` steps use them)."""

    # ------------------------------------------------------------------ setup
    def setup(self) -> None:
        cfg = self.data.get("cluster") or {}
        if cfg.get("install", True):
            import jobset_ref

            try:
                jobset_ref.install(self.cluster, feature_gates=cfg.get("featureGates"),
                                   controller=self.external_options is None, kueue=cfg.get("kueue"))
            except UsageError as err:
                what = "cluster.kueue" if "kueue" in str(err).lower() else "cluster.featureGates"
                raise ScenarioError(f"{self.scenario.path}: {what}: {err}") from None
            self._watch(JOBSETS)
            from jobset_ref.testing.invariants import Monitor

            if self.data.get("invariants", True):
                self.monitor = Monitor(self.cluster, cached_controller=self.external_options is not None)
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
        if self.external_options is not None:
            self.external = ExternalController(self.cluster, self.external_options,
                                               (self.data.get("cluster") or {}).get("featureGates"))
            try:
                self.external.start()
            except SimulationError as err:
                raise self.fail(f"external controller: {err}") from None

    def run_until(self, predicate: Callable[[], bool], timeout: int) -> int:
        """Advance until ``predicate()`` holds (``SimulationError`` after ``timeout``); out of process,
        let the served clock move while the controller works."""
        if self.external is not None:
            return self.external.run_until(predicate, self.cluster.loop.now + timeout)
        return self.cluster.loop.run_until(predicate, timeout=timeout)

    def _node_specs(self, cfg: dict[str, Any]) -> list[dict[str, Any]]:
        specs: list[dict[str, Any]] = []
        if "nodesFile" in cfg:
            ref = cfg["nodesFile"]
            path = self.source_path({"file": ref} if isinstance(ref, str) else ref, "cluster.nodesFile")
            assert path is not None
            try:
                loaded = yaml.safe_load(path.read_text())
            except yaml.YAMLError as err:
                raise ScenarioError(f"{path}: malformed YAML: {err}") from None
            nodes = loaded.get("nodes") if isinstance(loaded, dict) else loaded
            if not isinstance(nodes, list):
                raise ScenarioError(f"{path}: expected a list of nodes (or a mapping with 'nodes:')")
            specs += [self._check_node(n, f"{path}") for n in nodes]
        for i, node in enumerate(cfg.get("nodes") or []):
            where = f"{self.scenario.path}: cluster.nodes[{i}]"
            check_keys(node, ("name", "count", "namePrefix", "labels", "capacity", "taints"), where)
            if "count" in node:
                prefix = node.get("namePrefix", "node")
                start = sum(1 for s in specs if s["name"].startswith(f"{prefix}-"))
                specs += [{"name": f"{prefix}-{start + j}", **{k: node[k] for k in ("labels", "capacity", "taints")
                                                             if k in node}} for j in range(node["count"])]
            else:
                specs.append(self._check_node(node, where))
        for i, pool in enumerate(cfg.get("pools") or []):
            where = f"{self.scenario.path}: cluster.pools[{i}]"
            check_keys(pool, ("count", "nodesPerPool", "topologyKey", "namePrefix", "labels", "capacity", "taints"),
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
        check_keys(node, ("name", "labels", "capacity", "taints"), where, required=("name",))
        return dict(node)

    def _script(self, script: dict[str, Any], where: str) -> None:
        check_keys(script, ("selector", "runSeconds", "exitCode", "readyAfter", "reason"), where)
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

        self.watches.append(self.cluster.client.watch(resource, on_event))

    # ------------------------------------------------------------------ sources
    def source_path(self, src: dict[str, Any], where: str) -> Path | None:
        """The file a ``manifest:``/``upstream:``/``example:``/``file:`` source reads (None for
        ``inline:``); :class:`ScenarioSkipped` when an optional folder is absent."""
        path: Path
        if "manifest" in src:
            path = loading.MANIFESTS_DIR / src["manifest"]
        elif "upstream" in src:
            if not loading.UPSTREAM_EXAMPLES.is_dir():
                raise ScenarioSkipped(f"the upstream examples folder {loading.UPSTREAM_EXAMPLES} is absent "
                                      f"(scenario reads upstream: {src['upstream']})")
            path = loading.UPSTREAM_EXAMPLES / src["upstream"]
        elif "example" in src:
            path = loading.EXAMPLES_DIR / src["example"]
        elif "file" in src:
            path = self.scenario.path.parent / src["file"]
        else:
            return None
        if not path.is_file():
            raise ScenarioError(f"{self.scenario.path}: {where}: {path} does not exist")
        return path

    def load_source(self, src: dict[str, Any], where: str) -> list[dict[str, Any]]:
        path = self.source_path(src, where)
        text: str | None
        if path is not None:
            text = path.read_text()
        else:
            inline = src["inline"]
            text = inline if isinstance(inline, str) else None
            docs = [inline] if isinstance(inline, dict) else inline if isinstance(inline, list) else None
            if text is None and docs is None:
                raise ScenarioError(f"{where}: inline takes a mapping, a list of mappings or YAML text")
        if path is not None or text is not None:
            try:
                docs = [d for d in yaml.safe_load_all(text or "") if d is not None]
            except yaml.YAMLError as err:
                raise ScenarioError(f"{self.scenario.path}: {where}: malformed YAML in "
                                    f"{path or 'inline'}: {err}") from None
        assert docs is not None
        select = src.get("select")
        if select is not None:
            check_keys(select, ("kind", "name"), f"{where}.select")
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
                doc = json_merge_patch(doc, src["patch"])
            if "jsonPatch" in src:
                doc = json_patch(doc, src["jsonPatch"])
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
            mismatches = match_error(expect_error, err)
            if mismatches:
                raise self.fail(f"{what} was rejected differently than expected", expectation=expect_error,
                                mismatches=mismatches) from None
            return
        if expect_error is not None:
            raise self.fail(f"{what} succeeded, but an error was expected", expectation=expect_error)

    # ------------------------------------------------------------------ timeline
    def run_timeline(self) -> None:
        for i, step in enumerate(self.data.get("timeline") or []):
            self.play(i, step)

    def play(self, i: int, step: dict[str, Any]) -> None:
        """Timeline step ``i``: advance to its time, then act."""
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
        else:  # at this instant: out of process, once the controller has reacted to what came before
            if self.external is not None:
                self.external.settle()
            return
        self.advance_to(target)

    def advance_to(self, target: int) -> None:
        try:
            if self.external is not None:
                self.external.run_to(target)
                return
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
            check_keys(arg, ("kind", "name", "pod", "namespace", "patch", "type", "subresource"), self.where,
                        required=("kind", "patch"))
            for name in self._patch_names(arg):
                self.call(partial(c.patch, arg["kind"], name, arg["patch"], arg.get("namespace", "default"),
                                  patch_type=arg.get("type", "merge"), subresource=arg.get("subresource")),
                          expect_error, f"patch {arg['kind']} {name}")
        elif action in ("suspend", "resume"):
            name = arg if isinstance(arg, str) else arg.get("name")
            ns = "default" if isinstance(arg, str) else arg.get("namespace", "default")
            self.call(lambda: c.patch(JOBSETS, name, {"spec": {"suspend": action == "suspend"}}, ns),
                      expect_error, f"{action} JobSet {name}")
        elif action == "delete":
            check_keys(arg, ("kind", "name", "namespace", "propagationPolicy"), self.where, required=("kind", "name"))
            self.call(lambda: c.delete(arg["kind"], arg["name"], arg.get("namespace", "default"),
                                       propagation_policy=arg.get("propagationPolicy")),
                      expect_error, f"delete {arg['kind']} {arg['name']}")
        elif action in FAULT_ACTIONS:
            self.apply_fault(action, arg, expect_error)
        elif action == "addNodes":
            for node in self._node_specs({"nodes": arg if isinstance(arg, list) else [arg]}):
                c.add_node(node["name"], labels=node.get("labels"), capacity=node.get("capacity"), taints=node.get("taints"))
            c.run_until_idle()
        elif action == "script":
            self._script(arg, self.where)
        elif action == "advance":
            self.advance_to(c.loop.now + seconds(parse_seconds(arg, f"{self.where}.advance")))
        elif action == "waitFor":
            self.wait_for(arg, step)
        elif action == "expect":
            self.check_all(arg if isinstance(arg, list) else [arg], self.where)

    def _patch_names(self, arg: dict[str, Any]) -> list[str]:
        """A patch's ``name``, or the live pods its ``pod:`` target picks (a pod's name is not known
        before it exists: ``{hostname: js-rj-0-1}``, ``{selector: ..., all: true}``)."""
        if ("name" in arg) == ("pod" in arg):
            raise ScenarioError(f"{self.scenario.path}: {self.where}: patch: give either name or pod (a pod target)")
        if "name" in arg:
            return [arg["name"]]
        try:
            spec = {"name": arg["pod"]} if isinstance(arg["pod"], str) else arg["pod"]
            target = PodTarget.parse({"namespace": arg.get("namespace", "default"), **spec},
                                     f"{self.where}.patch.pod")
            return [p["metadata"]["name"] for p in target.pods(self.cluster, running=False)]
        except NoTarget as err:
            raise self.fail(f"patch: {err}", mismatches=[f"pods seen: {err.seen or 'none'}"]) from None
        except UsageError as err:
            raise ScenarioError(f"{self.scenario.path}: {self.where}: {err}") from None

    def apply_fault(self, action: str, arg: Any, expect_error: Any) -> None:
        """A fault step, in ``fakekube.faults``' vocabulary. Evictions and deletions go pod by pod
        so that ``expectError`` judges each API call."""
        try:
            fault = parse_fault(action, arg)
        except UsageError as err:
            raise ScenarioError(f"{self.scenario.path}: {self.where}: {err}") from None
        c = self.cluster
        try:
            if isinstance(fault, EvictPod | DeletePod):
                verb = "evict" if isinstance(fault, EvictPod) else "delete"
                for pod in fault.pods(c):
                    self.call(partial(fault.act, c, pod), expect_error, f"{verb} pod {pod['metadata']['name']}")
            elif isinstance(fault, Inject | BreakWatch | DelayDelivery):  # a resource name to resolve
                try:
                    fault.apply(c)
                except UsageError as err:
                    raise ScenarioError(f"{self.scenario.path}: {self.where}: {err}") from None
            else:
                fault.apply(c)
        except NoTarget as err:
            raise self.fail(f"{action}: {err}", mismatches=_no_target_details(err)) from None

    def wait_for(self, expectation: Any, step: dict[str, Any]) -> None:
        items = expectation if isinstance(expectation, list) else [expectation]
        timeout = parse_seconds(step.get("timeout", DEFAULT_TIMEOUT), f"{self.where}.timeout")
        start = self.cluster.loop.now
        try:
            held_at = self.run_until(lambda: not any(self.check(e) for e in items), seconds(timeout))
        except SimulationError:
            mismatches = [m for e in items for m in self.check(e)]
            raise self.fail(f"waitFor did not hold within {timeout:g}s of virtual time (from "
                            f"t={format_offset(start)})", expectation=expectation, mismatches=mismatches) from None
        self.cluster.run_until_idle()
        self._check_time(step, held_at, "waitFor held")

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
                held_at = self.run_until(predicate, seconds(timeout))
            except SimulationError:
                mismatches = (self._unfinished() if until == "finished"
                              else [m for e in items for m in self.check(e)])
                raise self.fail(f"end condition did not hold within {timeout:g}s of virtual time",
                                expectation={"until": what}, mismatches=mismatches) from None
            self.cluster.run_until_idle()
            self._check_time(end, held_at, "the end condition held")
        if "settle" in end:
            self.advance_to(self.cluster.loop.now + seconds(parse_seconds(end["settle"], "end.settle")))


def _no_target_details(err: NoTarget, limit: int = 12) -> list[str]:
    """What a fault that hit nothing could have hit: the pods its target matched (none running), or
    the running pods by name and hostname."""
    if err.seen:
        return [f"pods seen: {err.seen}"]
    if not err.candidates:
        return ["pods seen: none (no pod is running)"]
    shown = [f"{name} (hostname {host})" if host else name for name, host in err.candidates[:limit]]
    more = f", +{len(err.candidates) - limit} more" if len(err.candidates) > limit else ""
    return [f"no pod has that name or hostname; running pods: {', '.join(shown)}{more}"]
