from django.core.management.base import BaseCommand

from campaign import actions, battles


class Command(BaseCommand):
    help = (
        "Process every campaign turn that is due: all active players marked ready, or the "
        "deadline passed, and every campaign layer's step past its deadline (what that does is the "
        "layer's: docs/architecture.md). Also settles battles past their battle deadline and lets the computer "
        "doctrine play embedded-battle activations past theirs. With a Celery broker the turns are "
        "queued for the workers; without one (the embedded default) they are processed here, one "
        "after another."
    )

    def handle(self, *args, **opts):
        count = actions.enqueue_due_turns()
        steps = actions.enqueue_due_steps()
        settled, played = battles.handler().sweep_due()
        self.stdout.write(f"{count} turn(s) due; {steps} campaign step(s) past their deadline; "
                          f"{settled} battle(s) settled at their deadline; "
                          f"{played} late activation(s) played by the doctrine.")
