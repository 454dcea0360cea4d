"""How long a pod without a script runs: one default for the CLI and the pytest fixtures.

A pod's containers run ``DEFAULT_RUN_SECONDS`` virtual seconds and exit 0, unless the pod says
otherwise (annotation ``fakekube.io/run-seconds``), a test scripts it (``cluster.script_pods``,
later scripts win), or the default is changed: ``jobset-ref simulate --run-seconds N`` (0: run
forever) and ``@pytest.mark.fakekube(run_seconds=N)`` (None: run forever, as a bare
``FakeCluster`` does)."""

from __future__ import annotations

__all__ = ["DEFAULT_RUN_SECONDS"]

DEFAULT_RUN_SECONDS = 60.0
