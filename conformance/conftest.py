"""The repository's conformance test package: the packaged scenarios
(``jobset_ref/conformance/scenarios``) are collected by ``test_scenarios.py`` through the
plugin ``jobset_ref.conformance.pytest_plugin``, whose hooks this conftest registers for the
folder.

    pytest conformance/                          # every scenario + the matrix and runner checks
    pytest conformance/ -k failure               # one area (item ids are <area>/<name>)
    pytest conformance/ --update-golden          # rewrite the golden ``.trace`` files
"""

from __future__ import annotations

from jobset_ref.conformance.pytest_plugin import pytest_addoption, pytest_pycollect_makeitem

__all__ = ["pytest_addoption", "pytest_pycollect_makeitem"]
