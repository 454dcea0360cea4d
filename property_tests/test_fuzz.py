"""Fuzzing the harness with bad input: mutated objects of every served kind, every patch type,
YAML text, selectors and harness arguments, and the inputs that once crashed ``apply``
(``harness_door``: Lists of non-objects, objects nested thousands of levels deep, namespaces that
are not strings, malformed last-applied annotations on live objects).

The only outcomes allowed are success, an :class:`~fakekube.ApiError` (a Kubernetes ``Status``
with a code Kubernetes uses) and a :class:`~fakekube.UsageError`; a rejected request changes
nothing in the store; and after an accepted write the simulated components keep running (the
cluster advances virtual time) without raising.

The default run is a short profile (a few seconds). The long campaign runs behind the ``fuzz``
marker: ``pytest property_tests/test_fuzz.py -m fuzz -s`` (it prints the counts of outcomes).
"""

from __future__ import annotations

import collections
import copy
import json
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jobset_ref
from fakekube import ApiError, FakeCluster, SimulationError, UsageError

pytestmark = pytest.mark.filterwarnings("ignore")

#: Status codes a rejected request may carry.
KUBERNETES_CODES = frozenset({400, 403, 404, 405, 409, 410, 413, 415, 422, 429, 500})

CONTAINER = {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100m"}}}
POD_SPEC = {"containers": [CONTAINER], "restartPolicy": "Never"}
JOB_SPEC = {"parallelism": 2, "completions": 2, "completionMode": "Indexed",
            "template": {"metadata": {"labels": {"app": "x"}}, "spec": POD_SPEC}}

#: A valid object of every served kind the campaign mutates.
SEEDS: dict[str, dict[str, Any]] = {
    "Pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"app": "x"}},
            "spec": {**POD_SPEC, "containers": [{**CONTAINER, "ports": [{"containerPort": 80}],
                                                  "env": [{"name": "A", "value": "1"}]}]}},
    "Job": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": JOB_SPEC},
    "Service": {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                "spec": {"selector": {"app": "x"}, "ports": [{"port": 80, "targetPort": 8080}]}},
    "Node": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {"zone": "a"}},
             "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
             "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
    "ConfigMap": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "b"}},
    "Namespace": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}},
    "ServiceAccount": {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}},
    "PersistentVolumeClaim": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "pvc"},
                              "spec": {"accessModes": ["ReadWriteOnce"],
                                       "resources": {"requests": {"storage": "1Gi"}}}},
    "Event": {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"},
              "involvedObject": {"kind": "Pod", "name": "p"}, "reason": "R", "message": "m"},
    "EndpointSlice": {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "es"},
                      "addressType": "IPv4", "endpoints": [{"addresses": ["10.0.0.1"]}]},
    "JobSet": {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
               "spec": {"replicatedJobs": [{"name": "w", "replicas": 2, "template": {"spec": JOB_SPEC}}],
                        "failurePolicy": {"maxRestarts": 1}}},
}

#: Plural resource names the harness verbs take, per kind.
RESOURCES = {"Pod": "pods", "Job": "jobs", "Service": "services", "Node": "nodes", "ConfigMap": "configmaps",
             "Namespace": "namespaces", "ServiceAccount": "serviceaccounts",
             "PersistentVolumeClaim": "persistentvolumeclaims", "Event": "events",
             "EndpointSlice": "endpointslices", "JobSet": "jobsets"}

OUTCOMES: collections.Counter[str] = collections.Counter()


# ----------------------------------------------------------------------------- strategies
scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-3, max_value=3), st.sampled_from([2**31, -(2**31) - 1, 2**63, 10**30, 1000000]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1.5, 1e3, -0.0]),
    st.text(max_size=8), st.sampled_from(["", "a", "A_B", "-1", "1e3", "x" * 300, "2020-01-01", "None",
                                          "Indexed", "NonIndexed", "Never", "Always", "NoSchedule"]),
)
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)), max_leaves=8)
#: What a Python caller may pass that is not JSON at all.
non_json = st.sampled_from([float("nan"), float("inf"), b"bytes", (1, 2), {1, 2}, object(), 1j])


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*prefix, i))


