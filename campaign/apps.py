from django.apps import AppConfig


class CampaignConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "campaign"
    verbose_name = "Campaigns"

    def ready(self) -> None:
        from . import versioning

        versioning.connect()  # caches of a campaign's state follow its state_version

        from . import layers
        from .eventhorizon import layer as eventhorizon_layer

        # Event Horizon's record: its models live in this app, so this app registers it (the one
        # import of a layer's package in the platform; docs/architecture.md).
        layers.register(eventhorizon_layer.record())
