"""Installing the reference controller imports neither pydantic nor the models (cold start)."""

from __future__ import annotations

import subprocess
import sys


def test_install_imports_no_pydantic_until_the_first_jobset() -> None:
    code = ("import sys; from fakekube import FakeCluster; import jobset_ref; "
            "jobset_ref.install(FakeCluster(seed=0)); "
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'yaml', 'celpy', 'asyncio') "
            "or m == 'jobset_ref.api.models'); "
            "assert heavy == [], heavy")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
