"""Shared fixtures of the HTTP document tests: an API-server-only cluster, with or without JobSet's CRD."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fakekube import FakeCluster

#: JobSet's CRD, read as data (fakekube's tests import nothing from jobset_ref).
JOBSET_CRD_PATH = Path(__file__).resolve().parents[2] / "jobset_ref" / "api" / "jobset_crd.json"


@pytest.fixture
def jobset_crd() -> dict[str, Any]:
    crd: dict[str, Any] = json.loads(JOBSET_CRD_PATH.read_text())
    return crd


@pytest.fixture
def cluster() -> FakeCluster:
    return FakeCluster(seed=0, simulate=False)


@pytest.fixture
def jobset_cluster(cluster: FakeCluster, jobset_crd: dict[str, Any]) -> FakeCluster:
    cluster.create(jobset_crd)
    return cluster
