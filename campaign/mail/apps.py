from django.apps import AppConfig


class MailConfig(AppConfig):
    name = "campaign.mail"
    label = "mail"
    verbose_name = "Mail in"

    def ready(self):
        from . import outgoing

        outgoing.install_loop_header()