def _set(obj: Any, path: tuple[Any, ...], value: Any, *, delete: bool = False) -> Any:
    if not path:
        return value
    parent = obj
    for step in path[:-1]:
        parent = parent[step]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return obj


@st.composite
def mutated(draw: st.DrawFn, kind: str | None = None) -> dict[str, Any]:
    """A valid seed object with one to three of its values replaced, removed or wrapped."""
    obj = copy.deepcopy(SEEDS[kind or draw(st.sampled_from(sorted(SEEDS)))])
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(obj))
        path = draw(st.sampled_from(paths[1:] or paths))
        how = draw(st.sampled_from(["replace", "replace", "delete", "null-list", "wrap", "non-json"]))
        if how == "delete" and path:
            obj = _set(obj, path, None, delete=True)
        elif how == "null-list":
            obj = _set(obj, path, [None])
        elif how == "wrap":
            obj = _set(obj, path, [draw(json_values)])
        elif how == "non-json":
            obj = _set(obj, path, draw(non_json))
        else:
            obj = _set(obj, path, draw(json_values))
        if not isinstance(obj, dict):
            return {"value": obj}
    return obj


def _yaml_text(obj: Any) -> str:
    import yaml

    return yaml.safe_dump(obj, default_flow_style=False) if _is_json(obj) else "a: b\n"


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


YAML_SNIPPETS = [
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 2020-01-01\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: true\n",
    "apiVersion: v1\nkind: 1\nmetadata:\n  name: x\n",
    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  parallelism: 1e3\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n\ndata:\n  a: .nan\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n\ndata:\n  a: -.inf\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n\n  name: m\n",
    "a: &a [1, 2]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nd: [*c, *c, *c, *c]\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {1: 2}\n",
    "- a\n- b\n", "}{", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x]\n", "",
    "--- !!python/object:os.system\n", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\nbinaryData:\n  a: !!binary aGk=\n",
]


@st.composite
def yaml_texts(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return draw(st.sampled_from(YAML_SNIPPETS))
    text = _yaml_text(draw(mutated()))
    if draw(st.booleans()) and text:
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from(["", ":", "- ", "{", "\t", "&x", "*y", "? ", "!!"])) + text[cut:]
    return text


selectors = st.one_of(
    st.text(alphabet="abc=!,() in notin<>-_.x/!0123456789", max_size=30),
    st.sampled_from(["a in (b", "a notin ()", "!a,b", "a==b", "a=b,c!=d", "a>1", "metadata.name=x",
                     "spec.nodeName=", "status.phase!=Running", "a=" + "x" * 70, "a in (" + ",".join("v" * 3) + ")"]),
    st.integers(), st.none(), st.lists(st.text(max_size=3), max_size=2),
)

PATCH_TYPES = ["merge", "json", "strategic", "apply", "application/merge-patch+json",
               "application/json-patch+json", "application/strategic-merge-patch+json",
               "application/apply-patch+yaml", "bogus", 5, None]

json_patches = st.lists(st.fixed_dictionaries(
    {"op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "bogus"]),
     "path": st.sampled_from(["/spec", "/metadata/labels/a", "/spec/containers/0/ports", "/spec/replicas",
                              "/metadata/name", "/status", "/", "", "/spec/template/spec/containers/-",
                              "/metadata/resourceVersion", "/spec/replicatedJobs/0/replicas"])},
    optional={"value": json_values, "from": st.sampled_from(["/spec", "/metadata", "/x"])}), max_size=3)


LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


@st.composite
def deeply_nested(draw: st.DrawFn) -> Any:
    """A dict or list nested thousands of levels deep (built without recursion)."""
    value: Any = draw(st.sampled_from([None, 1, "x", {}, []]))
    as_list = draw(st.booleans())
    for _ in range(draw(st.integers(1_000, 5_000))):
        value = [value] if as_list else {"a": value}
    return value


