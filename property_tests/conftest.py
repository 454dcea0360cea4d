"""Hypothesis profiles: ``default`` is fast enough for CI; ``thorough`` is for long runs
(``pytest property_tests --hypothesis-profile=thorough``)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=40, stateful_step_count=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, stateful_step_count=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")
