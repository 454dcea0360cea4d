"""The flavor assigner (``pkg/scheduler/flavorassigner/flavorassigner.go``).

For each pod set and each requested resource, walk the flavors of the resource group covering it,
in the ClusterQueue's order: a flavor is ruled out by an untolerated ``NoSchedule``/``NoExecute``
taint, by the pod's nodeSelector or required node affinity against the flavor's nodeLabels (only
the flavor's own label keys count), or by a TopologyAwareScheduling mismatch. A flavor that stays
is graded by quota: Fit (possibly borrowing, at some height of the cohort tree), Preempt (quota
exists but others use it; the preemption oracle tells whether candidates exist), or NoFit
(beyond the maximum capacity). ``flavorFungibility`` decides whether to stop at the first
flavor that needs borrowing or preemption, or to try the next ones and keep the best.

The messages are upstream's (``insufficient unused quota for cpu in flavor default, 1 more
needed``, ``couldn't assign flavors to pod set main: ...``). TAS placement itself is not done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import constants as c
from .resources import FlavorResource, format_amount

if TYPE_CHECKING:
    from collections.abc import Callable

    from .cache import ResourceGroup, Snapshot, SnapshotCQ
    from .workload import Info

__all__ = ["FIT", "NO_FIT", "PREEMPT", "Assignment", "FlavorAssigner", "PodSetAssignment"]

# FlavorAssignmentMode, lowest to highest preference.
NO_FIT, PREEMPT, DEFERRED_FIT, FIT = 0, 1, 2, 3
MODE_NAMES = {NO_FIT: "NoFit", PREEMPT: "Preempt", DEFERRED_FIT: "DeferredFit", FIT: "Fit"}

# The assigner's granular preemption modes.
_NO_FIT, _NO_CANDIDATES, _PREEMPT, _RECLAIM, _FIT = 0, 1, 2, 3, 4
_TO_MODE = {_NO_FIT: NO_FIT, _NO_CANDIDATES: PREEMPT, _PREEMPT: PREEMPT, _RECLAIM: PREEMPT, _FIT: FIT}
_WORST = (_NO_FIT, 1 << 62)
_BEST = (_FIT, 0)

# PreemptionPossibility from the oracle.
NO_CANDIDATES, POSSIBLE_PREEMPT, POSSIBLE_RECLAIM = "NoCandidates", "Preempt", "Reclaim"
_FROM_POSSIBILITY = {NO_CANDIDATES: _NO_CANDIDATES, POSSIBLE_PREEMPT: _PREEMPT, POSSIBLE_RECLAIM: _RECLAIM}


@dataclass(slots=True)
class FlavorAssignment:
    name: str
    mode: int
    borrow: int


@dataclass(slots=True)
class PodSetAssignment:
    name: str
    flavors: dict[str, FlavorAssignment]
    reasons: list[str]
    requests: dict[str, int]
    count: int
    error: str = ""

    def is_fit(self) -> bool:
        return not self.error and not self.reasons

    def representative_mode(self) -> int:
        if self.is_fit():
            return FIT
        if self.error or not self.flavors:
            return NO_FIT
        return min(f.mode for f in self.flavors.values())

    def message(self) -> str:
        if self.error:
            return self.error
        return ", ".join(sorted(self.reasons))

    def to_api(self) -> dict[str, Any]:
        flavors = {res: fa.name for res, fa in sorted(self.flavors.items())}
        usage = {res: format_amount(res, self.requests.get(res, 0)) for res in sorted(self.flavors)}
        return {"name": self.name, "flavors": flavors, "resourceUsage": usage, "count": self.count}


@dataclass(slots=True)
class Assignment:
    pod_sets: list[PodSetAssignment] = field(default_factory=list)
    usage: dict[FlavorResource, int] = field(default_factory=dict)
    borrowing: int = 0

    def representative_mode(self) -> int:
        if not self.pod_sets:
            return NO_FIT
        return min(ps.representative_mode() for ps in self.pod_sets)

    def borrows(self) -> int:
        return self.borrowing

    def message(self) -> str:
        parts = []
        for ps in self.pod_sets:
            if ps.is_fit():
                continue
            if ps.error:
                return f"failed to assign flavors to pod set {ps.name}: {ps.error}"
            parts.append(f"couldn't assign flavors to pod set {ps.name}: {ps.message()}")
        return "; ".join(parts)

    def to_api(self) -> list[dict[str, Any]]:
        return [ps.to_api() for ps in self.pod_sets]

    def frs_need_preemption(self) -> set[FlavorResource]:
        out = set()
        for ps in self.pod_sets:
            for res, fa in ps.flavors.items():
                if fa.mode == PREEMPT:
                    out.add((fa.name, res))
        return out


# ------------------------------------------------------------------------------ flavor checks
def _tolerates(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """``Toleration.ToleratesTaint``."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    op = toleration.get("operator") or "Equal"
    if op == "Exists":
        return True
    if op == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return False


