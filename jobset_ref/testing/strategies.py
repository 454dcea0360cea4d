"""Hypothesis strategies for JobSets, clusters, pod outcomes and fault timelines.

Follows Hypothesis's API style guide (``ANCHORS.md`` §2.6, §3.8):

* plural names (:func:`jobsets`, :func:`invalid_jobsets`, :func:`cluster_shapes`,
  :func:`pod_scripts`, :func:`fault_timelines`, :func:`failure_policy_rules` …);
* every option is keyword-only; sizes are ``min_size``/``max_size``-style bounds
  (``min_replicas``/``max_replicas`` …);
* leaf distributions are passed as strategies (``names=``, ``suspend=``, ``managed_by=`` …),
  never "a value or a strategy"; structural features take a :data:`Feature` flag:
  ``None`` = sometimes (drawn), ``True`` = always, ``False`` = never;
* impossible combinations raise :class:`fakekube.UsageError` with a fix-it message (eagerly when
  the arguments alone are impossible, otherwise when a value is drawn);
* valid by construction: every :func:`jobsets` value is admitted by the JobSet webhooks
  (:func:`jobset_ref.api.validate_create` after CRD and webhook defaulting) for the feature
  gates it was drawn for; :func:`invalid_jobsets` pairs a rejected JobSet with the error it
  must produce;
* :func:`from_manifest` varies a given manifest (upstream examples, conformance inputs) and keeps
  it admissible.

Everything drawn is wire form (plain JSON-compatible dicts) or a frozen dataclass whose
``repr`` is valid Python, so a failing example prints as a program you can paste. Cluster-side
helpers (:class:`ClusterShape`, :class:`PodScripts`, :class:`FaultTimeline`) apply themselves
to a :class:`fakekube.FakeCluster` with an ``apply``/``run`` method; they touch the cluster only
through its public API.

The fault timelines speak the one fault vocabulary of :mod:`fakekube.faults` (the one conformance
scenarios' timelines use): a drawn :class:`FailPod`, :class:`CompletePod`, :class:`FailNode`,
:class:`InjectConflict`, :class:`DelayWatch`, :class:`BreakWatch` or :class:`DelayDelivery` is a
timed, JobSet-relative description that applies the ``fakekube.faults`` value it stands for
(``failPod``, ``completePod``, ``failNode``, ``inject`` with a 409 error or ``delaySeconds``,
``breakWatch``, ``delayDelivery``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

import fakekube.faults as faults
from fakekube import ApiError, FakeCluster, NotFound, Reactor, UsageError
from jobset_ref.api import constants as c
from jobset_ref.api.defaulting import apply_schema_defaults, default_jobset
from jobset_ref.api.validation import validate_create

__all__ = [
    "DEFAULT_TOPOLOGY_KEYS",
    "FAULT_KINDS",
    "INVALID_RULES",
    "BreakWatch",
    "ClusterShape",
    "CompletePod",
    "DelayDelivery",
    "DelayWatch",
    "DeleteJobSet",
    "FailNode",
    "FailPod",
    "Fault",
    "FaultTimeline",
    "Feature",
    "InjectConflict",
    "InvalidJobSet",
    "NodeShape",
    "PodScript",
    "PodScripts",
    "RestartControllers",
    "Resume",
    "Scenario",
    "Suspend",
    "admitted",
    "cluster_shapes",
    "dns_labels",
    "failure_policies",
    "failure_policy_rules",
    "fault_timelines",
    "from_manifest",
    "invalid_jobsets",
    "job_templates",
    "jobsets",
    "pod_scripts",
    "scenarios",
    "success_policies",
]

#: ``None`` = sometimes (drawn), ``True`` = always, ``False`` = never.
Feature = bool | None

#: Node label keys used as exclusive-placement topology domains by :func:`jobsets` and
#: :func:`cluster_shapes` (the same defaults on both sides, so placements can be satisfied).
DEFAULT_TOPOLOGY_KEYS: tuple[str, ...] = ("cloud.google.com/gke-nodepool", "topology.kubernetes.io/zone")

#: Job failure message patterns a rule may carry: some match what the Job controller writes,
#: some never match, one is an invalid RE2 (admitted; the controller logs and skips it).
MESSAGE_PATTERNS: tuple[str, ...] = ("backoff limit", "Job has reached", ".*", "^nomatch$", "deadline", "[")

EXTERNAL_MANAGER = "kueue.x-k8s.io/multikueue"
_LABEL_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789-"
_MAX_DNS_LABEL = 63
_POD_SUFFIX = 6  # "-abcde"


# =============================================================================== helpers


def _check_bounds(what: str, lo: int, hi: int, *, floor: int = 0) -> None:
    for name, value in ((f"min_{what}", lo), (f"max_{what}", hi)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise UsageError(f"{name} must be an int, got {value!r}")
        if value < floor:
            raise UsageError(f"{name} must be >= {floor}, got {value}")
    if lo > hi:
        raise UsageError(f"min_{what}={lo} is greater than max_{what}={hi}; "
                         f"pass min_{what} <= max_{what}")


def _check_feature(name: str, value: object) -> None:
    if value is not None and not isinstance(value, bool):
        raise UsageError(f"{name}= takes True (always), False (never) or None (sometimes), got {value!r}")


def _check_strategy(name: str, value: object) -> None:
    if not isinstance(value, SearchStrategy):
        raise UsageError(f"{name}= takes a hypothesis strategy (e.g. st.just(...)), got {value!r}; "
                         "strategies.py takes strategies for leaf values, never plain values")


def _digits(n: int) -> int:
    """Length of the decimal rendering of ``n`` (with the sign)."""
    return len(str(n))


def _want(draw: st.DrawFn, feature: Feature, *, p_true: bool | None = None) -> bool:
    if feature is not None:
        return feature
    del p_true
    return draw(st.booleans())


def admitted(manifest: Mapping[str, Any], *, feature_gates: Mapping[str, bool] | None = None) -> list[str]:
    """Webhook errors of ``manifest`` after CRD + webhook defaulting (``[]`` = admitted)."""
    stored = apply_schema_defaults(default_jobset(apply_schema_defaults(dict(manifest))))
    return [str(e) for e in validate_create(stored, feature_gates=feature_gates)]


# =============================================================================== names


def dns_labels(*, min_size: int = 1, max_size: int = _MAX_DNS_LABEL) -> SearchStrategy[str]:
    """DNS-1035 labels: ``[a-z]([-a-z0-9]*[a-z0-9])?`` of ``min_size``..``max_size`` characters."""
    _check_bounds("size", min_size, max_size, floor=1)
    if max_size > _MAX_DNS_LABEL:
        raise UsageError(f"a DNS-1035 label has at most 63 characters; max_size={max_size}")

    @st.composite
    def build(draw: st.DrawFn) -> str:
        size = draw(st.integers(min_size, max_size))
        first = draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz"))
        if size == 1:
            return first
        middle = draw(st.text(_LABEL_ALPHABET, min_size=size - 2, max_size=size - 2))
        last = draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789"))
        return first + middle + last

    return build()


def _rule_names() -> SearchStrategy[str]:
    """Failure-policy rule names (``^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$``, or "" to default)."""
    named = st.from_regex(r"\A[A-Za-z]([A-Za-z0-9_,:]{0,10}[A-Za-z0-9_])?\Z").filter(
        lambda n: not n.startswith("failurePolicyRule"))
    return st.one_of(st.just(""), named, st.sampled_from(["restartOnPreemption", "failOnBackoff", "r"]))


# =============================================================================== job templates


@st.composite
def _job_template(draw: st.DrawFn, *, parallelism: int, completions: int | None, completion_mode: str | None,
                  restart_policies: SearchStrategy[str | None], backoff_limits: SearchStrategy[int | None],
                  cpu_requests: SearchStrategy[str | None], user_labels: bool) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "main", "image": "busybox:1.36", "command": ["sleep", "60"]}
    cpu = draw(cpu_requests)
    if cpu is not None:
        container["resources"] = {"requests": {"cpu": cpu}}
    pod_spec: dict[str, Any] = {"containers": [container]}
    restart_policy = draw(restart_policies)
    if restart_policy is not None:
        pod_spec["restartPolicy"] = restart_policy
    job_spec: dict[str, Any] = {"parallelism": parallelism, "template": {"spec": pod_spec}}
    if completions is not None:
        job_spec["completions"] = completions
    if completion_mode is not None:
        job_spec["completionMode"] = completion_mode
    backoff = draw(backoff_limits)
    if backoff is not None:
        job_spec["backoffLimit"] = backoff
    template: dict[str, Any] = {"spec": job_spec}
    if user_labels and draw(st.booleans()):
        # A user label that collides with a JobSet key must be overridden by the controller.
        labels = draw(st.dictionaries(st.sampled_from(["app", "team", c.JOB_INDEX_KEY, c.RESTARTS_KEY]),
                                      st.sampled_from(["x", "99", "train"]), max_size=2))
        if labels:
            template["metadata"] = {"labels": labels}
        # Pod-template labels never collide with JobSet keys: resuming a suspended JobSet merges
        # the template's pod labels over the Job's (upstream ``resumeJob``), so a colliding user
        # label would legitimately replace the JobSet's value.
        pod_labels = {k: v for k, v in labels.items() if not k.startswith("jobset.sigs.k8s.io/")}
        if pod_labels:
            job_spec["template"]["metadata"] = {"labels": pod_labels}
    return template


def job_templates(*, min_parallelism: int = 1, max_parallelism: int = 3,
                  completion_modes: SearchStrategy[str | None] | None = None,
                  restart_policies: SearchStrategy[str | None] | None = None,
                  backoff_limits: SearchStrategy[int | None] | None = None,
                  cpu_requests: SearchStrategy[str | None] | None = None) -> SearchStrategy[dict[str, Any]]:
    """``batch/v1`` JobTemplateSpecs as a JobSet's ``replicatedJobs[].template``.

    ``completion_modes`` draws ``None`` (the webhook defaults ``Indexed``), ``"Indexed"`` or
    ``"NonIndexed"``; Indexed templates always set ``completions`` (Kubernetes requires it).
    ``restart_policies`` draws ``None`` (defaulted to ``OnFailure``), ``"Never"`` or ``"OnFailure"``.
    """
    _check_bounds("parallelism", min_parallelism, max_parallelism, floor=0)
    modes = completion_modes if completion_modes is not None else st.sampled_from([None, c.INDEXED_COMPLETION])
    for name, strat in (("completion_modes", modes), ("restart_policies", restart_policies),
                        ("backoff_limits", backoff_limits), ("cpu_requests", cpu_requests)):
        if strat is not None:
            _check_strategy(name, strat)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        p = draw(st.integers(min_parallelism, max_parallelism))
        mode = draw(modes)
        completions: int | None = p
        if mode == c.NON_INDEXED_COMPLETION:
            completions = draw(st.sampled_from([None, p]))
        return draw(_job_template(parallelism=p, completions=completions, completion_mode=mode,
                                  restart_policies=restart_policies or _RESTART_POLICIES,
                                  backoff_limits=backoff_limits or _BACKOFF_LIMITS,
                                  cpu_requests=cpu_requests or st.none(), user_labels=True))

    return build()


_RESTART_POLICIES: SearchStrategy[str | None] = st.sampled_from([None, "Never", "OnFailure"])
_BACKOFF_LIMITS: SearchStrategy[int | None] = st.sampled_from([None, 0, 1, 2])


# =============================================================================== policies


def success_policies(replicated_job_names: Sequence[str]) -> SearchStrategy[dict[str, Any]]:
    """``spec.successPolicy``: operator ``All``/``Any`` and targets drawn from ``replicated_job_names``."""
    names = list(replicated_job_names)
    targets = st.lists(st.sampled_from(names), unique=True, max_size=len(names)) if names else st.just([])
    return st.builds(
        lambda op, tg: {"operator": op, **({"targetReplicatedJobs": tg} if tg else {})},
        st.sampled_from(["All", "Any"]), targets)


def failure_policy_rules(replicated_job_names: Sequence[str], *, min_size: int = 0, max_size: int = 3,
                         feature_gates: Mapping[str, bool] | None = None,
                         actions: SearchStrategy[str] | None = None) -> SearchStrategy[list[dict[str, Any]]]:
    """``spec.failurePolicy.rules``: unique valid names (or "" for the webhook to name),
    actions allowed by ``feature_gates`` (``RestartJob*`` only with gate ``RestartJob``),
    reasons from the five recognised Job failure reasons, message patterns, targets."""
    _check_bounds("size", min_size, max_size)
    names = list(replicated_job_names)
    restart_job = bool((feature_gates or {}).get(c.FEATURE_RESTART_JOB))
    allowed = ["FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts"]
    if restart_job:
        allowed += ["RestartJob", "RestartJobAndIgnoreMaxRestarts"]
    if actions is not None:
        _check_strategy("actions", actions)
    action_strategy = actions if actions is not None else st.sampled_from(allowed)

    @st.composite
    def build(draw: st.DrawFn) -> list[dict[str, Any]]:
        count = draw(st.integers(min_size, max_size))
        rules: list[dict[str, Any]] = []
        used: set[str] = set()
        for index in range(count):
            name = draw(_rule_names().filter(lambda n: n == "" or n not in used))
            effective = name or c.DEFAULT_RULE_NAME_FMT % index
            used.add(effective)
            action = draw(action_strategy)
            if action.startswith("RestartJob") and not action.startswith("RestartJobSet") and not restart_job:
                raise UsageError(f"failure_policy_rules(actions=...) drew {action!r}, which the webhook "
                                 "rejects unless feature_gates={'RestartJob': True}")
            rule: dict[str, Any] = {"name": name, "action": action}
            reasons = draw(st.lists(st.sampled_from(c.VALID_ON_JOB_FAILURE_REASONS), unique=True, max_size=2))
            if reasons:
                rule["onJobFailureReasons"] = reasons
            patterns = draw(st.lists(st.sampled_from(MESSAGE_PATTERNS), unique=True, max_size=2))
            if patterns:
                rule["onJobFailureMessagePatterns"] = patterns
            if names:
                targets = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
                if targets:
                    rule["targetReplicatedJobs"] = targets
            rules.append(rule)
        return rules

    return build()


def failure_policies(replicated_job_names: Sequence[str], *, min_max_restarts: int = 0, max_max_restarts: int = 3,
                     max_rules: int = 3, feature_gates: Mapping[str, bool] | None = None
                     ) -> SearchStrategy[dict[str, Any]]:
    """``spec.failurePolicy``: ``maxRestarts``, ``restartStrategy`` (absent/Recreate/BlockingRecreate)
    and :func:`failure_policy_rules`."""
    _check_bounds("max_restarts", min_max_restarts, max_max_restarts)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        policy: dict[str, Any] = {}
        max_restarts = draw(st.integers(min_max_restarts, max_max_restarts))
        if max_restarts or draw(st.booleans()):
            policy["maxRestarts"] = max_restarts
        strategy = draw(st.sampled_from([None, "Recreate", "BlockingRecreate"]))
        if strategy is not None:
            policy["restartStrategy"] = strategy
        rules = draw(failure_policy_rules(replicated_job_names, max_size=max_rules, feature_gates=feature_gates))
        if rules:
            policy["rules"] = rules
        return policy

    return build()


# =============================================================================== jobsets


@dataclass(frozen=True, slots=True)
class _RJobPlan:
    replicas: int
    parallelism: int
    completions: int | None
    mode: str | None


def jobsets(
    *,
    names: SearchStrategy[str] | None = None,
    namespace: str = "default",
    min_replicated_jobs: int = 1,
    max_replicated_jobs: int = 3,
    min_replicas: int = 0,
    max_replicas: int = 3,
    min_parallelism: int = 1,
    max_parallelism: int = 2,
    max_pods: int | None = 12,
    completion_modes: SearchStrategy[str | None] | None = None,
    restart_policies: SearchStrategy[str | None] | None = None,
    backoff_limits: SearchStrategy[int | None] | None = None,
    cpu_requests: SearchStrategy[str | None] | None = None,
    suspend: SearchStrategy[bool | None] | None = None,
    ttl_seconds_after_finished: SearchStrategy[int | None] | None = None,
    managed_by: SearchStrategy[str | None] | None = None,
    network: Feature = None,
    groups: Feature = None,
    success_policy: Feature = None,
    failure_policy: Feature = None,
    startup_policy: Feature = None,
    depends_on: Feature = None,
    coordinator: Feature = None,
    exclusive_placement: Feature = None,
    user_labels: Feature = None,
    max_max_restarts: int = 3,
    max_rules: int = 3,
    topology_keys: Sequence[str] = DEFAULT_TOPOLOGY_KEYS,
    feature_gates: Mapping[str, bool] | None = None,
    defaulted: bool = False,
) -> SearchStrategy[dict[str, Any]]:
    """Valid JobSet manifests (``jobset.x-k8s.io/v1alpha2``), covering every spec feature.

    Sizes: ``min/max_replicated_jobs``, ``min/max_replicas`` (per ReplicatedJob),
    ``min/max_parallelism`` (pods per Job), ``max_pods`` (bound on Σ replicas x parallelism;
    ``None`` = unbounded). Leaf strategies: ``names`` (JobSet names; must draw DNS-1035 labels
    that leave room for the generated Job/pod names, see ``docs``), ``completion_modes``,
    ``restart_policies``, ``backoff_limits``, ``cpu_requests``, ``suspend`` (``None`` = field
    absent), ``ttl_seconds_after_finished``, ``managed_by``.

    Features (``None`` sometimes, ``True`` always, ``False`` never): ``network`` (a
    ``spec.network`` object: enableDNSHostnames, subdomain, publishNotReadyAddresses), ``groups``
    (non-default groupNames), ``success_policy``, ``failure_policy`` (maxRestarts ≤
    ``max_max_restarts``, ≤ ``max_rules`` rules), ``startup_policy`` (InOrder when True),
    ``depends_on`` (later ReplicatedJobs depend on earlier ones), ``coordinator``,
    ``exclusive_placement`` (JobSet- or rjob-level ``alpha.jobset.sigs.k8s.io/exclusive-topology``
    with a key from ``topology_keys``), ``user_labels`` (template labels, some colliding with
    JobSet keys). ``startup_policy=True`` with ``depends_on=True`` is impossible (the CRD's CEL
    rule makes them mutually exclusive) and raises :class:`UsageError`.

    ``feature_gates`` are the manager's gates the JobSet must be admitted under (RestartJob
    actions only with ``RestartJob``). ``defaulted=True`` returns the object as the API server
    stores it (CRD and webhook defaults applied).
    """
    _check_bounds("replicated_jobs", min_replicated_jobs, max_replicated_jobs)
    _check_bounds("replicas", min_replicas, max_replicas)
    _check_bounds("parallelism", min_parallelism, max_parallelism)
    for fname, fval in (("network", network), ("groups", groups), ("success_policy", success_policy),
                        ("failure_policy", failure_policy), ("startup_policy", startup_policy),
                        ("depends_on", depends_on), ("coordinator", coordinator),
                        ("exclusive_placement", exclusive_placement), ("user_labels", user_labels)):
        _check_feature(fname, fval)
    if startup_policy is True and depends_on is True:
        raise UsageError("startup_policy=True (InOrder) and depends_on=True are mutually exclusive "
                         "(CEL: 'StartupPolicy and DependsOn APIs are mutually exclusive'); pick one")
    if depends_on is True and max_replicated_jobs < 2:
        raise UsageError("depends_on=True needs a second ReplicatedJob (the first may not depend on "
                         "anything); pass max_replicated_jobs >= 2")
    if depends_on is True:
        min_replicated_jobs = max(min_replicated_jobs, 2)
    if coordinator is True and (min_replicas < 1 and max_replicas < 1):
        raise UsageError("coordinator=True needs a ReplicatedJob with replicas >= 1; raise max_replicas")
    if coordinator is True and max_parallelism < 1:
        raise UsageError("coordinator=True needs completions >= 1; raise max_parallelism")
    if max_pods is not None:
        if not isinstance(max_pods, int) or max_pods < 0:
            raise UsageError(f"max_pods must be a non-negative int or None, got {max_pods!r}")
        if min_replicated_jobs * min_replicas * min_parallelism > max_pods:
            raise UsageError(f"min_replicated_jobs={min_replicated_jobs} x min_replicas={min_replicas} x "
                             f"min_parallelism={min_parallelism} pods exceed max_pods={max_pods}")
    if not isinstance(namespace, str) or not namespace:
        raise UsageError(f"namespace must be a non-empty string, got {namespace!r}")
    if not topology_keys:
        raise UsageError("topology_keys must name at least one node label key")
    strategies: dict[str, SearchStrategy[Any]] = {
        "completion_modes": completion_modes if completion_modes is not None
        else st.sampled_from([None, None, c.INDEXED_COMPLETION, c.NON_INDEXED_COMPLETION]),
        "restart_policies": restart_policies if restart_policies is not None else _RESTART_POLICIES,
        "backoff_limits": backoff_limits if backoff_limits is not None else _BACKOFF_LIMITS,
        "cpu_requests": cpu_requests if cpu_requests is not None else st.none(),
        "suspend": suspend if suspend is not None else st.sampled_from([None, None, None, False, True]),
        "ttl": ttl_seconds_after_finished if ttl_seconds_after_finished is not None
        else st.one_of(st.none(), st.integers(0, 30)),
        "managed_by": managed_by if managed_by is not None else st.sampled_from([None, c.JOBSET_CONTROLLER_NAME]),
    }
    for sname, strat in strategies.items():
        _check_strategy(sname, strat)
    # The longest generated pod name must fit 63 chars: N-R-(r-1)-(c-1)-abcde.
    longest_suffix = _digits(max(max_replicas - 1, 0)) + _digits(max(max_parallelism * 2 - 1, 0)) + 3 + _POD_SUFFIX
    max_name = _MAX_DNS_LABEL - longest_suffix - 1  # at least one char of ReplicatedJob name
    if max_name < 1:
        raise UsageError(f"max_replicas={max_replicas} and max_parallelism={max_parallelism} leave no room for a "
                         "JobSet name within the 63-character pod-name budget; lower them")
    name_strategy = names if names is not None else dns_labels(max_size=min(max_name, 24))
    _check_strategy("names", name_strategy)
    gates = dict(feature_gates or {})

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        name = draw(name_strategy)
        if not isinstance(name, str) or (name and (len(name) > max_name or
                                                   not name[0].isalpha() or name != name.lower())):
            raise UsageError(f"names= drew {name!r}; JobSet names must be DNS-1035 labels of at most {max_name} "
                             f"characters so that Job and pod names fit (max_replicas={max_replicas}, "
                             f"max_parallelism={max_parallelism})")
        count = draw(st.integers(min_replicated_jobs, max_replicated_jobs))
        budget = max_pods
        plans: list[_RJobPlan] = []
        for i in range(count):
            remaining_jobs = count - i - 1
            hi_r = max_replicas
            if budget is not None:
                reserve = remaining_jobs * min_replicas * min_parallelism
                hi_r = min(hi_r, (budget - reserve) // max(min_parallelism, 1)) if min_parallelism else hi_r
            hi_r = max(hi_r, min_replicas)
            if min_replicas == 0 and hi_r >= 1:  # zero replicas is valid but rarely interesting
                r = draw(st.integers(1, hi_r)) if draw(st.integers(0, 5)) else 0
            else:
                r = draw(st.integers(min_replicas, hi_r))
            hi_p = max_parallelism
            if budget is not None and r:
                reserve = remaining_jobs * min_replicas * min_parallelism
                hi_p = min(hi_p, (budget - reserve) // r)
            hi_p = max(hi_p, min_parallelism)
            p = draw(st.integers(min_parallelism, hi_p))
            if budget is not None:
                budget -= r * p
            mode = draw(strategies["completion_modes"])
            completions: int | None
            if mode == c.NON_INDEXED_COMPLETION:
                completions = draw(st.sampled_from([None, p]))
            else:
                completions = draw(st.sampled_from([p, p, p * 2])) if p else p
            plans.append(_RJobPlan(r, p, completions, mode))
        # ReplicatedJob names within the remaining budget, unique.
        rjob_names: list[str] = []
        for plan in plans:
            room = _MAX_DNS_LABEL - len(name) - 2 - _digits(plan.replicas - 1)
            if plan.completions is not None and plan.mode in (None, c.INDEXED_COMPLETION):
                room = min(room, _MAX_DNS_LABEL - len(name) - 3 - _digits(plan.replicas - 1)
                           - _digits(plan.completions - 1) - _POD_SUFFIX)
            room = min(room, 20)
            rname = draw(dns_labels(max_size=max(room, 1)).filter(lambda n: n not in rjob_names))
            rjob_names.append(rname)
        use_groups = _want(draw, groups)
        group_pool = ["default", "g1", "g2"] if use_groups else ["default"]
        use_labels = _want(draw, user_labels)
        rjobs: list[dict[str, Any]] = []
        for rname, plan in zip(rjob_names, plans, strict=True):
            template = draw(_job_template(
                parallelism=plan.parallelism, completions=plan.completions, completion_mode=plan.mode,
                restart_policies=strategies["restart_policies"], backoff_limits=strategies["backoff_limits"],
                cpu_requests=strategies["cpu_requests"], user_labels=use_labels))
            rjob: dict[str, Any] = {"name": rname, "replicas": plan.replicas, "template": template}
            group = draw(st.sampled_from(group_pool))
            if group != "default" or draw(st.booleans()):
                rjob["groupName"] = group
            rjobs.append(rjob)
        spec: dict[str, Any] = {"replicatedJobs": rjobs}
        metadata: dict[str, Any] = {"name": name, "namespace": namespace}

        # startupPolicy / dependsOn (mutually exclusive by CEL).
        in_order = False
        if startup_policy is not False and depends_on is not True:
            choice = draw(st.sampled_from(["InOrder"] if startup_policy else [None, "AnyOrder", "InOrder"]))
            if choice is not None:
                spec["startupPolicy"] = {"startupPolicyOrder": choice}
            in_order = choice == "InOrder"
        if not in_order and len(rjobs) >= 2 and _want(draw, depends_on):
            dependant_seen = False
            for i in range(1, len(rjobs)):
                if depends_on is True and not dependant_seen and i == len(rjobs) - 1:
                    make = True
                else:
                    make = draw(st.booleans())
                if not make:
                    continue
                deps = draw(st.lists(st.sampled_from(rjob_names[:i]), min_size=1, max_size=min(i, 5), unique=True))
                rjobs[i]["dependsOn"] = [{"name": d, "status": draw(st.sampled_from(["Ready", "Complete"]))}
                                         for d in deps]
                dependant_seen = True

        if _want(draw, success_policy):
            spec["successPolicy"] = draw(success_policies(rjob_names))
        if _want(draw, failure_policy):
            spec["failurePolicy"] = draw(failure_policies(rjob_names, max_max_restarts=max_max_restarts,
                                                          max_rules=max_rules, feature_gates=gates))

        # Network and coordinator share the endpoint budget.
        coord: dict[str, Any] | None = None
        candidates = [i for i, p in enumerate(plans)
                      if p.replicas >= 1 and p.completions and p.mode in (None, c.INDEXED_COMPLETION)]
        if coordinator is True and not candidates:
            raise UsageError("coordinator=True needs an Indexed ReplicatedJob with replicas >= 1 and completions >= 1; "
                             "pass completion_modes=st.just('Indexed') and min_replicas=1")
        need_subdomain = False
        if candidates and _want(draw, coordinator):
            i = draw(st.sampled_from(candidates))
            coord = {"replicatedJob": rjob_names[i]}
            job_index = draw(st.integers(0, plans[i].replicas - 1))
            pod_index = draw(st.integers(0, (plans[i].completions or 1) - 1))
            if job_index:
                coord["jobIndex"] = job_index
            if pod_index:
                coord["podIndex"] = pod_index
            # The endpoint <js>-<rjob>-<j>-<p>.<subdomain or js> must be a valid label value.
            endpoint = len(name) + len(rjob_names[i]) + _digits(job_index) + _digits(pod_index) + 4
            need_subdomain = endpoint + len(name) > _MAX_DNS_LABEL
            if need_subdomain and network is False:
                if coordinator is True:
                    raise UsageError("coordinator=True with network=False needs a JobSet name short enough for the "
                                     "coordinator endpoint <js>-<rjob>-<j>-<p>.<js> (63 chars); pass shorter names=")
                coord = None
            else:
                spec["coordinator"] = coord
        if need_subdomain or _want(draw, network):
            net: dict[str, Any] = {}
            dns = draw(st.sampled_from([None, True, True, False]))
            if dns is not None:
                net["enableDNSHostnames"] = dns
            pnra = draw(st.sampled_from([None, True, False]))
            if pnra is not None:
                net["publishNotReadyAddresses"] = pnra
            if need_subdomain or draw(st.booleans()):
                room = _MAX_DNS_LABEL
                if coord is not None:
                    room = (_MAX_DNS_LABEL - len(name) - len(coord["replicatedJob"]) - 4
                            - _digits(coord.get("jobIndex", 0)) - _digits(coord.get("podIndex", 0)))
                if room >= 1:
                    net["subdomain"] = draw(dns_labels(max_size=min(room, _MAX_DNS_LABEL)))
            spec["network"] = net

        susp = draw(strategies["suspend"])
        if susp is not None:
            spec["suspend"] = susp
        ttl = draw(strategies["ttl"])
        if ttl is not None:
            spec["ttlSecondsAfterFinished"] = ttl
        manager = draw(strategies["managed_by"])
        if manager is not None:
            spec["managedBy"] = manager

        if _want(draw, exclusive_placement):
            key = draw(st.sampled_from(list(topology_keys)))
            if draw(st.booleans()):
                metadata["annotations"] = {c.EXCLUSIVE_KEY: key}
            else:
                chosen = draw(st.lists(st.integers(0, len(rjobs) - 1), min_size=1, unique=True))
                for i in chosen:
                    meta = rjobs[i]["template"].setdefault("metadata", {})
                    meta.setdefault("annotations", {})[c.EXCLUSIVE_KEY] = key
        manifest = {"apiVersion": c.API_VERSION, "kind": c.KIND, "metadata": metadata, "spec": spec}
        errors = admitted(manifest, feature_gates=gates)
        if errors:  # pragma: no cover - a bug in this module
            raise AssertionError("jobsets() drew a JobSet the webhook rejects (a bug in strategies.py):\n  "
                                 + "\n  ".join(errors) + "\n" + json.dumps(manifest, indent=1))
        if defaulted:
            return apply_schema_defaults(default_jobset(apply_schema_defaults(manifest)))
        return manifest

    return build()


# =============================================================================== invalid jobsets


@dataclass(frozen=True, slots=True)
class InvalidJobSet:
    """A JobSet the API must reject, and why.

    ``layer`` is ``"webhook"`` (``validate_create`` produces ``expected``) or ``"schema"``
    (the API server's CRD schema / CEL validation does). ``expected`` is a substring of exactly
    one rendered error (``str(FieldError)`` / the 422 message).
    """

    rule: str
    manifest: dict[str, Any]
    expected: str
    layer: Literal["webhook", "schema"] = "webhook"

    def __repr__(self) -> str:
        return (f"InvalidJobSet(rule={self.rule!r}, expected={self.expected!r}, layer={self.layer!r}, "
                f"manifest={self.manifest!r})")


_Mutation = Callable[[st.DrawFn, dict[str, Any], Mapping[str, bool]], tuple[str, str] | None]


def _rjobs(js: dict[str, Any]) -> list[dict[str, Any]]:
    rjobs: list[dict[str, Any]] = js["spec"]["replicatedJobs"]
    return rjobs


def _job_spec(rjob: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = rjob["template"].setdefault("spec", {})
    return spec


def _m_job_name_too_long(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    rjob = _rjobs(js)[0]
    rjob["replicas"] = max(rjob.get("replicas", 1), 1)
    fixed = 2 + len(rjob["name"]) + _digits(rjob["replicas"] - 1)
    js["metadata"]["name"] = "a" * (_MAX_DNS_LABEL - fixed + 1 + draw(st.integers(0, 5)))
    js["spec"].pop("coordinator", None)
    return c.JOB_NAME_TOO_LONG_ERROR_MSG, "webhook"


def _m_pod_name_too_long(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    rjob = _rjobs(js)[0]
    job_spec = _job_spec(rjob)
    job_spec["completionMode"] = c.INDEXED_COMPLETION
    job_spec["completions"] = 10 ** 9
    rjob["replicas"] = max(rjob.get("replicas", 1), 1)
    js["metadata"]["name"] = "p" * max(1, 63 - 2 - len(rjob["name"]) - _digits(rjob["replicas"] - 1) - 12)
    js["spec"].pop("coordinator", None)
    return c.POD_NAME_TOO_LONG_ERROR_MSG, "webhook"


def _m_subdomain_too_long(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    js["spec"].setdefault("network", {})["subdomain"] = "s" * draw(st.integers(64, 70))
    js["spec"].pop("coordinator", None)
    return c.SUBDOMAIN_TOO_LONG_ERR_MSG, "webhook"


def _m_subdomain_invalid(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    js["spec"].setdefault("network", {})["subdomain"] = draw(st.sampled_from(["Bad_Sub", "has.dot", "9lives"]))
    js["spec"].pop("coordinator", None)
    return "a DNS-1035 label must consist of lower case alphanumeric characters", "webhook"


def _m_first_depends_on(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    first = _rjobs(js)[0]
    first["dependsOn"] = draw(st.sampled_from([[], [{"name": first["name"], "status": "Ready"}]]))
    js["spec"]["startupPolicy"] = {"startupPolicyOrder": "AnyOrder"}
    return "DependsOn can't be set for the first ReplicatedJob", "webhook"


def _m_forward_depends_on(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    rjobs = _rjobs(js)
    js["spec"]["startupPolicy"] = {"startupPolicyOrder": "AnyOrder"}
    if len(rjobs) >= 2:
        rjobs[0].pop("dependsOn", None)
        rjobs[1].pop("dependsOn", None)
        rjobs[0], rjobs[1] = rjobs[1], rjobs[0]
        rjobs[1]["dependsOn"] = [{"name": rjobs[0]["name"], "status": "Ready"}]
        rjobs[0]["dependsOn"] = [{"name": rjobs[1]["name"], "status": "Complete"}]
        return f"replicatedJob: {rjobs[0]['name']} cannot depend on replicatedJob: {rjobs[1]['name']}", "webhook"
    ghost = "ghost" if rjobs[0]["name"] != "ghost" else "phantom"
    rjobs.append({"name": ghost + "x", "replicas": 1, "template": copy.deepcopy(rjobs[0]["template"]),
                  "dependsOn": [{"name": ghost, "status": "Ready"}]})
    return f"replicatedJob: {ghost}x cannot depend on replicatedJob: {ghost}", "webhook"


def _ghost(js: dict[str, Any]) -> str:
    names = {r["name"] for r in _rjobs(js)}
    return next(n for n in ("ghost", "phantom", "nobody", "missing") if n not in names)


def _m_success_target(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    ghost = _ghost(js)
    js["spec"]["successPolicy"] = {"operator": draw(st.sampled_from(["All", "Any"])), "targetReplicatedJobs": [ghost]}
    return f"invalid replicatedJob name '{ghost}' does not appear in .spec.ReplicatedJobs", "webhook"


def _safe_failure_policy(js: dict[str, Any]) -> dict[str, Any]:
    policy: dict[str, Any] = {"maxRestarts": 1, "rules": []}
    js["spec"]["failurePolicy"] = policy
    return policy


def _m_failure_target(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    ghost = _ghost(js)
    _safe_failure_policy(js)["rules"] = [{"name": "r", "action": "FailJobSet", "targetReplicatedJobs": [ghost]}]
    return f"invalid replicatedJob name '{ghost}' in failure policy does not appear in .spec.ReplicatedJobs", "webhook"


def _m_failure_reason(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    reason = draw(st.sampled_from(["OOMKilled", "Evicted", "backofflimitexceeded"]))
    _safe_failure_policy(js)["rules"] = [{"name": "r", "action": "RestartJobSet", "onJobFailureReasons": [reason]}]
    return f"invalid job failure reason '{reason}' in failure policy is not a recognized job failure reason", "webhook"


def _m_rule_name_format(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    bad = draw(st.sampled_from(["1rule", "rule-with-dash", "ends,", "_x"]))
    _safe_failure_policy(js)["rules"] = [{"name": bad, "action": "FailJobSet"}]
    return f"invalid failure policy rule name '{bad}', a failure policy rule name must start with", "webhook"


def _m_rule_name_length(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    size = draw(st.integers(129, 140))
    _safe_failure_policy(js)["rules"] = [{"name": "r" * size, "action": "FailJobSet"}]
    return f"invalid failure policy rule name of length {size}", "webhook"


def _m_rule_name_duplicate(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    _safe_failure_policy(js)["rules"] = [{"name": "dup", "action": "FailJobSet"},
                                         {"name": "dup", "action": "RestartJobSet"}]
    return "rule names are not unique, rules with indices [0 1] all have the same name 'dup'", "webhook"


def _m_restart_job_gate(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str] | None:
    if gates.get(c.FEATURE_RESTART_JOB):
        rjob = _rjobs(js)[0]
        rjob["replicas"] = 1025
        _job_spec(rjob)["parallelism"] = 1
        js["metadata"]["name"] = "x"
        js["spec"].pop("coordinator", None)
        js["spec"].pop("network", None)
        _safe_failure_policy(js)["rules"] = [{"name": "r", "action": "RestartJob"}]
        return ("JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts "
                "action and a replicated job with replicas > 1024"), "webhook"
    action = draw(st.sampled_from(["RestartJob", "RestartJobAndIgnoreMaxRestarts"]))
    _safe_failure_policy(js)["rules"] = [{"name": "r", "action": action}]
    return ("RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob "
            "feature gate is disabled"), "webhook"


def _m_in_place_gate(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str] | None:
    if gates.get(c.FEATURE_IN_PLACE_RESTART):
        rjob = _rjobs(js)[0]
        _job_spec(rjob).pop("backoffLimit", None)
        _safe_failure_policy(js)["restartStrategy"] = "InPlaceRestart"
        return f"replicatedJob {rjob['name']}: must be set to 2147483647 (MaxInt32) when in-place restart is enabled", \
            "webhook"
    _safe_failure_policy(js)["restartStrategy"] = "InPlaceRestart"
    return "InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled", "webhook"


def _m_coordinator_rjob(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    ghost = _ghost(js)
    js["spec"]["coordinator"] = {"replicatedJob": ghost}
    return f"coordinator replicatedJob {ghost} does not exist", "webhook"


def _m_coordinator_job_index(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    rjob = _rjobs(js)[0]
    index = draw(st.sampled_from([rjob.get("replicas", 1), -1]))
    js["spec"]["coordinator"] = {"replicatedJob": rjob["name"], "jobIndex": index}
    return f"coordinator job index {index} is invalid for replicatedJob {rjob['name']}", "webhook"


def _m_coordinator_not_indexed(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    rjob = _rjobs(js)[0]
    rjob["replicas"] = max(rjob.get("replicas", 1), 1)
    job_spec = _job_spec(rjob)
    if draw(st.booleans()):
        job_spec["completionMode"] = c.NON_INDEXED_COMPLETION
    else:
        job_spec.pop("completions", None)
    js["spec"]["coordinator"] = {"replicatedJob": rjob["name"]}
    return "job for coordinator pod must be indexed completion mode, and completions number must be set", "webhook"


def _m_coordinator_pod_index(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    rjob = _rjobs(js)[0]
    rjob["replicas"] = max(rjob.get("replicas", 1), 1)
    job_spec = _job_spec(rjob)
    job_spec["completionMode"] = c.INDEXED_COMPLETION
    completions = job_spec.get("completions") or 1
    job_spec["completions"] = completions
    js["spec"]["coordinator"] = {"replicatedJob": rjob["name"], "podIndex": completions}
    return f"coordinator pod index {completions} is invalid for replicatedJob {rjob['name']} job index 0", "webhook"


def _m_managed_by_format(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    js["spec"]["managedBy"] = draw(st.sampled_from(["kueue", "no-slash-here", "/path-only"]))
    return 'must be a domain-prefixed path (such as "acme.io/foo")', "webhook"


def _m_managed_by_length(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    js["spec"]["managedBy"] = "example.com/" + "m" * draw(st.integers(52, 60))
    return "spec.managedBy: Too long: may not be more than 63 bytes", "webhook"


def _m_group_name(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    rjob = _rjobs(js)[0]
    if draw(st.booleans()):
        rjob["groupName"] = "g" * 64
        return c.GROUP_NAME_TOO_LONG_ERROR_MSG, "webhook"
    rjob["groupName"] = draw(st.sampled_from(["Bad_Group", "", "1group"]))
    return "a DNS-1035 label must consist of lower case alphanumeric characters", "webhook"


def _m_pod_overflow(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    rjob = _rjobs(js)[0]
    rjob["replicas"] = 2
    job_spec = _job_spec(rjob)
    job_spec["parallelism"] = c.MAX_INT32
    job_spec.pop("completions", None)
    job_spec["completionMode"] = c.NON_INDEXED_COMPLETION
    js["spec"].pop("coordinator", None)
    return (f"the product of replicas and parallelism must not exceed 2147483647 for replicatedJob "
            f"'{rjob['name']}'"), "webhook"


def _m_in_order_with_depends_on(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    rjobs = _rjobs(js)
    if len(rjobs) < 2:
        rjobs.append({"name": _ghost(js), "replicas": 1, "template": copy.deepcopy(rjobs[0]["template"])})
    rjobs[1]["dependsOn"] = [{"name": rjobs[0]["name"], "status": "Ready"}]
    js["spec"]["startupPolicy"] = {"startupPolicyOrder": "InOrder"}
    return "StartupPolicy and DependsOn APIs are mutually exclusive", "schema"


def _m_negative_replicas(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    _rjobs(js)[0]["replicas"] = draw(st.integers(-3, -1))
    js["spec"].pop("coordinator", None)
    return "spec.replicatedJobs[0].replicas in body should be greater than or equal to 0", "schema"


def _m_negative_ttl(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    js["spec"]["ttlSecondsAfterFinished"] = draw(st.integers(-5, -1))
    return "spec.ttlSecondsAfterFinished in body should be greater than or equal to 0", "schema"


def _m_bad_operator(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, str]:
    js["spec"]["successPolicy"] = {"operator": draw(st.sampled_from(["Some", "all", "None"]))}
    return 'spec.successPolicy.operator: Unsupported value: "', "schema"


#: Rule name → mutation. Each turns a valid JobSet into one the API rejects with a known error.
INVALID_RULES: dict[str, _Mutation] = {
    "job-name-too-long": _m_job_name_too_long,
    "pod-name-too-long": _m_pod_name_too_long,
    "subdomain-too-long": _m_subdomain_too_long,
    "subdomain-invalid": _m_subdomain_invalid,
    "first-depends-on": _m_first_depends_on,
    "forward-depends-on": _m_forward_depends_on,
    "success-target-unknown": _m_success_target,
    "failure-target-unknown": _m_failure_target,
    "failure-reason-unknown": _m_failure_reason,
    "rule-name-format": _m_rule_name_format,
    "rule-name-length": _m_rule_name_length,
    "rule-name-duplicate": _m_rule_name_duplicate,
    "restart-job-gate": _m_restart_job_gate,
    "in-place-restart": _m_in_place_gate,
    "coordinator-replicated-job": _m_coordinator_rjob,
    "coordinator-job-index": _m_coordinator_job_index,
    "coordinator-not-indexed": _m_coordinator_not_indexed,
    "coordinator-pod-index": _m_coordinator_pod_index,
    "managed-by-format": _m_managed_by_format,
    "managed-by-length": _m_managed_by_length,
    "group-name": _m_group_name,
    "pod-count-overflow": _m_pod_overflow,
    "in-order-with-depends-on": _m_in_order_with_depends_on,
    "negative-replicas": _m_negative_replicas,
    "negative-ttl": _m_negative_ttl,
    "success-operator-enum": _m_bad_operator,
}


def invalid_jobsets(*, rules: Sequence[str] | None = None, feature_gates: Mapping[str, bool] | None = None,
                    layers: Sequence[str] = ("webhook", "schema")) -> SearchStrategy[InvalidJobSet]:
    """JobSets the API rejects, each paired with the error it must produce.

    Starts from a valid :func:`jobsets` value and breaks exactly one rule (``rules`` narrows the
    catalogue :data:`INVALID_RULES`). ``layer="webhook"`` errors come from
    :func:`jobset_ref.api.validate_create` after defaulting; ``layer="schema"`` errors from the
    API server's CRD schema / CEL. Both surface as a 422 ``Invalid`` from ``cluster.apply``.
    """
    chosen = list(INVALID_RULES) if rules is None else list(rules)
    unknown = [r for r in chosen if r not in INVALID_RULES]
    if unknown:
        raise UsageError(f"unknown invalid_jobsets rule(s) {unknown}; known: {', '.join(INVALID_RULES)}")
    if not chosen:
        raise UsageError("invalid_jobsets(rules=[]) can generate nothing; pass at least one rule")
    bad_layers = [x for x in layers if x not in ("webhook", "schema")]
    if bad_layers or not layers:
        raise UsageError(f"layers= takes a non-empty subset of ('webhook', 'schema'), got {layers!r}")
    gates = dict(feature_gates or {})
    base = jobsets(max_replicated_jobs=2, max_replicas=2, max_parallelism=2, exclusive_placement=False,
                   feature_gates=gates, managed_by=st.none(), names=dns_labels(max_size=12))

    @st.composite
    def build(draw: st.DrawFn) -> InvalidJobSet:
        js = copy.deepcopy(draw(base))
        rule = draw(st.sampled_from(chosen))
        # Isolate the mutation: drop features that could fail for unrelated reasons.
        out = INVALID_RULES[rule](draw, js, gates)
        assert out is not None
        expected, layer = out
        if layer not in layers:
            raise UsageError(f"invalid_jobsets(rules={chosen!r}, layers={tuple(layers)!r}): rule {rule!r} is a "
                             f"{layer}-layer rule; include {layer!r} in layers or drop the rule")
        return InvalidJobSet(rule, js, expected, layer)  # type: ignore[arg-type]

    return build()


# =============================================================================== from_manifest


def _load(doc: str | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(doc, Mapping):
        return copy.deepcopy(dict(doc))
    if not isinstance(doc, str):
        raise UsageError(f"from_manifest() takes a JobSet as a dict or YAML text, got {type(doc).__name__}")
    docs = [d for d in yaml.safe_load_all(doc) if isinstance(d, dict) and d.get("kind") == c.KIND]
    if len(docs) != 1:
        raise UsageError(f"from_manifest() needs exactly one JobSet document in the YAML, found {len(docs)}")
    return docs[0]


def from_manifest(doc: str | Mapping[str, Any], *, feature_gates: Mapping[str, bool] | None = None,
                  max_replicas: int = 3, max_parallelism: int = 3) -> SearchStrategy[dict[str, Any]]:
    """Variations of a given JobSet manifest (dict or YAML text) that the webhooks still admit.

    Varies the JobSet name, each ReplicatedJob's ``replicas`` and (keeping ``completions ==
    parallelism`` when they were equal) ``parallelism``/``completions``, ``suspend``,
    ``ttlSecondsAfterFinished``, ``failurePolicy.maxRestarts`` and
    ``network.publishNotReadyAddresses``. Each variation is kept only if the result is still
    admitted; a manifest that is not admitted to begin with raises :class:`UsageError`.
    """
    base = _load(doc)
    if base.get("kind") != c.KIND:
        raise UsageError(f"from_manifest() takes a JobSet, got kind {base.get('kind')!r}")
    gates = dict(feature_gates or {})
    base.setdefault("metadata", {}).setdefault("namespace", "default")
    errors = admitted(base, feature_gates=gates)
    if errors:
        raise UsageError("from_manifest() needs a manifest the webhooks admit; this one is rejected:\n  "
                         + "\n  ".join(errors))
    _check_bounds("replicas", 0, max_replicas)
    _check_bounds("parallelism", 1, max_parallelism, floor=1)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        js = copy.deepcopy(base)

        def attempt(change: Callable[[dict[str, Any]], None]) -> None:
            nonlocal js
            candidate = copy.deepcopy(js)
            change(candidate)
            if not admitted(candidate, feature_gates=gates):
                js = candidate

        if draw(st.booleans()):
            new_name = draw(dns_labels(max_size=20))
            attempt(lambda j: j["metadata"].__setitem__("name", new_name))
        for i, rjob in enumerate(js["spec"].get("replicatedJobs") or []):
            if draw(st.booleans()):
                r = draw(st.integers(0 if not js["spec"].get("coordinator") else 1, max_replicas))
                attempt(lambda j, i=i, r=r: j["spec"]["replicatedJobs"][i].__setitem__("replicas", r))
            job_spec = (rjob.get("template") or {}).get("spec") or {}
            if draw(st.booleans()) and job_spec.get("parallelism") is not None:
                p = draw(st.integers(1, max_parallelism))
                keep_equal = job_spec.get("completions") == job_spec.get("parallelism")

                def scale(j: dict[str, Any], i: int = i, p: int = p, keep_equal: bool = keep_equal) -> None:
                    spec = j["spec"]["replicatedJobs"][i]["template"]["spec"]
                    spec["parallelism"] = p
                    if keep_equal:
                        spec["completions"] = p
                attempt(scale)
        if draw(st.booleans()):
            value = draw(st.sampled_from([None, False, True]))
            attempt(lambda j: j["spec"].pop("suspend", None) if value is None
                    else j["spec"].__setitem__("suspend", value))
        if draw(st.booleans()):
            ttl = draw(st.one_of(st.none(), st.integers(0, 60)))
            attempt(lambda j: j["spec"].pop("ttlSecondsAfterFinished", None) if ttl is None
                    else j["spec"].__setitem__("ttlSecondsAfterFinished", ttl))
        if js["spec"].get("failurePolicy") is not None and draw(st.booleans()):
            mr = draw(st.integers(0, 5))
            attempt(lambda j: j["spec"]["failurePolicy"].__setitem__("maxRestarts", mr))
        if draw(st.booleans()):
            pnra = draw(st.booleans())
            attempt(lambda j: j["spec"].setdefault("network", {}).__setitem__("publishNotReadyAddresses", pnra))
        return js

    return build()


# =============================================================================== cluster shapes


@dataclass(frozen=True, slots=True)
class NodeShape:
    """One node: name, labels (pool, zone …), capacity, taints."""

    name: str
    labels: dict[str, str] = field(default_factory=dict)
    capacity: dict[str, str] = field(default_factory=dict)
    taints: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class ClusterShape:
    """A set of nodes in pools and zones; ``apply(cluster)`` registers them."""

    nodes: tuple[NodeShape, ...]
    topology_keys: tuple[str, ...] = DEFAULT_TOPOLOGY_KEYS

    def apply(self, cluster: FakeCluster) -> None:
        for node in self.nodes:
            cluster.add_node(node.name, labels=dict(node.labels), capacity=dict(node.capacity) or None,
                             taints=[dict(t) for t in node.taints] or None)

    def domains(self, key: str) -> dict[str, list[str]]:
        """Topology value → node names for label ``key``."""
        out: dict[str, list[str]] = {}
        for node in self.nodes:
            if key in node.labels:
                out.setdefault(node.labels[key], []).append(node.name)
        return out

    @property
    def node_names(self) -> list[str]:
        return [n.name for n in self.nodes]


def cluster_shapes(*, min_pools: int = 1, max_pools: int = 4, min_nodes_per_pool: int = 1,
                   max_nodes_per_pool: int = 3, min_zones: int = 1, max_zones: int = 2,
                   cpus: SearchStrategy[int] | None = None, max_pods_per_node: SearchStrategy[int] | None = None,
                   tainted: Feature = False,
                   topology_keys: Sequence[str] = DEFAULT_TOPOLOGY_KEYS) -> SearchStrategy[ClusterShape]:
    """Clusters of node pools spread over zones.

    Every node gets ``topology_keys[0]`` = its pool name (``pool-<i>``) and, if there is a second
    key, ``topology_keys[1]`` = its zone (``zone-<j>``). ``cpus``/``max_pods_per_node`` draw
    per-pool capacities; ``tainted`` adds a ``NoSchedule`` taint to some pools (pods without a
    toleration stay Pending there).
    """
    _check_bounds("pools", min_pools, max_pools, floor=1)
    _check_bounds("nodes_per_pool", min_nodes_per_pool, max_nodes_per_pool, floor=1)
    _check_bounds("zones", min_zones, max_zones, floor=1)
    _check_feature("tainted", tainted)
    if not topology_keys:
        raise UsageError("topology_keys must name at least one node label key")
    cpu_strategy = cpus if cpus is not None else st.sampled_from([4, 8, 32])
    pods_strategy = max_pods_per_node if max_pods_per_node is not None else st.sampled_from([110, 110, 8])
    _check_strategy("cpus", cpu_strategy)
    _check_strategy("max_pods_per_node", pods_strategy)
    keys = tuple(topology_keys)

    @st.composite
    def build(draw: st.DrawFn) -> ClusterShape:
        pools = draw(st.integers(min_pools, max_pools))
        zones = draw(st.integers(min_zones, max_zones))
        nodes: list[NodeShape] = []
        for p in range(pools):
            size = draw(st.integers(min_nodes_per_pool, max_nodes_per_pool))
            zone = f"zone-{draw(st.integers(0, zones - 1))}"
            cap = {"cpu": str(draw(cpu_strategy)), "memory": "64Gi", "pods": str(draw(pods_strategy))}
            taints: tuple[dict[str, Any], ...] = ()
            if _want(draw, tainted) and tainted is not False and p > 0:
                taints = ({"key": "dedicated", "value": f"pool-{p}", "effect": "NoSchedule"},)
            for n in range(size):
                labels = {keys[0]: f"pool-{p}"}
                if len(keys) > 1:
                    labels[keys[1]] = zone
                nodes.append(NodeShape(f"pool-{p}-node-{n}", labels, cap, taints))
        return ClusterShape(tuple(nodes), keys)

    return build()


# =============================================================================== pod scripts


@dataclass(frozen=True, slots=True)
class PodScript:
    """``cluster.script_pods(selector, duration=…, exit_code=…, ready_after=…, reason=…)``."""

    selector: str
    duration: float | None
    exit_code: int = 0
    ready_after: float | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class PodScripts:
    """Scripts applied in order (a later matching script wins)."""

    scripts: tuple[PodScript, ...]

    def apply(self, cluster: FakeCluster) -> None:
        for s in self.scripts:
            cluster.script_pods(s.selector, duration=s.duration, exit_code=s.exit_code,
                                ready_after=s.ready_after, reason=s.reason)


def pod_scripts(jobset: Mapping[str, Any], *, min_duration: float = 1, max_duration: float = 60,
                forever: Feature = None, exit_codes: SearchStrategy[int] | None = None,
                per_job: Feature = None) -> SearchStrategy[PodScripts]:
    """How the pods of ``jobset`` behave: per ReplicatedJob (and, sometimes, per Job) run time,
    exit code, readiness delay and termination reason.

    ``forever``: pods may run until killed (``None`` sometimes). ``exit_codes`` defaults to
    mostly 0 with some 1 and 137.
    """
    if min_duration < 0 or min_duration > max_duration:
        raise UsageError(f"need 0 <= min_duration <= max_duration, got {min_duration}, {max_duration}")
    _check_feature("forever", forever)
    _check_feature("per_job", per_job)
    codes = exit_codes if exit_codes is not None else st.sampled_from([0, 0, 0, 1, 137])
    _check_strategy("exit_codes", codes)
    name = jobset.get("metadata", {}).get("name")
    if not name:
        raise UsageError("pod_scripts() needs a JobSet with metadata.name")
    rjobs = list((jobset.get("spec") or {}).get("replicatedJobs") or [])

    def one(draw: st.DrawFn, selector: str) -> PodScript:
        duration: float | None
        if forever is True or (forever is None and draw(st.integers(0, 4)) == 0):
            duration = None
        else:
            duration = float(draw(st.integers(int(min_duration), int(max_duration))))
        code = draw(codes)
        ready = draw(st.sampled_from([None, 0.0, 1.0, 3.0]))
        reason = draw(st.sampled_from([None, "OOMKilled"])) if code else None
        return PodScript(selector, duration, code, ready, reason)

    @st.composite
    def build(draw: st.DrawFn) -> PodScripts:
        scripts = [one(draw, f"{c.JOBSET_NAME_KEY}={name}")]
        for rjob in rjobs:
            if draw(st.booleans()):
                scripts.append(one(draw, f"{c.JOBSET_NAME_KEY}={name},{c.REPLICATED_JOB_NAME_KEY}={rjob['name']}"))
            if rjob.get("replicas", 1) and _want(draw, per_job) and per_job is not False:
                idx = draw(st.integers(0, rjob.get("replicas", 1) - 1))
                scripts.append(one(draw, f"{c.JOBSET_NAME_KEY}={name},{c.REPLICATED_JOB_NAME_KEY}={rjob['name']},"
                                         f"{c.JOB_INDEX_KEY}={idx}"))
        return PodScripts(tuple(scripts))

    return build()


# =============================================================================== fault timelines


@dataclass(frozen=True, slots=True)
class FaultContext:
    """What a fault needs to find its target."""

    jobset: str
    namespace: str = "default"


class Fault:
    """A timed event; ``apply`` returns a one-line description of what happened (or was skipped).
    The pod, node and API faults apply the :mod:`fakekube.faults` value they stand for."""

    at: float

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:  # pragma: no cover - interface
        raise NotImplementedError


def _pod_faults(ctx: FaultContext, rjob: str, job_index: int, pod_index: int) -> list[faults.PodTarget]:
    """Targets of pod ``pod_index`` of Job ``<js>-<rjob>-<job_index>``, in order of preference: the
    pod with that completion index, else the ``pod_index``-th (modulo their number) of the Job's pods."""
    selector = (f"{c.JOBSET_NAME_KEY}={ctx.jobset},{c.REPLICATED_JOB_NAME_KEY}={rjob},"
                f"{c.JOB_INDEX_KEY}={job_index}")
    return [faults.PodTarget(selector=f"{selector},{c.JOB_COMPLETION_INDEX_ANNOTATION}={pod_index}",
                             namespace=ctx.namespace),
            faults.PodTarget(selector=selector, namespace=ctx.namespace, pick=pod_index)]