@st.composite
def harness_door(draw: st.DrawFn) -> tuple[str, Any]:
    """The inputs fuzzing found crashing ``apply`` (issue 25): a List whose items are not objects,
    an object nested thousands of levels deep, a namespace that is not a string, a live object whose
    last-applied annotation is malformed."""
    kind = draw(st.sampled_from(sorted(SEEDS)))
    what = draw(st.sampled_from(["list", "deep", "namespace", "last-applied"]))
    if what == "list":
        items = draw(st.lists(st.one_of(json_values, mutated(kind)), min_size=1, max_size=3))
        doc = {"apiVersion": "v1", "kind": draw(st.sampled_from(["List", f"{kind}List"])), "items": items}
        return ("apply-yaml", _yaml_text(doc)) if draw(st.booleans()) else ("apply-dict", doc)
    obj = copy.deepcopy(SEEDS[kind])
    if what == "deep":
        paths = [p for p in _paths(obj) if p]
        where = draw(st.sampled_from([("kind",), ("apiVersion",), *paths]))
        return "apply-dict", _set(obj, where, draw(deeply_nested()))
    if what == "namespace":
        obj["metadata"]["namespace"] = draw(st.one_of(json_values, st.lists(st.text(max_size=3), min_size=1)))
        return ("apply-live", (kind, None, obj)) if draw(st.booleans()) else ("apply-dict", obj)
    annotation = draw(st.one_of(st.text(max_size=8), st.sampled_from(["{", "[1]", "5", '"x"', "null", "", "{}"]),
                                st.builds(json.dumps, json_values)))
    return "apply-live", (kind, annotation, draw(mutated(kind)))


@st.composite
def operations(draw: st.DrawFn) -> tuple[str, Any]:
    kind = draw(st.sampled_from(sorted(SEEDS)))
    op = draw(st.sampled_from(["create", "create", "update", "patch", "patch", "apply-yaml", "apply-dict",
                               "list", "watch", "delete", "args", "status", "door"]))
    if op == "door":
        return draw(harness_door())
    if op == "create":
        return op, (kind, draw(mutated(kind)))
    if op == "update":
        return op, (kind, draw(mutated(kind)))
    if op == "status":
        return op, (kind, draw(mutated(kind)))
    if op == "patch":
        patch_type = draw(st.sampled_from(PATCH_TYPES))
        body = draw(st.one_of(json_patches, mutated(kind), json_values, yaml_texts(),
                              st.builds(json.dumps, json_patches)))
        return op, (kind, patch_type, body, draw(st.sampled_from([None, "status", "scale", "bogus"])))
    if op == "apply-yaml":
        return op, draw(yaml_texts())
    if op == "apply-dict":
        return op, draw(mutated(kind))
    if op in ("list", "watch"):
        return op, (kind, draw(selectors), draw(selectors))
    if op == "delete":
        return op, (kind, draw(st.one_of(st.sampled_from(["p", "j", "js", "s", "n", "cm"]), json_values)),
                    draw(st.sampled_from([None, "Orphan", "Background", "Foreground", "bogus", 5])),
                    draw(st.one_of(st.none(), st.integers(-1, 30), st.floats(), st.text(max_size=2))))
    return op, draw(harness_calls())


