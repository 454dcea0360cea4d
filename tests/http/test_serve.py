"""The HTTP front end, driven with raw HTTP/1.1 (``http.client``): exact codes, Status bodies, paging,
watch framing, bounds, clocks and shutdown. The real clients have their own test files."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import ssl
import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import jobset_ref
from fakekube import FakeCluster
from fakekube.http.server import ClusterServer


@pytest.fixture
def cluster() -> FakeCluster:
    c = FakeCluster(seed=1)
    jobset_ref.install(c)
    c.add_nodes(2)
    return c


@pytest.fixture
def server(cluster: FakeCluster) -> Iterator[ClusterServer]:
    with cluster.serve() as s:
        yield s


class Http:
    """One keep-alive connection, JSON in and out."""

    def __init__(self, server: ClusterServer) -> None:
        self.conn = server.connect(timeout=10)

    def __call__(self, method: str, path: str, body: Any = None, *, content_type: str | None = "application/json",
                 headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
        raw = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else None)
        hdrs = dict(headers or {})
        if raw is not None and content_type is not None:
            hdrs["Content-Type"] = content_type
        self.conn.request(method, path, body=raw, headers=hdrs)
        resp = self.conn.getresponse()
        data = resp.read()
        ctype = resp.getheader("Content-Type") or ""
        parsed = json.loads(data) if ctype.startswith("application/json") and data else data.decode()
        if resp.getheader("Connection") == "close":
            self.conn.close()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, parsed


@pytest.fixture
def req(server: ClusterServer) -> Http:
    return Http(server)


CM = "/api/v1/namespaces/default/configmaps"


def configmap(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}, "data": {"k": "v"}}


# ---------------------------------------------------------------------- the server object
def test_url_kubeconfig_and_free_ports(cluster: FakeCluster) -> None:
    other = FakeCluster(seed=2)
    with cluster.serve() as a, other.serve() as b:
        assert a.url == f"https://127.0.0.1:{a.port}" and a.port != b.port and a.port > 0
        config = json.loads(Path(a.kubeconfig).read_text())
        assert config["current-context"] == "fakekube"
        ca_pem = Path(str(a.ca_file)).read_bytes()
        assert ca_pem.startswith(b"-----BEGIN CERTIFICATE-----") and ca_pem != Path(str(b.ca_file)).read_bytes()
        assert config["clusters"] == [{"name": "fakekube", "cluster": {
            "server": a.url, "certificate-authority-data": base64.b64encode(ca_pem).decode()}}]
        assert config["contexts"] == [{"name": "fakekube", "context": {"cluster": "fakekube", "user": "fakekube",
                                                                       "namespace": "default"}}]
        assert config["users"] == [{"name": "fakekube", "user": {"token": a.token}}]
        assert a.token != b.token and len(a.token) >= 32
        assert a.cluster is cluster
        path, ca_file = Path(a.kubeconfig), Path(str(a.ca_file))
    assert not path.exists() and not ca_file.exists()


def test_a_client_that_resets_its_tls_connection_is_no_server_error(cluster: FakeCluster) -> None:
    """A TLS 1.3 client checks the server's certificate after the server has finished its side of
    the handshake, so a client that distrusts it (or just dies) resets a connection the server is
    already reading from. That is the client leaving, as Go's server treats it, not an error."""
    with cluster.serve() as s:
        raw = socket.create_connection((s.host, s.port), timeout=10)
        assert s.ssl_context is not None
        tls = s.ssl_context.wrap_socket(raw, server_hostname=s.host)
        tls.sendall(f"GET /version HTTP/1.1\r\nHost: {s.host}\r\n\r\n".encode())
        assert tls.recv(64).startswith(b"HTTP/1.1 200")  # so the server now waits for the next request
        tls.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with RST
        tls.close()
        for _ in range(1000):  # real threads: wait (at most 10 wall seconds) for the handler to see the reset
            if not s._httpd.connections:
                break
            threading.Event().wait(0.01)
        assert not s._httpd.connections
        assert Http(s)("GET", "/version")[0] == 200
        assert s.errors == []


