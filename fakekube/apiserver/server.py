"""The API server: request → defaults → mutating admission → prepare → validate → validating
admission → persist → notify, with the error ``Status`` objects a real server returns.

Order and messages follow ``k8s.io/apiserver`` ``genericregistry.Store`` (Kubernetes 1.34):
see ``spec/kubernetes.md`` §1. Every write is traced; watch deliveries are scheduled on the
event loop, never made inside the write.

:class:`ApiServer` is the one entry point; its verbs live by family in
:mod:`fakekube.apiserver.reads` (get, list, watch), :mod:`fakekube.apiserver.writes` (create,
update, patch, apply, subresources) and :mod:`fakekube.apiserver.deletes`, on what they share in
:mod:`fakekube.apiserver.server_core` (with :class:`Watch` and :class:`WatchEvent`).
"""

from __future__ import annotations

from fakekube.apiserver.deletes import DeleteVerbs
from fakekube.apiserver.field_manager import WriteInfo
from fakekube.apiserver.server_core import Watch, WatchEvent
from fakekube.apiserver.writes import WriteVerbs

__all__ = ["ApiServer", "Watch", "WatchEvent", "WriteInfo"]


class ApiServer(WriteVerbs, DeleteVerbs):
    """The in-memory API server. Components and tests reach it through a client.

    The ``copy=``, ``copy_result=``, ``fresh_body=`` and ``trusted=`` keywords of its verbs are
    internal: they exist for fakekube's clients (``Client`` always copies, the simulators'
    ``SharedClient`` never does) and for a few read-only helpers; everything else goes through a
    client.

    **Trusted writes.** A write whose ``trusted`` names one of fakekube's own simulators (the
    runtime decides which, in one place: ``fakekube.runtime.context.SIMULATORS``) was built by
    fakekube from objects that already went through the whole path, so it skips decoding the body
    into the kind's type (with the JSON check and field validation), the ObjectMeta and kind
    validation, and a create's second defaulting pass when no mutating admission plugin ran
    between the two.
    Everything observable still happens: admission webhooks, namespace lifecycle, conflicts,
    system fields, the trace. With ``strict`` set (``FakeCluster(strict=True)``) a trusted write
    runs the whole path and raises :class:`~fakekube.errors.StrictModeError` when decoding or
    validation would reject it or decoding or defaulting would change it.
    """
