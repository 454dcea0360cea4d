"""The documentation stays true to the code."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_deviation_marker_is_documented() -> None:
    doc = (ROOT / "docs" / "deviations.md").read_text()
    missing = []
    for path in sorted([*(ROOT / "fakekube").rglob("*.py"), *(ROOT / "jobset_ref").rglob("*.py")]):
        if "DEVIATION(upstream)" in path.read_text():
            rel = str(path.relative_to(ROOT))
            if f"`{rel}`" not in doc and f"`{rel} " not in doc:
                missing.append(rel)
    assert missing == [], f"document these DEVIATION(upstream) markers in docs/deviations.md: {missing}"


def test_readme_quickstart_matches_ci() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    quickstart = readme.split("## Quickstart", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    commands = re.findall(r"^pip install .*$", quickstart, flags=re.M)
    assert len(commands) == 2, commands
    test_command = commands[1]
    assert test_command in ci, f"CI must run the README's test command: {test_command!r}"
    example = re.search(r"jobset-ref simulate (\S+)", commands[0])
    assert example is not None and (ROOT / example.group(1)).is_file()


def test_readme_names_the_python_versions_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    named = re.search(r"CI runs it on Python ([0-9., and]+);", readme.replace("\n", " "))
    assert named is not None, "README's Quickstart must say which Python versions CI runs"
    minimum = re.search(r'requires-python = ">=([0-9.]+)"', (ROOT / "pyproject.toml").read_text())
    extra = re.search(r"^EXTRA_VERSIONS=\(([^)]*)\)$", (ROOT / ".ci" / "run").read_text(), flags=re.M)
    assert minimum is not None and extra is not None
    assert re.findall(r"3\.\d+", named.group(1)) == [minimum.group(1), *extra.group(1).split()]
