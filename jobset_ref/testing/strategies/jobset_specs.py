"""Strategies for whole valid JobSet manifests: :func:`jobsets` (every spec feature, valid by
construction) and :func:`from_manifest` (variations of a given manifest the webhooks still
admit); :func:`admitted` is the webhook check both keep to."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from fakekube import UsageError
from jobset_ref.api import constants as c
from jobset_ref.api.defaulting import apply_schema_defaults, default_jobset
from jobset_ref.api.validation import validate_create
from jobset_ref.testing.strategies._arguments import (
    _MAX_DNS_LABEL,
    DEFAULT_TOPOLOGY_KEYS,
    Feature,
    _check_bounds,
    _check_feature,
    _check_strategy,
    _digits,
    _want,
)
from jobset_ref.testing.strategies.jobset_parts import (
    _BACKOFF_LIMITS,
    _RESTART_POLICIES,
    _job_template,
    dns_labels,
    failure_policies,
    success_policies,
)

__all__ = ["EXTERNAL_MANAGER", "admitted", "from_manifest", "jobsets"]

EXTERNAL_MANAGER = "kueue.x-k8s.io/multikueue"
_POD_SUFFIX = 6  # "-abcde"


def admitted(manifest: Mapping[str, Any], *, feature_gates: Mapping[str, bool] | None = None) -> list[str]:
    """Webhook errors of ``manifest`` after CRD + webhook defaulting (``[]`` = admitted)."""
    stored = apply_schema_defaults(default_jobset(apply_schema_defaults(dict(manifest))))
    return [str(e) for e in validate_create(stored, feature_gates=feature_gates)]


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
            raise AssertionError("jobsets() drew a JobSet the webhook rejects (a bug in jobset_ref.testing.strategies):\n  "
                                 + "\n  ".join(errors) + "\n" + json.dumps(manifest, indent=1))
        if defaulted:
            return apply_schema_defaults(default_jobset(apply_schema_defaults(manifest)))
        return manifest

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

                def set_replicas(j: dict[str, Any], i: int = i, r: int = r) -> None:
                    j["spec"]["replicatedJobs"][i]["replicas"] = r
                attempt(set_replicas)
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
