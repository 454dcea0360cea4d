"""Benchmarks (not part of the test suite): ``python -m benchmarks [--quick]``."""
