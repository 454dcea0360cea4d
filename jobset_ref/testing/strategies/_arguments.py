"""What every strategy of :mod:`jobset_ref.testing.strategies` shares: the :data:`Feature` flag,
the default topology keys, the DNS label limit, and the checks of their arguments (each bad
argument is a :class:`fakekube.UsageError` with a fix-it message)."""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from fakekube import UsageError

#: ``None`` = sometimes (drawn), ``True`` = always, ``False`` = never.
Feature = bool | None

#: Node label keys used as exclusive-placement topology domains by :func:`jobsets` and
#: :func:`cluster_shapes` (the same defaults on both sides, so placements can be satisfied).
DEFAULT_TOPOLOGY_KEYS: tuple[str, ...] = ("cloud.google.com/gke-nodepool", "topology.kubernetes.io/zone")

_MAX_DNS_LABEL = 63


def _check_bounds(what: str, lo: int, hi: int, *, floor: int = 0) -> None:
    for name, value in ((f"min_{what}", lo), (f"max_{what}", hi)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise UsageError(f"{name} must be an int, got {value!r}")
        if value < floor:
            raise UsageError(f"{name} must be >= {floor}, got {value}")
    if lo > hi:
        raise UsageError(f"min_{what}={lo} is greater than max_{what}={hi}; "
                         f"pass min_{what} <= max_{what}")


def _check_feature(name: str, value: object) -> None:
    if value is not None and not isinstance(value, bool):
        raise UsageError(f"{name}= takes True (always), False (never) or None (sometimes), got {value!r}")


def _check_strategy(name: str, value: object) -> None:
    if not isinstance(value, SearchStrategy):
        raise UsageError(f"{name}= takes a hypothesis strategy (e.g. st.just(...)), got {value!r}; "
                         "jobset_ref.testing.strategies takes strategies for leaf values, never plain values")


def _digits(n: int) -> int:
    """Length of the decimal rendering of ``n`` (with the sign)."""
    return len(str(n))


def _want(draw: st.DrawFn, feature: Feature, *, p_true: bool | None = None) -> bool:
    if feature is not None:
        return feature
    del p_true
    return draw(st.booleans())
