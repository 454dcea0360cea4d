"""The API server's writes: create, update (PUT, ``status``, ``finalize``), patch (merge, JSON,
strategic), server-side apply and ``POST`` subresources, through defaulting, admission and
validation (``genericregistry.Store``, Kubernetes 1.34: see ``spec/kubernetes.md`` §1); the
trusted-write rules of fakekube's own simulators.
"""

from __future__ import annotations

from typing import Any

from fakekube._core.clock import format_time
from fakekube._core.jsonutil import deep_copy, json_differences
from fakekube.apiserver.admission import CREATE, UPDATE, AdmissionRequest
from fakekube.apiserver.field_manager import (
    WriteInfo,
    check_options,
    decode_apply_body,
    unsupported_media_type,
)
from fakekube.apiserver.reads import ReadVerbs
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.typed_decoding import exact, json_body, undecoded
from fakekube.errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    FieldError,
    Invalid,
    MethodNotAllowed,
    NotFound,
    StrictModeError,
)
from fakekube.machinery import patch as patching
from fakekube.machinery import validation as v
from fakekube.machinery import wire
from fakekube.store import ADDED, MODIFIED

__all__ = ["WriteVerbs"]

MAX_GENERATE_ATTEMPTS = 8
OMIT_EMPTY_METADATA = ("labels", "annotations", "ownerReferences", "finalizers", "generateName")