def _apply_pod_fault(cluster: FakeCluster, targets: list[faults.PodTarget],
                     make: Callable[[faults.PodTarget], faults.Fault], what: str) -> str:
    for target in targets:
        try:
            return make(target).apply(cluster)
        except faults.NoTarget:
            continue
        except UsageError as err:  # e.g. its containers are between restarts
            return f"skip {what}: {err}"
    return f"skip {what}: no running pod"


@dataclass(frozen=True, slots=True)
class FailPod(Fault):
    """The containers of pod ``pod_index`` of Job ``<js>-<replicated_job>-<job_index>`` exit non-zero."""

    at: float
    replicated_job: str
    job_index: int = 0
    pod_index: int = 0
    exit_code: int = 1
    reason: str = "Error"

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return _apply_pod_fault(cluster, _pod_faults(ctx, self.replicated_job, self.job_index, self.pod_index),
                                lambda t: faults.FailPod(t, exit_code=self.exit_code, reason=self.reason),
                                f"fail-pod {self.replicated_job}/{self.job_index}/{self.pod_index}")


@dataclass(frozen=True, slots=True)
class CompletePod(Fault):
    """The containers of one pod exit 0 now."""

    at: float
    replicated_job: str
    job_index: int = 0
    pod_index: int = 0

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return _apply_pod_fault(cluster, _pod_faults(ctx, self.replicated_job, self.job_index, self.pod_index),
                                faults.CompletePod,
                                f"complete-pod {self.replicated_job}/{self.job_index}/{self.pod_index}")


