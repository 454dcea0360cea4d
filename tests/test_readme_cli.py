"""The README's CLI commands and its pytest example work as written."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from jobset_ref.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _section(title: str) -> str:
    return README.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def _commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", _section("The CLI") + _section("Quickstart (Python 3.11)")
                        + _section("Kueue"), re.S)
    lines = [line for block in blocks for line in block.splitlines()]
    return [line.split("&&")[-1].strip() for line in lines if "jobset-ref " in line]


def test_the_readme_shows_cli_commands() -> None:
    commands = _commands()
    assert len(commands) >= 8
    assert any("--gantt" in c for c in commands) and any("--at" in c for c in commands)


@pytest.mark.parametrize("command", _commands())
def test_each_readme_command_works_as_written(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("examples", "jobset_ref"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(command, comments=True)
    assert argv[0] == "jobset-ref"
    code = main(argv[1:])
    out, err = capsys.readouterr()
    assert code == 0, f"{command}\n{err}"
    assert "Traceback" not in err and out
    if "--gantt" in argv:
        assert (tmp_path / argv[argv.index("--gantt") + 1]).read_text().startswith("<!DOCTYPE html>")


def test_the_pytest_example_passes_as_written(tmp_path: Path) -> None:
    code = re.search(r"```python\n(from jobset_ref\.testing.*?)```", _section("In your tests (the pytest plugin)"), re.S)
    assert code is not None, "the README's pytest example is gone"
    test_file = tmp_path / "test_readme_example.py"
    test_file.write_text(code.group(1))
    (tmp_path / "none.ini").write_text("[pytest]\n")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:xdist",
                             "--rootdir", str(tmp_path), "-c", str(tmp_path / "none.ini"), str(test_file)],
                            cwd=ROOT, capture_output=True, text=True, check=False, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_the_readme_python_examples_use_what_they_import() -> None:
    """An import the example never uses teaches nothing; the helpers people ask for are shown."""
    import ast

    unused = []
    for block in re.findall(r"```python\n(.*?)```", README, re.S):
        if "..." in block:  # the harness tour has placeholders: it is read, not run
            continue
        tree = ast.parse(block)
        imported = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, ast.Import | ast.ImportFrom) for alias in node.names}
        used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} | \
               {node.value.id for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)}
        unused += sorted(imported - used)
    assert unused == []
    example = _section("In your tests (the pytest plugin)")
    assert "jobs_of(jobset_cluster" in example and "pods_of(jobset_cluster" in example
