"""Mistakes in the JobSet webhooks: defaulting and validation (api spec §2, §6, §7, §9)."""

from __future__ import annotations

from jobset_ref.mistakes.catalogue import Mistake
from jobset_ref.mistakes.edits import Edit

__all__ = ["MISTAKES"]

VALIDATION = "jobset_ref.api.validation"

MISTAKES = (
    Mistake(
        "parallelism-overflow-unchecked",
        "the webhook does not check that replicas * parallelism fits in an int32",
        behaviours=("validation.parallelism-overflow",),
        edits=(Edit(VALIDATION, "_validate_replicated_job",
                    "if parallelism * rjob.replicas > c.MAX_INT32:", "if False:"),),
        caught_by=("webhooks/parallelism-overflow",),
        side="webhooks",
    ),
)
