"""The pytest plugin as a downstream project sees it, and the assertion helpers.

Most tests build a throwaway project with ``pytester`` and run pytest on it in-process: the
inner session loads ``jobset_ref.pytest_plugin`` through the ``pytest11`` entry point of the
installed distribution (never ``-p`` or a conftest), exactly as a user's project would. The
one check that needs a fresh interpreter (what the plugin imports) runs in a subprocess.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from fakekube import SimulationError, UsageError
from jobset_ref.pytest_plugin import TRACE_TAIL, seed_for
from jobset_ref.testing.assertions import (
    assert_jobset_jobs,
    jobs_of,
    pods_of,
    resolve_pod,
    summary_table,
    wait_for_jobset_condition,
)

pytest_plugins = ["pytester"]

JOBSET = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: trainer}
spec:
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        backoffLimit: 0
        template:
          metadata:
            annotations: {fakekube.io/run-seconds: "60"}
          spec:
            restartPolicy: Never
            containers: [{name: main, image: busybox}]
"""

JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: pi}
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations: {fakekube.io/run-seconds: "5"}
    spec:
      restartPolicy: Never
      containers: [{name: main, image: perl}]
"""

HEADER = f"""
import sys
import pytest
from jobset_ref.testing.assertions import wait_for_jobset_condition
JOBSET = '''{JOBSET}'''
JOB = '''{JOB}'''
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """An empty downstream project whose pytest autoloads installed plugins (no conftest, no -p)."""
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    monkeypatch.delenv("PYTEST_PLUGINS", raising=False)
    return pytester


def write(pytester: pytest.Pytester, name: str, body: str) -> None:
    pytester.makepyfile(**{name: HEADER + textwrap.dedent(body)})


def section(output: str, title: str = "fakekube cluster") -> str:
    """The body of the first report section called ``title`` (up to the next ``----`` / ``====`` rule)."""
    match = re.search(rf"^-+ {title} -+\n(.*?)(?=^[-=_]{{5,}} )", output, re.S | re.M)
    assert match, f"no '{title}' section in:\n{output}"
    return match.group(1)


# ====================================================================== loading


def test_the_plugin_is_loaded_through_the_installed_entry_point(project: pytest.Pytester) -> None:
    write(project, "test_loaded", """
        import jobset_ref.pytest_plugin as plugin

        def test_registered(request):
            pm = request.config.pluginmanager
            assert pm.get_plugin("jobset_ref") is plugin
            dists = {p.__name__: d.metadata["name"] for p, d in pm.list_plugin_distinfo()}
            assert dists.get("jobset_ref.pytest_plugin") == "jobset-ref"
            assert request.config.getoption("--fakekube-trace") == "tail"
            assert request.config.getoption("--fakekube-seed") is None
    """)
    project.runpytest_inprocess().assert_outcomes(passed=1)

    help_text = project.runpytest_inprocess("--help").stdout.str()
    assert "--fakekube-seed=FAKEKUBE_SEED" in help_text
    assert "--fakekube-trace={off,tail,full}" in help_text
    project.runpytest_inprocess("--markers").stdout.fnmatch_lines(
        ["@pytest.mark.fakekube(nodes=None, seed=None, feature_gates=None, simulate=True, clock='manual', speed=1, "
         "quiet_ms=50, controller=True, run_seconds=60, field_validation='Strict', kueue=None)*"])


def test_a_project_that_never_uses_the_fixtures_imports_nothing_heavy(project: pytest.Pytester) -> None:
    # No HEADER here: the downstream test module itself must import nothing of ours.
    project.makepyfile(test_plain=textwrap.dedent("""
        import sys

        def test_plugin_is_active(request):
            assert request.config.pluginmanager.get_plugin("jobset_ref") is not None

        def test_nothing_heavy_was_imported():
            heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("fakekube", "pydantic")
                           or (m.startswith("jobset_ref.") and m not in ("jobset_ref.pytest_plugin", "jobset_ref._lazy")))
            assert heavy == []
    """))
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-v")
    result.stdout.fnmatch_lines(["*::test_plugin_is_active PASSED*"])
    result.assert_outcomes(passed=2)


