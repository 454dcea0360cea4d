"""Reading an ``Accept`` header the way kube-apiserver negotiates alternative representations.

Clients ask for a different representation of the same data with media-type parameters:
``application/json;as=Table;v=v1;g=meta.k8s.io`` (server-side printing, sent by ``kubectl get``) or
``application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`` (aggregated discovery).
The ranges are tried in the order the client lists them; a plain JSON range (no ``as``) means the
ordinary representation.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

__all__ = ["media_ranges", "negotiate_as"]

_PLAIN = frozenset({"application/json", "application/*", "*/*"})


def media_ranges(accept: str | None) -> Iterator[tuple[str, dict[str, str]]]:
    """Each media range of ``accept`` as ``(type, parameters)``: type lower-cased, parameter names
    lower-cased, values unquoted, in the header's order."""
    for media_range in (accept or "").split(","):
        media, *params = (part.strip() for part in media_range.split(";"))
        if not media:
            continue
        parsed: dict[str, str] = {}
        for param in params:
            key, _, value = param.partition("=")
            parsed[key.strip().lower()] = value.strip().strip('"')
        yield media.lower(), parsed


def negotiate_as(accept: str | None, *, group: str, kind: str, versions: Sequence[str]) -> str | None:
    """The version (one of ``versions``) of the first range of ``accept`` asking for ``kind`` of
    ``group`` as JSON, or ``None`` when no range does or when a plain JSON range comes first."""
    for media, params in media_ranges(accept):
        if "as" in params:
            if (media == "application/json" and params["as"] == kind and params.get("g") == group
                    and params.get("v") in versions):
                return params["v"]
        elif media in _PLAIN:
            return None
    return None
