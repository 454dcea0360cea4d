"""A RuleBasedStateMachine driving one cluster through a JobSet's life: apply, advance, fail pods,
fail nodes, suspend, resume, delete, re-apply, restart controllers — checking every invariant
after every step."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import jobset_ref
from fakekube import FakeCluster, UsageError
from jobset_ref.api import constants as c
from jobset_ref.testing import invariants as inv
from jobset_ref.testing import strategies as s

pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")


class JobSetLifecycle(RuleBasedStateMachine):
    cluster: FakeCluster
    monitor: inv.Monitor
    manifest: dict[str, Any]
    name: str
    gates: dict[str, bool]

    @initialize(gates=st.sampled_from([{}, {c.FEATURE_RESTART_JOB: True}]), data=st.data(),
                seed=st.integers(0, 2**16), shuffle=st.booleans())
    def start(self, gates: dict[str, bool], data: st.DataObject, seed: int, shuffle: bool) -> None:
        self.gates = gates
        self.manifest = data.draw(s.jobsets(feature_gates=gates, managed_by=st.none(),
                                            suspend=st.sampled_from([None, False, True])), "jobset")
        self.name = self.manifest["metadata"]["name"]
        shape = data.draw(s.cluster_shapes(), "shape")
        scripts = data.draw(s.pod_scripts(self.manifest, max_duration=40), "scripts")
        self.cluster = FakeCluster(seed, shuffle_ties=shuffle)
        shape.apply(self.cluster)
        jobset_ref.install(self.cluster, feature_gates=gates or None)
        self.monitor = inv.Monitor(self.cluster)
        scripts.apply(self.cluster)
        self.cluster.apply(copy.deepcopy(self.manifest))

    def _exists(self) -> bool:
        return self.cluster.exists(inv.JOBSETS, self.name)

    def _running_pods(self) -> list[str]:
        return [p["metadata"]["name"] for p in inv.Snapshot.take(self.cluster, self.name).pods
                if p["status"].get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")]

    @rule(seconds=st.sampled_from([0.5, 1, 3, 10, 30]))
    def advance(self, seconds: float) -> None:
        self.cluster.advance(seconds)

    @rule(data=st.data(), code=st.sampled_from([1, 2, 137]))
    def fail_pod(self, data: st.DataObject, code: int) -> None:
        pods = self._running_pods()
        if pods:
            pod = data.draw(st.sampled_from(pods), "pod")
            with contextlib.suppress(UsageError):  # e.g. its container is in restart back-off
                self.cluster.fail_pod(pod, exit_code=code, reason="OOMKilled" if code == 137 else "Error")

    @rule(data=st.data())
    def complete_pod(self, data: st.DataObject) -> None:
        pods = self._running_pods()
        if pods:
            with contextlib.suppress(UsageError):
                self.cluster.complete_pod(data.draw(st.sampled_from(pods), "pod"))

    @rule(data=st.data())
    def fail_node(self, data: st.DataObject) -> None:
        line = s.FailNode(0, data.draw(st.integers(0, 20), "node")).apply(self.cluster, s.FaultContext(self.name))
        del line

    @precondition(lambda self: self._exists())
    @rule(value=st.booleans())
    def set_suspend(self, value: bool) -> None:
        self.cluster.patch(inv.JOBSETS, self.name, {"spec": {"suspend": value}})

    @precondition(lambda self: self._exists())
    @rule(policy=st.sampled_from([None, "Foreground", "Background"]))
    def delete(self, policy: str | None) -> None:
        self.cluster.delete(inv.JOBSETS, self.name, propagation_policy=policy)

    @precondition(lambda self: not self._exists())
    @rule()
    def reapply(self) -> None:
        self.cluster.apply(copy.deepcopy(self.manifest))

    @rule()
    def restart_controllers(self) -> None:
        self.cluster.runtime.restart_informers()
        self.cluster.run_until_idle()

    @invariant()
    def every_invariant_holds(self) -> None:
        if not hasattr(self, "cluster"):
            return
        inv.assert_invariants(self.cluster, self.name, monitor=self.monitor, feature_gates=self.gates,
                              context=f"at t={self.cluster.elapsed:g}s")


TestJobSetLifecycle = JobSetLifecycle.TestCase
TestJobSetLifecycle.settings = settings(max_examples=20, stateful_step_count=15)
