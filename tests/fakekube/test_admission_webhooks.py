"""Admission webhooks registered through Mutating/ValidatingWebhookConfigurations are called over
HTTP with an AdmissionReview, and their answers act as kube-apiserver makes them act."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from fakekube import ApiError, FakeCluster, Forbidden

Answer = Callable[[dict[str, Any]], dict[str, Any]]


class Webhook:
    """A real webhook server on loopback: ``answer`` turns each request into a response body."""

    def __init__(self) -> None:
        self.answer: Answer = lambda request: {"allowed": True}
        self.reviews: list[dict[str, Any]] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                hook.reviews.append(review)
                response = {"uid": review["request"]["uid"], **hook.answer(review["request"])}
                body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                   "response": response}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/admit"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    hook = Webhook()
    yield hook
    hook.httpd.shutdown()
    hook.httpd.server_close()


def configuration(kind: str, url: str, *, name: str = "example.com", failure: str = "Fail",
                  selector: dict[str, Any] | None = None) -> dict[str, Any]:
    hook: dict[str, Any] = {"name": name, "clientConfig": {"url": url}, "admissionReviewVersions": ["v1"],
                            "sideEffects": "None", "failurePolicy": failure,
                            "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"],
                                       "resources": ["configmaps"]}]}
    if selector is not None:
        hook["objectSelector"] = selector
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": "config"},
            "webhooks": [hook]}


def config_map(name: str = "cm", **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default",
                                                                  "labels": labels}, "data": {"a": "1"}}


@pytest.fixture
def cluster() -> FakeCluster:
    return FakeCluster(seed=0, simulate=False)


def test_a_denial_reads_as_kube_apiserver_reports_it_and_nothing_is_stored(cluster: FakeCluster,
                                                                           webhook: Webhook) -> None:
    cluster.create(configuration("ValidatingWebhookConfiguration", webhook.url))
    webhook.answer = lambda request: {"allowed": False, "status": {"message": "not on Fridays"}}
    with pytest.raises(ApiError) as denied:
        cluster.create(config_map())
    assert (denied.value.code, denied.value.message) == (
        403, 'admission webhook "example.com" denied the request: not on Fridays')
    webhook.answer = lambda request: {"allowed": False, "status": {"code": 422, "reason": "Invalid", "message": "bad"}}
    with pytest.raises(ApiError) as invalid:
        cluster.create(config_map())
    assert (invalid.value.code, invalid.value.reason) == (422, "Invalid")
    webhook.answer = lambda request: {"allowed": False}
    with pytest.raises(ApiError, match=r'^admission webhook "example.com" denied the request without explanation$'):
        cluster.create(config_map())
    assert cluster.list("ConfigMap", namespace="default") == []


def test_the_review_carries_the_request_and_a_mutating_patch_is_applied(cluster: FakeCluster,
                                                                        webhook: Webhook) -> None:
    cluster.create(configuration("MutatingWebhookConfiguration", webhook.url))
    patch = [{"op": "add", "path": "/metadata/labels/team", "value": "ml"}]
    webhook.answer = lambda request: {"allowed": True, "patchType": "JSONPatch",
                                      "patch": base64.b64encode(json.dumps(patch).encode()).decode()}
    created = cluster.create(config_map(app="x"))
    assert created["metadata"]["labels"] == {"app": "x", "team": "ml"}
    cluster.patch("ConfigMap", "cm", {"data": {"a": "2"}}, namespace="default")
    create, update = (review["request"] for review in webhook.reviews)
    assert (create["operation"], create["namespace"], create["resource"]) == (
        "CREATE", "default", {"group": "", "version": "v1", "resource": "configmaps"})
    assert create["object"]["data"] == {"a": "1"} and create["oldObject"] is None
    assert (update["operation"], update["oldObject"]["data"], update["object"]["data"]) == ("UPDATE", {"a": "1"},
                                                                                            {"a": "2"})
    assert create["uid"] != update["uid"]


def test_a_webhook_that_cannot_be_called_fails_the_write_or_is_ignored_by_its_policy(cluster: FakeCluster,
                                                                                     webhook: Webhook) -> None:
    gone = webhook.url
    webhook.httpd.shutdown()
    webhook.httpd.server_close()
    cluster.create(configuration("ValidatingWebhookConfiguration", gone))
    with pytest.raises(ApiError) as failed:
        cluster.create(config_map())
    assert failed.value.code == 500
    assert failed.value.message.startswith(
        f'Internal error occurred: failed calling webhook "example.com": failed to call webhook: Post "{gone}?timeout=10s"')
    cluster.delete("ValidatingWebhookConfiguration", "config")
    cluster.create(configuration("ValidatingWebhookConfiguration", gone, failure="Ignore"))
    assert cluster.create(config_map())["metadata"]["name"] == "cm"


def test_the_object_selector_decides_which_objects_are_sent(cluster: FakeCluster, webhook: Webhook) -> None:
    cluster.create(configuration("ValidatingWebhookConfiguration", webhook.url,
                                 selector={"matchExpressions": [{"key": "checked", "operator": "Exists"}]}))
    cluster.create(config_map("plain"))
    cluster.create(config_map("checked", checked="yes"))
    assert [r["request"]["name"] for r in webhook.reviews] == ["checked"]


class _DenyAll:
    name = "example.com"
    configuration = "config"

    def validate(self, request: Any) -> None:
        raise Forbidden("the in-process plugin denies")


def test_a_registered_webhook_replaces_the_in_process_plugin_of_its_configuration_and_name(
        cluster: FakeCluster, webhook: Webhook) -> None:
    cluster.api.admission.register(_DenyAll(), resources=["configmaps"], operations=["CREATE"], validating=True)
    with pytest.raises(Forbidden):
        cluster.create(config_map("a"))
    cluster.create(configuration("ValidatingWebhookConfiguration", webhook.url))
    assert cluster.create(config_map("b"))["metadata"]["name"] == "b"
    cluster.delete("ValidatingWebhookConfiguration", "config")
    with pytest.raises(Forbidden):
        cluster.create(config_map("c"))
    other = configuration("ValidatingWebhookConfiguration", webhook.url)
    other["metadata"]["name"] = "another-config"  # the same webhook name in another configuration
    cluster.create(other)
    with pytest.raises(Forbidden):
        cluster.create(config_map("d"))


def test_configurations_are_defaulted_and_validated(cluster: FakeCluster) -> None:
    stored = cluster.create(configuration("MutatingWebhookConfiguration", "http://127.0.0.1:1/x"))
    hook = stored["webhooks"][0]
    assert (hook["timeoutSeconds"], hook["matchPolicy"], hook["reinvocationPolicy"], hook["rules"][0]["scope"]) == (
        10, "Equivalent", "Never", "*")
    broken = configuration("ValidatingWebhookConfiguration", "http://127.0.0.1:1/x")
    del broken["webhooks"][0]["sideEffects"]
    with pytest.raises(ApiError) as invalid:
        cluster.create(broken)
    assert invalid.value.code == 422
    assert 'webhooks[0].sideEffects: Unsupported value: null: supported values: "None", "NoneOnDryRun"' \
        in invalid.value.message