def _taint_string(taint: dict[str, Any]) -> str:
    """``fmt.Sprintf("%s", taint)`` of a ``corev1.Taint`` value (its ``String`` has a pointer
    receiver, so Go prints the struct: ``{key value effect <nil>}``)."""
    added = taint.get("timeAdded")
    added_text = "<nil>" if not added else added.replace("T", " ").replace("Z", " +0000 UTC")
    return f"{{{taint.get('key') or ''} {taint.get('value') or ''} {taint.get('effect') or ''} {added_text}}}"


def _match_expression(expr: dict[str, Any], labels: dict[str, str]) -> bool:
    key = expr.get("key") or ""
    op = expr.get("operator") or ""
    values = expr.get("values") or []
    has = key in labels
    if op == "In":
        return has and labels[key] in values
    if op == "NotIn":
        return not has or labels[key] not in values
    if op == "Exists":
        return has
    if op == "DoesNotExist":
        return not has
    if op in ("Gt", "Lt") and has and len(values) == 1:
        try:
            left, right = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return left > right if op == "Gt" else left < right
    return False


def _flavor_matches_pod(spec: dict[str, Any], flavor_labels: dict[str, str]) -> bool:
    """``flavorSelector`` + ``RequiredNodeAffinity.Match`` against a node labelled with the
    flavor's nodeLabels, keeping only the flavor's label keys."""
    keys = set(flavor_labels)
    for k, v in (spec.get("nodeSelector") or {}).items():
        if k in keys and flavor_labels.get(k) != v:
            return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution") or {}
    terms: list[list[dict[str, Any]]] = []  # each term's match expressions on the flavor's label keys
    for term in required.get("nodeSelectorTerms") or []:
        exprs = [e for e in term.get("matchExpressions") or [] if e.get("key") in keys]
        if not exprs:
            terms = []
            break
        terms.append(exprs)
    if not terms:
        return True
    return any(all(_match_expression(e, flavor_labels) for e in exprs) for exprs in terms)


def _explicit_tas(pod_set: dict[str, Any]) -> bool:
    tr = pod_set.get("topologyRequest") or {}
    return any(tr.get(k) is not None for k in ("unconstrained", "required", "preferred", "podSetSliceRequiredTopology",
                                               "podSetSliceSize")) or bool(tr.get("podsetSliceRequiredTopologyConstraints"))


