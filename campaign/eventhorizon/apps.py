from django.apps import AppConfig


class EventHorizonConfig(AppConfig):
    """The Event Horizon campaign layer (issue 26): its rows (``models.py``), migrations, commands
    and admin; its record in the campaign-layer registry (``layer.py``) is registered here, like
    CAM's from ``campaign/cam/apps.py``."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "campaign.eventhorizon"
    label = "eventhorizon"
    verbose_name = "Event Horizon"

    def ready(self) -> None:
        from campaign import layers, versioning

        from . import layer, models

        # Caches of a campaign's state follow its state version (campaign/versioning.py).
        versioning.connect(models.World, models.Structure, models.Fleet, models.Ship, models.BuildOrder,
                           models.Design)
        layers.register(layer.record())
        # Orders as text by mail (campaign/mail/routing.py): this layer's checker.
        from campaign.mail import routing

        from .actions import textorders

        routing.register_orders(submit=textorders.submit_text_orders,
                                header_secret_hash=textorders.header_secret_hash,
                                verified_seat=textorders.verified_seat)
