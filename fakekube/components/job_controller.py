"""Placeholder: being written (issue 3)."""

from __future__ import annotations

from fakekube.runtime.context import Runtime


class JobController:
    name = "job_controller"

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass
