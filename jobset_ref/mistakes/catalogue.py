"""The :class:`Mistake` record, and applying mistakes to the running reference.

A mistake is a small, plausible error an implementer of JobSet could make, written as one or
more :class:`~jobset_ref.mistakes.edits.Edit` of the reference. Each names the behaviours it
breaks (rows of the conformance matrix) and the scenarios that catch it (``caught_by``: each of
them must fail while the mistake is applied; the default test suite checks that). A mistake the
scenarios cannot catch says why in ``survives``.

``side`` says what part of an implementation the mistake is in, which decides where it acts when
the controller is out of process: ``controller`` (the reconcilers, in the controller process),
``webhooks`` (admission: defaulting, validation, the pod webhook; the controller process serves
them) or ``crd`` (the CustomResourceDefinition's schema, defaults and CEL rules; the controller
process installs its CRD over the served one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

from jobset_ref.mistakes.edits import Edit, EditError, swap

__all__ = ["Mistake", "Side", "applied", "index"]

Side = Literal["controller", "webhooks", "crd"]

_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True, slots=True)
class Mistake:
    """One named mistake: what it gets wrong, which behaviours it breaks, what catches it."""

    name: str
    description: str
    behaviours: tuple[str, ...]
    edits: tuple[Edit, ...]
    caught_by: tuple[str, ...] = ()
    survives: str = ""
    side: Side = field(default="controller")

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"mistake name {self.name!r} is not kebab-case")
        if not self.edits:
            raise ValueError(f"mistake {self.name!r} has no edit")
        if not self.behaviours:
            raise ValueError(f"mistake {self.name!r} names no behaviour it breaks")
        if bool(self.caught_by) == bool(self.survives):
            raise ValueError(f"mistake {self.name!r} needs either caught_by scenarios or a survives reason")


def index(mistakes: Iterable[Mistake]) -> dict[str, Mistake]:
    """The catalogue by name; a name given twice is a programming error."""
    out: dict[str, Mistake] = {}
    for m in mistakes:
        if m.name in out:
            raise ValueError(f"mistake {m.name!r} is defined twice")
        out[m.name] = m
    return out


@contextmanager
def applied(mistakes: Iterable[Mistake]) -> Iterator[None]:
    """Apply ``mistakes`` to the reference in this process for the ``with`` block, then undo them.

    Every edit is compiled before any is applied, so an edit that does not apply raises
    :class:`EditError` and leaves the reference untouched. Two mistakes that edit the same
    function are refused (within one mistake too: write one edit per function).
    """
    compiled = []
    seen: dict[str, str] = {}
    for mistake in mistakes:
        for edit in mistake.edits:
            if edit.target in seen:
                raise EditError(f"{seen[edit.target]!r} and {mistake.name!r} both edit {edit.target}: "
                                "write one edit per function")
            seen[edit.target] = mistake.name
            compiled.append(edit.compile(mistake.name))
    undos = []
    try:
        for func, code in compiled:
            undos.append(swap(func, code))
        yield
    finally:
        for undo in reversed(undos):
            undo()