@dataclass(frozen=True, slots=True)
class FailNode(Fault):
    """Node number ``node_index`` (in name order, among nodes not yet failed) stops responding."""

    at: float
    node_index: int = 0

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        live = [n["metadata"]["name"] for n in cluster.list("nodes")
                if not any(t.get("key") == "node.kubernetes.io/unreachable"
                           for t in (n.get("spec") or {}).get("taints") or [])]
        if len(live) <= 1:
            return "skip fail-node: keep at least one node"
        return faults.FailNode(name=live[self.node_index % len(live)]).apply(cluster)


def _set_suspend(cluster: FakeCluster, ctx: FaultContext, value: bool) -> str:
    try:
        cluster.patch("jobsets.jobset.x-k8s.io", ctx.jobset, {"spec": {"suspend": value}}, ctx.namespace)
    except NotFound:
        return f"skip {'suspend' if value else 'resume'}: JobSet gone"
    except ApiError as err:
        return f"{'suspend' if value else 'resume'} rejected: {err.message}"
    return "suspend" if value else "resume"


@dataclass(frozen=True, slots=True)
class Suspend(Fault):
    """``spec.suspend = true``."""

    at: float

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return _set_suspend(cluster, ctx, True)


@dataclass(frozen=True, slots=True)
class Resume(Fault):
    """``spec.suspend = false``."""

    at: float

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return _set_suspend(cluster, ctx, False)


