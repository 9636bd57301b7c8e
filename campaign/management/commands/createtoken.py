from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from campaign import actions


class Command(BaseCommand):
    help = (
        "Make a new API token for USERNAME and print its key (shown this once: the site stores only "
        "its digest). The user's other tokens keep working; --replace revokes them."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="made on the command line", help="A name to tell the token apart.")
        parser.add_argument("--replace", action="store_true", help="Revoke the user's other tokens.")

    def handle(self, *args, **opts):
        user = get_user_model().objects.filter(username=opts["username"]).first()
        if user is None:
            raise CommandError(f"no user named {opts['username']!r}")
        make = actions.rotate_api_token if opts["replace"] else actions.create_api_token
        try:
            token, key = make(user=user, name=opts["name"])
        except actions.ActionError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(key)
