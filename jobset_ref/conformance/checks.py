"""Checks: expectations (objects, events, DNS, trace, the clock), the JobSet invariants and the
golden trace, each returning or raising *expected vs actual* mismatches."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any, cast

from fakekube.clock import format_time, parse_time, seconds
from jobset_ref.conformance.context import JOBSET_NAME_LABEL, JOBSETS, RunContext, fmt_time
from jobset_ref.conformance.matching import match_value, resolve_path, show
from jobset_ref.conformance.scenario import (
    CHECK_KEYS,
    OTHER_EXPECT_KEYS,
    SELECT_KEYS,
    ScenarioError,
    check_keys,
    parse_seconds,
)

__all__ = ["Checks"]


class Checks(RunContext):
    """Expectation checking on top of a run's state."""

    # ------------------------------------------------------------------ expectations
    def check_all(self, items: list[Any], where: str) -> None:
        for i, item in enumerate(items):
            self.where = f"{where}[{i}]" + (f" ({item['note']})" if isinstance(item, dict) and item.get("note") else "")
            mismatches = self.check(item)
            if mismatches:
                raise self.fail("expectation failed", expectation=item, mismatches=mismatches)

    def check(self, item: Any) -> list[str]:
        """Mismatches of one expectation item against the cluster now (empty: it holds)."""
        check_keys(item, (*SELECT_KEYS, *CHECK_KEYS, *OTHER_EXPECT_KEYS), f"{self.scenario.path}: {self.where}")
        if "events" in item:
            return self._check_events(item)
        if "dns" in item:
            return self._check_dns(item)
        if "trace" in item:
            return self._check_trace(item)
        if "now" in item:
            want = seconds(parse_seconds(item["now"], "now"))
            now = self.cluster.loop.now
            return [] if self.times_match(want, now) else [f"now: expected t={fmt_time(want)}, got t={fmt_time(now)}"]
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
        check_keys(checks, (*SELECT_KEYS, *CHECK_KEYS, "note"), f"{self.scenario.path}: {self.where}")
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
            check_keys(want, ("type", "status", "reason", "message", "lastTransitionTime", "absent"),
                        f"{self.scenario.path}: {self.where}: conditions", required=("type",))
            found = [c for c in conds if c.get("type") == want["type"]]
            if want.get("absent"):
                if found:
                    out.append(f"{what}: condition {want['type']}: expected absent, got {show(found[0])}")
                continue
            if not found:
                out.append(f"{what}: condition {want['type']}: expected {show(want)}, got <absent> "
                           f"(conditions: {[c.get('type') for c in conds]})")
                continue
            expected = {k: v for k, v in want.items() if k != "type"}
            if isinstance(expected.get("lastTransitionTime"), int | float):
                want_ltt = seconds(expected["lastTransitionTime"])
                expected["lastTransitionTime"] = format_time(want_ltt)
                got_ltt = found[0].get("lastTransitionTime")
                if self.external is not None and isinstance(got_ltt, str) and self.times_match(
                        want_ltt, parse_time(got_ltt)):
                    expected["lastTransitionTime"] = got_ltt  # out of process: a window, not an instant
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
                                                     and not self.times_match(want_ns, got)):
                out.append(f"{what}: condition {ctype_name}={status or 'True'} first held at: expected "
                           f"t={fmt_time(want_ns)}, got t={fmt_time(got)}")
        return out

    def _check_events(self, item: dict[str, Any]) -> list[str]:
        spec = item["events"]
        if isinstance(spec, str):
            spec = {"jobset": spec}
        check_keys(spec, ("jobset", "kind", "name", "namespace", "reason", "type"), f"{self.where}.events")
        kind = "JobSet" if "jobset" in spec else spec.get("kind")
        name = spec.get("jobset", spec.get("name"))
        recorded: Iterable[dict[str, Any]] = cast(Any, self.cluster.events)(
            namespace=spec.get("namespace", "default"), kind=kind, name=name)
        events = [e for e in recorded
                  if ("reason" not in spec or e.get("reason") == spec["reason"])
                  and ("type" not in spec or e.get("type") == spec["type"])]
        seen = [{k: e.get(k) for k in ("type", "reason", "message", "count", "action")} for e in events]
        out: list[str] = []
        if "sequence" in item:
            mismatches = match_value(item["sequence"], seen, "events")
            if mismatches and self.external is not None and not match_value(
                    item["sequence"], [e for e in seen if not self.external.stale_cache_create(e)], "events"):
                mismatches = []
            out += mismatches
        if "contains" in item:
            pos = 0
            for want in item["contains"]:
                while pos < len(seen) and match_value(want, seen[pos], "event"):
                    pos += 1
                if pos == len(seen):
                    out.append(f"events: expected (in order) {show(want)}; events were:\n"
                               + "\n".join(f"        {show(s)}" for s in seen))
                    break
                pos += 1
        for want in item.get("absent") or []:
            hits = [s for s in seen if not match_value(want, s, "event")]
            if hits:
                out.append(f"events: expected none like {show(want)}, got {show(hits)}")
        if "count" in item and item["count"] != len(seen):
            out.append(f"events: expected {item['count']}, got {len(seen)}: {show(seen)}")
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

    def _check_time(self, step: dict[str, Any], held_at: int, what: str) -> None:
        if "expectTime" not in step:
            return
        want = seconds(parse_seconds(step["expectTime"], f"{self.where}.expectTime"))
        if not self.times_match(want, held_at):
            raise self.fail(f"{what} at the wrong virtual time",
                            mismatches=[f"expected t={fmt_time(want)}, got t={fmt_time(held_at)}"])

    # ------------------------------------------------------------------ the end condition
    def _all_finished(self) -> bool:
        return all((js.get("status") or {}).get("terminalState") for js in self._jobsets())

    def _unfinished(self) -> list[str]:
        return [f"JobSet {js['metadata']['name']}: terminalState absent; conditions "
                f"{show((js.get('status') or {}).get('conditions', []))}"
                for js in self._jobsets() if not (js.get("status") or {}).get("terminalState")]

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
                            mismatches=["run with --update-golden (pytest conformance --update-golden, or "
                                        "python -m jobset_ref.conformance --update-golden <paths>), then review "
                                        "and commit the file"])
        expected = path.read_text()
        if expected != text:
            diff = list(difflib.unified_diff(expected.splitlines(), text.splitlines(), f"{path.name} (golden)",
                                             f"{path.name} (this run)", lineterm="", n=2))
            shown = diff[:80] + ([f"... {len(diff) - 80} more diff lines"] if len(diff) > 80 else [])
            raise self.fail(f"the trace differs from the golden file {path.name} (refresh with --update-golden "
                            f"if the change is intended)", mismatches=["\n      ".join(["diff:", *shown])])
        return False
