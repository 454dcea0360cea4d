"""Duplicate fields in a request body, under each fieldValidation (kubernetes#16 item): Strict is a
400 (create, update) or 422 (patch) strict decoding error, Warn (the default) a warning each,
Ignore nothing; JSON and YAML word them as sigs.k8s.io/json and go-yaml do."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from fakekube import FakeCluster
from fakekube.http.server import ClusterServer

CM = "/api/v1/namespaces/default/configmaps"
DUPLICATE_JSON = b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "name": "a"}, "data": {"k": "v"}}'
DUPLICATE_YAML = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: a\ndata:\n  k: v\n"


@pytest.fixture
def server() -> Iterator[ClusterServer]:
    with FakeCluster(seed=1).serve() as s:
        yield s


def _send(server: ClusterServer, method: str, path: str, body: bytes, content_type: str
          ) -> tuple[int, list[str], Any]:
    conn = server.connect(timeout=10)
    conn.request(method, path, body=body, headers={"Content-Type": content_type})
    resp = conn.getresponse()
    data = json.loads(resp.read())
    warnings = [v for k, v in resp.getheaders() if k.lower() == "warning"]
    conn.close()
    return resp.status, warnings, data


@pytest.mark.parametrize(("body", "content_type", "problem"), [
    (DUPLICATE_JSON, "application/json", 'duplicate field "name"'),
    (DUPLICATE_YAML, "application/yaml", 'line 5: key "name" already set in map'),
])
def test_duplicate_fields_on_create(server: ClusterServer, body: bytes, content_type: str, problem: str) -> None:
    code, _, status = _send(server, "POST", f"{CM}?fieldValidation=Strict", body, content_type)
    assert (code, status["reason"], status["message"]) == (
        400, "BadRequest",
        f'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: {problem}')
    code, warnings, _ = _send(server, "POST", CM, body, content_type)
    assert code == 201 and warnings == [f'299 - "{problem}"'.replace('"name"', '\\"name\\"')]
    code, warnings, _ = _send(server, "DELETE", f"{CM}/a", b"", "application/json")
    code, warnings, _ = _send(server, "POST", f"{CM}?fieldValidation=Ignore", body, content_type)
    assert code == 201 and warnings == []


def test_duplicate_fields_in_a_merge_patch_are_a_422_under_strict(server: ClusterServer) -> None:
    _send(server, "POST", CM, b'{"metadata": {"name": "a"}}', "application/json")
    code, _, status = _send(server, "PATCH", f"{CM}/a?fieldValidation=Strict",
                            b'{"data": {"k": "1", "k": "2"}}', "application/merge-patch+json")
    assert code == 422 and status["message"].endswith('strict decoding error: duplicate field "k"')
