"""Entry point for ``kopf run -A --standalone queue_operator/run.py``: the handlers in kopf's default registry."""

from queue_operator.operator import register

register()
