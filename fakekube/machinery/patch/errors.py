"""The ``Status`` errors a PATCH can end in that the other error types do not build.

kube-apiserver's patch handler answers with ``NewGenericServerResponse`` for a JSON patch that
cannot be applied (the library's message is discarded) and with the raw Go error text for
strategic-merge errors that are not a ``Status`` (see the package docstring for every shape).
"""

from __future__ import annotations

from typing import Any, Final

from fakekube.errors import ApiError, Invalid

__all__ = ["GENERIC_UNPROCESSABLE_MESSAGE", "PatchApplyError", "PatchInternalError", "generic_status"]

GENERIC_UNPROCESSABLE_MESSAGE: Final = "the server rejected our request due to an error in our request"


def generic_status(code: int, reason: str, message: str) -> dict[str, Any]:
    """``NewGenericServerResponse`` with no resource: ``details`` is an empty (non-nil) object."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "details": {}, "code": code}


class PatchApplyError(Invalid):
    """422 for a patch that decodes but cannot be applied.

    The API server replaces the library's message with a generic one; ``detail`` keeps it.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(GENERIC_UNPROCESSABLE_MESSAGE)
        self.detail = detail
        self.status = generic_status(422, "Invalid", GENERIC_UNPROCESSABLE_MESSAGE)

    def __repr__(self) -> str:
        return f"PatchApplyError(422 Invalid: {self.detail})"


class PatchInternalError(ApiError):
    """500 for a strategic-merge error that is not a Status: upstream sends the raw Go error text.

    Go omits the empty ``reason``; it is kept here as ``""`` so ``.reason`` stays usable.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(detail, code=500)
        self.detail = detail
        self.status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                       "message": detail, "reason": "", "code": 500}
