"""The project's own suite runs every FakeCluster strict: each write of fakekube's simulators
takes the API server's whole request path and must pass it unchanged (``fakekube.cluster``).
Fixtures for users, the CLI and the benchmarks keep the fast default unless asked."""

from __future__ import annotations

import os

from fakekube.cluster import STRICT_ENV

os.environ[STRICT_ENV] = "1"