# ====================================================================== fixtures


def test_fixtures_give_a_full_simulation(project: pytest.Pytester) -> None:
    write(project, "test_fixtures", """
        SIMULATORS = {"GarbageCollector", "JobController", "Scheduler", "Kubelet", "Dns",
                      "NamespaceController"}

        def kinds(cluster):
            return {type(c).__name__ for c in cluster.components.values()}

        def node_names(cluster):
            return [n["metadata"]["name"] for n in cluster.list("nodes")]

        def test_fake_cluster(fake_cluster):
            assert fake_cluster.simulate and kinds(fake_cluster) == SIMULATORS
            assert node_names(fake_cluster) == []
            assert fake_cluster.elapsed == 0.0
            assert not fake_cluster.exists("customresourcedefinitions", "jobsets.jobset.x-k8s.io", None)

        @pytest.mark.fakekube(nodes=1)
        def test_a_job_runs_on_the_fake_cluster(fake_cluster):
            fake_cluster.apply(JOB)
            done = fake_cluster.run_until(
                lambda: (fake_cluster.get("Job", "pi").get("status") or {}).get("succeeded") == 1, timeout=60)
            assert done == 7.01
            [pod] = fake_cluster.list("pods", "default")
            assert (pod["spec"]["nodeName"], pod["status"]["phase"]) == ("node-0", "Succeeded")

        def test_jobset_cluster(jobset_cluster):
            assert kinds(jobset_cluster) == SIMULATORS | {"JobSetReconciler", "PodReconciler"}
            assert node_names(jobset_cluster) == ["node-0", "node-1", "node-2", "node-3"]
            jobset_cluster.apply(JOBSET)
            assert wait_for_jobset_condition(jobset_cluster, "trainer", "Completed", timeout=600) == 62.01
            pods = jobset_cluster.list("pods", "default")
            assert sorted(p["spec"]["nodeName"] for p in pods) == ["node-0", "node-1"]
            assert {p["status"]["phase"] for p in pods} == {"Succeeded"}

        def test_every_test_gets_a_fresh_cluster(jobset_cluster):
            assert jobset_cluster.list("jobsets.jobset.x-k8s.io") == []
    """)
    project.runpytest_inprocess().assert_outcomes(passed=4)


def test_the_seed_is_stable_per_test_id_and_set_by_the_option(project: pytest.Pytester) -> None:
    write(project, "test_seeds", """
        def report(request, *clusters):
            with open("seeds.txt", "a") as out:
                out.write(f"{request.node.nodeid} " + " ".join(str(c.seed) for c in clusters) + "\\n")

        def test_one(request, fake_cluster):
            report(request, fake_cluster)

        def test_two(request, jobset_cluster):
            report(request, jobset_cluster)

        @pytest.mark.parametrize("n", [1, 2])
        def test_param(request, fake_cluster, n):
            report(request, fake_cluster)

        def test_both(request, fake_cluster, jobset_cluster):
            report(request, fake_cluster, jobset_cluster)

        @pytest.mark.fakekube(seed=3)
        def test_pinned(request, fake_cluster):
            report(request, fake_cluster)
    """)

    def seeds(*args: str) -> dict[str, list[int]]:
        log = project.path / "seeds.txt"
        log.unlink(missing_ok=True)
        project.runpytest_inprocess(*args).assert_outcomes(passed=1 if args and "::" in args[0] else 6)
        found = {}
        for line in log.read_text().splitlines():
            nodeid, *values = line.split()
            found[nodeid] = [int(v) for v in values]
        return found

    first = seeds()
    ids = ["test_seeds.py::test_one", "test_seeds.py::test_two", "test_seeds.py::test_param[1]",
           "test_seeds.py::test_param[2]", "test_seeds.py::test_both"]
    assert first == {**{i: [seed_for(i)] for i in ids[:4]}, ids[4]: [seed_for(ids[4])] * 2,
                     "test_seeds.py::test_pinned": [3]}
    # The derivation is pinned (blake2b of the id), so a seed printed in CI reproduces anywhere.
    assert first["test_seeds.py::test_one"] == [3594419753]
    assert first["test_seeds.py::test_two"] == [3205208321]
    assert len({v[0] for v in first.values()}) == len(first)
    assert seeds("test_seeds.py::test_two") == {"test_seeds.py::test_two": [3205208321]}  # alone: same seed
    pinned = seeds("--fakekube-seed=7")
    assert pinned == {**{i: [7] for i in ids[:4]}, ids[4]: [7, 7], "test_seeds.py::test_pinned": [3]}


