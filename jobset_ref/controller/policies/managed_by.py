"""Policy for ``spec.managedBy``.

API doc (``jobset_types.go``): "ManagedBy is used to indicate the controller or entity that
manages a JobSet. The built-in JobSet controller reconciles JobSets which don't have this field
at all or the field value is the reserved string `jobset.sigs.k8s.io/jobset-controller`, but
skips reconciling JobSets with a custom value for this field." Immutable.

Mirrors upstream ``managedByExternalController`` (``pkg/controllers/jobset_controller.go``).
KEP-693 of Kueue (MultiKueue) is the user of this field.

A JobSet managed elsewhere is not touched at all: no Jobs, no Service, no status write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobset_ref.api import constants as c

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet

__all__ = ["managed_by_external_controller"]


def managed_by_external_controller(js: JobSet) -> str | None:
    """The external manager's name, or None when this controller is in charge."""
    manager = js.spec.managed_by
    if manager is not None and manager != c.JOBSET_CONTROLLER_NAME:
        return manager
    return None
