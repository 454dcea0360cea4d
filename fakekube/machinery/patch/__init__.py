"""PATCH bodies applied to wire-form objects: JSON merge patch, JSON patch, strategic merge patch.

Pure functions over JSON-like values (dicts, lists, str, int, float, bool, None). Inputs are never
mutated; every result is a fresh structure sharing nothing with the inputs. Errors are the
``Status`` objects kube-apiserver 1.34 answers (``pkg/endpoints/handlers/patch.go`` with
``gopkg.in/evanphx/json-patch.v4`` v4.12.0 and ``k8s.io/apimachinery/pkg/util/strategicpatch``).

One module per algorithm; every public name is importable from this package:

* :mod:`.media` -- :func:`apply_patch` (what the API server calls: media-type dispatch and body
  decoding; :func:`apply_built_patch` for a body already known to be JSON), :func:`normalize_patch_type`
  and the media-type constants.
* :mod:`.merge` -- JSON merge patch: :func:`json_merge_patch`, :func:`create_merge_patch`.
* :mod:`.jsonpatch` -- JSON patch: :func:`json_patch` and its limits.
* :mod:`.strategic` -- strategic merge patch: :func:`strategic_merge_patch`, :class:`MergeSchema`,
  :class:`FieldMeta`.
* :mod:`.schemas` -- the strategic-merge schemas of built-in resources, :func:`schema_for`.
* :mod:`.errors` -- :class:`PatchApplyError` (422) and :class:`PatchInternalError` (500).

Go's renderings (``%v`` of values, ``encoding/json`` errors, ``sort.SliceStable``) come from
:mod:`fakekube._core.gocompat`.

Error shapes (what the real server sends)
-----------------------------------------
* Undecodable body: 400 ``BadRequest``. JSON patch and strategic merge patch carry Go's
  ``encoding/json`` message (approximated from Python's decoder: ``invalid character 'x' looking
  for beginning of value``, ``unexpected end of JSON input``, ``json: cannot unmarshal object into
  Go value of type jsonpatch.Patch``); merge patch always says ``Invalid JSON Patch`` (also for a
  ``null`` or scalar body).
* More than 10000 JSON-patch operations: 413 ``RequestEntityTooLarge``,
  ``Request entity too large: The allowed maximum operations in a JSON patch is 10000, got N``.
* A JSON patch that cannot be applied (failed ``test``, missing path, bad index, unknown op): 422
  ``Invalid`` built by ``NewGenericServerResponse``, which *discards* the library's message: the
  message is always ``the server rejected our request due to an error in our request`` and
  ``details`` is ``{}``. The library's text is kept on :attr:`PatchApplyError.detail`.
* Strategic merge patch: ``mergepatch.ErrBadJSONDoc``, ``ErrBadPatchFormatForPrimitiveList``,
  ``...ForRetainKeys``, ``...ForSetElementOrderList``, ``ErrUnsupportedStrategicMergePatchFormat``
  are 400 with their text; ``ErrNoListOfLists`` is the same generic 422 as above; every other error
  (missing merge key, ``$patch: merge``, unknown ``$patch`` value, bad ``$setElementOrder`` order,
  mixed element types) is not a Status at all and becomes 500 with an empty ``reason`` and the raw
  Go error text (``map: map[a:1] does not contain declared merge key: name``).
* A patch whose result is not a JSON object: 422 ``Invalid`` `` "" is invalid: patch: Invalid
  value: "<json>": couldn't get version/kind; json parse error: ...`` (text approximate).
* Unsupported content type: built-ins answer through go-restful, 415 ``415: Unsupported Media
  Type`` (``details: {}``); custom resources (no schema) answer 415 ``the body of the request was in
  an unknown format - accepted media types include: application/json-patch+json,
  application/merge-patch+json, application/apply-patch+yaml`` (strategic merge patch included).
"""

from __future__ import annotations

from .errors import GENERIC_UNPROCESSABLE_MESSAGE, PatchApplyError, PatchInternalError
from .jsonpatch import JSON_PATCH_MAX_COPY_BYTES, MAX_JSON_PATCH_OPERATIONS, json_patch
from .media import (
    APPLY_PATCH_CBOR,
    APPLY_PATCH_YAML,
    CR_UNSUPPORTED_MEDIA_TYPE_MESSAGE,
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    apply_built_patch,
    apply_patch,
    normalize_patch_type,
)
from .merge import create_merge_patch, json_merge_patch
from .schemas import (
    CRONJOB_SCHEMA,
    GENERIC_METADATA_SCHEMA,
    JOB_SCHEMA,
    NODE_SCHEMA,
    POD_SCHEMA,
    POD_TEMPLATE_SPEC_SCHEMA,
    SERVICE_SCHEMA,
    schema_for,
)
from .strategic import FieldMeta, MergeSchema, strategic_merge_patch

__all__ = [
    "APPLY_PATCH_CBOR",
    "APPLY_PATCH_YAML",
    "CRONJOB_SCHEMA",
    "CR_UNSUPPORTED_MEDIA_TYPE_MESSAGE",
    "GENERIC_METADATA_SCHEMA",
    "GENERIC_UNPROCESSABLE_MESSAGE",
    "JOB_SCHEMA",
    "JSON_PATCH",
    "JSON_PATCH_MAX_COPY_BYTES",
    "MAX_JSON_PATCH_OPERATIONS",
    "MERGE_PATCH",
    "NODE_SCHEMA",
    "POD_SCHEMA",
    "POD_TEMPLATE_SPEC_SCHEMA",
    "SERVICE_SCHEMA",
    "STRATEGIC_MERGE_PATCH",
    "FieldMeta",
    "MergeSchema",
    "PatchApplyError",
    "PatchInternalError",
    "apply_built_patch",
    "apply_patch",
    "create_merge_patch",
    "json_merge_patch",
    "json_patch",
    "normalize_patch_type",
    "schema_for",
    "strategic_merge_patch",
]