def test_tls_serves_the_ca_it_hands_out_and_tls_false_keeps_plain_http(cluster: FakeCluster) -> None:
    with cluster.serve() as s:
        assert s.tls and isinstance(s.ssl_context, ssl.SSLContext)
        conn = http.client.HTTPSConnection(s.host, s.port, timeout=10, context=s.ssl_context)
        conn.request("GET", "/version")
        assert conn.getresponse().status == 200
        conn.close()
        with pytest.raises(ssl.SSLCertVerificationError):  # a client that does not trust its CA
            untrusting = http.client.HTTPSConnection(s.host, s.port, timeout=10,
                                                     context=ssl.create_default_context())
            untrusting.request("GET", "/version")
        plain = http.client.HTTPConnection(s.host, s.port, timeout=10)  # plain HTTP on the TLS port
        plain.request("GET", "/version")
        response = plain.getresponse()
        assert (response.status, response.read()) == (400, b"Client sent an HTTP request to an HTTPS server.\n")
        assert Http(s)("GET", "/version")[0] == 200  # the server goes on serving
        assert s.errors == []
    with cluster.serve(tls=False) as s:
        assert (s.tls, s.ca_file, s.ssl_context) == (False, None, None)
        assert s.url == f"http://127.0.0.1:{s.port}"
        assert json.loads(Path(s.kubeconfig).read_text())["clusters"][0]["cluster"] == {"server": s.url}
        conn = http.client.HTTPConnection(s.host, s.port, timeout=10)
        conn.request("GET", "/version")
        assert conn.getresponse().status == 200


UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "Unauthorized",
                "reason": "Unauthorized", "code": 401}


def test_only_this_servers_token_or_none_is_accepted(cluster: FakeCluster) -> None:
    """Anonymous requests are served; a bearer token of an earlier server (a client left running from
    it, on a reused port) is refused as kube-apiserver refuses bad credentials, on every path."""
    with cluster.serve() as earlier:
        stale = earlier.token
    with cluster.serve() as s:
        req = Http(s)
        assert req("GET", CM)[0] == 200
        assert req("GET", CM, headers={"Authorization": f"Bearer {s.token}"})[0] == 200
        for credentials in (f"Bearer {stale}", "Bearer ", "Basic YWRtaW46YWRtaW4=", f"bearer {s.token}"):
            code, headers, body = req("GET", CM, headers={"Authorization": credentials})
            assert (code, headers["content-type"], body) == (401, "application/json", UNAUTHORIZED)
        code, _, body = req("POST", CM, configmap("sneaky"), headers={"Authorization": f"Bearer {stale}"})
        assert (code, body) == (401, UNAUTHORIZED)
        code, _, body = req("GET", CM + "?watch=true", headers={"Authorization": f"Bearer {stale}"})
        assert (code, body) == (401, UNAUTHORIZED)
        assert req("GET", CM)[2]["items"] == []  # the refused create wrote nothing
        assert s.errors == []


def test_kubeconfig_path_given_is_kept(cluster: FakeCluster, tmp_path: Path) -> None:
    target = tmp_path / "kc" / "config"
    with cluster.serve(kubeconfig=target) as s:
        assert s.kubeconfig == str(target)
    assert json.loads(target.read_text())["clusters"][0]["cluster"]["server"].startswith("https://127.0.0.1:")


def test_bad_clock_options_are_usage_errors(cluster: FakeCluster) -> None:
    from fakekube import UsageError

    with pytest.raises(UsageError, match=r"clock=.*manual, realtime, quiescent"):
        cluster.serve(clock="fast")
    with pytest.raises(UsageError, match="speed"):
        cluster.serve(clock="realtime", speed=0)


def test_health_endpoints(req: Http) -> None:
    for path in ("/healthz", "/livez", "/readyz", "/readyz/ping"):
        assert req("GET", path)[0::2] == (200, "ok")


