"""The due work of every campaign layer's steps, asked of the layer registry (``campaign/layers.py``):
the steps past their deadline that a layer's record reports (``due_steps``) are each processed by
that record's ``process_due``, in its own task (``campaign.tasks.process_layer_step``), queued
when the current transaction commits (Event Horizon's due turns among them, since issue 26). The
sweeps — Celery beat's ``campaign.tasks.process_due``, ``manage.py processdue``, the in-process
``campaign/middleware.py`` — call this. It names no layer.
"""

from __future__ import annotations

from django.db import transaction


def enqueue_due_steps(now=None) -> int:
    """Queue a task for every layer step past its deadline; returns how many."""
    from .. import layers
    from ..tasks import process_layer_step as task

    due = layers.due_steps(now)
    for key, campaign_id in due:
        transaction.on_commit(lambda k=key, c=campaign_id: task.delay(k, c), robust=True)
    return len(due)