def test_marker_keywords_configure_the_cluster(project: pytest.Pytester) -> None:
    write(project, "test_marker", """
        def node_names(cluster):
            return [n["metadata"]["name"] for n in cluster.list("nodes")]

        def gates(cluster):
            return cluster.components["jobset-controller"].gates

        @pytest.mark.fakekube(nodes=2)
        def test_nodes_on_fake_cluster(fake_cluster):
            assert node_names(fake_cluster) == ["node-0", "node-1"]

        @pytest.mark.fakekube(nodes=6)
        def test_nodes_on_jobset_cluster(jobset_cluster):
            assert len(node_names(jobset_cluster)) == 6

        @pytest.mark.fakekube(nodes=0)
        def test_no_nodes(jobset_cluster):
            assert node_names(jobset_cluster) == []

        @pytest.mark.fakekube(feature_gates={"RestartJob": True})
        def test_feature_gates(jobset_cluster):
            assert gates(jobset_cluster)["RestartJob"] is True

        def test_default_feature_gates(jobset_cluster):
            assert gates(jobset_cluster)["RestartJob"] is False

        @pytest.mark.fakekube(simulate=False)
        def test_no_simulation(jobset_cluster):
            assert not jobset_cluster.simulate
            kinds = {type(c).__name__ for c in jobset_cluster.components.values()}
            assert kinds == {"JobSetReconciler", "PodReconciler"}  # no kubelet, scheduler, Job controller, GC
            assert len(node_names(jobset_cluster)) == 4
            jobset_cluster.apply(JOBSET)
            jobset_cluster.advance(120)
            assert len(jobset_cluster.list("jobs", "default")) == 2  # the JobSet controller still works...
            assert jobset_cluster.list("pods", "default") == []      # ...but nothing runs the Jobs

        @pytest.mark.fakekube(nodes=3)
        class TestClassMarker:
            def test_inherits(self, fake_cluster):
                assert len(node_names(fake_cluster)) == 3

            @pytest.mark.fakekube(nodes=1)
            def test_closest_wins(self, fake_cluster):
                assert len(node_names(fake_cluster)) == 1
    """)
    project.runpytest_inprocess().assert_outcomes(passed=8)


def test_a_bad_marker_is_a_clear_usage_error(project: pytest.Pytester) -> None:
    write(project, "test_bad_marker", """
        @pytest.mark.fakekube(node=3)
        def test_typo(fake_cluster):
            pass

        @pytest.mark.fakekube(3)
        def test_positional(fake_cluster):
            pass

        @pytest.mark.fakekube(nodes="3")
        def test_wrong_type(jobset_cluster):
            pass

        @pytest.mark.fakekube(simulate="no")
        def test_wrong_simulate(fake_cluster):
            pass

        @pytest.mark.fakekube(feature_gates={"NoSuchGate": True})
        def test_unknown_gate(jobset_cluster):
            pass

        @pytest.mark.fakekube(field_validation="strict")
        def test_wrong_field_validation(fake_cluster):
            pass
    """)
    result = project.runpytest_inprocess()
    result.assert_outcomes(errors=6)
    result.stdout.fnmatch_lines_random([
        "E * fakekube.errors.UsageError: @pytest.mark.fakekube takes only the keywords nodes=, seed=, "
        "feature_gates=, simulate=, clock=, speed=, quiet_ms=, controller=, run_seconds=, field_validation=, kueue=; "
        "got node= (did you mean nodes=?)",
        "E *UsageError: @pytest.mark.fakekube takes keywords only (nodes=, seed=, feature_gates=, simulate=, "
        "clock=, speed=, quiet_ms=, controller=, run_seconds=, field_validation=, kueue=); got positional arguments (3,)",
        "E *UsageError: @pytest.mark.fakekube(nodes=...) takes a non-negative int, got '3'",
        "E *UsageError: @pytest.mark.fakekube(simulate=...) takes True or False, got 'no'",
        "E *UsageError: unknown JobSet feature gate 'NoSuchGate'; known gates: *",
        "E *UsageError: @pytest.mark.fakekube(field_validation=...) takes 'Ignore', 'Warn', 'Strict', got 'strict'",
    ])
    assert "def _options" not in result.stdout.str()  # the plugin's own frames are hidden


