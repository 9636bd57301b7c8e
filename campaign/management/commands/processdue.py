from django.core.management.base import BaseCommand

from campaign import actions


class Command(BaseCommand):
    help = (
        "Process every campaign turn that is due: all active players marked ready, or the "
        "deadline passed. With a Celery broker the turns are queued for the workers; without "
        "one (the embedded default) they are processed here, one after another."
    )

    def handle(self, *args, **opts):
        count = actions.enqueue_due_turns()
        self.stdout.write(f"{count} turn(s) due.")
