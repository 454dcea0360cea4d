"""The pytest plugin (registered through the ``pytest11`` entry point).

Fixtures
    ``fake_cluster``     a fully simulated ``FakeCluster`` (GC, Job controller, scheduler, kubelet, DNS),
                         no nodes unless the marker asks for some
    ``jobset_cluster``   the same with the reference JobSet controller installed and 4 nodes
    ``fake_apiserver``   ``jobset_cluster`` served over HTTP (``cluster.serve()``); yields the server, with
                         ``KUBECONFIG`` pointing at its kubeconfig (and ``KUBECACHEDIR`` at a fresh
                         directory, so kubectl's discovery cache never leaks between tests) for the test
Marker
    ``@pytest.mark.fakekube(nodes=4, seed=7, feature_gates={...}, simulate=True, clock="manual", speed=1,
    quiet_ms=50, controller=True, run_seconds=60, field_validation="Strict")``
        ``nodes``          Ready nodes ``node-0`` … to add (default: 0, or 4 for ``jobset_cluster``)
        ``seed``           pins the seed in code (beats ``--fakekube-seed``)
        ``feature_gates``  JobSet feature gates (``jobset_cluster`` only)
        ``simulate``       False: API server and controllers only, no GC/Job controller/scheduler/kubelet/DNS
        ``clock``, ``speed``, ``quiet_ms``  how ``fake_apiserver`` moves virtual time (see ``FakeCluster.serve``)
        ``controller``     False: ``fake_apiserver`` installs the JobSet CRD and webhooks only (your controller
                           reconciles)
        ``run_seconds``    how long pods without a script run before exiting 0 (default 60, as
                           ``jobset-ref simulate``: ``jobset_ref.run_time.DEFAULT_RUN_SECONDS``; None: forever)
        ``field_validation``  how the cluster's ``apply``/``create``/``update``/``patch`` treat a field the
                           kind does not declare: ``"Strict"`` (the fixtures' default: a typo such as
                           ``backofLimit`` fails the test with kubectl's ``strict decoding error: unknown
                           field "..."``), ``"Warn"`` (kube-apiserver's and ``FakeCluster``'s default: an
                           ``ApiWarning`` each) or ``"Ignore"``. Requests over HTTP keep the server's rule.
        ``kueue``          True, or a dict of Kueue Configuration fields (YAML names): install Kueue v0.19.2
                           (``jobset_cluster``/``fake_apiserver``: with its JobSet and batch/Job integrations;
                           ``fake_cluster``: batch/Job only, ``fakekube.kueue.install``)
    Any other keyword, or a value of the wrong type, is a ``fakekube.UsageError`` at setup.
Options
    ``--fakekube-seed=N``                       one seed for every test (default: derived from the test id)
    ``--fakekube-trace=off|tail|full``          what a failing test's report shows (default: tail)
    ``--jobset-mistake=NAME`` (repeatable)      apply these mistakes of ``jobset_ref.mistakes`` to the
                                                reference for the whole session: do the tests catch them?
                                                (an unknown name is a usage error naming the closest ones;
                                                hypothesis then neither shrinks nor saves examples)

A failing test that used a cluster gets a report section with its seed (and how to re-run with
it), a table of JobSets, Jobs and Pods and the trace tail. Nothing heavy is imported until a
fixture is used, so projects that never touch the fixtures pay nothing (this module imports
only the standard library and pytest).
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from fakekube import FakeCluster

__all__ = ["seed_for"]

_CLUSTERS = pytest.StashKey[list[Any]]()
_MISTAKES = pytest.StashKey[Any]()
#: The kubernetes client's default kubeconfig path, a global of its (untyped) ``kube_config``
#: module, read once at import: ``fake_apiserver`` points it at the served cluster.
_KUBE_CONFIG_DEFAULT = "KUBE_CONFIG_DEFAULT_LOCATION"
DEFAULT_NODES = 4
TRACE_TAIL = 40


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fakekube", "fakekube / jobset-ref simulated clusters")
    group.addoption("--fakekube-seed", type=int, default=None,
                    help="seed for every fakekube cluster (default: derived from each test's id)")
    group.addoption("--fakekube-trace", choices=("off", "tail", "full"), default="tail",
                    help="how much of the cluster trace a failing test reports (default: tail)")
    group.addoption("--fakekube-strict", action="store_true", default=False,
                    help="run the fixtures' clusters strict: every write of fakekube's simulators takes the "
                         "API server's whole request path and must pass it unchanged (slower; default: fast)")
    group.addoption("--jobset-mistake", action="append", default=[], metavar="NAME",
                    help="apply this mistake of the catalogue (jobset_ref.mistakes) to the reference for the whole "
                         "session, to see whether the tests catch it (repeatable; "
                         "`jobset-ref conformance --mutants --list` lists them)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fakekube(nodes=None, seed=None, feature_gates=None, simulate=True, clock='manual', speed=1, quiet_ms=50, "
        "controller=True, run_seconds=60, field_validation='Strict', kueue=None): configure the fake_cluster, jobset_cluster and fake_apiserver fixtures for this test")
    names = config.getoption("--jobset-mistake", default=None) or []
    if names:
        _apply_mistakes(config, names)


def _apply_mistakes(config: pytest.Config, names: list[str]) -> None:
    """Edit the reference with the named mistakes until the session ends (``pytest_unconfigure``)."""
    from contextlib import ExitStack

    from fakekube import UsageError
    from jobset_ref.mistakes import EditError, applied, mistakes

    try:
        chosen = mistakes(dict.fromkeys(names))
    except UsageError as err:
        raise pytest.UsageError(f"--jobset-mistake: {err}") from None
    stack = ExitStack()
    try:
        stack.enter_context(applied(chosen))
    except EditError as err:
        raise pytest.UsageError(f"--jobset-mistake: {err}") from None
    config.stash[_MISTAKES] = (stack, [m.name for m in chosen])
    _hypothesis_for_mistakes()


def _hypothesis_for_mistakes() -> None:
    """Under a mistake, hypothesis reports the first failing example as found (no shrinking) and
    keeps no example database, so a mistake's failures never replay in ordinary runs."""
    try:
        from hypothesis import Phase, settings
    except ImportError:  # pragma: no cover - hypothesis is optional for downstream projects
        return
    settings.register_profile("jobset-mistake", parent=settings.default, database=None,
                              phases=[Phase.explicit, Phase.generate])
    settings.load_profile("jobset-mistake")


