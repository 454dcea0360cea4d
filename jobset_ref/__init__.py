"""jobset_ref: the reference JobSet controller."""
