"""One pure module per JobSet spec field; each decides, none writes.

Policies read the JobSet model, its draft status and its child Jobs and return records from
:mod:`jobset_ref.controller.plan`. They never import a client, the cluster or ``apply``, and
they never import each other (the reconciler passes one policy's predicate to another when
upstream shares logic).
"""
