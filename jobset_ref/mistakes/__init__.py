"""The catalogue of mistakes: small, plausible errors an implementer of JobSet could make.

Each :class:`Mistake` is an edit of the reference (``jobset_ref.mistakes.edits``) with the
behaviours it breaks and the conformance scenarios that catch it. They exist to show that the
conformance suite rejects wrong controllers, not only that it accepts the right one:

    jobset-ref conformance --mutants                       # every mistake, in process: killed or survived
    jobset-ref conformance --controller-cmd 'jobset-ref controller --break NAME --kubeconfig {kubeconfig}'
    python -m pytest property_tests --jobset-mistake NAME  # do the property tests catch it?

``CATALOGUE`` maps each name to its mistake; :func:`mistake` looks one up with a helpful error.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from fakekube import UsageError
from jobset_ref.mistakes import admission, failure, lifecycle, naming, network, placement, success
from jobset_ref.mistakes.catalogue import Mistake, Side, applied, index
from jobset_ref.mistakes.edits import Edit, EditError

__all__ = ["CATALOGUE", "Edit", "EditError", "Mistake", "Side", "applied", "mistake", "mistakes"]

CATALOGUE: dict[str, Mistake] = index([*admission.MISTAKES, *success.MISTAKES, *failure.MISTAKES,
                                       *naming.MISTAKES, *network.MISTAKES, *lifecycle.MISTAKES,
                                       *placement.MISTAKES])


def mistake(name: str) -> Mistake:
    """The mistake called ``name``; a :class:`~fakekube.UsageError` naming the closest otherwise."""
    try:
        return CATALOGUE[name]
    except KeyError:
        close = difflib.get_close_matches(name, CATALOGUE, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `jobset-ref conformance --mutants --list` lists them"
        raise UsageError(f"unknown mistake {name!r}{hint}") from None


def mistakes(names: Iterable[str]) -> list[Mistake]:
    """The mistakes called ``names``, in that order."""
    return [mistake(n) for n in names]