@dataclass(frozen=True, slots=True)
class DeleteJobSet(Fault):
    """Delete the JobSet (children go by owner-reference GC)."""

    at: float
    propagation_policy: str | None = None

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        try:
            cluster.delete("jobsets.jobset.x-k8s.io", ctx.jobset, ctx.namespace,
                           propagation_policy=self.propagation_policy)
        except NotFound:
            return "skip delete-jobset: already gone"
        return f"delete-jobset propagation={self.propagation_policy}"


@dataclass(frozen=True, slots=True)
class RestartControllers(Fault):
    """Every shared informer relists, as after a controller-manager restart."""

    at: float

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        cluster.runtime.restart_informers()
        cluster.run_until_idle()
        return "restart-controllers"


@dataclass(frozen=True, slots=True)
class InjectConflict(Fault):
    """The ``nth`` next matching request fails with 409 Conflict."""

    at: float
    verb: str = "update"
    resource: str = "jobsets.jobset.x-k8s.io"
    nth: int = 1
    subresource: str | None = "*"

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        error = faults.api_error(409, f'Operation cannot be fulfilled on {self.resource} "{ctx.jobset}": '
                                      "injected conflict")
        return faults.Inject(Reactor(verb=self.verb, resource=self.resource, nth=self.nth,
                                     subresource=self.subresource, error=error)).apply(cluster)


