"""TLS by default: kubectl and the Python clients read the served kubeconfig unchanged, trust the
server's own CA, and authenticate with its bearer token, which they send only over TLS (kubectl
sends no token to an ``http://`` server). A request without credentials is anonymous and served;
one with a token that is not the server's is 401, as documented in docs/http.md."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fakekube.http.server import ClusterServer

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH")


def _kubeconfig(server: ClusterServer, tmp_path: Path, *, token: str | None, ca: bytes | None = None) -> str:
    """The served kubeconfig with its user's token (and optionally the CA) replaced."""
    config: dict[str, Any] = json.loads(Path(server.kubeconfig).read_text())
    config["users"][0]["user"] = {"token": token} if token else {}
    if ca is not None:
        config["clusters"][0]["cluster"]["certificate-authority-data"] = base64.b64encode(ca).decode()
    path = tmp_path / f"kubeconfig-{len(list(tmp_path.iterdir()))}"
    path.write_text(json.dumps(config))
    return str(path)


def _kubectl(kubeconfig: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert KUBECTL is not None
    env = {**os.environ, "KUBECONFIG": kubeconfig, "KUBECACHEDIR": str(tmp_path / "cache")}
    return subprocess.run([KUBECTL, *args], env=env, capture_output=True, text=True, timeout=30, check=False)


@needs_kubectl
def test_kubectl_sends_the_token_over_tls(fake_apiserver: ClusterServer, tmp_path: Path) -> None:
    served = _kubectl(fake_apiserver.kubeconfig, tmp_path, "get", "nodes", "-o", "name")
    assert (served.returncode, served.stdout.split()[0], served.stderr) == (0, "node/node-0", "")
    # a wrong token is refused: kubectl presented it, so it presents the right one above too
    wrong = _kubectl(_kubeconfig(fake_apiserver, tmp_path, token="not-this-servers"), tmp_path,
                     "get", "nodes", "-o", "name")
    assert wrong.returncode == 1 and wrong.stdout == ""
    assert wrong.stderr.rstrip().endswith("error: You must be logged in to the server (Unauthorized)"), wrong.stderr
    # no credentials at all: anonymous, served (no authorization here). kubectl itself prompts for a
    # user name when its kubeconfig user has none over https, so this one is a raw request.
    conn = fake_apiserver.connect()
    conn.request("GET", "/api/v1/nodes")
    assert conn.getresponse().status == 200
    conn.close()


@needs_kubectl
def test_kubectl_refuses_a_server_its_ca_did_not_sign(fake_apiserver: ClusterServer, tmp_path: Path) -> None:
    other = fake_apiserver.cluster.serve()
    try:
        foreign_ca = Path(str(other.ca_file)).read_bytes()
    finally:
        other.close()
    done = _kubectl(_kubeconfig(fake_apiserver, tmp_path, token=fake_apiserver.token, ca=foreign_ca), tmp_path,
                    "get", "nodes")
    assert done.returncode == 1 and "x509: certificate signed by unknown authority" in done.stderr, done.stderr
    assert fake_apiserver.errors == []  # a refused handshake is no server error


def test_the_kubernetes_client_authenticates_over_tls(fake_apiserver: ClusterServer, tmp_path: Path) -> None:
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException

    good = client.CoreV1Api(config.new_client_from_config(config_file=fake_apiserver.kubeconfig))
    assert [n.metadata.name for n in good.list_node().items][:1] == ["node-0"]
    wrong = client.CoreV1Api(config.new_client_from_config(
        config_file=_kubeconfig(fake_apiserver, tmp_path, token="not-this-servers")))
    with pytest.raises(ApiException) as caught:
        wrong.list_node()
    assert caught.value.status == 401


def test_lightkube_and_kr8s_authenticate_over_tls(fake_apiserver: ClusterServer, tmp_path: Path) -> None:
    import kr8s
    from lightkube import ApiError, Client, KubeConfig
    from lightkube.resources.core_v1 import Node

    def lightkube_nodes(path: str) -> list[str]:
        with Client(KubeConfig.from_file(path)) as lk:
            return [n.metadata.name for n in lk.list(Node) if n.metadata]

    assert lightkube_nodes(fake_apiserver.kubeconfig)[:1] == ["node-0"]
    with pytest.raises(ApiError) as caught:
        lightkube_nodes(_kubeconfig(fake_apiserver, tmp_path, token="not-this-servers"))
    assert caught.value.status.code == 401
    api = kr8s.api(kubeconfig=fake_apiserver.kubeconfig)
    assert [n.name for n in api.get("nodes")][:1] == ["node-0"]


def test_fakekube_remote_authenticates_over_tls(fake_apiserver: ClusterServer, tmp_path: Path) -> None:
    from fakekube.errors import ApiError
    from fakekube.remote.kubeconfig import load_kubeconfig
    from fakekube.remote.transport import ServerClock, Transport

    good = Transport(load_kubeconfig(fake_apiserver.kubeconfig), ServerClock())
    assert good.https and good.request("GET", "/api/v1/nodes")["items"][0]["metadata"]["name"] == "node-0"
    wrong = Transport(load_kubeconfig(_kubeconfig(fake_apiserver, tmp_path, token="not-this-servers")),
                      ServerClock())
    with pytest.raises(ApiError) as caught:
        wrong.request("GET", "/api/v1/nodes")
    assert caught.value.code == 401
