"""The README's "Real clients" section works as written: its kopf example runs as a downstream
project's test, and its shell commands (``jobset-ref serve`` then kubectl) work."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
SECTION = README.split("## Real clients", 1)[1].split("\n## ", 1)[0]

pytest_plugins = ["pytester"]


def test_the_kopf_example_passes_as_a_downstream_test(pytester: pytest.Pytester,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("kopf")
    code = re.search(r"```python\n(# test_labeller.py.*?)```", SECTION, re.S)
    assert code is not None, "the README's Real clients section lost its kopf example"
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    (pytester.path / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "pytorch.yaml", pytester.path / "examples" / "pytorch.yaml")
    pytester.makepyfile(test_labeller=code.group(1))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(passed=1)


def test_the_serve_command_and_kubectl(tmp_path: Path) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not on PATH")
    shell = re.search(r"```bash\n(jobset-ref serve .*?)\n(KUBECONFIG=.*?)\n```", SECTION, re.S)
    assert shell is not None, "the README's Real clients section lost its shell example"
    serve_args = shell.group(1).split("#")[0].strip().rstrip("&").split()[2:]
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {**os.environ, "KUBECACHEDIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "jobset_ref.cli", "serve", *serve_args], cwd=tmp_path,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        assert re.fullmatch(r"https://127\.0\.0\.1:\d+", url), url
        command = shell.group(2).split()
        env[command[0].split("=")[0]] = str(tmp_path / command[0].split("=")[1])
        out = subprocess.run([kubectl, *command[2:]], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        assert re.search(r"^jobset\.jobset\.x-k8s\.io/pytorch\s", out.stdout, re.M), out.stdout
        assert re.search(r"^job\.batch/pytorch-workers-0\s", out.stdout, re.M), out.stdout
        assert len(re.findall(r"^pod/pytorch-workers-0-\d-\w{5}\s", out.stdout, re.M)) == 4, out.stdout
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=10) == 0
