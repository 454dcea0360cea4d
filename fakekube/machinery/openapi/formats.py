"""The string ``format`` checks of kube-openapi's ``formatValidator`` (``strfmt``), the cheap ones.

Modelled: ``date-time``, ``date``, the ``uuid`` family, ``byte``, ``ipv4``, ``ipv6``, ``cidr`` and
(Kubernetes >= 1.34) ``k8s-short-name``/``k8s-long-name``; every other kept format passes.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import re
from typing import Final

__all__ = ["format_ok"]


# Patterns are plain strings: ``re`` compiles (and caches) them on first use, keeping import cheap.
_DATE_RE: Final = r"(?a)\d{4}-\d{2}-\d{2}\Z"
_TIME_RE: Final = r"(?a)(\d{2}):(\d{2}):(\d{2})(.\d+)?(z|[+-]\d{2}:\d{2})\Z"
_UUID_RES: Final = {
    "uuid": r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\Z",
    "uuid3": r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}\Z",
    "uuid4": r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}\Z",
    "uuid5": r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}\Z",
}
_K8S_SHORT_RE: Final = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z"
_K8S_LONG_RE: Final = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z"


def _is_date(s: str) -> bool:
    """strfmt ``IsDate``: ``time.Parse("2006-01-02", s)``."""
    if not re.match(_DATE_RE, s):
        return False
    try:
        _dt.date(int(s[:4]), int(s[5:7]), int(s[8:10]))
    except ValueError:
        return False
    return True


def _is_date_time(s: str) -> bool:
    """strfmt ``IsDateTime``: split on ``t`` (case-insensitive), date part plus a clock matching the pattern."""
    if len(s) < 4:
        return False
    parts = s.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    m = re.match(_TIME_RE, parts[1])
    return m is not None and m.group(1) <= "23" and m.group(2) <= "59" and m.group(3) <= "59"


def format_ok(fmt: str, s: str) -> bool:
    """Validate the cheap string formats; formats not modelled here always pass."""
    if fmt == "datetime":
        return _is_date_time(s)
    if fmt == "date":
        return _is_date(s)
    if fmt in _UUID_RES:
        return bool(re.match(_UUID_RES[fmt], s))
    if fmt == "byte":
        try:
            base64.b64decode(s, validate=True)
        except (binascii.Error, ValueError):
            return False
        return True
    if fmt in ("ipv4", "ipv6", "cidr"):
        import ipaddress  # lazy: rarely needed
    if fmt in ("ipv4", "ipv6"):
        try:
            addr = ipaddress.ip_address(s)
        except ValueError:
            return False
        return addr.version == (4 if fmt == "ipv4" else 6)
    if fmt == "cidr":
        try:
            ipaddress.ip_network(s, strict=False)
        except ValueError:
            return False
        return "/" in s
    if fmt == "k8sshortname":
        return len(s) <= 63 and bool(re.match(_K8S_SHORT_RE, s))
    if fmt == "k8slongname":
        return len(s) <= 253 and bool(re.match(_K8S_LONG_RE, s))
    return True