# ---------------------------------------------------------------------- CRUD and errors
def test_create_get_update_conflict_delete(req: Http, cluster: FakeCluster) -> None:
    code, _, created = req("POST", CM, configmap("a"), content_type=None)  # no Content-Type: JSON
    assert code == 201 and created["kind"] == "ConfigMap" and created["apiVersion"] == "v1"
    assert cluster.get("ConfigMap", "a")["metadata"]["uid"] == created["metadata"]["uid"]
    stale = dict(created, data={"k": "1"})
    code, _, updated = req("PUT", f"{CM}/a", stale)
    assert code == 200 and updated["data"] == {"k": "1"}
    code, _, status = req("PUT", f"{CM}/a", stale)
    assert code == 409 and status["reason"] == "Conflict"
    assert status["message"] == ('Operation cannot be fulfilled on configmaps "a": the object has been modified; '
                                 "please apply your changes to the latest version and try again")
    code, _, status = req("DELETE", f"{CM}/a", {"kind": "DeleteOptions", "apiVersion": "v1",
                                                "propagationPolicy": "Background"})
    assert code == 200 and status["status"] == "Success" and status["details"]["name"] == "a"
    code, _, status = req("GET", f"{CM}/a")
    assert code == 404 and status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                      "message": 'configmaps "a" not found', "reason": "NotFound",
                                      "details": {"name": "a", "kind": "configmaps"}, "code": 404}


def test_unknown_paths_are_404_status(req: Http) -> None:
    for path in ("/api/v1/namespaces/default/widgets", "/apis/nope.io/v1/things", "/metrics", "/api/v2/pods",
                 "/api/v1/namespaces/default/configmaps/a/b/c/d"):
        code, _, status = req("GET", path)
        assert code == 404, path
        assert status["kind"] == "Status" and status["reason"] == "NotFound"
        assert status["message"] == "the server could not find the requested resource"


def test_update_name_must_match_url(req: Http) -> None:
    req("POST", CM, configmap("a"))
    code, _, status = req("PUT", f"{CM}/b", dict(configmap("a"), metadata={"name": "a", "resourceVersion": "1"}))
    assert code == 400 and status["message"] == "the name of the object (a) does not match the name on the URL (b)"


def test_malformed_bodies(req: Http) -> None:
    code, _, status = req("POST", CM, b'{"metadata": ', content_type="application/json")
    assert code == 400 and status["reason"] == "BadRequest" and status["message"].startswith("json parse error:")
    code, _, status = req("POST", CM, b"[1, 2]")
    assert code == 400 and status["message"] == "the body of the request must be a JSON object"
    code, _, status = req("POST", CM, b'{"metadata": {"name": "n"}, "data": {"x": NaN}}')
    assert code == 400
    code, _, status = req("POST", CM, b"metadata:\n  name: d\ndata:\n  day: 2020-01-01\n",
                          content_type="application/yaml")
    # go-yaml v2 keeps an unquoted timestamp a string when decoding into interface{}, as sigs.k8s.io/yaml does
    assert code == 201 and status["data"] == {"day": "2020-01-01"}
    code, _, created = req("POST", CM, b"metadata:\n  name: y\ndata:\n  day: '2020-01-01'\n",
                           content_type="application/yaml")
    assert code == 201 and created["data"] == {"day": "2020-01-01"}


def test_protobuf_bodies_get_415_naming_the_json_workaround(req: Http) -> None:
    code, _, status = req("POST", "/api/v1/namespaces", b"k8s\x00\x0a\x0f",
                          content_type="application/vnd.kubernetes.protobuf")
    assert code == 415 and status["reason"] == "UnsupportedMediaType"
    assert "--dry-run=client -o yaml | kubectl apply -f -" in status["message"]


def test_request_bodies_above_3_mib_are_413(req: Http) -> None:
    big = json.dumps(configmap("big") | {"data": {"k": "x" * (3 * 1024 * 1024)}}).encode()
    code, headers, status = req("POST", CM, big)
    assert code == 413 and status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                      "message": "Request entity too large: limit is 3145728",
                                      "reason": "RequestEntityTooLarge", "code": 413}
    assert headers["connection"] == "close"


