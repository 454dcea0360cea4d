"""Policy for ``spec.volumeClaimPolicies`` (``templates``, ``retentionPolicy.whenDeleted``).

API doc (``jobset_types.go``): "VolumeClaimPolicies is a list of policies for persistent volume
claims that pods are allowed to reference. JobSet controller automatically adds the required
volume claims to the pod template." ``RetentionPolicy.WhenDeleted``: ``Delete`` (the PVC is
owned by the JobSet and garbage collected with it) or ``Retain``.

Mirrors upstream ``reconcileVolumeClaimPolicies``, ``createPVCsIfNecessary``,
``GeneratePVCName``, ``addVolumes`` and ``hasVolumeMount``
(``pkg/controllers/volume_claim_policy.go``). KEP-572 (stateful JobSet: volume claim policies).

Pure: this module builds the PVC objects and the Job volumes; ``apply`` creates the PVCs
(``AlreadyExists`` ignored; other errors emit ``PVCCreationFailed`` and skip the rest of that
policy's templates).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jobset_ref.api import constants as c
from jobset_ref.api.enums import RetentionPolicyType

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet, VolumeClaimPolicy

__all__ = ["construct_pvcs", "owned_by_jobset", "pvc_name", "volumes_for_pod_spec"]


def pvc_name(jobset_name: str, template_name: str) -> str:
    """``GeneratePVCName``: ``<templateName>-<jobSetName>``."""
    return f"{template_name}-{jobset_name}"


def owned_by_jobset(policy: VolumeClaimPolicy) -> bool:
    """The PVC gets a controller owner reference iff ``retentionPolicy.whenDeleted == Delete``.

    A nil ``whenDeleted`` inside a present ``retentionPolicy`` reads as the CRD default
    (``Delete``); upstream would dereference nil there, which the CRD default prevents.
    """
    retention = policy.retention_policy
    if retention is None:
        return False
    return retention.when_deleted in (None, RetentionPolicyType.DELETE)


def construct_pvcs(js: JobSet) -> list[list[tuple[dict[str, Any], bool]]]:
    """One list per policy (in order) of ``(pvc, owned)`` for each template (in order)."""
    out: list[list[tuple[dict[str, Any], bool]]] = []
    for policy in js.spec.volume_claim_policies or ():
        owned = owned_by_jobset(policy)
        items: list[tuple[dict[str, Any], bool]] = []
        for template in policy.templates or ():
            meta = template.get("metadata") or {}
            labels = dict(meta.get("labels") or {})
            labels[c.JOBSET_NAME_KEY] = js.name
            pvc_meta: dict[str, Any] = {"name": pvc_name(js.name, str(meta.get("name") or "")),
                                        "namespace": js.namespace, "labels": dict(sorted(labels.items()))}
            if meta.get("annotations"):
                pvc_meta["annotations"] = dict(meta["annotations"])
            pvc: dict[str, Any] = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": pvc_meta,
                                   "spec": _deep(template.get("spec") or {})}
            items.append((pvc, owned))
        out.append(items)
    return out


def _has_volume_mount(pod_spec: dict[str, Any], name: str) -> bool:
    """``hasVolumeMount``: any container or initContainer mounts ``name``."""
    for kind in ("containers", "initContainers"):
        for container in pod_spec.get(kind) or ():
            for mount in container.get("volumeMounts") or ():
                if mount.get("name") == name:
                    return True
    return False


def volumes_for_pod_spec(js: JobSet, pod_spec: dict[str, Any]) -> list[dict[str, Any]]:
    """``addVolumes``: a PVC volume for each template (policy order) the pod spec mounts."""
    volumes: list[dict[str, Any]] = []
    for policy in js.spec.volume_claim_policies or ():
        for template in policy.templates or ():
            name = str((template.get("metadata") or {}).get("name") or "")
            if _has_volume_mount(pod_spec, name):
                volumes.append({"name": name, "persistentVolumeClaim": {"claimName": pvc_name(js.name, name)}})
    return volumes


def _deep(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep(v) for v in value]
    return value
