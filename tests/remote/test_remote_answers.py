"""A server that answers an API verb with something other than a JSON object (a proxy's page, a
JSON list) gets the remote runtime's clear ``InternalError``, never an ``AttributeError`` deep in
an informer or a reader thread that dies."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from fakekube import InternalError
from fakekube.remote import RemoteApiServer
from fakekube.remote.kubeconfig import Connection
from fakekube.remote.transport import ServerClock, Transport

DISCOVERY: dict[str, Any] = {
    "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
        {"name": "configmaps", "namespaced": True, "kind": "ConfigMap", "verbs": ["get", "list"]}]},
    "/apis": {"kind": "APIGroupList", "groups": []},
}


class _Odd(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    answers: dict[str, bytes] = {}

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        body = json.dumps(DISCOVERY[path]).encode() if path in DISCOVERY else self.answers.get(path, b"[]")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def odd_server() -> Iterator[RemoteApiServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Odd)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        transport = Transport(Connection(server=f"http://127.0.0.1:{httpd.server_address[1]}"), ServerClock())
        yield RemoteApiServer(transport, lambda fn: fn(), lambda: 0)
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_verb_answered_with_a_json_list_is_an_internal_error(odd_server: RemoteApiServer) -> None:
    with pytest.raises(InternalError) as err:
        odd_server.list("configmaps", "default")
    assert str(err.value).endswith(
        "the server answered GET /api/v1/namespaces/default/configmaps with a JSON list where an object was expected")


def test_a_verb_answered_with_a_body_that_is_not_json_is_an_internal_error(odd_server: RemoteApiServer) -> None:
    _Odd.answers = {"/api/v1/namespaces/default/configmaps/page": b"<html>a proxy's login page</html>"}
    try:
        with pytest.raises(InternalError) as err:
            odd_server.get("configmaps", "page", "default")
    finally:
        _Odd.answers = {}
    assert "with a body that is null or not JSON where an object was expected" in str(err.value)