def test_unsupported_patch_types_and_strategic_merge_on_custom_resources(req: Http, cluster: FakeCluster) -> None:
    req("POST", CM, configmap("a"))
    code, _, status = req("PATCH", f"{CM}/a", {"data": {}}, content_type="text/plain")
    assert code == 415 and status["reason"] == "UnsupportedMediaType"
    cluster.apply(Path(__file__).parents[2] / "examples" / "pytorch.yaml")
    code, _, status = req("PATCH", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/pytorch",
                          {"metadata": {"labels": {"a": "b"}}},
                          content_type="application/strategic-merge-patch+json")
    assert code == 415 and status["reason"] == "UnsupportedMediaType"
    code, _, patched = req("PATCH", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/pytorch",
                           {"metadata": {"labels": {"a": "b"}}}, content_type="application/merge-patch+json")
    assert code == 200 and patched["metadata"]["labels"]["a"] == "b"


def test_method_not_allowed_on_documents(req: Http) -> None:
    code, _, status = req("POST", "/version", {})
    assert code == 405 and status["reason"] == "MethodNotAllowed"


def test_an_internal_failure_is_a_generic_500_never_a_traceback(req: Http, server: ClusterServer,
                                                                   cluster: FakeCluster) -> None:
    class Broken:
        name = "broken"

        def admit(self, request: Any) -> None:
            raise RuntimeError("boom")

    cluster.api.admission.register(Broken(), resources=["configmaps"], mutating=True)
    code, _, status = req("POST", CM, configmap("x"))
    assert code == 500 and status["reason"] == "InternalError" and "Traceback" not in json.dumps(status)
    assert "boom" not in status["message"]
    assert any("RuntimeError: boom" in e for e in server.errors)
    assert Http(server)("GET", "/healthz")[0] == 200  # the server still serves


def test_dry_run_writes_change_nothing(req: Http, cluster: FakeCluster) -> None:
    rv = cluster.api.store.rv
    code, _, obj = req("POST", f"{CM}?dryRun=All", configmap("dry"))
    assert code == 201 and obj["metadata"]["name"] == "dry"
    assert not cluster.exists("ConfigMap", "dry") and cluster.api.store.rv == rv
    req("POST", CM, configmap("real"))
    code, _, _ = req("DELETE", f"{CM}/real?dryRun=All")
    assert code == 200 and cluster.exists("ConfigMap", "real")
    code, _, status = req("POST", f"{CM}?dryRun=Some", configmap("x"))
    assert code == 400 and 'supported values: "All"' in status["message"]


def test_delete_of_an_object_held_by_a_finalizer_keeps_it(req: Http, cluster: FakeCluster) -> None:
    req("POST", CM, configmap("f") | {"metadata": {"name": "f", "finalizers": ["example.com/hold"]}})
    code, _, obj = req("DELETE", f"{CM}/f")
    assert code == 200 and obj["metadata"]["deletionTimestamp"] == "2030-01-01T00:00:00Z"
    assert cluster.get("ConfigMap", "f")["metadata"]["finalizers"] == ["example.com/hold"]
    req("POST", CM, configmap("g") | {"metadata": {"name": "g", "finalizers": ["example.com/hold"]}})
    code, _, obj = req("DELETE", f"{CM}/g", {"orphanDependents": False})  # upstream's one 202
    assert code == 202 and obj["metadata"]["name"] == "g"


def test_delete_collection_by_label(req: Http, cluster: FakeCluster) -> None:
    for name, app in (("a", "x"), ("b", "x"), ("c", "y")):
        req("POST", CM, configmap(name, app=app))
    code, _, lst = req("DELETE", f"{CM}?labelSelector=app%3Dx")
    assert code == 200 and [o["metadata"]["name"] for o in lst["items"]] == ["a", "b"]
    assert [o["metadata"]["name"] for o in cluster.list("ConfigMap", "default")] == ["c"]


# ---------------------------------------------------------------------- lists
def _names(lst: dict[str, Any]) -> list[str]:
    return [o["metadata"]["name"] for o in lst["items"]]


