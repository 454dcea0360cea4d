"""Test support for jobset_ref: builders mirroring upstream's test wrappers."""