class FlavorAssigner:
    """``FlavorAssigner.Assign`` for one workload in one ClusterQueue snapshot."""

    def __init__(self, info: Info, cq: SnapshotCQ, snapshot: Snapshot,
                 oracle: Callable[[SnapshotCQ, Info, FlavorResource, int], tuple[str, int]],
                 *, enable_fair_sharing: bool = False) -> None:
        self.info = info
        self.cq = cq
        self.snapshot = snapshot
        self.oracle = oracle
        self.enable_fair_sharing = enable_fair_sharing

    def assign(self, counts: list[int] | None = None) -> Assignment:
        requests = self.info.total_requests
        if counts is not None:
            requests = [ps.scaled_to(n) for ps, n in zip(requests, counts, strict=True)]
        assignment = Assignment()
        pod_sets = self.info.obj["spec"].get("podSets") or []
        state = self.cq.state
        for i, ps in enumerate(requests):
            reqs = dict(ps.requests)
            if state.rg_by_resource("pods") is not None:
                reqs["pods"] = ps.count
            psa = PodSetAssignment(ps.name, {}, [], dict(reqs), ps.count)
            group_flavors: dict[str, FlavorAssignment] = {}
            failed = False
            for res in sorted(reqs):
                quantity = reqs[res]
                if state.rg_by_resource(res) is None and quantity == 0:
                    continue
                if res in group_flavors:
                    continue
                flavors, reasons, error = self._find_flavor(i, pod_sets[i] if i < len(pod_sets) else {}, reqs, res,
                                                            assignment.usage)
                if error or (not flavors and reqs):
                    group_flavors = {}
                    psa.reasons = reasons
                    psa.error = error
                    failed = True
                    break
                group_flavors.update(flavors)
                psa.reasons.extend(reasons)
            psa.flavors = {res: fa for res, fa in group_flavors.items() if res in reqs}
            self._append(assignment, reqs, psa)
            if failed:
                return assignment
        return assignment

    def _append(self, assignment: Assignment, requests: dict[str, int], psa: PodSetAssignment) -> None:
        assignment.pod_sets.append(psa)
        for res, fa in psa.flavors.items():
            fr = (fa.name, res)
            assignment.usage[fr] = assignment.usage.get(fr, 0) + requests.get(res, 0)
            assignment.borrowing = max(assignment.borrowing, fa.borrow)

    def _check_flavor(self, flavor_name: str, pod_set: dict[str, Any], rg: ResourceGroup) -> str:
        flavor = self.snapshot.flavors.get(flavor_name)
        if flavor is None:
            return f"flavor {flavor_name} not found"
        fspec = flavor.get("spec") or {}
        template_spec = ((pod_set.get("template") or {}).get("spec") or {})
        if _explicit_tas(pod_set):
            if not fspec.get("topologyName"):
                return f'Flavor "{flavor_name}" does not support TopologyAwareScheduling'
            return f'Flavor "{flavor_name}" information missing in TAS cache'
        if fspec.get("topologyName"):
            return f'Flavor "{flavor_name}" supports only TopologyAwareScheduling'
        tolerations = list(template_spec.get("tolerations") or []) + list(fspec.get("tolerations") or [])
        for taint in fspec.get("nodeTaints") or []:
            if taint.get("effect") not in ("NoSchedule", "NoExecute"):
                continue
            if not any(_tolerates(t, taint) for t in tolerations):
                return f"untolerated taint {_taint_string(taint)} in flavor {flavor_name}"
        if not _flavor_matches_pod(template_spec, fspec.get("nodeLabels") or {}):
            return f"flavor {flavor_name} doesn't match node affinity"
        return ""

    def _find_flavor(self, index: int, pod_set: dict[str, Any], requests: dict[str, int], res_name: str,
                     assignment_usage: dict[FlavorResource, int]) -> tuple[dict[str, FlavorAssignment], list[str], str]:
        state = self.cq.state
        rg = state.rg_by_resource(res_name)
        if rg is None:
            return {}, [f"resource {res_name} unavailable in ClusterQueue"], ""
        reasons: list[str] = []
        covered = {r: v for r, v in requests.items() if r in rg.covered}
        fungibility = state.flavor_fungibility
        best: dict[str, FlavorAssignment] | None = None
        best_mode = _WORST
        for flavor_name in rg.flavors:
            problem = self._check_flavor(flavor_name, pod_set, rg)
            if problem:
                reasons.append(problem)
                continue
            assignments: dict[str, FlavorAssignment] = {}
            mode = _BEST
            for r in sorted(covered):
                fr = (flavor_name, r)
                pmode, borrow, why = self._fits(fr, assignment_usage.get(fr, 0), covered[r])
                reasons.extend(why)
                granular = (pmode, borrow)
                if _is_preferred(mode, granular, fungibility):
                    mode = granular
                if mode[0] == _NO_FIT:
                    break
                assignments[r] = FlavorAssignment(flavor_name, _TO_MODE[pmode], borrow)
            if not _should_try_next(mode, fungibility):
                best, best_mode = assignments, mode
                break
            if _is_preferred(mode, best_mode, fungibility):
                best, best_mode = assignments, mode
        if best is None or best_mode[0] == _NO_FIT:
            return {}, reasons, ""
        if best_mode[0] == _FIT:
            return best, [], ""
        return best, reasons, ""

    def _fits(self, fr: FlavorResource, assumed: int, request: int) -> tuple[int, int, list[str]]:
        node = self.cq.node
        resource = fr[1]
        available = node.available(fr)
        max_capacity = node.potential_available(fr)
        val = assumed + request
        if val > max_capacity:
            return _NO_FIT, 0, [
                f"insufficient quota for {resource} in flavor {fr[0]}, previously considered podsets requests "
                f"({format_amount(resource, assumed)}) + current podset request ({format_amount(resource, request)}) "
                f"> maximum capacity ({format_amount(resource, max_capacity)})"]
        borrow, may_reclaim = lowest_subtree_that_fits(self.cq, fr, val)
        if val <= available:
            return _FIT, borrow, []
        why = [f"insufficient unused quota for {resource} in flavor {fr[0]}, "
               f"{format_amount(resource, val - available)} more needed"]
        quota = node.quotas.get(fr)
        nominal = quota.nominal if quota is not None else 0
        if nominal >= val or may_reclaim or self._can_preempt_while_borrowing():
            possibility, borrow_after = self.oracle(self.cq, self.info, fr, val)
            return _FROM_POSSIBILITY[possibility], borrow_after, why
        return _NO_FIT, borrow, why

    def _can_preempt_while_borrowing(self) -> bool:
        preemption = self.cq.state.preemption
        bwc = preemption.get("borrowWithinCohort") or {}
        if bwc and (bwc.get("policy") or c.PREEMPTION_NEVER) != c.PREEMPTION_NEVER:
            return True
        return self.enable_fair_sharing and (preemption.get("reclaimWithinCohort") or c.PREEMPTION_NEVER) \
            != c.PREEMPTION_NEVER