@dataclass(frozen=True, slots=True)
class DelayWatch(Fault):
    """The watch events of the next ``times`` matching writes arrive ``seconds`` late."""

    at: float
    verb: str = "*"
    resource: str = "jobs.batch"
    seconds: float = 1.0
    times: int = 3

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return faults.Inject(Reactor(verb=self.verb, resource=self.resource, delay_seconds=self.seconds,
                                     times=self.times)).apply(cluster)


@dataclass(frozen=True, slots=True)
class BreakWatch(Fault):
    """The informers' watch of ``resource`` breaks at their ``nth`` next event; they relist."""

    at: float
    resource: str = "pods"
    nth: int = 1

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return faults.BreakWatch(self.resource, self.nth).apply(cluster)


@dataclass(frozen=True, slots=True)
class DelayDelivery(Fault):
    """The informers of ``resource`` get their ``nth`` next event, and all behind it, ``seconds`` late."""

    at: float
    resource: str = "pods"
    nth: int = 1
    seconds: float = 1.0

    def apply(self, cluster: FakeCluster, ctx: FaultContext) -> str:
        return faults.DelayDelivery(self.resource, self.nth, self.seconds).apply(cluster)


#: Names of the fault kinds :func:`fault_timelines` can draw.
FAULT_KINDS: tuple[str, ...] = ("fail-pod", "complete-pod", "fail-node", "suspend", "resume", "delete-jobset",
                                "restart-controllers", "conflict", "delay-watch", "break-watch", "delay-delivery")


