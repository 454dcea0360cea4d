"""Mistakes in the success policy (controller spec §7)."""

from __future__ import annotations

from jobset_ref.mistakes.catalogue import Mistake
from jobset_ref.mistakes.edits import Edit

__all__ = ["MISTAKES"]

SUCCESS = "jobset_ref.controller.policies.success_policy"

MISTAKES = (
    Mistake(
        "success-targets-ignored",
        "a completed Job counts towards the success policy whichever replicatedJob it belongs to",
        behaviours=("success.all-targets", "success.any-targets"),
        edits=(Edit(SUCCESS, "jobs_matching_success_policy", "if not targets:", "if True:"),),
        caught_by=("success/any-targets",),
    ),
)
