"""``jobset-ref conformance``: the conformance runner's own argument parser
(shared with ``python -m jobset_ref.conformance``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    import argparse

    conf = sub.add_parser("conformance", add_help=False,
                          help="run the conformance scenarios (in process, or against --controller-cmd)")
    conf.add_argument("rest", nargs=argparse.REMAINDER, help="the conformance runner's arguments (see --help)")


def run(argv: Sequence[str]) -> int:
    from jobset_ref.conformance.__main__ import main as conformance_main

    return conformance_main(list(argv), prog="jobset-ref conformance")
