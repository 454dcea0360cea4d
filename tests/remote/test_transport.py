"""fakekube.remote against a served FakeCluster: discovery, verbs, Status errors, watches and the
server's clock as read from ``Date`` headers."""

from __future__ import annotations

import threading
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import Any

import pytest

from fakekube import AlreadyExists, FakeCluster, Invalid, NotFound, UsageError
from fakekube._core.served_time import WAKE_HEADER
from fakekube.clock import EPOCH, SECOND
from fakekube.remote import RemoteSession, load_kubeconfig
from fakekube.remote.transport import ServerClock
from fakekube.testing import make_pod


@pytest.fixture
def served() -> Any:
    cluster = FakeCluster(seed=0, simulate=False)
    with cluster.serve(clock="manual") as server:
        yield cluster, server


def _date(server: Any) -> Any:
    conn = server.connect(timeout=5)
    conn.request("GET", "/api/v1/namespaces/default")
    response = conn.getresponse()
    response.read()
    conn.close()
    return parsedate_to_datetime(response.getheader("Date"))


def test_served_date_header_is_the_virtual_clock(served: Any) -> None:
    cluster, server = served
    assert _date(server) == EPOCH
    with cluster.lock:
        cluster.advance(90.7)
    assert (_date(server) - EPOCH).total_seconds() == 90  # whole seconds, as RFC 7231 writes them


def test_session_starts_at_the_server_time_and_follows_it(served: Any) -> None:
    cluster, server = served
    with cluster.lock:
        cluster.advance(3600)
    session = RemoteSession(server.kubeconfig)
    assert 3600 * SECOND <= session.loop.now < 3602 * SECOND
    with cluster.lock:
        cluster.advance(600)
    session.api.get("namespaces", "default")
    session.step(0)
    assert 4200 * SECOND <= session.loop.now < 4202 * SECOND


def test_verbs_and_errors_cross_as_in_process(served: Any) -> None:
    cluster, server = served
    session = RemoteSession(server.kubeconfig)
    client = session.runtime.client("tester")
    created = client.create(make_pod("p"))
    assert created["metadata"]["resourceVersion"]
    with pytest.raises(AlreadyExists):
        client.create(make_pod("p"))
    with pytest.raises(NotFound) as missing:
        client.get("pods", "nope")
    assert missing.value.status["message"] == 'pods "nope" not found'
    with pytest.raises(Invalid):
        client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "Bad_Name"}, "spec": {
            "containers": [{"name": "c", "image": "i"}]}})
    patched = client.patch("pods", "p", {"metadata": {"labels": {"a": "b"}}})
    assert patched["metadata"]["labels"] == {"a": "b"}
    assert [p["metadata"]["name"] for p in client.list("po", "default", label_selector="a=b")] == ["p"]
    client.delete("pods", "p", grace_period_seconds=0)
    with cluster.lock:
        assert cluster.api.store.get("pods", "default", "p") is None


def test_informer_lists_then_watches_and_relists_after_a_broken_stream(served: Any) -> None:
    cluster, server = served
    with cluster.lock:
        cluster.client.create(make_pod("a"))
    session = RemoteSession(server.kubeconfig)
    seen: list[tuple[str, str]] = []
    with session.lock:
        informer = session.runtime.informer("pods")
        informer.add_handler(lambda kind, obj, old: seen.append((kind, obj["metadata"]["name"])))

    def pump(until: Any) -> None:
        for _ in range(200):
            session.step(0.02)
            if until():
                return
        raise AssertionError(f"never held; saw {seen}")

    pump(lambda: ("ADDED", "a") in seen)
    with cluster.lock:
        cluster.client.create(make_pod("b"))
        cluster.client.delete("pods", "a", grace_period_seconds=0)
        cluster.run_until_idle()  # the manual clock: watch events leave as the test runs the loop
    pump(lambda: ("DELETED", "a") in seen)
    assert sorted(informer.cache) == [("default", "b")]
    # Break every open stream: the reflector relists and hands on only the difference.
    with cluster.lock:
        cluster.client.create(make_pod("c"))
        cluster.run_until_idle()
    server._httpd.close_connections()
    pump(lambda: ("default", "c") in informer.cache)
    assert sorted(informer.cache) == [("default", "b"), ("default", "c")]
    session.stop()


def test_kubeconfig_errors_are_usage_errors(tmp_path: Any) -> None:
    with pytest.raises(UsageError, match="cannot read the kubeconfig"):
        load_kubeconfig(tmp_path / "missing")
    bad = tmp_path / "config"
    bad.write_text("apiVersion: v1\nclusters: []\ncontexts: []\n")
    with pytest.raises(UsageError, match="no current-context"):
        load_kubeconfig(bad)


def test_kubeconfig_bearer_token_is_sent(tmp_path: Any) -> None:
    cfg = tmp_path / "config"
    cfg.write_text("""
apiVersion: v1
clusters: [{name: c, cluster: {server: "https://example.invalid:6443", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: s3cret}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: team}}]
current-context: x
""")
    conn = load_kubeconfig(cfg)
    assert (conn.server, conn.token, conn.insecure, conn.namespace) == (
        "https://example.invalid:6443", "s3cret", True, "team")


