"""``jobframework/workload_names.go``: the name of a job's Workload.

``<kind in lower case>-<job name>`` cut to leave room for ``-`` and five hex digits of a SHA-1
over the owner's kind, group, name and UID (and an extra part for workload slices). Names are up
to 253 characters (``ShortWorkloadNames`` is off in v0.19.2).
"""

from __future__ import annotations

import hashlib

HASH_LENGTH = 5
MAX_WORKLOAD_NAME_LENGTH = 253  # longMaxWorkloadNameLength; the short form (63) is behind an alpha gate
MAX_PREFIX_LENGTH = MAX_WORKLOAD_NAME_LENGTH - 1 - HASH_LENGTH


def _hash(owner_name: str, owner_uid: str, kind: str, group: str, extra: str) -> str:
    parts = [kind, group, owner_name, owner_uid] + ([extra] if extra else [])
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()


def workload_name_for_owner(owner_name: str, owner_uid: str, api_version: str, kind: str, extra: str = "") -> str:
    """``GetWorkloadNameForOwnerWithGVK`` (``GenerateWorkloadNameWithExtra`` when ``extra`` is set)."""
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    prefix = (kind.lower() + "-" + owner_name)[:MAX_PREFIX_LENGTH]
    return f"{prefix}-{_hash(owner_name, owner_uid, kind, group, extra)[:HASH_LENGTH]}"
