from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from campaign import actions


class Command(BaseCommand):
    help = (
        "Delete sign-ups whose address was never confirmed: accounts never active and never logged "
        "in, made more than --days days ago (default UNCONFIRMED_ACCOUNT_DAYS, 7), that no seat, "
        "campaign, token or other row refers to. Celery beat runs this daily; --dry-run lists them "
        "and deletes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=None,
                            help="Age in days of the unconfirmed sign-ups to delete (1 or more).")
        parser.add_argument("--dry-run", action="store_true", help="List them; delete nothing.")

    def handle(self, *args, **opts):
        days = opts["days"] if opts["days"] is not None else settings.UNCONFIRMED_ACCOUNT_DAYS
        try:
            gone = actions.purge_unconfirmed_accounts(now=timezone.now(), days=days, dry_run=opts["dry_run"])
        except actions.ActionError as exc:
            raise CommandError(str(exc)) from None
        verb = "would delete" if opts["dry_run"] else "deleted"
        self.stdout.write(f"{verb} {len(gone)} unconfirmed account(s)" + (f": {', '.join(gone)}" if gone else ""))
