"""Empty the raw bytes of stored mail older than MAIL_RAW_RETENTION_DAYS (what beat's daily
``campaign.mail.tasks.purge_raw`` does), e.g. from cron without a broker."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from campaign.mail import actions


class Command(BaseCommand):
    help = ("Empty the raw message and the stored reply of incoming mail received more than MAIL_RAW_RETENTION_DAYS "
            "days ago (the row, its sender, route and outcome stay).")

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=None,
                            help="keep this many days instead of MAIL_RAW_RETENTION_DAYS (at least 1)")

    def handle(self, *args, **options):
        days = options["days"]
        if days is not None and days < 1:
            raise CommandError(f"--days must be at least 1, not {days}")
        count = actions.purge_raw(days=days)
        self.stdout.write(f"{count} stored message(s) emptied")