def test_list_items_carry_kind_and_selectors_filter(req: Http) -> None:
    for name, app in (("a", "x"), ("b", "y")):
        req("POST", CM, configmap(name, app=app))
    code, _, lst = req("GET", "/api/v1/configmaps?labelSelector=app%3Dx")
    assert code == 200 and lst["kind"] == "ConfigMapList" and _names(lst) == ["a"]
    assert all(o["kind"] == "ConfigMap" and o["apiVersion"] == "v1" for o in lst["items"])
    assert _names(req("GET", f"{CM}?fieldSelector=metadata.name%3Db")[2]) == ["b"]
    code, _, status = req("GET", f"{CM}?labelSelector=app%3D%3D%3D")
    assert code == 400 and status["reason"] == "BadRequest"
    code, _, status = req("GET", f"{CM}?fieldSelector=spec.nodeName%3Dx")
    assert code == 400 and status["message"] == ('"spec.nodeName" is not a known field selector: only "metadata.name", '
                                         '"metadata.namespace"')


def test_paging_is_exact_and_consistent(req: Http, cluster: FakeCluster) -> None:
    for i in range(7):
        req("POST", CM, configmap(f"c{i}"))
    code, _, first = req("GET", f"{CM}?limit=3")
    assert code == 200 and _names(first) == ["c0", "c1", "c2"] and first["metadata"]["remainingItemCount"] == 4
    rv = first["metadata"]["resourceVersion"]
    req("POST", CM, configmap("c15"))  # written between pages: not part of this list
    req("DELETE", f"{CM}/c5")
    _, _, second = req("GET", f"{CM}?limit=3&continue={first['metadata']['continue']}")
    assert _names(second) == ["c3", "c4", "c5"] and second["metadata"]["resourceVersion"] == rv
    _, _, last = req("GET", f"{CM}?limit=3&continue={second['metadata']['continue']}")
    assert _names(last) == ["c6"] and "continue" not in last["metadata"]  # no empty last page
    _, _, exact = req("GET", f"{CM}?limit=7")
    assert len(exact["items"]) == 7 and "continue" not in exact["metadata"]


def test_bad_and_expired_continue_tokens(req: Http, server: ClusterServer) -> None:
    for i in range(3):
        req("POST", CM, configmap(f"c{i}"))
    code, _, status = req("GET", f"{CM}?limit=1&continue=garbage")
    assert code == 400 and status["reason"] == "BadRequest"
    _, _, first = req("GET", f"{CM}?limit=1")
    server._handler.pager._snapshots.clear()  # the snapshot is gone (as after compaction) ...
    _, _, same = req("GET", f"{CM}?limit=1&continue={first['metadata']['continue']}")
    assert _names(same) == ["c1"]  # ... but nothing changed since: the list is read again
    server._handler.pager._snapshots.clear()
    req("POST", CM, configmap("c9"))
    code, _, status = req("GET", f"{CM}?limit=1&continue={first['metadata']['continue']}")
    assert code == 410 and status["reason"] == "Expired"
    assert status["message"].startswith("The provided continue parameter is too old")


# ---------------------------------------------------------------------- watch
def _watch_lines(server: ClusterServer, path: str, count: int | None = None, timeout: float = 10
                 ) -> list[dict[str, Any]]:
    """Read watch events until the stream ends (or ``count`` arrived)."""
    conn = server.connect(timeout=timeout)
    conn.request("GET", path)
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Transfer-Encoding") == "chunked"
    events = []
    while count is None or len(events) < count:
        line = resp.readline()
        if not line:
            break
        events.append(json.loads(line))
    conn.close()
    return events


def test_watch_replays_from_a_resource_version_and_ends_at_its_timeout(req: Http, server: ClusterServer) -> None:
    _, _, a = req("POST", CM, configmap("a"))
    req("POST", CM, configmap("b"))
    req("DELETE", f"{CM}/a")
    events = _watch_lines(server, f"{CM}?watch=true&resourceVersion={a['metadata']['resourceVersion']}"
                                  "&timeoutSeconds=1")
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "b"), ("DELETED", "a")]
    assert all(e["object"]["kind"] == "ConfigMap" for e in events)


