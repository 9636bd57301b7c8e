from django.core.management.base import BaseCommand

from campaign import actions


class Command(BaseCommand):
    help = (
        "Email deadline reminders (24 hours and 1 hour before) to players who have not marked their "
        "orders ready, and to the players every other campaign layer's open step still waits for (asked "
        "of the layer's record). Each reminder is sent once, so running this often is safe. With a Celery "
        "broker, beat does this every REMINDER_SWEEP_SECONDS; without one, run it from cron "
        "(e.g. every 5 minutes) beside processdue."
    )

    def handle(self, *args, **opts):
        count = actions.send_deadline_reminders()
        self.stdout.write(f"{count} reminder(s) sent.")
