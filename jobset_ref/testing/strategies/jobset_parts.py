"""Strategies for the parts of a JobSet spec: DNS-1035 labels, failure-policy rule names, Job
templates, success policies, failure-policy rules and failure policies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from fakekube import UsageError
from jobset_ref.api import constants as c
from jobset_ref.testing.strategies._arguments import _MAX_DNS_LABEL, _check_bounds, _check_strategy

__all__ = [
    "MESSAGE_PATTERNS",
    "dns_labels",
    "failure_policies",
    "failure_policy_rules",
    "job_templates",
    "success_policies",
]

#: Job failure message patterns a rule may carry: some match what the Job controller writes,
#: some never match, one is an invalid RE2 (admitted; the controller logs and skips it).
MESSAGE_PATTERNS: tuple[str, ...] = ("backoff limit", "Job has reached", ".*", "^nomatch$", "deadline", "[")

_LABEL_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789-"


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