@st.composite
def harness_calls(draw: st.DrawFn) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """A harness method with arguments of the wrong type."""
    name = draw(st.sampled_from(["get", "list", "patch", "delete", "advance", "advance_to", "run_until",
                                 "add_node", "add_nodes", "fail_pod", "exists", "events", "watch"]))
    bad = st.one_of(json_values, non_json, st.sampled_from([b"p", 5, None, -1, math.inf, ["p"]]))
    if name == "get":
        return name, (draw(st.sampled_from(["Pod", "pods", "bogus", 5, None])), draw(bad)), {}
    if name == "list":
        return name, (draw(st.sampled_from(["Pod", "jobs", 5])),), {"label_selector": draw(bad)}
    if name == "patch":
        return name, ("Pod", "p", {"metadata": {"labels": {"a": "b"}}}), {"patch_type": draw(bad)}
    if name == "delete":
        return name, ("Pod", draw(bad)), {"propagation_policy": draw(bad)}
    if name in ("advance", "advance_to"):
        return name, (draw(st.one_of(bad, st.floats(-1, 100))),), {}
    if name == "run_until":
        return name, (draw(st.sampled_from([lambda: True, lambda: False, None, 5])),), {"timeout": draw(bad)}
    if name == "add_node":
        return name, (draw(bad),), {"capacity": draw(st.one_of(st.none(), bad))}
    if name == "add_nodes":
        return name, (draw(st.one_of(bad, st.integers(-2, 3))),), {"labels": draw(st.one_of(st.none(), bad))}
    if name == "fail_pod":
        return name, (draw(bad),), {"exit_code": draw(bad)}
    if name == "exists":
        return name, ("Pod", draw(bad)), {}
    if name == "events":
        return name, (draw(st.one_of(st.none(), bad)),), {"reason": draw(bad)}
    return name, (draw(st.sampled_from(["Pod", 5, None])),), {"label_selector": draw(bad)}


# ----------------------------------------------------------------------------- the run
def _snapshot(cluster: FakeCluster) -> tuple[int, list[tuple[str, list[dict[str, Any]]]]]:
    store = cluster.api.store
    return store.rv, [(r, copy.deepcopy(store.list(r))) for r in store.resources()]


def _existing(cluster: FakeCluster, kind: str, name: str) -> dict[str, Any]:
    return cluster.get(kind, name, "default")


def _perform(cluster: FakeCluster, op: str, args: Any) -> Any:
    if op == "create":
        kind, body = args
        return cluster.create(body)
    if op in ("update", "status"):
        kind, body = args
        seed = SEEDS[kind]
        try:
            cluster.create(copy.deepcopy(seed))
        except ApiError:
            pass
        live = _existing(cluster, kind, seed["metadata"]["name"])
        if isinstance(body, dict):
            meta = body.get("metadata")
            if isinstance(meta, dict) and "resourceVersion" not in meta:
                meta["resourceVersion"] = live["metadata"]["resourceVersion"]
        return cluster.update(body) if op == "update" else cluster.update_status(body)
    if op == "patch":
        kind, patch_type, body, sub = args
        seed = SEEDS[kind]
        try:
            cluster.create(copy.deepcopy(seed))
        except ApiError:
            pass
        return cluster.patch(kind, seed["metadata"]["name"], body, patch_type=patch_type, subresource=sub)
    if op in ("apply-yaml", "apply-dict"):
        return cluster.apply(args)
    if op == "apply-live":
        return cluster.apply(args[2])
    if op == "list":
        kind, label_selector, field_selector = args
        return cluster.list(kind, label_selector=label_selector, field_selector=field_selector)
    if op == "watch":
        kind, label_selector, field_selector = args
        stream = cluster.watch(kind, label_selector=label_selector, field_selector=field_selector)
        stream.stop()
        return stream
    if op == "delete":
        kind, name, policy, grace = args
        return cluster.delete(kind, name, propagation_policy=policy, grace_period_seconds=grace)
    name, positional, keywords = args
    method: Callable[..., Any] = getattr(cluster, name)
    return method(*positional, **keywords)


def _prepare(cluster: FakeCluster, op: str, args: Any) -> None:
    """What an ``apply-live`` finds: its kind's seed object, with the given last-applied annotation."""
    if op != "apply-live":
        return
    kind, annotation, _ = args
    live = copy.deepcopy(SEEDS[kind])
    if annotation is not None:
        live["metadata"]["annotations"] = {LAST_APPLIED: annotation}
    try:
        cluster.create(live)
    except ApiError:
        pass


