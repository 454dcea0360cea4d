"""``events.k8s.io/v1`` served over the same store as core Events, as kube-apiserver serves it:
one object, two wire forms (``note``/``message``, ``regarding``/``involvedObject``,
``deprecatedCount``/``count``, ``reportingController``/``reportingComponent``...), with the real
kubectl and the ``kubernetes`` client's ``EventsV1Api``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from fakekube.http.server import ClusterServer

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH")
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def _kubectl(server: ClusterServer, tmp_path: Path, *args: str) -> str:
    assert KUBECTL is not None
    env = {**os.environ, "KUBECONFIG": server.kubeconfig, "KUBECACHEDIR": str(tmp_path / "cache")}
    done = subprocess.run([KUBECTL, *args], env=env, capture_output=True, text=True, timeout=30, check=False)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done.stdout


def _api(server: ClusterServer) -> client.ApiClient:
    return config.new_client_from_config(config_file=server.kubeconfig)


def _event(name: str, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name},
            "eventTime": "2030-01-01T00:00:00.000000Z", "reportingController": "example.com/queue",
            "reportingInstance": "queue-0", "action": "Admitting", "reason": "Admitted", "type": "Normal",
            "note": "admitted to queue q", "regarding": {"kind": "Pod", "name": "p", "namespace": "default",
                                                          "apiVersion": "v1"}, **extra}


@needs_kubectl
def test_kubectl_discovers_lists_and_describes_through_events_k8s_io(fake_apiserver: ClusterServer,
                                                                     tmp_path: Path) -> None:
    fake_apiserver.cluster.apply(POD)
    fake_apiserver.cluster.advance(5)
    resources = _kubectl(fake_apiserver, tmp_path, "api-resources", "--api-group=events.k8s.io", "--no-headers")
    assert resources.split() == ["events", "ev", "events.k8s.io/v1", "true", "Event"]
    core = json.loads(_kubectl(fake_apiserver, tmp_path, "get", "events", "-o", "json"))["items"]
    v1 = json.loads(_kubectl(fake_apiserver, tmp_path, "get", "events.v1.events.k8s.io", "-o", "json"))["items"]
    assert [e["metadata"]["uid"] for e in v1] == [e["metadata"]["uid"] for e in core] and core
    for old, new in zip(core, v1, strict=True):
        assert new["apiVersion"] == "events.k8s.io/v1"
        assert (new["note"], new["regarding"], new["reason"], new["type"]) == (
            old["message"], old["involvedObject"], old["reason"], old["type"])
        assert (new["deprecatedSource"], new["deprecatedCount"], new["deprecatedFirstTimestamp"]) == (
            old["source"], old["count"], old["firstTimestamp"])
        assert "message" not in new and "involvedObject" not in new and "count" not in new
    table = _kubectl(fake_apiserver, tmp_path, "get", "events.events.k8s.io", "--field-selector",
                     "regarding.name=p,reason=Scheduled")
    assert table.splitlines()[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert "Successfully assigned default/p to node-" in table
    events = _kubectl(fake_apiserver, tmp_path, "events", "--for", "pod/p")
    assert "Successfully assigned default/p to node-" in events.splitlines()[1]


def test_the_kubernetes_events_v1_api_writes_the_core_event(fake_apiserver: ClusterServer) -> None:
    api = _api(fake_apiserver)
    events = client.EventsV1Api(api)
    created = events.create_namespaced_event("default", _event("admitted"))
    assert (created.note, created.reporting_controller, created.regarding.name) == (
        "admitted to queue q", "example.com/queue", "p")
    stored = fake_apiserver.cluster.get("Event", "admitted")
    assert (stored["apiVersion"], stored["message"], stored["involvedObject"]["name"], stored["reportingComponent"],
            stored["action"]) == ("v1", "admitted to queue q", "p", "example.com/queue", "Admitting")
    core = client.CoreV1Api(api).read_namespaced_event("admitted", "default")
    assert (core.message, core.reporting_component) == ("admitted to queue q", "example.com/queue")
    # a merge patch in this version's names (as client-go's events recorder patches a series)
    series = {"series": {"count": 2, "lastObservedTime": "2030-01-01T00:00:05.000000Z"}, "note": "again"}
    patched = events.patch_namespaced_event("admitted", "default", series)
    assert (patched.series.count, patched.note) == (2, "again")
    assert fake_apiserver.cluster.get("Event", "admitted")["message"] == "again"
    listed = events.list_namespaced_event("default", field_selector="regarding.name=p,reportingController="
                                                                    "example.com/queue")
    assert [e.metadata.name for e in listed.items] == ["admitted"]
    stream = watch.Watch().stream(events.list_namespaced_event, "default", timeout_seconds=2)
    first = next(stream)
    assert (first["type"], first["object"].note) == ("ADDED", "again")
    stream.close()
    events.delete_namespaced_event("admitted", "default")
    assert fake_apiserver.cluster.list("Event", "default", field_selector="metadata.name=admitted") == []


def test_this_versions_rules_and_field_labels(fake_apiserver: ClusterServer) -> None:
    events = client.EventsV1Api(_api(fake_apiserver))
    bad = _event("bad")
    del bad["eventTime"], bad["action"]
    # the client checks eventTime itself: sent raw, as any client without that check would
    conn = fake_apiserver.connect()
    conn.request("POST", "/apis/events.k8s.io/v1/namespaces/default/events", body=json.dumps(bad),
                 headers={"Authorization": f"Bearer {fake_apiserver.token}", "Content-Type": "application/json"})
    response = conn.getresponse()
    status = json.loads(response.read())
    conn.close()
    assert (response.status, status["reason"]) == (422, "Invalid")
    assert status["message"] == ('Event.events.k8s.io "bad" is invalid: [eventTime: Required value, '
                                 'action: Required value]')
    with pytest.raises(ApiException) as caught:
        events.list_namespaced_event("default", field_selector="involvedObject.name=p")
    assert caught.value.status == 400
    assert json.loads(caught.value.body)["message"] == "field label not supported: involvedObject.name"
    # core v1 writes keep the legacy rules: an Event without eventTime or action is fine there
    legacy = {"metadata": {"name": "legacy"}, "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
              "reason": "Old", "message": "m", "type": "Normal", "source": {"component": "x"}}
    client.CoreV1Api(_api(fake_apiserver)).create_namespaced_event("default", legacy)
    # read raw: its eventTime is null (as kube-apiserver sends a legacy Event), which this client's models refuse
    conn = fake_apiserver.connect()
    conn.request("GET", "/apis/events.k8s.io/v1/namespaces/default/events/legacy",
                 headers={"Authorization": f"Bearer {fake_apiserver.token}"})
    seen = json.loads(conn.getresponse().read())
    conn.close()
    assert (seen["note"], seen["deprecatedSource"], seen["eventTime"]) == ("m", {"component": "x"}, None)