@dataclass(frozen=True, slots=True)
class FaultTimeline:
    """Faults in time order; ``run`` plays them on a cluster and returns what happened."""

    faults: tuple[Fault, ...]

    def run(self, cluster: FakeCluster, jobset: str, *, namespace: str = "default",
            until: float | None = None, after_each: Callable[[Fault, str], None] | None = None) -> list[str]:
        """Advance to each fault's time (relative to now), apply it; finally advance to ``until``."""
        start = cluster.elapsed
        ctx = FaultContext(jobset, namespace)
        log: list[str] = []
        for fault in sorted(self.faults, key=lambda f: f.at):
            if start + fault.at > cluster.elapsed:
                cluster.advance_to(start + fault.at)
            line = fault.apply(cluster, ctx)
            log.append(f"t+{fault.at:g}s {line}")
            if after_each is not None:
                after_each(fault, line)
        if until is not None and start + until > cluster.elapsed:
            cluster.advance_to(start + until)
        return log

    def kinds(self) -> list[str]:
        return [type(f).__name__ for f in self.faults]


_JOBSET_RESOURCES = ("jobsets.jobset.x-k8s.io", "jobs.batch", "services", "pods")
_WATCHED_RESOURCES = (*_JOBSET_RESOURCES, "endpointslices.discovery.k8s.io", "nodes")