def pytest_report_header(config: pytest.Config) -> str | None:
    entry = config.stash.get(_MISTAKES, None)
    return None if entry is None else f"jobset-ref mistakes applied: {', '.join(entry[1])}"


def pytest_unconfigure(config: pytest.Config) -> None:
    entry = config.stash.get(_MISTAKES, None)
    if entry is not None:
        del config.stash[_MISTAKES]
        entry[0].close()


def seed_for(nodeid: str) -> int:
    """A stable seed from a test id: reordering or adding tests never changes another test's seed."""
    return int.from_bytes(hashlib.blake2b(nodeid.encode(), digest_size=4).digest(), "big")


_MARKER_KEYWORDS = ("nodes", "seed", "feature_gates", "simulate", "clock", "speed", "quiet_ms", "controller",
                    "run_seconds", "field_validation", "kueue")
#: The fixtures' field validation: a typo in a test's manifest fails the test (``kubectl apply``'s default).
DEFAULT_FIELD_VALIDATION = "Strict"
_FIELD_VALIDATIONS = ("Ignore", "Warn", "Strict")


def _usage_error(message: str) -> Exception:
    from fakekube import UsageError

    return UsageError(message)


def _options(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The closest ``fakekube`` marker's keywords, checked, with the seed resolved.

    Seed precedence: the marker's ``seed=`` (pinned in code), then ``--fakekube-seed``, then a
    stable seed derived from the test id.
    """
    __tracebackhide__ = True
    marker = request.node.get_closest_marker("fakekube")
    options: dict[str, Any] = dict(marker.kwargs) if marker else {}
    if marker and marker.args:
        raise _usage_error(f"@pytest.mark.fakekube takes keywords only ({', '.join(k + '=' for k in _MARKER_KEYWORDS)}"
                           f"); got positional arguments {marker.args!r}")
    unknown = sorted(set(options) - set(_MARKER_KEYWORDS))
    if unknown:
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(name, _MARKER_KEYWORDS, n=1)
            hints.append(f"{name}=" + (f" (did you mean {close[0]}=?)" if close else ""))
        raise _usage_error(f"@pytest.mark.fakekube takes only the keywords "
                           f"{', '.join(k + '=' for k in _MARKER_KEYWORDS)}; got {', '.join(hints)}")
    nodes = options.get("nodes")
    if nodes is not None and (not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 0):
        raise _usage_error(f"@pytest.mark.fakekube(nodes=...) takes a non-negative int, got {nodes!r}")
    seed = options.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise _usage_error(f"@pytest.mark.fakekube(seed=...) takes an int, got {seed!r}")
    gates = options.get("feature_gates")
    if gates is not None and not isinstance(gates, dict):
        raise _usage_error(f"@pytest.mark.fakekube(feature_gates=...) takes a dict such as "
                           f"{{'RestartJob': True}}, got {gates!r}")
    simulate = options.get("simulate", True)
    if not isinstance(simulate, bool):
        raise _usage_error(f"@pytest.mark.fakekube(simulate=...) takes True or False, got {simulate!r}")
    clock = options.get("clock", "manual")
    if clock not in ("manual", "realtime", "quiescent"):
        raise _usage_error(f"@pytest.mark.fakekube(clock=...) takes 'manual', 'realtime' or 'quiescent', got {clock!r}")
    for name in ("speed", "quiet_ms"):
        value = options.get(name)
        if value is not None and (not isinstance(value, int | float) or isinstance(value, bool) or value <= 0):
            raise _usage_error(f"@pytest.mark.fakekube({name}=...) takes a positive number, got {value!r}")
    run_seconds = options.get("run_seconds", 0)
    if run_seconds is not None and (not isinstance(run_seconds, int | float) or isinstance(run_seconds, bool)
                                    or run_seconds < 0):
        raise _usage_error(f"@pytest.mark.fakekube(run_seconds=...) takes a non-negative number of seconds or None, "
                           f"got {run_seconds!r}")
    field_validation = options.get("field_validation", DEFAULT_FIELD_VALIDATION)
    if field_validation not in _FIELD_VALIDATIONS:
        raise _usage_error(f"@pytest.mark.fakekube(field_validation=...) takes "
                           f"{', '.join(map(repr, _FIELD_VALIDATIONS))}, got {field_validation!r}")
    if not isinstance(options.get("controller", True), bool):
        raise _usage_error(f"@pytest.mark.fakekube(controller=...) takes True or False, got {options['controller']!r}")
    kueue = options.get("kueue")
    if kueue is not None and not isinstance(kueue, bool | dict):
        raise _usage_error(f"@pytest.mark.fakekube(kueue=...) takes True or a dict of Kueue Configuration fields "
                           f"such as {{'waitForPodsReady': {{'timeout': '5m'}}}}, got {kueue!r}")
    cli_seed = request.config.getoption("--fakekube-seed")
    if seed is None:
        options["seed"] = cli_seed if cli_seed is not None else seed_for(request.node.nodeid)
    return options


def _make_cluster(request: pytest.FixtureRequest, *, with_jobset: bool) -> FakeCluster:
    __tracebackhide__ = True
    from fakekube import FakeCluster

    options = _options(request)
    cluster = FakeCluster(seed=options["seed"], simulate=options.get("simulate", True),
                          strict=bool(request.config.getoption("--fakekube-strict")),
                          field_validation=options.get("field_validation", DEFAULT_FIELD_VALIDATION))
    if options.get("simulate", True):
        from jobset_ref.run_time import DEFAULT_RUN_SECONDS

        run_seconds = options.get("run_seconds", DEFAULT_RUN_SECONDS)
        if run_seconds is not None:
            cluster.script_pods("", duration=run_seconds)
    if with_jobset:
        import jobset_ref

        jobset_ref.install(cluster, feature_gates=options.get("feature_gates"),
                           controller=options.get("controller", True), kueue=options.get("kueue"))
    elif options.get("kueue"):
        import fakekube.kueue

        fakekube.kueue.install(cluster, None if options["kueue"] is True else options["kueue"])
    nodes = options.get("nodes", DEFAULT_NODES if with_jobset else None)
    if isinstance(nodes, int) and nodes > 0:
        cluster.add_nodes(nodes)
        cluster.run_until_idle()
    request.node.stash.setdefault(_CLUSTERS, []).append(cluster)
    return cluster


@pytest.fixture
def fake_cluster(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    """A fully simulated fake cluster (no nodes unless ``nodes=``), seeded from the test id."""
    __tracebackhide__ = True
    yield _make_cluster(request, with_jobset=False)


@pytest.fixture
def jobset_cluster(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    """A simulated cluster with the reference JobSet controller and webhooks installed, and 4 nodes."""
    __tracebackhide__ = True
    yield _make_cluster(request, with_jobset=True)


@pytest.fixture
def fake_apiserver(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``jobset_cluster`` served over HTTP; ``KUBECONFIG`` points at it for the test."""
    __tracebackhide__ = True
    import os
    import sys

    cluster = _make_cluster(request, with_jobset=True)
    options = _options(request)
    serve_options = {k: options[k] for k in ("clock", "speed", "quiet_ms") if k in options}
    saved = {k: os.environ.get(k) for k in ("KUBECONFIG", "KUBECACHEDIR")}
    # The kubernetes client reads $KUBECONFIG once, when it is imported: point its default there too.
    kube_config = sys.modules.get("kubernetes.config.kube_config")
    saved_default = getattr(kube_config, _KUBE_CONFIG_DEFAULT, None)
    with cluster.serve(**serve_options) as server:
        os.environ["KUBECONFIG"] = server.kubeconfig
        os.environ["KUBECACHEDIR"] = str(tmp_path_factory.mktemp("kube-cache"))
        if kube_config is not None:
            setattr(kube_config, _KUBE_CONFIG_DEFAULT, server.kubeconfig)
        try:
            yield server
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            if kube_config is not None:
                setattr(kube_config, _KUBE_CONFIG_DEFAULT, saved_default)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                               ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    clusters = item.stash.get(_CLUSTERS, [])
    if report.failed and clusters:
        mode = item.config.getoption("--fakekube-trace")
        for i, cluster in enumerate(clusters):
            report.sections.append((f"fakekube cluster{f' {i}' if len(clusters) > 1 else ''}",
                                    _describe(cluster, item.nodeid, mode)))
    return report


def _describe(cluster: FakeCluster, nodeid: str, mode: str) -> str:
    from jobset_ref.testing.assertions import summary_table

    lines = [f"seed: {cluster.seed}  (re-run: pytest '{nodeid}' --fakekube-seed={cluster.seed})",
             f"virtual time: {cluster.elapsed:g}s"]
    try:
        lines += ["", summary_table(cluster)]
    except Exception as err:  # the report must never hide the original failure
        lines.append(f"(could not list objects: {err})")
    if mode != "off":
        trace = cluster.trace.lines if mode == "full" else cluster.trace.tail(TRACE_TAIL)
        lines += ["", f"trace ({'full' if mode == 'full' else f'last {len(trace)} lines'}):", *trace]
    return "\n".join(lines)
