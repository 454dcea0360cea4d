"""Every packaged conformance scenario (``jobset_ref/conformance/scenarios/<area>/<name>.yaml``)
as one pytest item named ``<area>/<name>`` (see ``jobset_ref.conformance.pytest_plugin``)."""

from __future__ import annotations

from jobset_ref.conformance.pytest_plugin import Scenarios

test_packaged = Scenarios()