def fault_timelines(jobset: Mapping[str, Any], *, min_size: int = 0, max_size: int = 5, horizon: float = 60,
                    kinds: Sequence[str] = FAULT_KINDS, nodes: int = 4) -> SearchStrategy[FaultTimeline]:
    """Timelines of up to ``max_size`` faults within ``horizon`` virtual seconds against ``jobset``:
    pod failures (exit codes and reasons), pod completions, node failures (``node_index`` among
    ``nodes``), suspend/resume, JobSet deletion, controller restarts, injected API conflicts,
    delayed watch events, broken watches and late deliveries to the informers (of the JobSet's
    resources, EndpointSlices or Nodes, at their 1st to 20th next event). ``kinds`` picks from
    :data:`FAULT_KINDS`.
    """
    _check_bounds("size", min_size, max_size)
    wanted = list(kinds)
    unknown = [k for k in wanted if k not in FAULT_KINDS]
    if unknown:
        raise UsageError(f"unknown fault kind(s) {unknown}; known: {', '.join(FAULT_KINDS)}")
    if not wanted and min_size > 0:
        raise UsageError("fault_timelines(kinds=[]) cannot draw min_size > 0 faults")
    if horizon <= 0:
        raise UsageError(f"horizon must be > 0 seconds, got {horizon}")
    rjobs = [(r["name"], max(int(r.get("replicas", 1)), 1),
              max(int(((r.get("template") or {}).get("spec") or {}).get("parallelism", 1) or 1), 1))
             for r in (jobset.get("spec") or {}).get("replicatedJobs") or []]
    pod_kinds = {"fail-pod", "complete-pod"}
    if not rjobs:
        wanted = [k for k in wanted if k not in pod_kinds]
    times = st.integers(0, int(horizon * 2)).map(lambda h: h / 2)

    @st.composite
    def pod_target(draw: st.DrawFn) -> tuple[str, int, int]:
        name, replicas, parallelism = draw(st.sampled_from(rjobs))
        return name, draw(st.integers(0, replicas - 1)), draw(st.integers(0, parallelism - 1))

    @st.composite
    def one(draw: st.DrawFn) -> Fault:
        kind = draw(st.sampled_from(wanted))
        at = draw(times)
        if kind == "fail-pod":
            rjob, ji, pi = draw(pod_target())
            code, reason = draw(st.sampled_from([(1, "Error"), (137, "OOMKilled"), (2, "Error"), (143, "Error")]))
            return FailPod(at, rjob, ji, pi, code, reason)
        if kind == "complete-pod":
            rjob, ji, pi = draw(pod_target())
            return CompletePod(at, rjob, ji, pi)
        if kind == "fail-node":
            return FailNode(at, draw(st.integers(0, max(nodes - 1, 0))))
        if kind == "suspend":
            return Suspend(at)
        if kind == "resume":
            return Resume(at)
        if kind == "delete-jobset":
            return DeleteJobSet(at, draw(st.sampled_from([None, "Foreground", "Background"])))
        if kind == "restart-controllers":
            return RestartControllers(at)
        if kind == "conflict":
            verb, resource, sub = draw(st.sampled_from([
                ("update", "jobsets.jobset.x-k8s.io", "status"), ("create", "jobs.batch", None),
                ("update", "jobs.batch", None), ("create", "services", None), ("delete", "jobs.batch", None)]))
            return InjectConflict(at, verb, resource, draw(st.integers(1, 3)), sub)
        if kind == "break-watch":
            return BreakWatch(at, draw(st.sampled_from(_WATCHED_RESOURCES)), draw(st.integers(1, 20)))
        if kind == "delay-delivery":
            return DelayDelivery(at, draw(st.sampled_from(_WATCHED_RESOURCES)), draw(st.integers(1, 20)),
                                 draw(st.sampled_from([0.5, 2.0, 7.0])))
        resource = draw(st.sampled_from(_JOBSET_RESOURCES))
        return DelayWatch(at, "*", resource, draw(st.sampled_from([0.5, 1.0, 5.0])), draw(st.integers(1, 5)))

    if not wanted:
        return st.just(FaultTimeline(()))
    return st.lists(one(), min_size=min_size, max_size=max_size).map(
        lambda fs: FaultTimeline(tuple(sorted(fs, key=lambda f: f.at))))