TYPO = JOBSET.replace("backoffLimit: 0", "backofLimit: 0")
TYPO_PATH = "spec.replicatedJobs[0].template.spec.backofLimit"


def test_a_typo_fails_the_test_with_kubectl_s_message_unless_the_marker_relaxes_it(
        project: pytest.Pytester) -> None:
    """The fixtures validate strictly, as `kubectl apply` does by default: a misspelled field is not
    dropped silently (the Job would then run with the default backoffLimit of 6)."""
    write(project, "test_typos", f"""
        import warnings
        from fakekube import ApiWarning, BadRequest, Invalid

        TYPO = JOBSET.replace("backoffLimit: 0", "backofLimit: 0")
        KUBECTL = ('JobSet in version "v1alpha2" cannot be handled as a JobSet: strict decoding error: '
                   'unknown field "{TYPO_PATH}"')

        def test_jobset_cluster_is_strict(jobset_cluster):
            assert jobset_cluster.field_validation == "Strict"
            jobset_cluster.apply(TYPO)

        def test_strict_message(jobset_cluster):
            with pytest.raises(BadRequest) as err:
                jobset_cluster.create(__import__("yaml").safe_load(TYPO))
            assert err.value.message == KUBECTL
            assert jobset_cluster.list("jobsets.jobset.x-k8s.io") == []

        def test_fake_cluster_is_strict(fake_cluster):
            with pytest.raises(BadRequest, match='unknown field "spec.backofLimit"'):
                fake_cluster.apply(JOB.replace("backoffLimit", "backofLimit"))
            fake_cluster.apply(JOB)
            with pytest.raises(Invalid, match='unknown field "spec.paralelism"'):
                fake_cluster.patch("Job", "pi", {{"spec": {{"paralelism": 2}}}})

        def test_fake_apiserver_cluster_is_strict(fake_apiserver):
            assert fake_apiserver.cluster.field_validation == "Strict"

        @pytest.mark.fakekube(field_validation="Warn")
        def test_warn(jobset_cluster):
            with pytest.warns(ApiWarning) as warned:
                stored = jobset_cluster.apply(TYPO)
            assert [str(w.message) for w in warned] == ['unknown field "{TYPO_PATH}"']
            assert "backofLimit" not in stored["spec"]["replicatedJobs"][0]["template"]["spec"]

        @pytest.mark.fakekube(field_validation="Ignore")
        def test_ignore(jobset_cluster):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                jobset_cluster.apply(TYPO)
    """)
    result = project.runpytest_inprocess()
    result.assert_outcomes(passed=5, failed=1)
    out = result.stdout.str()
    assert "FAILED test_typos.py::test_jobset_cluster_is_strict" in out
    assert ('E           fakekube.errors.BadRequest: JobSet in version "v1alpha2" cannot be handled as a JobSet: '
            f'strict decoding error: unknown field "{TYPO_PATH}"') in out


# ====================================================================== failure reports


