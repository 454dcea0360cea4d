"""Kueue's job framework (``pkg/controller/jobframework``, ``pkg/podset``) and its batch/v1 Job
integration (``pkg/controller/jobs/job``), at v0.19.2.

The public surface is :mod:`fakekube.kueue`; integrations of other job kinds (JobSet, in
``jobset_ref.kueue``) register through it.
"""
