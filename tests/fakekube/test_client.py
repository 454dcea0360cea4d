"""The two clients: the public ``Client`` copies every object it passes or returns; the
simulators' ``SharedClient`` hands out the server's frozen objects and keeps the bodies it is given."""

from __future__ import annotations

import inspect

import pytest

from fakekube import Client, FakeCluster
from fakekube.runtime._shared_client import SharedClient
from fakekube.testing.builders import make_pod

VERBS = ("get", "list", "list_object", "watch", "create", "update", "update_status", "patch", "delete")


@pytest.mark.parametrize("verb", VERBS)
def test_the_public_client_has_no_copy_switches(verb: str) -> None:
    params = set(inspect.signature(getattr(Client, verb)).parameters)
    assert not params & {"copy", "copy_result", "fresh_body"}, params


def test_the_public_client_copies_what_goes_in_and_what_comes_out() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    client = cluster.runtime.client("test")
    body = make_pod("a", labels={"team": "red"})
    created = client.create(body)
    body["metadata"]["labels"]["team"] = "blue"  # the caller keeps its body
    created["metadata"]["labels"]["team"] = "green"  # and owns the result
    got = client.get("pods", "a")
    assert got["metadata"]["labels"] == {"team": "red"}
    got["spec"]["containers"].clear()
    assert client.get("pods", "a")["spec"]["containers"]
    assert client.list("pods")[0] is not client.list("pods")[0]
    events: list[dict] = []
    client.watch("pods", lambda e: events.append(e.object))
    cluster.run_until_idle()
    assert events[0] is not cluster.api.store.get("pods", "default", "a")


def test_the_shared_client_returns_the_stored_objects_and_keeps_its_bodies() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    shared = cluster.runtime.shared_client("test")
    assert isinstance(shared, SharedClient) and not isinstance(shared, Client)
    body = make_pod("a")
    created = shared.create(body)
    stored = cluster.api.store.get("pods", "default", "a")
    assert created is stored and body is stored
    assert shared.get("pods", "a") is stored and shared.list("pods")[0] is stored
    events: list[dict] = []
    shared.watch("pods", lambda e: events.append(e.object))
    cluster.run_until_idle()
    assert events == [stored] and events[0] is stored


def test_informers_and_event_recorders_read_and_write_through_the_shared_client() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    assert isinstance(cluster.runtime.informer("pods").client, SharedClient)
    assert isinstance(cluster.runtime.recorder("ctl").client, SharedClient)
    assert type(cluster.runtime.client("ctl")) is Client