class WriteVerbs(ReadVerbs):
    """The write verbs of :class:`~fakekube.apiserver.server.ApiServer` (admission webhooks read
    the cluster through the server: a writer is a reader too)."""

    # ================================================================== helpers of the writes
    @staticmethod
    def _strict_error(verb: str, rt: ResourceType, obj: dict[str, Any], trusted: str, problem: str) -> StrictModeError:
        """Strict mode's answer to a write one of fakekube's simulators built wrong."""
        meta = obj.get("metadata") or {}
        name = meta.get("name") or f"{meta.get('generateName') or ''}(generated)"
        ns = meta.get("namespace")
        return StrictModeError(f"strict mode: the {verb} of {rt.kind} {ns + '/' if ns else ''}{name} built by "
                               f"{trusted} {problem}")

    def _invalid(self, rt: ResourceType, obj: dict[str, Any], errors: list[FieldError], trusted: str | None,
                 verb: str = "create") -> Exception:
        name = obj["metadata"].get("name") or ""
        if trusted is not None:
            return self._strict_error(verb, rt, obj, trusted,
                                      f"fails validation: {Invalid.for_object(rt.names, name, errors)}")
        return Invalid.for_object(rt.names, name, errors)

    def _default_again(self, rt: ResourceType, obj: dict[str, Any], trusted: str | None, mutated: bool) -> None:
        """A create's second defaulting pass, after mutating admission. A trusted write skips it
        when no mutating plugin was registered for it (``mutated``: none could have touched the
        object since the first pass, and defaulting is idempotent); in strict mode it runs and must
        not change anything."""
        if trusted is None or mutated:
            rt.strategy.default(obj)
        elif self.strict:
            self._default_unchanged("create", rt, obj, trusted, "is changed by defaulting")

    def _default_unchanged(self, verb: str, rt: ResourceType, obj: dict[str, Any], trusted: str, problem: str) -> None:
        """Strict mode runs a defaulting pass a trusted write skips, on a copy (``obj`` may share
        subtrees with the frozen stored object), and fails with ``problem`` and the differences
        when it changes anything; ``obj`` stays as it is."""
        probe = deep_copy(obj)
        rt.strategy.default(probe)
        if probe != obj:
            raise self._strict_error(verb, rt, obj, trusted, f"{problem}: " + "; ".join(json_differences(obj, probe)))

    def _decodes(self, rt: ResourceType, obj: dict[str, Any], trusted: str | None, verb: str) -> bool:
        """Whether a write's body goes through typed decoding and field validation: every
        untrusted one. A simulator builds its bodies from objects the server decoded, so a
        trusted write skips both (and the JSON check in :meth:`_body`); in strict mode they run
        here and must pass without changing anything. What an update or patch carries over from
        the stored object is not the simulator's doing: strict mode neither walks a top-level
        field shared with it again nor blames the simulator for an undeclared field it already had."""
        # DEVIATION(upstream): kube-apiserver decodes every request body; see _validates.
        if trusted is None:
            return True
        if not self.strict:
            return False
        meta = obj["metadata"]
        stored = None if verb == "create" else \
            self.store.get(rt.key, meta.get("namespace") or "", meta.get("name") or "")
        if not exact(rt, obj, stored):
            problem = undecoded(rt, obj)
            unknown = self.fields.unknown_fields(rt, obj) if problem is None else []
            if unknown and stored is not None:  # those the stored object has already are a user's
                carried = set(self.fields.unknown_fields(rt, stored))
                unknown = [path for path in unknown if path not in carried]
            if unknown:
                problem = "has fields its kind does not declare: " + ", ".join(unknown)
            if problem is not None:
                raise self._strict_error(verb, rt, obj, trusted, problem)
        return False

    def _validates(self, trusted: str | None) -> bool:
        """Whether a write runs ObjectMeta and kind validation: every untrusted one, and in strict mode all."""
        # DEVIATION(upstream): kube-apiserver validates every write; the fake trusts the bodies its
        # own simulators build (strict mode checks that trust on every such write).
        return trusted is None or self.strict

    def _body(self, rt: ResourceType, body: Any, namespace: str, *, copy: bool = True,
              trusted: str | None = None) -> dict[str, Any]:
        """The request body as the server's own object (a copy unless the caller made it fresh);
        a trusted body skips the JSON check (see :meth:`_decodes`)."""
        if not isinstance(body, dict):
            raise BadRequest(f"the body of a {rt.kind} request must be an object, not {type(body).__name__}")
        if trusted is None:
            json_body(rt, body)
        obj = deep_copy(body) if copy else body
        meta = obj.get("metadata")
        if meta is None:
            meta = obj["metadata"] = {}
        if not isinstance(meta, dict):
            raise BadRequest(f"metadata of a {rt.kind} must be an object")
        if obj.get("apiVersion") not in (None, "", rt.api_version):
            raise BadRequest(f"the API version in the data ({obj['apiVersion']}) does not match the expected "
                             f"API version ({rt.api_version})")
        if obj.get("kind") not in (None, "", rt.kind):
            raise BadRequest(f"the kind in the data ({obj['kind']}) does not match the expected kind ({rt.kind})")
        obj["apiVersion"], obj["kind"] = rt.api_version, rt.kind
        for key in OMIT_EMPTY_METADATA:  # Go's omitempty: an empty list or map is not stored
            if key in meta and not meta[key]:
                del meta[key]
        body_ns = meta.get("namespace")
        if body_ns is not None and not isinstance(body_ns, str):
            return obj  # not a string: left for typed decoding to reject (see _ns)
        if rt.namespaced:
            if body_ns and body_ns != namespace:
                raise BadRequest("the namespace of the provided object does not match the namespace sent on the request")
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        return obj

    # ================================================================== create
    def create(self, resource: str | ResourceType, body: dict[str, Any], *, namespace: str | None = None,
               dry_run: bool = False, copy_result: bool = True, fresh_body: bool = False,
               field_manager: str | None = None, field_validation: str | None = None,
               user_agent: str | None = None, info: WriteInfo | None = None,
               trusted: str | None = None) -> dict[str, Any]:
        """Create an object.

        Internal options (see the class docstring): ``copy_result=False`` returns the stored object
        itself, for callers that only read the result. ``fresh_body=True`` lets the server keep
        ``body`` instead of copying it: only for a caller that built it for this call, shares
        nothing mutable with it, and never touches it again.

        Request options as on the wire (every write takes them): ``field_manager``
        (``fieldManager``; a write that carries one -- ``""`` for a request without the
        parameter, named after ``user_agent`` then -- records ``metadata.managedFields``; None, an
        in-process write, records them only on objects that already have them),
        ``field_validation`` (``Strict``, ``Warn`` -- the default -- or ``Ignore``: what to do
        with fields the kind's schema does not declare), ``dry_run`` (``dryRun=All``: everything
        but storing), ``user_agent`` (names the manager of a write without a field manager, as
        kube-apiserver does: the part before the first ``/``); ``info`` collects warnings (see
        :class:`WriteInfo`).
        """
        rt = self.resource(resource)
        check_options("CreateOptions", field_manager=field_manager, field_validation=field_validation)
        meta = body.get("metadata") if isinstance(body, dict) else None
        ns = self._ns(rt, namespace if namespace is not None or not isinstance(meta, dict) else meta.get("namespace"))
        obj = self._body(rt, body, ns, copy=not fresh_body, trusted=trusted)
        if self._decodes(rt, obj, trusted, "create"):
            self.fields.check_decoded(rt, obj, field_validation, info)
        return self._create(rt, ns, obj, dry_run=dry_run, copy_result=copy_result, field_manager=field_manager,
                            user_agent=user_agent, info=info, trusted=trusted)

    def _create(self, rt: ResourceType, ns: str, obj: dict[str, Any], *, dry_run: bool, copy_result: bool,
                field_manager: str | None = None, user_agent: str | None = None, info: WriteInfo | None = None,
                applied: bool = False, trusted: str | None = None) -> dict[str, Any]:
        meta = obj["metadata"]
        self._react("create", rt, ns, meta.get("name") or meta.get("generateName") or "", None)
        sent_rv = meta.get("resourceVersion")
        strategy = rt.strategy
        strategy.default(obj)
        if not applied:
            self.fields.track_create(rt, obj, field_manager, user_agent, self.now)
        self._check_namespace(rt, ns, meta.get("name") or meta.get("generateName") or "Unknown")
        mutated = self.admission.reaches(True, rt.key, CREATE)
        if mutated:
            self.admission.mutate(AdmissionRequest(CREATE, rt, ns, meta.get("name") or "", obj, None, self,
                                                   dry_run=dry_run))
        self._default_again(rt, obj, trusted, mutated)
        meta = obj["metadata"]
        # Store.create: system fields, then the generated name.
        meta["uid"] = self._uids.uid()
        meta["creationTimestamp"] = format_time(self.now)
        for field_name in ("deletionTimestamp", "deletionGracePeriodSeconds", "generation", "resourceVersion"):
            meta.pop(field_name, None)
        if strategy.tracks_generation:
            meta["generation"] = 1
        strategy.prepare_for_create(obj, self._context())
        generate = not meta.get("name") and bool(meta.get("generateName"))
        attempts = MAX_GENERATE_ATTEMPTS if generate else 1
        validates = self._validates(trusted)
        admits = self.admission.reaches(False, rt.key, CREATE)
        for attempt in range(attempts):
            if generate:
                meta["name"] = self._generate_name(meta["generateName"])
            if validates:
                errors = self._validate_meta(rt, meta) + strategy.validate(obj)
                if errors:
                    raise self._invalid(rt, obj, errors, trusted)
            if admits:
                self.admission.validate(AdmissionRequest(CREATE, rt, ns, meta["name"], obj, None, self,
                                                         dry_run=dry_run))
            existing = self.store.get(rt.key, ns, meta["name"])
            if existing is None:
                break
            if not generate:
                prefix = "object is being deleted: " if existing["metadata"].get("deletionTimestamp") else ""
                raise AlreadyExists.for_object(rt.names, meta["name"], prefix=prefix)
            if attempt == attempts - 1:
                raise AlreadyExists.for_object(
                    rt.names, meta["name"], retry_after=1,
                    suffix=", the server was not able to generate a unique name for the object")
        if info is not None:
            info.created = True
        if dry_run:
            return obj
        if sent_rv:  # the storage layer's check: after validation and admission, a plain error (500)
            raise patching.PatchInternalError("resourceVersion should not be set on objects to be created")
        self._persist(rt, obj, "create", ADDED)
        return deep_copy(obj) if copy_result else obj

    def _generate_name(self, base: str) -> str:
        return base[:58] + self._names.name_suffix(5)

    def _validate_meta(self, rt: ResourceType, meta: dict[str, Any]) -> list[FieldError]:
        return v.validate_object_meta(meta, namespaced=rt.namespaced, name_rule=rt.strategy.name_rule)

    # ================================================================== update
    def update(self, resource: str | ResourceType, body: dict[str, Any], *, namespace: str | None = None,
               subresource: str | None = None, dry_run: bool = False, copy_result: bool = True,
               fresh_body: bool = False, field_manager: str | None = None, field_validation: str | None = None,
               user_agent: str | None = None, info: WriteInfo | None = None,
               trusted: str | None = None) -> dict[str, Any]:
        """Update (PUT) an object or its ``status``; the other options as for :meth:`create`."""
        rt = self.resource(resource)
        check_options("UpdateOptions", field_manager=field_manager, field_validation=field_validation)
        if not isinstance(body, dict) or not isinstance(body.get("metadata"), dict) \
                or not isinstance(body["metadata"].get("name"), str) or not body["metadata"]["name"]:
            raise BadRequest(f"an update of a {rt.kind} needs metadata.name")
        ns = self._ns(rt, namespace if namespace is not None else body["metadata"].get("namespace"))
        name = body["metadata"]["name"]
        self._react("update", rt, ns, name, subresource)
        new = self._body(rt, body, ns, copy=not fresh_body, trusted=trusted)
        if self._decodes(rt, new, trusted, "update"):
            self.fields.check_decoded(rt, new, field_validation, info)
        return self._update(rt, ns, name, new, subresource, dry_run=dry_run, verb="update",
                            copy_result=copy_result, field_manager=field_manager, user_agent=user_agent,
                            trusted=trusted)

    def _update(self, rt: ResourceType, ns: str, name: str, new: dict[str, Any], subresource: str | None, *,
                dry_run: bool, verb: str, copy_result: bool = True, field_manager: str | None = None,
                user_agent: str | None = None, applied: bool = False,
                trusted: str | None = None) -> dict[str, Any]:
        if subresource not in (None, "status") and not (subresource == "finalize" and "finalize" in rt.subresources):
            raise NotFound(f"the server could not find the requested resource ({subresource} {rt.key})")
        if subresource == "finalize" and verb != "update":  # namespaces/finalize serves PUT only
            raise MethodNotAllowed("the server does not allow this method on the requested resource")
        if subresource == "status" and not rt.has_status:
            raise NotFound(f"the server could not find the requested resource ({rt.key}/status)")
        old = self.store.get(rt.key, ns, name)
        if old is None:
            raise NotFound.for_object(rt.names, name)
        meta = new["metadata"]
        rv = meta.get("resourceVersion")
        if not rv:
            if not rt.strategy.allow_unconditional_update:
                raise Invalid(f'{rt.key} "{name}" is invalid: metadata.resourceVersion: Invalid value: 0: '
                              "must be specified for an update",
                              details={"name": name, "group": rt.group, "kind": rt.kind, "causes": [
                                  {"reason": "FieldValueInvalid", "message": "Invalid value: 0: must be "
                                   "specified for an update", "field": "metadata.resourceVersion"}]})
        elif rv != old["metadata"]["resourceVersion"]:
            raise Conflict.modified(rt.names, name)
        strategy = rt.strategy
        strategy.default(new)  # every update's one pass, trusted too (a Job's status write gets its labels here)
        meta = new["metadata"]  # defaulting may rebuild it (a custom resource's pruning does)
        old_meta = old["metadata"]
        # BeforeUpdate: system fields cannot be changed by a client.
        for key in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"):
            if key in old_meta:
                meta[key] = old_meta[key]
            else:
                meta.pop(key, None)
        meta["resourceVersion"] = old_meta["resourceVersion"]
        ctx = self._context(subresource)
        if subresource == "status":
            strategy.prepare_for_status_update(new, old, ctx)
        else:
            if rt.has_status:
                if "status" in old:
                    new["status"] = old["status"]
                else:
                    new.pop("status", None)
            strategy.prepare_for_update(new, old, ctx)
        if not applied:
            self.fields.track_update(rt, old, new, field_manager, user_agent, subresource, self.now)
        if subresource != "status":
            if self.admission.reaches(True, rt.key, UPDATE, subresource):
                # The body may share subtrees with the frozen stored object (fresh_body, patches);
                # a mutating plugin gets an object of its own.
                new.update({k: deep_copy(v) for k, v in new.items()})
                meta = new["metadata"]
                self.admission.mutate(AdmissionRequest(UPDATE, rt, ns, name, new, old, self,
                                                       subresource=subresource, dry_run=dry_run))
            if strategy.tracks_generation and strategy.spec_changed(new, old):
                meta["generation"] = int(old_meta.get("generation", 0)) + 1
        if self._validates(trusted):
            errors = v.validate_object_meta_update(meta, old_meta, old_is_valid=True)
            errors += (strategy.validate_status_update(new, old) if subresource == "status"
                       else strategy.validate_update(new, old))
            if errors:
                raise self._invalid(rt, new, errors, trusted, verb)
        if self.admission.reaches(False, rt.key, UPDATE, subresource):
            self.admission.validate(AdmissionRequest(UPDATE, rt, ns, name, new, old, self,
                                                     subresource=subresource, dry_run=dry_run))
        self.fields.keep_times_if_unchanged(new, old)
        if new == old:
            return deep_copy(old) if copy_result else old
        if dry_run:
            return deep_copy(new) if copy_result else new
        if old_meta.get("deletionTimestamp") and not meta.get("finalizers") \
                and not old_meta.get("deletionGracePeriodSeconds") and not strategy.finalizing(new):
            # ShouldDeleteDuringUpdate: the last finalizer is gone from a terminating object.
            self._remove(rt, new)
            return new
        self._persist(rt, new, verb, MODIFIED, subresource)
        return deep_copy(new) if copy_result else new

    # ================================================================== patch
    def patch(self, resource: str | ResourceType, name: str, patch: Any, *, namespace: str | None = None,
              patch_type: str = "merge", subresource: str | None = None,
              dry_run: bool = False, copy_result: bool = True, field_manager: str | None = None,
              field_validation: str | None = None, force: bool | None = None, user_agent: str | None = None,
              info: WriteInfo | None = None, trusted: str | None = None) -> dict[str, Any]:
        """PATCH with ``patch_type`` a content type or ``merge``/``json``/``strategic``/``apply``.

        Server-side apply (``application/apply-patch+yaml``, a YAML or JSON body or a dict)
        needs ``field_manager``, creates the object when it is absent (``info.created``), and
        answers 409 on fields other managers own unless ``force``. Other options as for
        :meth:`create`; ``force`` is for apply only.
        """
        rt = self.resource(resource)
        ns = self._ns(rt, namespace)
        media = patching.normalize_patch_type(patch_type)
        apply = media == patching.APPLY_PATCH_YAML
        check_options("PatchOptions", field_manager=field_manager, field_validation=field_validation,
                      force=force, apply=apply)
        if media == patching.APPLY_PATCH_CBOR:
            raise unsupported_media_type(rt)
        self._react("patch", rt, ns, name, subresource)
        if apply:
            assert field_manager is not None
            return self._apply(rt, ns, name, patch, subresource, field_manager, force=bool(force), dry_run=dry_run,
                               copy_result=copy_result, info=info)
        old = self.store.get(rt.key, ns, name)
        if old is None:
            raise NotFound.for_object(rt.names, name)
        # A fresh object that shares untouched subtrees with the frozen stored one; old is untouched.
        new = self._patched(rt, old, patch, media, trusted)
        if not isinstance(new, dict) or not isinstance(new.get("metadata"), dict):
            raise BadRequest("the patch produced an object without metadata")
        if new["metadata"] is old["metadata"]:  # the server sets fields on it below
            new["metadata"] = dict(old["metadata"])
        patched_meta = new["metadata"]
        self._check_patch_preconditions(rt, name, old, patched_meta, _has_rv(patch, media))
        for key in ("name", "namespace"):
            if patched_meta.get(key) != old["metadata"].get(key):
                patched_meta[key] = old["metadata"].get(key)
        new = self._body(rt, new, ns, copy=False, trusted=trusted)
        if self._decodes(rt, new, trusted, "patch"):
            self.fields.check_patched(rt, new, field_validation, info, patch, media)
        return self._update(rt, ns, name, new, subresource, dry_run=dry_run, verb="patch",
                            copy_result=copy_result, field_manager=field_manager, user_agent=user_agent,
                            trusted=trusted)

    def _patched(self, rt: ResourceType, old: dict[str, Any], patch: Any, media: str,
                 trusted: str | None) -> dict[str, Any]:
        """``old`` with ``patch`` applied. A trusted writer's patch is a JSON value it built, so it
        skips the JSON check (see :meth:`_decodes`); strict mode checks it."""
        if trusted is None or not isinstance(patch, dict | list):
            return patching.apply_patch(old, patch, media, resource=rt.key, share=True)
        if self.strict:
            try:
                wire.check_json(patch)
            except wire.NotJson as err:
                raise self._strict_error("patch", rt, old, trusted, f"sends a patch that is not JSON: {err}") from None
        return patching.apply_built_patch(old, patch, media, resource=rt.key, share=True)

    def _check_patch_preconditions(self, rt: ResourceType, name: str, old: dict[str, Any],
                                   patched_meta: dict[str, Any], has_rv: bool) -> None:
        if patched_meta.get("uid") not in (None, old["metadata"]["uid"]):
            raise Conflict(f'Precondition failed: UID in precondition: {patched_meta["uid"]}, '
                           f'UID in object meta: {old["metadata"]["uid"]}',
                           details={"name": name, "group": rt.group, "kind": rt.plural})
        # A resourceVersion in the patch is a precondition; without one the patch applies to the latest.
        if has_rv and patched_meta.get("resourceVersion") != old["metadata"]["resourceVersion"]:
            raise Conflict.modified(rt.names, name)
        patched_meta["resourceVersion"] = old["metadata"]["resourceVersion"]

    def _apply(self, rt: ResourceType, ns: str, name: str, body: Any, subresource: str | None, field_manager: str,
               *, force: bool, dry_run: bool, copy_result: bool, info: WriteInfo | None) -> dict[str, Any]:
        """Server-side apply: merge the applied configuration, then update or create (spec §1.6)."""
        if subresource not in (None, "status") or (subresource == "status" and not rt.has_status):
            raise NotFound(f"the server could not find the requested resource ({rt.key}/{subresource})")
        config = decode_apply_body(body)
        old = self.store.get(rt.key, ns, name)
        if old is None and subresource is not None:
            raise NotFound.for_object(rt.names, name)
        new = self.fields.apply(rt, old, config, field_manager, force=force, subresource=subresource, now=self.now)
        meta = new["metadata"]
        if meta.get("name") != name:
            raise BadRequest(f"the name of the object ({meta.get('name') or ''}) does not match the name on "
                             f"the URL ({name})")
        if old is None:
            if meta.get("uid"):
                raise Conflict(f'Operation cannot be fulfilled on {rt.key} "{name}": uid mismatch: the provided '
                               f"object specified uid {meta['uid']}, and no existing object was found",
                               details={"name": name, "group": rt.group, "kind": rt.plural})
            new = self._body(rt, new, ns, copy=False)
            return self._create(rt, ns, new, dry_run=dry_run, copy_result=copy_result, info=info, applied=True)
        self._check_patch_preconditions(rt, name, old, meta, _has_rv(config, patching.MERGE_PATCH))
        new = self._body(rt, new, ns, copy=False)
        return self._update(rt, ns, name, new, subresource, dry_run=dry_run, verb="patch",
                            copy_result=copy_result, applied=True)

    # ================================================================== subresources
    def create_subresource(self, resource: str | ResourceType, name: str, subresource: str,
                           body: dict[str, Any], *, namespace: str | None = None) -> dict[str, Any]:
        """``POST .../<name>/<subresource>`` (pods/binding, pods/eviction)."""
        rt = self.resource(resource)
        ns = self._ns(rt, namespace)
        handler = self.subresource_handlers.get((rt.key, subresource))
        if handler is None:
            raise MethodNotAllowed(f"the server does not allow this method on the requested resource "
                                   f"({rt.key}/{subresource})")
        self._react("create", rt, ns, name, subresource)
        self._check_namespace(rt, ns, name)
        return handler(self, rt, ns, name, body)


def _has_rv(patch: Any, media: str) -> bool:
    if media == patching.JSON_PATCH:
        return any(isinstance(op, dict) and str(op.get("path", "")).startswith("/metadata/resourceVersion")
                   for op in (patch if isinstance(patch, list) else []))
    return isinstance(patch, dict) and isinstance(patch.get("metadata"), dict) \
        and patch["metadata"].get("resourceVersion") is not None