def _atomic(op: str, args: Any) -> bool:
    """Whether a rejected call must leave the store as it was. Not update, status, patch and args,
    which create their target first; nor an apply of several objects (a List's items, several YAML
    documents): kubectl applies them one request each, so those before the rejected one stay."""
    if op in ("update", "status", "patch", "args"):
        return False
    if op.startswith("apply"):
        try:
            docs = list(yaml.safe_load_all(args)) if isinstance(args, str) else [args]
        except yaml.YAMLError:
            return True  # refused before anything is applied
        count = sum(len(d["items"]) if isinstance(d, dict) and isinstance(d.get("items"), list) else 1
                    for d in docs if d is not None)
        return count <= 1
    return True


def _outcome(cluster: FakeCluster, op: str, args: Any) -> str:
    _prepare(cluster, op, args)
    before = _snapshot(cluster)
    try:
        _perform(cluster, op, args)
    except ApiError as err:
        assert err.code in KUBERNETES_CODES, err.status
        assert isinstance(err.message, str) and err.message, err.status
        json.dumps(err.status, allow_nan=False)  # a Status is always serialisable
        if _atomic(op, args):
            assert _snapshot(cluster) == before, f"a rejected {op} changed the store"
        return f"{op}:{err.code}"
    except SimulationError as err:  # run_until's predicate never held, or a JobSet past the simulation's budget
        assert (op == "args" and args[0] == "run_until") or "budget" in str(err), err
        return f"{op}:SimulationError"
    except UsageError as err:
        assert str(err)
        if _atomic(op, args):
            assert _snapshot(cluster) == before, f"a rejected {op} changed the store"
        return f"{op}:UsageError"
    cluster.advance(5)  # no component may be crashed by what was accepted
    return f"{op}:ok"


def _cluster() -> FakeCluster:
    cluster = FakeCluster(seed=0)
    jobset_ref.install(cluster)
    cluster.add_nodes(2)
    return cluster


def _run(ops: list[tuple[str, Any]]) -> None:
    cluster = _cluster()
    for op, args in ops:
        OUTCOMES[_outcome(cluster, op, args)] += 1


SHORT = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
LONG = settings(max_examples=2500, deadline=None, suppress_health_check=list(HealthCheck), database=None)


@SHORT
@given(st.lists(operations(), min_size=1, max_size=4))
def test_bad_input_gets_an_api_error_or_a_usage_error_short(ops: list[tuple[str, Any]]) -> None:
    _run(ops)


@pytest.mark.fuzz
@LONG
@given(st.lists(operations(), min_size=1, max_size=6))
def test_bad_input_gets_an_api_error_or_a_usage_error_long(ops: list[tuple[str, Any]]) -> None:
    _run(ops)


@pytest.mark.fuzz
@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.lists(harness_door(), min_size=1, max_size=4))
def test_the_inputs_that_crashed_apply_get_an_api_error_or_a_usage_error(ops: list[tuple[str, Any]]) -> None:
    _run(ops)


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    if OUTCOMES:
        total = sum(OUTCOMES.values())
        print(f"\nfuzz: {total} inputs; " + ", ".join(f"{k}={v}" for k, v in sorted(OUTCOMES.items())))


def test_a_list_applies_its_items_one_by_one_as_kubectl_does() -> None:
    """Found by the fuzzer: a List whose second item is refused keeps its first (one request each)."""
    cluster = _cluster()
    items = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}},
             {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": []}}]
    with pytest.raises(ApiError) as err:
        cluster.apply({"apiVersion": "v1", "kind": "List", "items": items})
    assert err.value.code == 400
    assert cluster.get("configmaps", "cm")["metadata"]["name"] == "cm"
    assert not _atomic("apply-dict", {"apiVersion": "v1", "kind": "List", "items": items})
    assert _atomic("apply-dict", items[0])