def test_watch_without_resource_version_starts_with_current_objects(req: Http, server: ClusterServer) -> None:
    req("POST", CM, configmap("a"))
    events = _watch_lines(server, f"{CM}?watch=1&timeoutSeconds=1&allowWatchBookmarks=true")
    assert [e["type"] for e in events] == ["ADDED", "BOOKMARK"]  # a bookmark before the timeout closes it
    assert events[1]["object"] == {"kind": "ConfigMap", "apiVersion": "v1",
                                   "metadata": {"resourceVersion": events[1]["object"]["metadata"]["resourceVersion"]}}


def test_watch_from_a_compacted_resource_version_is_a_410_error_event(cluster: FakeCluster) -> None:
    small = FakeCluster(seed=3, watch_history=2)
    with small.serve() as server:
        req = Http(server)
        for i in range(5):
            req("POST", CM, configmap(f"c{i}"))
        events = _watch_lines(server, f"{CM}?watch=true&resourceVersion=2")
    assert len(events) == 1 and events[0]["type"] == "ERROR"
    status = events[0]["object"]
    assert status["code"] == 410 and status["reason"] == "Expired" and status["kind"] == "Status"


def test_harness_calls_from_the_test_thread_reach_open_watches(cluster: FakeCluster, server: ClusterServer) -> None:
    got: list[dict[str, Any]] = []
    reader = threading.Thread(target=lambda: got.extend(_watch_lines(server, f"{CM}?watch=true&resourceVersion="
                                                                     f"{cluster.api.store.rv}", count=2)))
    reader.start()
    server.wait_for(lambda: len(server.cluster.api._watches.get("configmaps", [])) > 0)
    cluster.create(configmap("from-test"))
    cluster.patch("ConfigMap", "from-test", {"data": {"k": "2"}})
    reader.join(10)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in got] == [("ADDED", "from-test"),
                                                                            ("MODIFIED", "from-test")]


def test_open_watches_counts_the_streams_being_served(server: ClusterServer) -> None:
    assert server.open_watches == 0
    conn = server.connect(timeout=10)
    conn.request("GET", f"{CM}?watch=true&timeoutSeconds=0.2")
    resp = conn.getresponse()
    assert server.open_watches == 1  # counted before the headers are sent
    assert resp.read() == b""  # ends at its timeout, with no event
    server.wait_for(lambda: server.open_watches == 0)


def test_a_watcher_that_falls_far_behind_is_cut_off_with_410(cluster: FakeCluster) -> None:
    with ClusterServer(cluster, watch_queue_limit=5) as server:
        conn = server.connect(timeout=10)
        conn.request("GET", f"{CM}?watch=true&resourceVersion={cluster.api.store.rv}")
        resp = conn.getresponse()
        server.wait_for(lambda: len(cluster.api._watches.get("configmaps", [])) > 0)
        for i in range(20):  # the reader does not read: the queue overflows
            cluster.create(configmap(f"c{i}"))
        lines = [json.loads(line) for line in resp.read().splitlines()]
    assert [e["type"] for e in lines] == ["ERROR"]
    assert lines[0]["object"]["code"] == 410 and "fell more than 5 events behind" in lines[0]["object"]["message"]


def test_closing_the_server_ends_every_stream(cluster: FakeCluster) -> None:
    server = cluster.serve()
    conn = server.connect(timeout=10)
    conn.request("GET", f"{CM}?watch=true&timeoutSeconds=600")
    resp = conn.getresponse()
    keepalive = server.connect(timeout=10)
    keepalive.request("GET", "/healthz")
    keepalive.getresponse().read()
    server.close()
    assert resp.read() == b""  # the chunked stream ended cleanly
    with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
        keepalive.request("GET", "/healthz")
        keepalive.getresponse()
    # The listening socket is closed. (Connecting to the port proves nothing under pytest-xdist:
    # another worker's server may already have been given the freed port.)
    assert server._httpd.socket.fileno() == -1


# ---------------------------------------------------------------------- concurrency
def test_concurrent_writers_get_distinct_resource_versions(server: ClusterServer, cluster: FakeCluster) -> None:
    results: list[str] = []

    def writer(i: int) -> None:
        h = Http(server)
        for j in range(10):
            code, _, obj = h("POST", CM, configmap(f"w{i}-{j}"))
            assert code == 201
            results.append(obj["metadata"]["resourceVersion"])

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 60 and len(set(results)) == 60
    assert len(cluster.list("ConfigMap", "default")) == 60


