"""The kubeconfig a served cluster writes: every client (kubectl, kubernetes, kopf, lightkube,
kr8s) reads it as is. Cluster, context and user are all named ``fakekube``; the user's one
credential is the serving server's bearer token (see ``ClusterServer.token``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["kubeconfig_text", "write_kubeconfig"]

NAME = "fakekube"


def kubeconfig_text(server_url: str, *, namespace: str = "default", token: str | None = None) -> str:
    """A kubeconfig for ``server_url`` (JSON, which is YAML: no YAML library needed to write it),
    with ``token`` as the user's bearer token when given."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": NAME, "cluster": {"server": server_url}}],
        "contexts": [{"name": NAME, "context": {"cluster": NAME, "user": NAME, "namespace": namespace}}],
        "current-context": NAME,
        "users": [{"name": NAME, "user": {"token": token} if token else {}}],
        "preferences": {},
    }
    return json.dumps(config, indent=2) + "\n"


def write_kubeconfig(path: str | os.PathLike[str], server_url: str, *, namespace: str = "default",
                     token: str | None = None) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(kubeconfig_text(server_url, namespace=namespace, token=token))
    return target
