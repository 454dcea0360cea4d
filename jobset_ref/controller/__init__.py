"""The reference JobSet controller: a reconciler whose body reads as upstream's table of contents.

``reconciler`` (the order), ``observe`` (child-Job buckets), ``construct`` (Jobs, Service,
labels, names), ``status`` (replicatedJobsStatus, conditions, events after the write),
``plan`` (records of decisions), ``policies`` (one module per spec field), ``apply`` (the only
writer), ``pod_controller`` (exclusive-placement enforcement).
"""
