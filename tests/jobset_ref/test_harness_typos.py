"""A typo in a JobSet applied through the harness is never silent (issue 25, item 8): the
cluster warns as kube-apiserver does (Warn, its default), or refuses it under Strict."""

from __future__ import annotations

import warnings

import pytest

import jobset_ref
from fakekube import ApiWarning, BadRequest, FakeCluster

TYPO = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: typo}
spec:
  replicatedJobs:
  - name: workers
    replicas: 1
    template:
      spec:
        backofLimit: 0
        template:
          spec:
            restartPolicy: Never
            containers: [{name: main, image: busybox}]
"""
UNKNOWN = 'unknown field "spec.replicatedJobs[0].template.spec.backofLimit"'


def test_apply_warns_with_kube_apiserver_s_text_at_the_caller_s_line() -> None:
    cluster = FakeCluster(seed=0)
    jobset_ref.install(cluster)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cluster.apply(TYPO)
    assert [(w.category, str(w.message), w.filename) for w in caught] == [(ApiWarning, UNKNOWN, __file__)]
    # What the warning is about: the misspelled limit was dropped, so the Job gets the default of 6.
    [job] = cluster.list("jobs", "default")
    assert job["spec"]["backoffLimit"] == 6


def test_a_strict_cluster_refuses_it_and_stores_nothing() -> None:
    cluster = FakeCluster(seed=0, field_validation="Strict")
    jobset_ref.install(cluster)
    rv = cluster.api.store.rv
    with pytest.raises(BadRequest) as err:
        cluster.apply(TYPO)
    assert err.value.message == ('JobSet in version "v1alpha2" cannot be handled as a JobSet: strict decoding '
                                 f"error: {UNKNOWN}")
    assert cluster.api.store.rv == rv
