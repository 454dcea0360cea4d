"""The kubeconfig a served cluster writes: every client (kubectl, kubernetes, kopf, lightkube,
kr8s, @kubernetes/client-node) reads it as is. Cluster, context and user are all named
``fakekube``; the user's one credential is the serving server's bearer token (see
``ClusterServer.token``); over TLS the cluster carries the server's CA as
``certificate-authority-data``."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

__all__ = ["kubeconfig_text", "write_kubeconfig"]

NAME = "fakekube"


def kubeconfig_text(server_url: str, *, namespace: str = "default", token: str | None = None,
                    ca_pem: bytes | None = None) -> str:
    """A kubeconfig for ``server_url`` (JSON, which is YAML: no YAML library needed to write it),
    with ``token`` as the user's bearer token and ``ca_pem`` as the CA to trust, when given."""
    cluster: dict[str, str] = {"server": server_url}
    if ca_pem is not None:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": NAME, "cluster": cluster}],
        "contexts": [{"name": NAME, "context": {"cluster": NAME, "user": NAME, "namespace": namespace}}],
        "current-context": NAME,
        "users": [{"name": NAME, "user": {"token": token} if token else {}}],
        "preferences": {},
    }
    return json.dumps(config, indent=2) + "\n"


def write_kubeconfig(path: str | os.PathLike[str], server_url: str, *, namespace: str = "default",
                     token: str | None = None, ca_pem: bytes | None = None) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(kubeconfig_text(server_url, namespace=namespace, token=token, ca_pem=ca_pem))
    return target