REPORT_TESTS = """
    def test_fails(jobset_cluster):
        jobset_cluster.apply(JOBSET)
        wait_for_jobset_condition(jobset_cluster, "trainer", "Completed", timeout=600)
        assert False, "boom"

    def test_passes(jobset_cluster):
        jobset_cluster.apply(JOBSET)

    def test_fails_without_a_cluster():
        assert False
"""


def test_a_failing_test_reports_seed_rerun_hint_table_and_trace_tail(project: pytest.Pytester) -> None:
    write(project, "test_report", REPORT_TESTS)
    result = project.runpytest_inprocess("-rA")
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert out.count(" fakekube cluster ") == 1  # neither the passing test nor the one without a cluster
    body = section(out)
    seed = seed_for("test_report.py::test_fails")
    lines = body.splitlines()
    assert lines[0] == f"seed: {seed}  (re-run: pytest 'test_report.py::test_fails' --fakekube-seed={seed})"
    assert lines[1] == "virtual time: 62.01s"
    assert re.search(r"^JobSet default/trainer +restarts=0 +Completed=True$", body, re.M)
    assert re.search(r"^Job default/trainer-workers-1 +active=0 succeeded=1 failed=0 +SuccessCriteriaMet=True,"
                     r"Complete=True$", body, re.M)
    assert re.search(r"^Pod default/trainer-workers-0-0-\w{5} +Succeeded +node-\d$", body, re.M)
    trace = body.split(f"trace (last {TRACE_TAIL} lines):\n")[1].strip().splitlines()
    assert len(trace) == TRACE_TAIL and all(line.startswith("t=") for line in trace)
    assert "t=00:01:02.010 jobset-controller default/trainer: success policy satisfied" in trace

    # The hint works: the re-run reports the same section, byte for byte.
    rerun = project.runpytest_inprocess("test_report.py::test_fails", f"--fakekube-seed={seed}")
    assert section(rerun.stdout.str()) == body


def test_fakekube_trace_option_chooses_how_much_trace_is_reported(project: pytest.Pytester) -> None:
    write(project, "test_report", REPORT_TESTS)
    off = section(project.runpytest_inprocess("--fakekube-trace=off", "-k", "test_fails").stdout.str())
    assert off.startswith("seed: ") and "JobSet default/trainer" in off
    assert "trace (" not in off and "\nt=" not in off

    full = section(project.runpytest_inprocess("--fakekube-trace=full", "-k", "test_fails").stdout.str())
    trace = full.split("trace (full):\n")[1].strip().splitlines()
    assert trace[0] == "t=00:00:00.000 create v1 Namespace default rv=1"
    assert len(trace) > TRACE_TAIL and trace[-1].startswith("t=00:01:02.010 ")

    tail = section(project.runpytest_inprocess("-k", "test_fails").stdout.str())
    assert tail.split("trace (last 40 lines):\n")[1].strip().splitlines() == trace[-TRACE_TAIL:]

    bad = project.runpytest_inprocess("--fakekube-trace=some")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--fakekube-trace: invalid choice: 'some' (choose from *off*tail*full*)"])


# ====================================================================== assertion helpers


def test_wait_for_jobset_condition_returns_the_exact_virtual_time(jobset_cluster) -> None:
    jobset_cluster.apply(JOBSET)
    assert wait_for_jobset_condition(jobset_cluster, "trainer", "Completed", timeout=600) == 62.01
    # Already true: returns at once, and the clock does not move.
    assert wait_for_jobset_condition(jobset_cluster, "trainer", "Completed", timeout=0) == 62.01
    assert jobset_cluster.elapsed == 62.01


