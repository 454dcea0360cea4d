"""The official JavaScript client, ``@kubernetes/client-node``, unchanged, against a served cluster
over TLS with the served kubeconfig as it is: an informer, a create and a watch (see
``node/client_node.mjs``).

Needs ``node`` and ``npm`` on PATH; the package is installed once per machine into a cache
directory outside the project (``$JOBSET_REF_NODE_CACHE``, default
``~/.cache/jobset-ref/client-node-<version>``), never committed. Without node, npm or the
registry, the test is skipped and says which was missing.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from fakekube.http.server import ClusterServer

VERSION = "1.4.0"
SCRIPT = Path(__file__).resolve().parent / "node" / "client_node.mjs"
NODE, NPM = shutil.which("node"), shutil.which("npm")
JOBSET = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "from-node"},
          "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {
              "parallelism": 2, "completions": 2,
              "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}]}}

pytestmark = pytest.mark.skipif(NODE is None or NPM is None, reason="node and npm are not both on PATH: the "
                                "@kubernetes/client-node test needs them")


def _client_node() -> Path:
    """The directory whose node_modules holds the package (installed on first use, under a lock)."""
    root = Path(os.environ.get("JOBSET_REF_NODE_CACHE")
                or Path.home() / ".cache" / "jobset-ref" / f"client-node-{VERSION}")
    root.mkdir(parents=True, exist_ok=True)
    marker = root / "node_modules" / "@kubernetes" / "client-node" / "package.json"
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two xdist workers install it once
        if not marker.exists():
            assert NPM is not None
            (root / "package.json").write_text('{"private": true}\n')
            try:
                done = subprocess.run([NPM, "install", "--no-audit", "--no-fund", "--silent",
                                       f"@kubernetes/client-node@{VERSION}"], cwd=root, capture_output=True,
                                      text=True, timeout=300, check=False)
            except subprocess.TimeoutExpired:
                pytest.skip(f"npm did not install @kubernetes/client-node@{VERSION} within 300 s (no registry?)")
            if done.returncode != 0 or not marker.exists():
                pytest.skip(f"npm could not install @kubernetes/client-node@{VERSION} into {root}: "
                            f"{(done.stderr or done.stdout).strip()[-300:]}")
    return root


def test_informer_create_and_watch_over_tls_with_the_served_kubeconfig(fake_apiserver: ClusterServer) -> None:
    root = _client_node()
    script = root / SCRIPT.name  # beside node_modules, so the import resolves
    with contextlib.suppress(FileNotFoundError):
        script.unlink()
    shutil.copyfile(SCRIPT, script)
    env = {**os.environ, "KUBECONFIG": fake_apiserver.kubeconfig, "JOBSET": json.dumps(JOBSET)}
    env.pop("NODE_TLS_REJECT_UNAUTHORIZED", None)  # the CA in the kubeconfig must be what is trusted
    assert NODE is not None
    done = subprocess.run([NODE, str(script)], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["server"] == fake_apiserver.url and seen["server"].startswith("https://")
    assert seen["created"] == {"name": "from-node", "uid": True, "managers": ["node-fetch"]}  # its User-Agent
    pods = sorted(p["metadata"]["name"] for p in fake_apiserver.cluster.list("Pod", "default"))
    assert seen["informer"] == pods and len(pods) == 2  # made by the reference controller and the Job controller
    assert seen["watch"][0] == "ADDED from-node"
    assert seen["notFound"]["code"] == 404
    assert seen["notFound"]["body"]["reason"] == "NotFound"
    assert seen["notFound"]["body"]["message"] == 'configmaps "absent" not found'
    assert seen.get("informerError") is None, seen["informerError"]

