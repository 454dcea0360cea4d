"""``kubectl explain`` teaches the JobSet API: every field of the CRD's schema has a description
(written for this project, :mod:`jobset_ref.api.descriptions`), served through OpenAPI v3."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fakekube.http.server import ClusterServer
from jobset_ref.api.crd import jobset_crd, openapi_schema
from jobset_ref.api.descriptions import DESCRIPTIONS

KUBECTL = shutil.which("kubectl")


def _explain(server: ClusterServer, tmp_path: Path, *args: str) -> str:
    assert KUBECTL is not None
    env = {**os.environ, "KUBECONFIG": server.kubeconfig, "KUBECACHEDIR": str(tmp_path / "cache")}
    done = subprocess.run([KUBECTL, "explain", *args], env=env, capture_output=True, text=True, timeout=30,
                          check=False)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done.stdout


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH")
def test_kubectl_explain_prints_the_descriptions(fake_apiserver: ClusterServer, tmp_path: Path) -> None:
    spec = _explain(fake_apiserver, tmp_path, "jobset.spec")
    assert "<no description>" not in spec
    assert "DESCRIPTION:\n    The desired state: which Jobs to run and the policies that govern them." in spec
    assert "  ttlSecondsAfterFinished\t<integer>\n    Seconds after the JobSet finishes" in spec
    deep = _explain(fake_apiserver, tmp_path, "jobset.spec.failurePolicy.rules.action")
    assert "FIELD: action <string>" in deep and "FailJobSet: fail the JobSet now." in deep
    assert "ENUM:\n    FailJobSet" in deep
    recursive = _explain(fake_apiserver, tmp_path, "jobset.spec.replicatedJobs.dependsOn")
    assert "ReplicatedJobs that must reach a status" in recursive
    assert "Ready: every Job of that ReplicatedJob is ready" in recursive
    status = _explain(fake_apiserver, tmp_path, "jobset.status")
    assert "<no description>" not in status


def _fields_without_description(node: dict[str, Any], path: str) -> list[str]:
    missing = []
    for name, child in (node.get("properties") or {}).items():
        where = f"{path}.{name}"
        if "description" not in child:
            missing.append(where)
        if where.endswith((".template", ".templates", ".metadata")):
            continue  # embedded Kubernetes objects: their schemas come from the built-in definitions
        missing += _fields_without_description(child.get("items") or child, where)
    return missing


def test_every_jobset_field_has_a_description_and_every_description_a_field() -> None:
    schema = jobset_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert schema["description"].startswith("A JobSet runs a group of Kubernetes Jobs")
    assert _fields_without_description(schema, "jobset") == []
    from jobset_ref.api import models

    for model, field in DESCRIPTIONS:
        cls = getattr(models, model)
        assert field == "" or field in {info.alias or name for name, info in cls.model_fields.items()}, (model, field)
    assert openapi_schema(models.DependsOn)["properties"]["status"]["description"].startswith("What to wait for.")
