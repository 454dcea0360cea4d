"""Builders for core objects, for tests of operators and of fakekube itself."""

from fakekube.testing.builders import make_configmap, make_job, make_pod

__all__ = ["make_configmap", "make_job", "make_pod"]