def test_a_remote_timer_falls_due_at_its_instant_on_the_served_quiescent_clock() -> None:
    """The session announces its next timer: the served clock stops there, so the timer fires at its
    own virtual instant, not at the cluster's next event far beyond it."""
    cluster = FakeCluster(seed=0)
    cluster.add_nodes(1)
    with cluster.serve(clock="quiescent", quiet_ms=20) as server:
        session = RemoteSession(server.kubeconfig)
        fired: list[tuple[int, int]] = []
        with session.lock:
            start = session.loop.now
            session.loop.call_at(start + 7_500_000_000, lambda: fired.append((session.loop.now, cluster.loop.now)))
        driver = threading.Thread(target=session.run, daemon=True)
        driver.start()
        try:
            server.wait_for(lambda: "GET /version" in server.requests, timeout=20)  # its first announcement
            with cluster.lock:
                cluster.client.create(make_pod("long"))  # the kubelet's events reach well past 7.5 s
            server.wait_for(lambda: fired, timeout=20)
        finally:
            session.stop()
            driver.join(timeout=10)
        assert start == 0  # the served clock stood still: the session's clock did too
        assert fired == [(7_500_000_000, 7_500_000_000)]


def test_the_remote_clock_reads_the_microsecond_header_and_the_rate() -> None:
    held = ServerClock()  # a manual or quiescent served clock: no time passes between two answers
    held.observe("Tue, 01 Jan 2030 00:01:01 GMT", "2030-01-01T00:01:01.250000Z", "0")
    threading.Event().wait(0.02)
    assert held.now() == 61_250_000_000
    held.observe("Tue, 01 Jan 2030 00:01:00 GMT", "2030-01-01T00:01:00.000000Z", "0")  # a late answer
    assert held.now() == 61_250_000_000  # never backwards
    real = ServerClock()  # a real API server: Date only, the wall clock in between
    real.observe("Tue, 01 Jan 2030 00:01:01 GMT")
    threading.Event().wait(0.02)
    assert 61_020_000_000 <= real.now() < 62 * SECOND


def _timed_session(server: Any) -> tuple[RemoteSession, list[int]]:
    """A session watching ConfigMaps, with one timer 7.5 s ahead; the list gets its instant when it fires."""
    session = RemoteSession(server.kubeconfig)
    fired: list[int] = []
    with session.lock:
        session.runtime.informer("configmaps")
        session.loop.call_at(session.loop.now + 7_500_000_000, lambda: fired.append(session.loop.now))
    return session, fired


def _drive_holding_the_clock(server: Any, session: RemoteSession, fired: list[int],
                             while_held: Callable[[], None]) -> None:
    """Drive ``session``; the served clock stays short of its timer while ``while_held`` runs, then the
    timer must fire at its own instant (not hang for a hold that never ends)."""
    driver = threading.Thread(target=session.run, daemon=True)
    server.clock.request_started()  # a request in flight: the quiescent clock cannot move
    driver.start()
    try:
        try:
            server.wait_for(lambda: "GET /version" in server.requests, timeout=20)  # its first announcement
            while_held()
        finally:
            server.clock.request_finished()
        server.wait_for(lambda: fired, timeout=20)
    finally:
        session.stop()
        driver.join(timeout=10)
    assert fired == [7_500_000_000]


def test_a_bookmark_on_an_idle_watch_does_not_hold_the_quiescent_clock_for_ever(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every chunk written to a session's watch holds the served clock until the session announces
    again; a BOOKMARK is such a chunk. The session must step on it and announce its timer, or the
    clock holds at the bookmark's instant while the session waits for a timer that never comes."""
    import fakekube.http.requests as served_requests

    monkeypatch.setattr(served_requests, "BOOKMARK_INTERVAL", 0.2)  # a bookmark on every idle stream, often
    cluster = FakeCluster(seed=0)
    with cluster.serve(clock="quiescent", quiet_ms=20) as server:
        session, fired = _timed_session(server)
        written: list[str | None] = []  # chunks written to the session's watch: bookmarks only, nothing changes
        delivered = server.clock.delivered

        def record(client: str | None = None) -> None:
            written.append(client)
            delivered(client)

        server.clock.delivered = record  # type: ignore[method-assign]
        _drive_holding_the_clock(server, session, fired, lambda: server.wait_for(lambda: written, timeout=20))


def test_an_announcement_the_server_never_heard_is_made_again() -> None:
    """A session whose announcement fails (a reset connection under load) must not believe it was
    heard: the clock would hold for it for ever at the instant of the event it had handled."""
    cluster = FakeCluster(seed=0)
    with cluster.serve(clock="quiescent", quiet_ms=20) as server:
        session, fired = _timed_session(server)
        request = session.transport.request
        lost: list[str] = []

        def flaky(method: str, path: str, **kwargs: Any) -> Any:
            wake = (kwargs.get("headers") or {}).get(WAKE_HEADER)
            if wake not in (None, "now") and cluster.exists("ConfigMap", "nudge") and not lost:
                lost.append(wake)
                raise ConnectionResetError("connection reset by peer")
            return request(method, path, **kwargs)

        def nudge() -> None:
            with cluster.lock:
                cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "nudge"}})
                cluster.run_until_idle()  # its watch event leaves while the clock is held
            server.wait_for(lambda: lost, timeout=20)

        session.transport.request = flaky  # type: ignore[method-assign]
        _drive_holding_the_clock(server, session, fired, nudge)