# ---------------------------------------------------------------------- clocks
POD_JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "sleeper"},
           "spec": {"template": {"metadata": {"annotations": {"fakekube.io/run-seconds": "120"}},
                                 "spec": {"restartPolicy": "Never",
                                          "containers": [{"name": "c", "image": "busybox"}]}}}}


def _job_done(cluster: FakeCluster) -> bool:
    return bool((cluster.get("Job", "sleeper").get("status") or {}).get("succeeded"))


def test_manual_clock_never_moves_by_itself(cluster: FakeCluster, req: Http, server: ClusterServer) -> None:
    code, _, _ = req("POST", "/apis/batch/v1/namespaces/default/jobs", POD_JOB)
    assert code == 201
    start = cluster.elapsed
    with pytest.raises(TimeoutError):
        server.wait_for(lambda: cluster.elapsed > start, timeout=0.3)
    # the write was settled before the answer: the Job controller already made its pod
    pods = req("GET", "/api/v1/namespaces/default/pods?labelSelector=job-name%3Dsleeper")[2]
    assert len(pods["items"]) == 1


def test_realtime_clock_moves_at_its_speed(cluster: FakeCluster) -> None:
    with cluster.serve(clock="realtime", speed=1200) as server:
        Http(server)("POST", "/apis/batch/v1/namespaces/default/jobs", POD_JOB)
        server.wait_for(lambda: _job_done(cluster), timeout=10)
        assert cluster.elapsed >= 120


def test_quiescent_clock_jumps_when_nobody_talks(cluster: FakeCluster) -> None:
    with cluster.serve(clock="quiescent", quiet_ms=20) as server:
        Http(server)("POST", "/apis/batch/v1/namespaces/default/jobs", POD_JOB)
        server.wait_for(lambda: _job_done(cluster), timeout=10)
        assert server.clock.jumps > 0  # type: ignore[attr-defined]
        assert 120 <= cluster.elapsed < 200


def test_every_answer_carries_the_virtual_time_to_the_microsecond(cluster: FakeCluster, req: Http) -> None:
    cluster.advance(61.25)
    _, headers, _ = req("GET", "/version")
    assert headers["date"] == "Tue, 01 Jan 2030 00:01:01 GMT"
    assert headers["x-fakekube-time"] == "2030-01-01T00:01:01.250000Z"


def test_quiescent_clock_stops_at_a_clients_announced_timer_and_holds_while_it_is_due(cluster: FakeCluster) -> None:
    """A controller out of process keeps timers on the served clock: the clock never jumps past the
    instant it announced, waits there for it to act, and goes on once it announces its next one."""
    with cluster.serve(clock="quiescent", quiet_ms=20) as server:
        client = Http(server)
        wake = {"User-Agent": "ctl", "X-Fakekube-Wake-At": "2030-01-01T00:00:07.500000Z"}
        assert client("GET", "/version", headers=wake)[0] == 200
        client("POST", "/apis/batch/v1/namespaces/default/jobs", POD_JOB)  # the cluster has events up to 120 s
        server.wait_for(lambda: cluster.elapsed == 7.5, timeout=10)
        threading.Event().wait(0.3)  # the timer is due: the client has not acted yet, so time holds
        assert cluster.elapsed == 7.5
        client("GET", "/version", headers={"User-Agent": "ctl", "X-Fakekube-Wake-At": "none"})
        server.wait_for(lambda: _job_done(cluster), timeout=10)
        assert cluster.elapsed >= 120


def test_now_holds_the_quiescent_clock_until_the_client_speaks_again(cluster: FakeCluster) -> None:
    with cluster.serve(clock="quiescent", quiet_ms=20) as server:
        client = Http(server)
        client("POST", "/apis/batch/v1/namespaces/default/jobs", POD_JOB)
        client("GET", "/version", headers={"User-Agent": "ctl", "X-Fakekube-Wake-At": "now"})
        threading.Event().wait(0.3)
        assert cluster.elapsed == 0
        client("GET", "/version", headers={"User-Agent": "ctl", "X-Fakekube-Wake-At": "none"})
        server.wait_for(lambda: _job_done(cluster), timeout=10)


