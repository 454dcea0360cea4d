"""The strict type checker runs with the suite (issue 26).

- the packages: ``python -m mypy`` with the ``[tool.mypy]`` of pyproject.toml (``fakekube`` and
  ``jobset_ref``, ``strict``) reports no error;
- a user's test file (``tests/typing/user_suite.py``: the harness, faults, reactors, fixtures and
  builders, annotated as an operator author would) is clean under ``mypy --strict``, with both
  packages found as installed packages (so only through their ``py.typed``), and a wrong use of
  the same API is reported;
- every ``# type: ignore`` in the packages names its error code and says why on the same line.

Each mypy run keeps its own cache under the clone's ``.mypy_cache`` (git-ignored), so reruns are
incremental and two runs at once (pytest-xdist workers) never write the same cache.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fakekube", "jobset_ref")
USER_SUITE = ROOT / "tests" / "typing" / "user_suite.py"

pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[test]')")


def mypy(*argv: str, cwd: Path, cache: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m mypy ARGV`` in ``cwd`` with the cache ``.mypy_cache/<cache>`` of the clone."""
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(ROOT / ".mypy_cache" / cache), *argv],
                          cwd=cwd, capture_output=True, text=True, check=False, timeout=900,
                          env={**os.environ, **(env or {})})


def test_mypy_strict_is_clean_over_both_packages() -> None:
    result = mypy(cwd=ROOT, cache="suite-packages")
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"mypy --strict ([tool.mypy] in pyproject.toml) reports:\n{output}"
    assert re.search(r"^Success: no issues found in \d+ source files$", result.stdout, re.M), output


#: A wrong use of the public API per line, each with the error code mypy must report on it.
MISUSE = '''\
from fakekube import FakeCluster, Reactor
from fakekube.faults import FailPod, PodTarget
from jobset_ref.testing.builders import make_jobset


def test_wrong(jobset_cluster: FakeCluster) -> None:
    jobset_cluster.create(42)  # arg-type
    jobset_cluster.get("JobSet", "js", namespce="default")  # call-arg
    jobset_cluster.inject(Reactor(verb="update", nth="1"))  # arg-type
    FailPod(PodTarget(hostname="js-workers-0-0"), exit_code="137")  # arg-type
    make_jobset("js").replicated_job(42)  # arg-type
    nodes: list[str] = jobset_cluster.list("nodes")  # assignment
    jobset_cluster.advance(seconds=5)  # call-arg
'''


def test_a_users_test_file_type_checks_against_the_installed_packages(tmp_path: Path) -> None:
    """mypy runs outside the clone and finds the packages where the interpreter imports them from,
    as installed packages: one without ``py.typed`` would be "missing library stubs or py.typed
    marker" and leave the user's code unchecked."""
    import fakekube
    import jobset_ref

    homes = {str(Path(module.__file__ or "").resolve().parents[1]) for module in (fakekube, jobset_ref)}
    for module in (fakekube, jobset_ref):
        assert (Path(module.__file__ or "").parent / "py.typed").is_file(), f"{module.__name__} has no py.typed"
    misuse = tmp_path / "test_misuse.py"
    misuse.write_text(MISUSE)
    # No config file: the flags a user would give; the packages' folders are on the interpreter's path.
    result = mypy("--strict", "--config-file", os.devnull, "--no-error-summary", "--hide-error-context",
                  "--show-error-codes", str(USER_SUITE), misuse.name,
                  cwd=tmp_path, cache="suite-user", env={"PYTHONPATH": os.pathsep.join(sorted(homes))})
    output = result.stdout + result.stderr
    errors = re.findall(r"^(.+?):(\d+): error: .*\[([a-z-]+)\]$", result.stdout, re.M)
    assert [e for e in errors if e[0] != misuse.name] == [], f"the user suite does not type-check:\n{output}"
    expected = [(misuse.name, str(number), m.group(1))
                for number, line in enumerate(MISUSE.splitlines(), 1) if (m := re.search(r"# ([a-z-]+)$", line))]
    assert errors == expected, f"mypy missed (or added) errors in a wrong use of the API:\n{output}"


def _ignores(path: Path) -> list[tuple[int, str]]:
    """(line, comment) of each comment of ``path`` that carries a ``type: ignore``."""
    text = path.read_text()
    if not re.search(r"type:\s*ignore", text):
        return []  # most files: no need to tokenize them
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [(tok.start[0], tok.string) for tok in tokens
            if tok.type == tokenize.COMMENT and re.search(r"type:\s*ignore", tok.string)]


#: ``# type: ignore[code, code]  # why``: the codes, then a reason (not just a linter's pragma).
EXPLAINED_IGNORE = re.compile(r"# type: ignore\[[a-z][a-z0-9-]*(, ?[a-z][a-z0-9-]*)*\]\s+#\s*(?!noqa\b)\w.*")


def test_every_type_ignore_names_its_error_code_and_why() -> None:
    bare = [f"{path.relative_to(ROOT)}:{line}: {comment}"
            for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
            for line, comment in _ignores(path) if not EXPLAINED_IGNORE.search(comment)]
    assert bare == [], ("write each as `# type: ignore[code]  # why the checker is wrong here`:\n"
                        + "\n".join(bare))


def test_the_ignore_rule_tells_an_explained_ignore_from_a_bare_one(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('x = 1  # type: ignore[assignment]  # set by the loader at import\n'
                      'y = 2  # type: ignore[arg-type,union-attr]  # both: the CRD says so\n'
                      'z = 3  # type: ignore\n'
                      'w = 4  # type: ignore[assignment]\n'
                      'v = 5  # type: ignore[misc]  # noqa: E501\n'
                      's = "# type: ignore"\n')
    verdicts = [bool(EXPLAINED_IGNORE.search(comment)) for _, comment in _ignores(sample)]
    assert verdicts == [True, True, False, False, False]
