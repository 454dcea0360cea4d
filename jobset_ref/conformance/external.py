"""External mode: a scenario's cluster is served over HTTP (CRD and webhooks installed, no
reconciler, the quiescent clock) and a controller command reconciles it out of process.

The runner thread holds the cluster lock while it acts (setup, manifests, faults, checks) and
lets go only while it waits for virtual time to pass: then the quiescent clock moves time
whenever the controller has gone quiet. A marker event at each wait's deadline stops the clock
there (it counts as a request in flight until the runner acts again). A controller's own timers
fall due on time when it announces them (``X-Fakekube-Wake-At``, as ``jobset-ref controller``
does); otherwise time jumps from one cluster event to the next past them. Exact virtual times
cannot hold out of process; ``tolerance`` is the window the checks allow instead.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from fakekube import FakeCluster, SimulationError
from fakekube.clock import SECOND, format_offset

__all__ = ["DEFAULT_START_TIMEOUT", "NOT_STARTED", "STOP_AFTER_NOT_STARTED", "ExternalController", "ExternalOptions",
           "why_stop"]

POLL = 0.005  # wall seconds between two looks at the cluster while waiting
READY_QUIET = 0.3  # wall seconds without a request after the controller's first watch: it is ready
#: Wall seconds the controller command has to open its first watch (``--controller-start-timeout``).
DEFAULT_START_TIMEOUT = 60.0
#: What a scenario's failure says when the controller command never started.
NOT_STARTED = "the controller did not start"
#: A run stops when this many scenarios, all it ran, failed because the controller never started.
STOP_AFTER_NOT_STARTED = 2
DIAGNOSTIC_LINES = 15
WALL_BUDGET = 120.0  # wall seconds one wait may take before the run is declared stuck


def _output_file() -> BinaryIO:
    """An anonymous file opened for appending: the command's writes land at its end even while
    the runner reads it."""
    fd, path = tempfile.mkstemp(prefix="jobset-controller-", suffix=".log")
    os.close(fd)
    try:
        return open(path, "a+b")
    finally:
        os.unlink(path)


def wall() -> float:
    return time.monotonic()  # noqa: TID251  # noqa: wall-clock (external mode paces against a real process)


@dataclass(frozen=True, slots=True)
class ExternalOptions:
    """``command`` runs the controller (``{kubeconfig}`` is replaced by the path, ``{feature_gates}`` by
    the scenario's JobSet feature gates, ``RestartJob=true,...``, also in ``$JOBSET_FEATURE_GATES``); ``tolerance`` is the
    window, in virtual seconds, an expected virtual time allows; ``start_timeout`` the wall seconds the
    command has to open its first watch."""

    command: str
    tolerance: float = 2.0
    quiet_ms: float = 50.0
    start_timeout: float = DEFAULT_START_TIMEOUT


def why_stop(outcomes: Sequence[tuple[str, str]]) -> str | None:
    """Why a run should stop now: the scenarios it ran (``(status, detail)``, skips aside) all failed
    because the controller command never started, and there are :data:`STOP_AFTER_NOT_STARTED` of them."""
    ran = [detail for status, detail in outcomes if status != "SKIP"]
    if len(ran) < STOP_AFTER_NOT_STARTED or not all(NOT_STARTED in detail for detail in ran):
        return None
    first = next(line for line in ran[0].splitlines() if NOT_STARTED in line)
    why = first.split(NOT_STARTED, 1)[1].lstrip(": ")
    return (f"the controller did not start in the first {len(ran)} scenarios ({why}): the others would fail "
            f"the same way; check --controller-cmd, or raise --controller-start-timeout")


class ExternalController:
    """The served cluster and the controller process of one scenario run."""

    def __init__(self, cluster: FakeCluster, options: ExternalOptions,
                 feature_gates: dict[str, bool] | None = None) -> None:
        self.cluster = cluster
        self.options = options
        #: The scenario's JobSet feature gates, as the controller's flag spells them ("" when none).
        self.feature_gates = ",".join(f"{k}={str(v).lower()}" for k, v in sorted((feature_gates or {}).items()))
        self.server: Any = None
        self.process: subprocess.Popen[bytes] | None = None
        self._paused = 0
        self._log: BinaryIO | None = None

    # ------------------------------------------------------------------ start and stop
    def start(self) -> None:
        """Serve the cluster, start the command and wait until it watches (the runner holds the lock after)."""
        cluster = self.cluster
        self.server = cluster.serve(clock="quiescent", quiet_ms=self.options.quiet_ms)
        cluster.lock.acquire()
        self._pause()  # nothing moves until the controller is up
        command = self.options.command.replace("{kubeconfig}", shlex.quote(self.server.kubeconfig)) \
            .replace("{feature_gates}", shlex.quote(self.feature_gates))
        self._log = _output_file()  # the command's stdout and stderr; closed in stop()
        env = {**os.environ, "KUBECONFIG": self.server.kubeconfig, "JOBSET_FEATURE_GATES": self.feature_gates}
        self.process = subprocess.Popen(shlex.split(command), env=env, stdout=self._log, stderr=self._log)
        deadline = wall() + self.options.start_timeout
        while True:
            self._release()
            threading.Event().wait(0.02)
            self._acquire()
            if self.server.open_watches and self._quiet_for() >= READY_QUIET:
                return
            if self.process.poll() is not None:
                raise SimulationError(f"{NOT_STARTED}: it exited with status {self.process.returncode} "
                                      f"before it watched anything: {self._stderr()}")
            if wall() > deadline:
                raise SimulationError(f"{NOT_STARTED}: it opened no watch within {self.options.start_timeout:g} "
                                      f"wall seconds (--controller-start-timeout)")

    def stop(self) -> None:
        """Let go of the lock (the runner's pause still holds the clock, so requests in flight finish
        at this instant), stop the command (by its PID: SIGTERM, then SIGKILL), stop serving."""
        if self.server is not None:
            self.cluster.lock.release()
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        if self._log is not None:
            self._log.close()
        while self._paused:
            self._unpause()
        if self.server is not None:
            self.server.close()

    def _quiet_for(self) -> float:
        """Wall seconds since the controller's last request (the runner's own pause is not one)."""
        return float(self.server.clock.quiet_for(own_requests=self._paused))

    def _stderr(self) -> str:
        return "\n".join(self.output_tail(20))

    def output_tail(self, lines: int) -> list[str]:
        """The last ``lines`` lines the command wrote (stdout and stderr)."""
        if self._log is None or self._log.closed:
            return []
        self._log.seek(0)
        data = self._log.read()
        return data.decode(errors="replace").rstrip().splitlines()[-lines:]

    def diagnostics(self) -> list[str]:
        """What a failure report shows of the controller: its last requests and its last words."""
        parts: list[str] = []
        if self.server is not None:
            requests = list(self.server.requests)[-DIAGNOSTIC_LINES:]
            parts += [f"--- controller requests (last {len(requests)}) ---", *requests]
        output = self.output_tail(DIAGNOSTIC_LINES)
        parts += [f"--- controller output (last {len(output)} lines) ---", *output]
        return parts

    # ------------------------------------------------------------------ the clock
    def _pause(self) -> None:
        self.server.clock.request_started()
        self._paused += 1

    def _unpause(self) -> None:
        self.server.clock.request_finished()
        self._paused -= 1

    def _release(self) -> None:
        self.cluster.lock.release()

    def _acquire(self) -> None:
        self.cluster.lock.acquire()

    def run_until(self, predicate: Callable[[], bool], deadline: int) -> int:
        """Let virtual time pass until ``predicate()`` holds (its first observed instant) or ``deadline``
        (``SimulationError``); the clock stays at the instant returned until the next wait."""
        loop = self.cluster.loop
        if predicate():  # already: the controller still finishes reacting at this instant
            self.settle()
            return loop.now
        marker = loop.call_at(deadline, self._pause, label="conformance deadline")
        while self._paused:
            self._unpause()
        budget = wall() + WALL_BUDGET
        try:
            while True:
                self._release()
                threading.Event().wait(POLL)
                self._acquire()
                if predicate():
                    self._pause()
                    self.settle()
                    return loop.now
                if loop.now >= deadline and self._paused:
                    raise SimulationError(f"did not hold by t={format_offset(deadline)}")
                if self.process is not None and self.process.poll() is not None:
                    raise SimulationError(f"the controller command exited with status {self.process.returncode}: "
                                          f"{self._stderr()}")
                if wall() > budget:
                    raise SimulationError(f"did not hold within {WALL_BUDGET:g} wall seconds "
                                          f"(virtual t={format_offset(loop.now)})")
        finally:
            marker.cancel()
            if not self._paused:
                self._pause()  # the runner acts at this instant

    def settle(self) -> None:
        """With the clock held, wait until the controller is quiet (every watch stream written out, no
        work it announced as due, no request for twice ``quiet_ms``): what ``run_until_idle`` is in
        process."""
        quiet = 2 * self.options.quiet_ms / 1000
        budget = wall() + WALL_BUDGET
        while wall() < budget:
            self.cluster.loop.run_until_idle()  # what the runner did reaches the watches at this instant
            if self.server.clock.settled(quiet, own_requests=self._paused):
                return
            self._release()
            threading.Event().wait(POLL)
            self._acquire()

    def run_to(self, target: int) -> None:
        """Let virtual time pass to ``target`` exactly."""
        self.run_until(lambda: self.cluster.loop.now >= target, target)

    def close_enough(self, want: int, got: int) -> bool:
        return abs(want - got) <= round(self.options.tolerance * SECOND)

    @staticmethod
    def stale_cache_create(event: Mapping[str, Any]) -> bool:
        """A ``JobCreationFailed`` event whose every error is ``already exists``.

        A controller that reads its Jobs from an informer cache creates a Job again when its cache
        has not yet seen the create of a moment before: a pass can run on another watch stream's
        event before the Job's arrives, as two watch streams have no common order. The API server
        refuses the second create and upstream records the refusal (``createJobs``). Out of
        process this can happen at any instant, so an event sequence that does not name such an
        event also matches with them left out.
        """
        lines = str(event.get("message", "")).splitlines()
        return event.get("reason") == "JobCreationFailed" and bool(lines) and all(
            line.endswith("already exists") for line in lines)
