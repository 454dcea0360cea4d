"""TLS for a served cluster, as kube-apiserver, envtest and kind serve it: a certificate authority
drawn for each server (``trustme``), a serving certificate it signs for the addresses clients dial,
and the CA handed to clients (in the kubeconfig as ``certificate-authority-data``, as a PEM file
and as a client-side ``ssl.SSLContext`` for raw-HTTP users).

The keys are drawn by the ``cryptography`` library from the operating system's randomness: they
decide nothing in the simulation, so no seed governs them (as with the bearer token).
"""

from __future__ import annotations

import ipaddress
import ssl
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ServerTLS", "make_tls"]

#: Names every serving certificate carries, beside the address the server binds.
LOOPBACK = ("127.0.0.1", "::1", "localhost")


@dataclass(frozen=True, slots=True)
class ServerTLS:
    """The TLS material of one server."""

    ca_pem: bytes
    ca_file: str
    server_context: ssl.SSLContext
    client_context: ssl.SSLContext


def _identities(host: str) -> list[str]:
    names = list(LOOPBACK)
    try:
        unspecified = ipaddress.ip_address(host).is_unspecified
    except ValueError:
        unspecified = False
    if host and not unspecified and host not in names:
        names.append(host)
    return names


def make_tls(host: str, directory: str | Path) -> ServerTLS:
    """A fresh CA and a certificate for ``host`` (and loopback); the CA's PEM is written to
    ``directory``/ca.crt."""
    import trustme  # imported here: plain-HTTP servers and in-process runs never load cryptography

    ca = trustme.CA(organization_name="fakekube", organization_unit_name="served cluster")
    cert = ca.issue_cert(*_identities(host), common_name="fakekube-apiserver")
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(server_context)
    client_context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    ca.configure_trust(client_context)
    ca_file = Path(directory) / "ca.crt"
    ca_file.write_bytes(ca.cert_pem.bytes())
    return ServerTLS(ca_pem=ca.cert_pem.bytes(), ca_file=str(ca_file), server_context=server_context,
                     client_context=client_context)
