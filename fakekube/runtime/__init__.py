"""What controllers are built from: the client, the ``Runtime`` a component is handed, shared
informers, the reconcile work queue and event recorders.

Import these names from here (``from fakekube.runtime import Informer``); the modules behind
them are implementation. ``Client``, ``Runtime``, ``Result`` and ``TerminalError`` are also
exported by ``fakekube`` itself.
"""

from __future__ import annotations

from fakekube.runtime.client import Client
from fakekube.runtime.context import Component, Runtime
from fakekube.runtime.controller import Controller, Result, TerminalError
from fakekube.runtime.events import NORMAL, WARNING, EventRecorder
from fakekube.runtime.informer import Handler, Indexer, Informer

__all__ = [
    "NORMAL",
    "WARNING",
    "Client",
    "Component",
    "Controller",
    "EventRecorder",
    "Handler",
    "Indexer",
    "Informer",
    "Result",
    "Runtime",
    "TerminalError",
]