def lowest_subtree_that_fits(cq: SnapshotCQ, fr: FlavorResource, val: int) -> tuple[int, bool]:
    """``FindHeightOfLowestSubtreeThatFits``: how high in the cohort tree the request borrows
    (0: within the ClusterQueue), and whether reclaiming in the hierarchy may help."""
    node = cq.node
    if not node.borrowing_with(fr, val) or node.parent is None:
        return 0, node.parent is not None
    remaining = val - node.local_available(fr)
    for tracking in node.path_parent_to_root():
        if not tracking.borrowing_with(fr, remaining):
            return tracking.height(), tracking.parent is not None
        remaining -= tracking.local_available(fr)
    return node.parent.root().height(), False


def _is_preferred(a: tuple[int, int], b: tuple[int, int], fungibility: dict[str, Any]) -> bool:
    """``isPreferred``: is granular mode ``a`` better than ``b``."""
    if a[0] == _NO_FIT:
        return False
    if b[0] == _NO_FIT:
        return True
    a_none, b_none = a[0] == _NO_CANDIDATES, b[0] == _NO_CANDIDATES
    if a_none != b_none:
        return not a_none
    if fungibility.get("preference") == c.PREEMPTION_OVER_BORROWING:
        if a[1] != b[1]:
            return a[1] < b[1]
        return a[0] > b[0]
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1]


def _should_try_next(mode: tuple[int, int], fungibility: dict[str, Any]) -> bool:
    if mode[0] in (_NO_FIT, _NO_CANDIDATES):
        return True
    if mode[0] in (_PREEMPT, _RECLAIM) and (fungibility.get("whenCanPreempt") or c.TRY_NEXT_FLAVOR) == c.TRY_NEXT_FLAVOR:
        return True
    return mode[1] != 0 and (fungibility.get("whenCanBorrow") or c.MAY_STOP_SEARCH) == c.TRY_NEXT_FLAVOR
