"""Structural OpenAPI v3 schemas of custom resources: pruning, defaulting and validation.

A pure re-implementation (no code copied) of what the API server does with a CRD version's
``openAPIV3Schema``, behind one class, :class:`StructuralSchema`:

* ``prune``    -- ``apiextensions-apiserver`` ``pkg/apiserver/schema/pruning`` (``PruneWithOptions`` with
  ``isResourceRoot``) followed by ``defaulting.PruneNonNullableNullsWithoutDefaults``, as run by
  ``unstructuredSchemaCoercer.apply`` on every decode; embedded-resource ``metadata`` is coerced
  to the ``ObjectMeta`` fields as ``objectmeta.Coerce`` does.
* ``default``  -- ``pkg/apiserver/schema/defaulting.Default`` with defaults pre-pruned as
  ``defaulting.PruneDefaults`` does when the CRD is registered.
* ``validate`` -- ``pkg/registry/customresource/strategy.go`` ``Validate``/``ValidateUpdate``: the
  kube-openapi ``validate.SchemaValidator`` (errors converted by ``kubeOpenAPIResultToFieldErrors``,
  ratcheted on update as ``validation.RatchetingSchemaValidator``), then
  ``listtype.ValidateListSetsAndMaps``, then the CEL ``x-kubernetes-validations`` of
  ``pkg/apiserver/schema/cel`` (skipped behind ``hasBlockingErr``), evaluated with ``celpy``.

One module per algorithm: :mod:`.schema` (the class, and building the :mod:`.nodes` tree),
:mod:`.prune`, :mod:`.defaults`, :mod:`.validate` (kube-openapi and list types, with the
ratchet), :mod:`.formats` (string formats), :mod:`.cel` (the CEL pass).

Message texts are those of kube-openapi ``pkg/validation/errors`` rendered through apimachinery
``field.Error``. Where server releases differ, ``kube_minor`` selects the behaviour (default 34):
``<= 34`` CEL failures carry the schema type name as value (``Invalid value: "object": ...``),
``>= 35`` they carry the scalar value or omit it for objects/arrays; ``>= 36`` kube-openapi checks
that numbers fit their ``int32``/``int64``/``float`` format.

Deterministic: objects are walked in document (key insertion) order where Go iterates maps
randomly. CEL rules are compiled on first use only, so importing this package and building a
schema stay cheap.
"""

from __future__ import annotations

from .schema import StructuralSchema

__all__ = ["StructuralSchema"]
