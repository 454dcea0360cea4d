"""Pod logs: the container rules and the ``tailLines``/``limitBytes`` cuts of ``GET …/pods/{name}/log``."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.errors import BadRequest, Invalid
from fakekube.http.pod_logs import read_log


def pod(*containers: str, log: str = "one\ntwo\nthree\n", running: bool = True,
        init: tuple[str, ...] = ()) -> dict[str, Any]:
    state = {"running": {"startedAt": "2030-01-01T00:00:01Z"}} if running else \
        {"waiting": {"reason": "ContainerCreating"}}
    return {"metadata": {"name": "p", "annotations": {"fakekube.io/log": log}},
            "spec": {"nodeName": "node-0", "containers": [{"name": c} for c in containers],
                     **({"initContainers": [{"name": c} for c in init]} if init else {})},
            "status": {"containerStatuses": [{"name": c, "state": state} for c in containers]}}


def test_the_whole_log_or_its_tail_or_its_first_bytes() -> None:
    assert read_log(pod("c")) == "one\ntwo\nthree\n"
    assert read_log(pod("c"), tail=2) == "two\nthree\n"
    assert read_log(pod("c"), tail=10) == "one\ntwo\nthree\n"
    assert read_log(pod("c"), tail=0) == ""
    assert read_log(pod("c"), limit=5) == "one\nt"
    assert read_log(pod("c"), tail=1, limit=3) == "thr"  # the tail first, then the byte limit
    assert read_log(pod("c", log="last line without newline"), tail=1) == "last line without newline"


def test_negative_options_are_invalid_pod_log_options() -> None:
    with pytest.raises(Invalid) as caught:
        read_log(pod("c"), tail=-1, limit=0)
    assert caught.value.status["message"] == (
        'PodLogOptions "p" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, '
        "limitBytes: Invalid value: 0: must be greater than 0]")


def test_the_container_is_named_when_the_pod_has_several() -> None:
    assert read_log(pod("a", "b"), container="b") == "one\ntwo\nthree\n"
    with pytest.raises(BadRequest, match=r"^a container name must be specified for pod p, choose one of: \[a b\]$"):
        read_log(pod("a", "b"))
    with pytest.raises(BadRequest, match=r"choose one of: \[a b\] or one of the init containers: \[setup\]$"):
        read_log(pod("a", "b", init=("setup",)))
    with pytest.raises(BadRequest, match=r"^container zz is not valid for pod p$"):
        read_log(pod("a"), container="zz")


def test_a_container_that_has_not_started_has_no_log() -> None:
    with pytest.raises(BadRequest, match=r'^container "c" in pod "p" is waiting to start: ContainerCreating$'):
        read_log(pod("c", running=False))
