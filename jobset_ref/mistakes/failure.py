"""Mistakes in the failure policy, restarts and the restart strategies (controller spec §8)."""

from __future__ import annotations

from jobset_ref.mistakes.catalogue import Mistake
from jobset_ref.mistakes.edits import Edit

__all__ = ["MISTAKES"]

STATUS = "jobset_ref.controller.status"
FAILURE = "jobset_ref.controller.policies.failure_policy"

MISTAKES = (
    Mistake(
        "restart-attempt",
        "a JobSet restart never increments status.restarts, so Jobs are recreated with the same restart-attempt",
        behaviours=("failure.restart-attempt", "labels.restart-attempt"),
        edits=(Edit(STATUS, "StatusDraft._apply_one",
                    'self.wire["restarts"] = int(self.wire.get("restarts") or 0) + 1',
                    'self.wire["restarts"] = int(self.wire.get("restarts") or 0)'),),
        caught_by=("failure/rule-matching",),
    ),
)
