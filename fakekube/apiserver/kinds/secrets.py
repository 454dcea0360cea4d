"""Secrets (``v1``): decoding, defaults and ``ValidateSecret`` / ``ValidateSecretUpdate``.

On decode ``data`` values must be standard base64 (a 400 ``cannot be handled as a Secret``
otherwise, as the JSON decoder of ``[]byte`` fields reports) and ``stringData`` is merged into
``data`` (it wins) and never stored. ``type`` defaults to ``Opaque``. Keys of ``data`` are config
keys; all values together hold at most 1 MiB; the built-in types require their keys (``tls.crt``
and ``tls.key``, ``.dockerconfigjson``, ...) and a ``kubernetes.io/service-account-token`` Secret
its ``kubernetes.io/service-account.name`` annotation. ``type`` never changes, nor does anything
of a Secret marked ``immutable``. Not modelled: the token controller filling token Secrets.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.apiserver.strategy import Strategy
from fakekube.errors import BadRequest, FieldError
from fakekube.machinery import validation as v

__all__ = ["MAX_SECRET_SIZE", "install"]

MAX_SECRET_SIZE = 1024 * 1024
_KEY_FMT = "[-._a-zA-Z0-9]+"
_KEY_RE = re.compile(_KEY_FMT)
_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
_B64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_SA_NAME = "kubernetes.io/service-account.name"
_REDACTED = "<secret contents redacted>"
_IMMUTABLE_SET = "field is immutable when `immutable` is set"


def _config_key_errors(key: str) -> list[str]:
    """``IsConfigMapKey``."""
    errors = []
    if len(key) > 253:
        errors.append(v.max_len_error(253))
    if not _KEY_RE.fullmatch(key):
        errors.append(v.regex_error(_KEY_MSG, _KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    if key in (".", ".."):
        errors.append(f"must not be '{key}'")
    elif key.startswith(".."):
        errors.append("must not start with '..'")
    return errors


def _decode(text: Any) -> bytes | str:
    """The bytes of a base64 ``data`` value, or the decoder's complaint."""
    if not isinstance(text, str):
        return f"json: cannot unmarshal {type(text).__name__} into Go value of type []uint8"
    for i, ch in enumerate(text.rstrip("=")):
        if ch not in _B64_ALPHABET:
            return f"illegal base64 data at input byte {i}"
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return f"illegal base64 data at input byte {len(text) - len(text) % 4}"


class SecretStrategy(Strategy):
    tracks_generation = False

    def default(self, obj: dict[str, Any]) -> None:
        """Decoding (``data`` base64, ``stringData`` merged in) and ``SetDefaults_Secret``."""
        data = obj.get("data")
        if data is not None and not isinstance(data, dict):
            raise BadRequest('Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal '
                             f'{type(data).__name__} into Go struct field Secret.data of type map[string][]uint8')
        for value in (data or {}).values():
            decoded = _decode(value)
            if isinstance(decoded, str):
                raise BadRequest(f'Secret in version "v1" cannot be handled as a Secret: {decoded}')
        string_data = obj.pop("stringData", None)
        if isinstance(string_data, dict) and string_data:
            merged = dict(data or {})
            for key, value in string_data.items():
                merged[key] = base64.b64encode(str(value).encode()).decode()
            obj["data"] = merged
        if not obj.get("type"):
            obj["type"] = "Opaque"

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        data: dict[str, Any] = obj.get("data") or {}
        size = 0
        for key, value in data.items():
            errors += [FieldError.invalid(f"data[{key}]", key, msg) for msg in _config_key_errors(key)]
            decoded = _decode(value)
            size += len(decoded) if isinstance(decoded, bytes) else 0
        if size > MAX_SECRET_SIZE:
            errors.append(FieldError.too_long("data", "", MAX_SECRET_SIZE))
        kind = obj.get("type")
        if kind == "kubernetes.io/service-account-token":
            if not (obj["metadata"].get("annotations") or {}).get(_SA_NAME):
                errors.append(FieldError.required(f"metadata.annotations[{_SA_NAME}]"))
        elif kind in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson"):
            key = ".dockercfg" if kind == "kubernetes.io/dockercfg" else ".dockerconfigjson"
            if key not in data:
                errors.append(FieldError.required(f"data[{key}]"))
            else:
                raw = _decode(data[key])
                try:
                    parsed = json.loads(raw) if isinstance(raw, bytes) else None
                except ValueError as err:
                    errors.append(FieldError.invalid(f"data[{key}]", _REDACTED, str(err)))
                else:
                    if not isinstance(parsed, dict):
                        errors.append(FieldError.invalid(f"data[{key}]", _REDACTED,
                                                         "json: cannot unmarshal into Go value of type "
                                                         "map[string]interface {}"))
        elif kind == "kubernetes.io/basic-auth":
            if "username" not in data and "password" not in data:
                errors += [FieldError.required("data[username]"), FieldError.required("data[password]")]
        elif kind == "kubernetes.io/ssh-auth":
            if not data.get("ssh-privatekey"):
                errors.append(FieldError.required("data[ssh-privatekey]"))
        elif kind == "kubernetes.io/tls":
            errors += [FieldError.required(f"data[{key}]") for key in ("tls.crt", "tls.key") if key not in data]
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        if new.get("type") != old.get("type"):
            errors.append(FieldError.invalid("type", new.get("type"), v.FIELD_IMMUTABLE))
        if old.get("immutable"):
            if not new.get("immutable"):
                errors.append(FieldError.forbidden("immutable", _IMMUTABLE_SET))
            if (new.get("data") or {}) != (old.get("data") or {}):
                errors.append(FieldError.forbidden("data", _IMMUTABLE_SET))
        return errors + self.validate(new)


def install(server: ApiServer) -> None:
    server.registry.add(ResourceType("", "v1", "Secret", "secrets", namespaced=True, strategy=SecretStrategy()))
