"""What the project's own suite runs under, whichever folder of it is run.

- Every FakeCluster is strict: each write of fakekube's simulators takes the API server's whole
  request path and must pass it unchanged (``fakekube.cluster``). Fixtures for users, the CLI and
  the benchmarks keep the fast default unless asked.
- Hypothesis draws the same examples on every run (``derandomize``): a red or green suite is a
  fact about the code, not about a draw, so CI on a clean clone agrees with the run before it.
  Looking for new counterexamples is a separate, random run:
  ``pytest --hypothesis-profile=explore`` (the examples it finds are saved and replayed by later
  explore runs), and ``--hypothesis-profile=thorough`` for long ones.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from fakekube.cluster import STRICT_ENV

os.environ[STRICT_ENV] = "1"

# Each profile says whether it draws at random and where it saves, rather than inheriting it:
# under a CI variable (CI=..., GITLAB_CI=...) hypothesis's own parent is its derandomized,
# database-less "ci" profile, which would make explore draw the same examples every run.
_COMMON = settings(max_examples=40, stateful_step_count=25, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])
_SAVED = DirectoryBasedExampleDatabase(os.path.join(os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY", ".hypothesis"),
                                                   "examples"))
settings.register_profile("default", _COMMON, derandomize=True, database=None)
settings.register_profile("explore", _COMMON, derandomize=False, database=_SAVED)
settings.register_profile("thorough", _COMMON, derandomize=False, database=_SAVED,
                          max_examples=1000, stateful_step_count=60)
settings.load_profile("default")
