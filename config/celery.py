"""The Celery app. With no CELERY_BROKER_URL the settings make every task run in-process.

Every Celery setting lives in config/settings.py (``CELERY_*``): late acknowledgement with a
prefetch of one, redelivery of a task whose worker died, JSON only, and the one beat schedule
(``CELERY_BEAT_SCHEDULE``: due turns and deadline reminders). Run exactly one beat process.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("sectorcommand")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