def test_wait_for_jobset_condition_times_out_with_a_clear_message(jobset_cluster) -> None:
    jobset_cluster.apply(JOBSET)
    with pytest.raises(SimulationError) as err:
        wait_for_jobset_condition(jobset_cluster, "trainer", "Completed", timeout=30)
    assert str(err.value).startswith(
        "JobSet default/trainer did not reach Completed=True within 30s of virtual time (now t=30s). "
        "It has conditions: none; restarts=0.\n")
    assert "--- trace tail ---" in str(err.value)
    assert jobset_cluster.elapsed == 30.0

    with pytest.raises(SimulationError, match=r"^JobSet team/nope did not reach Failed=True within 5s of virtual "
                                              r"time \(now t=35s\)\. JobSet team/nope does not exist\."):
        wait_for_jobset_condition(jobset_cluster, "nope", "Failed", namespace="team", timeout=5)


def test_wait_for_jobset_condition_usage_errors(fake_cluster, jobset_cluster) -> None:
    with pytest.raises(UsageError, match="needs the JobSet API: use the jobset_cluster fixture"):
        wait_for_jobset_condition(fake_cluster, "trainer", "Completed")
    with pytest.raises(UsageError, match="needs the JobSet's name"):
        wait_for_jobset_condition(jobset_cluster, "", "Completed")
    with pytest.raises(UsageError, match="'True', 'False' or 'Unknown', got True"):
        wait_for_jobset_condition(jobset_cluster, "trainer", "Completed", status=True)  # type: ignore[arg-type]


def test_jobs_pods_and_dns_helpers(jobset_cluster) -> None:
    jobset_cluster.apply(JOBSET)
    jobset_cluster.advance(5)
    jobs = assert_jobset_jobs(jobset_cluster, "trainer", ["trainer-workers-1", "trainer-workers-0"],
                              labels={"jobset.sigs.k8s.io/replicatedjob-name": "workers"})
    assert [j["metadata"]["name"] for j in jobs] == ["trainer-workers-0", "trainer-workers-1"]
    assert jobs == jobs_of(jobset_cluster, "trainer")
    with pytest.raises(AssertionError, match=r"JobSet trainer has Jobs \['trainer-workers-0', 'trainer-workers-1'\], "
                                             r"expected \['trainer-workers-0'\]"):
        assert_jobset_jobs(jobset_cluster, "trainer", ["trainer-workers-0"])
    with pytest.raises(AssertionError, match=re.escape("Job trainer-workers-0 lacks labels {'team': 'a'}")):
        assert_jobset_jobs(jobset_cluster, "trainer", ["trainer-workers-0", "trainer-workers-1"], labels={"team": "a"})

    pods = pods_of(jobset_cluster, "trainer")
    assert [p["spec"]["hostname"] for p in pods] == ["trainer-workers-0-0", "trainer-workers-1-0"]
    assert pods_of(jobset_cluster, "other") == []
    assert resolve_pod(jobset_cluster, "trainer-workers-0-0.trainer") == [pods[0]["status"]["podIP"]]


@pytest.mark.fakekube(simulate=False)
def test_summary_table_and_resolve_pod_without_simulation(fake_cluster) -> None:
    assert summary_table(fake_cluster) == "(no JobSets, Jobs or Pods)"
    with pytest.raises(UsageError, match="resolve_pod\\(\\) needs cluster DNS"):
        resolve_pod(fake_cluster, "x.y")
    for i in range(52):
        fake_cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{i:02d}"},
                             "spec": {"containers": [{"name": "main", "image": "busybox"}]}})
    table = summary_table(fake_cluster).splitlines()
    assert len(table) == 51
    assert table[0] == "Pod default/p-00     Pending"  # no node: the row ends at the phase
    assert table[-1] == "... and 2 more Pods"


def test_fixtures_are_fast_unless_asked_for_strict(project: pytest.Pytester,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FAKEKUBE_STRICT", raising=False)  # the project's own suite sets it
    write(project, "test_strict", """
        def test_mode(fake_cluster, request):
            assert fake_cluster.strict is request.config.getoption("--fakekube-strict")
    """)
    project.runpytest_inprocess().assert_outcomes(passed=1)
    project.runpytest_inprocess("--fakekube-strict").assert_outcomes(passed=1)
    assert "--fakekube-strict" in project.runpytest_inprocess("--help").stdout.str()