# =============================================================================== scenarios


@dataclass(frozen=True, slots=True)
class Scenario:
    """A JobSet on a cluster shape with pod scripts and a fault timeline.

    ``run(seed)`` builds a :class:`FakeCluster`, installs the reference controller with
    ``feature_gates``, applies the shape, the scripts and the JobSet, plays the timeline and
    advances to ``horizon`` virtual seconds; ``after_each`` is called after every fault.
    """

    jobset: dict[str, Any]
    shape: ClusterShape
    scripts: PodScripts
    timeline: FaultTimeline
    horizon: float = 120
    feature_gates: dict[str, bool] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.jobset["metadata"]["name"])

    @property
    def namespace(self) -> str:
        return str(self.jobset["metadata"].get("namespace") or "default")

    def start(self, seed: int = 0, *, shuffle_ties: bool = False, armed: Sequence[Fault] = ()) -> FakeCluster:
        """The cluster with everything applied, at t=0 (before any timeline fault). ``armed``
        faults (e.g. :class:`InjectConflict`, :class:`DelayWatch`) are applied just before the
        JobSet, so they can hit its very first writes."""
        from jobset_ref.installation import install  # late: it imports the controller

        cluster = FakeCluster(seed, shuffle_ties=shuffle_ties)
        self.shape.apply(cluster)
        install(cluster, feature_gates=self.feature_gates or None)
        self.scripts.apply(cluster)
        ctx = FaultContext(self.name, self.namespace)
        for fault in armed:
            fault.apply(cluster, ctx)
        cluster.apply(copy.deepcopy(self.jobset))
        return cluster

    def run(self, seed: int = 0, *, shuffle_ties: bool = False,
            after_each: Callable[[FakeCluster, Fault, str], None] | None = None,
            cluster: FakeCluster | None = None, armed: Sequence[Fault] = ()) -> tuple[FakeCluster, list[str]]:
        cluster = cluster if cluster is not None else self.start(seed, shuffle_ties=shuffle_ties, armed=armed)
        hook = None if after_each is None else (lambda f, line: after_each(cluster, f, line))
        log = self.timeline.run(cluster, self.name, namespace=self.namespace, until=self.horizon, after_each=hook)
        return cluster, log


def scenarios(*, jobsets_strategy: SearchStrategy[dict[str, Any]] | None = None,
              shapes: SearchStrategy[ClusterShape] | None = None, fault_kinds: Sequence[str] = FAULT_KINDS,
              max_faults: int = 4, horizon: float = 120, feature_gates: Mapping[str, bool] | None = None,
              forever: Feature = None, exit_codes: SearchStrategy[int] | None = None) -> SearchStrategy[Scenario]:
    """:class:`Scenario` values: a JobSet, a cluster, pod scripts (``forever``/``exit_codes`` as in
    :func:`pod_scripts`) and a fault timeline of up to ``max_faults`` faults of ``fault_kinds``
    within ``horizon``."""
    if jobsets_strategy is not None:
        _check_strategy("jobsets_strategy", jobsets_strategy)
    if shapes is not None:
        _check_strategy("shapes", shapes)
    gates = dict(feature_gates or {})
    js_strategy = jobsets_strategy if jobsets_strategy is not None else jobsets(feature_gates=gates)
    shape_strategy = shapes if shapes is not None else cluster_shapes()

    @st.composite
    def build(draw: st.DrawFn) -> Scenario:
        js = draw(js_strategy)
        shape = draw(shape_strategy)
        scripts = draw(pod_scripts(js, max_duration=max(1.0, horizon / 2), forever=forever, exit_codes=exit_codes))
        timeline = draw(fault_timelines(js, max_size=max_faults, horizon=horizon * 0.75, kinds=fault_kinds,
                                        nodes=len(shape.nodes)))
        return Scenario(js, shape, scripts, timeline, horizon, gates)

    return build()
