"""Committed generated files: the ``python -m <module> [--check]`` command that keeps one current."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["regenerate_command"]


def regenerate_command(argv: Sequence[str] | None, *, path: Path, render: Callable[[], str], module: str) -> int:
    """Rewrite ``path`` with ``render()`` when it differs; with ``--check``, only say whether it is
    stale (exit status 1). Exit status 2 for other arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args not in ([], ["--check"]):
        print(f"usage: python -m {module} [--check]", file=sys.stderr)
        return 2
    text = render()
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    if args == ["--check"]:
        if current != text:
            print(f"{path} is stale: run python -m {module}", file=sys.stderr)
            return 1
        return 0
    if current != text:
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0
