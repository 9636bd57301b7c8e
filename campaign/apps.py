from django.apps import AppConfig


class CampaignConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "campaign"
    verbose_name = "Campaigns"

    def ready(self) -> None:
        from . import versioning

        versioning.connect()  # caches of a campaign's state follow its state_version