def test_a_held_clock_moves_again_once_its_client_is_gone(cluster: FakeCluster,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fakekube.http.clocks.WAKE_GRACE", 0.2)
    with cluster.serve(clock="quiescent", quiet_ms=20) as server:
        client = Http(server)
        client("POST", "/apis/batch/v1/namespaces/default/jobs", POD_JOB)
        client("GET", "/version", headers={"User-Agent": "ctl", "X-Fakekube-Wake-At": "now"})
        server.wait_for(lambda: _job_done(cluster), timeout=10)


def test_a_malformed_wake_announcement_is_a_400(req: Http) -> None:
    code, _, status = req("GET", "/version", headers={"X-Fakekube-Wake-At": "soon"})
    assert code == 400 and status["reason"] == "BadRequest"
    assert status["message"] == ("X-Fakekube-Wake-At must be an RFC 3339 time in UTC (2030-01-01T00:00:20.500000Z), "
                                 "'now' or 'none', got 'soon'")


# ---------------------------------------------------------------------- request options
def test_field_validation_over_http_strict_warn_and_default(req: Http) -> None:
    body = configmap("v") | {"dta": {"x": "1"}}
    code, _, status = req("POST", f"{CM}?fieldValidation=Strict", body)
    assert code == 400 and status["message"] == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: '
                                                 'strict decoding error: unknown field "dta"')
    code, headers, _ = req("POST", CM, body)  # no parameter: the server default, Warn
    assert code == 201 and headers["warning"] == '299 - "unknown field \\"dta\\""'
    code, headers, _ = req("PUT", f"{CM}/v?fieldValidation=Ignore", req("GET", f"{CM}/v")[2] | {"dta": {}})
    assert code == 200 and "warning" not in headers


def test_server_side_apply_over_http(req: Http, cluster: FakeCluster) -> None:
    apply = "application/apply-patch+yaml"

    def applied(mode: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {"mode": mode}}

    code, _, created = req("PATCH", f"{CM}/ssa?fieldManager=alice", b"apiVersion: v1\nkind: ConfigMap\n"
                           b"metadata:\n  name: ssa\ndata:\n  mode: fast\n", content_type=apply)
    assert code == 201 and [m["manager"] for m in created["metadata"]["managedFields"]] == ["alice"]
    code, _, again = req("PATCH", f"{CM}/ssa?fieldManager=alice", applied("fast"),
                         content_type=apply)
    assert code == 200 and again["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    code, _, status = req("PATCH", f"{CM}/ssa?fieldManager=bob", applied("slow"),
                          content_type=apply)
    assert code == 409 and status["message"] == 'Apply failed with 1 conflict: conflict with "alice": .data.mode'
    code, _, forced = req("PATCH", f"{CM}/ssa?fieldManager=bob&force=true",
                          applied("slow"), content_type=apply)
    assert code == 200 and forced["data"] == {"mode": "slow"}
    assert cluster.get("ConfigMap", "ssa")["data"] == {"mode": "slow"}
    code, _, status = req("PATCH", f"{CM}/ssa", applied("slow"), content_type=apply)
    assert code == 422 and "fieldManager: Required value: is required for apply patch" in status["message"]


def test_oversized_request_lines_and_headers_get_a_status(server: ClusterServer) -> None:
    def raw(request: bytes) -> tuple[int, dict[str, Any]]:
        assert server.ssl_context is not None
        with server.ssl_context.wrap_socket(socket.create_connection((server.host, server.port), timeout=5),
                                            server_hostname=server.host) as sock:
            sock.sendall(request)
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        return int(head.split()[1]), json.loads(body)

    code, status = raw(b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert code == 414 and status["kind"] == "Status" and status["reason"] == "RequestURITooLong"
    code, status = raw(b"GET /healthz HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(120)) + b"\r\n")
    assert code == 431 and status["reason"] == "RequestHeaderFieldsTooLarge"
