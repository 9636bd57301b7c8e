from django.core.management.base import BaseCommand

from campaign import actions, battles
from campaign.mail.actions import requeue_pending


class Command(BaseCommand):
    help = (
        "Process every campaign turn that is due: all active players marked ready, or the "
        "deadline passed, and every campaign layer's step past its deadline (what that does is the "
        "layer's: docs/architecture.md). Also settles battles past their battle deadline and lets the computer "
        "doctrine play embedded-battle activations past theirs. With a Celery broker the turns are "
        "queued for the workers; without one (the embedded default) they are processed here, one "
        "after another. Stored mail that was never processed (a database error, a lost task) is "
        "processed first, with back-off (docs/mail.md). Away dates' effects and the campaigns' "
        "webhook events and retries (docs/groups.md) come before the turns."
    )

    def handle(self, *args, **opts):
        # Stored mail first (a message a database error left unprocessed, after its back-off):
        # orders the mail system accepted before a deadline count for that turn (ruling ML1).
        mail = requeue_pending()
        from campaign.groups.tasks import sweep_now

        groups = sweep_now()
        steps = actions.enqueue_due_steps()
        settled, played = battles.handler().sweep_due()
        self.stdout.write(f"{steps} campaign turn(s) or step(s) due; "
                          f"{settled} battle(s) settled at their deadline; "
                          f"{played} late activation(s) played by the doctrine; "
                          f"{mail} stored mail message(s) processed again; "
                          f"{groups} away effect(s) and webhook post(s).")
