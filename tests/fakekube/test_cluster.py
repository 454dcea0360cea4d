"""fakekube.cluster: the harness API (its conventions, virtual time in and out, fault injection)."""

from __future__ import annotations

import inspect

import pytest

from fakekube import FakeCluster

#: The positional parameters of each harness verb: what names the object (kind, name, namespace)
#: or the one thing the verb acts on. Everything else is an option, keyword-only.
POSITIONAL = {
    "__init__": ["seed"],
    "add_node": ["name"],
    "add_nodes": ["count"],
    "apply": ["obj_or_yaml"],
    "create": ["obj"],
    "get": ["kind", "name", "namespace"],
    "exists": ["kind", "name", "namespace"],
    "list": ["kind", "namespace"],
    "watch": ["kind", "namespace"],
    "patch": ["kind", "name", "patch", "namespace"],
    "delete": ["kind", "name", "namespace"],
    "events": ["involved"],
    "fail_pod": ["name", "namespace"],
    "complete_pod": ["name", "namespace"],
    "delete_pod": ["name", "namespace"],
    "evict_pod": ["name", "namespace"],
    "script_pods": ["label_selector"],
    "run_until": ["predicate"],
    "inject": ["reactor"],
}


@pytest.mark.parametrize("method", sorted(POSITIONAL))
def test_options_are_keyword_only(method: str) -> None:
    params = list(inspect.signature(getattr(FakeCluster, method)).parameters.values())[1:]
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert positional == POSITIONAL[method]


def test_an_option_passed_by_position_is_refused() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    with pytest.raises(TypeError):
        cluster.add_node("n0", {"zone": "a"})  # type: ignore[misc]
    cluster.add_node("n0", labels={"zone": "a"})
    assert cluster.get("nodes", "n0", None)["metadata"]["labels"]["zone"] == "a"  # type: ignore[arg-type]
