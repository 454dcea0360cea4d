"""What the remote transport needs from a kubeconfig: the current context's server URL and, when
present, its bearer token, CA certificate and client certificate (paths or inline base64 data)."""

from __future__ import annotations

import base64
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from fakekube.errors import UsageError

__all__ = ["Connection", "load_kubeconfig"]


@dataclass(frozen=True, slots=True)
class Connection:
    """Where and how to reach one API server."""

    server: str
    token: str | None = None
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    insecure: bool = False
    namespace: str = "default"


def _named(config: dict[str, Any], section: str, name: str, path: str) -> dict[str, Any]:
    for entry in config.get(section) or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            return entry.get(section[:-1]) or {}
    raise UsageError(f"{path}: no {section[:-1]} named {name!r} in the kubeconfig")


def _file(entry: dict[str, Any], key: str, base: Path) -> str | None:
    """A path (relative to the kubeconfig) or inline ``<key>-data`` written to a private temp file."""
    data = entry.get(f"{key}-data")
    if data:
        fd, name = tempfile.mkstemp(prefix="fakekube-remote-")
        with os.fdopen(fd, "wb") as out:
            out.write(base64.b64decode(data))
        return name
    value = entry.get(key)
    if not value:
        return None
    return str(base / value) if not os.path.isabs(value) else str(value)


def load_kubeconfig(path: str | os.PathLike[str], context: str | None = None) -> Connection:
    """Read the ``context`` (default: ``current-context``) of the kubeconfig at ``path``."""
    file = Path(path)
    try:
        config = yaml.safe_load(file.read_text())
    except OSError as err:
        raise UsageError(f"cannot read the kubeconfig {str(path)!r}: {err.strerror or err}") from None
    except yaml.YAMLError as err:
        raise UsageError(f"{path}: not a kubeconfig (invalid YAML: {err})") from None
    if not isinstance(config, dict):
        raise UsageError(f"{path}: not a kubeconfig (expected a mapping with clusters, contexts and users)")
    name = context or config.get("current-context")
    if not name:
        raise UsageError(f"{path}: the kubeconfig names no current-context")
    ctx = _named(config, "contexts", name, str(path))
    cluster = _named(config, "clusters", str(ctx.get("cluster")), str(path))
    user = _named(config, "users", str(ctx.get("user")), str(path)) if ctx.get("user") else {}
    server = cluster.get("server")
    if not isinstance(server, str) or not server.startswith(("http://", "https://")):
        raise UsageError(f"{path}: cluster {ctx.get('cluster')!r} has no http(s) server URL (got {server!r})")
    base = file.parent
    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = Path(_file(user, "tokenFile", base) or "").read_text().strip()
    return Connection(server=server.rstrip("/"), token=token or None,
                      ca_file=_file(cluster, "certificate-authority", base),
                      cert_file=_file(user, "client-certificate", base), key_file=_file(user, "client-key", base),
                      insecure=bool(cluster.get("insecure-skip-tls-verify")),
                      namespace=str(ctx.get("namespace") or "default"))
