from django.apps import AppConfig


class CamConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "campaign.cam"
    label = "cam"
    verbose_name = "CAM campaigns"

    def ready(self) -> None:
        from campaign import layers

        from .layer import LAYER_RECORD

        layers.register(LAYER_RECORD)  # the platform reaches CAM only through this record

        # Replies to a result's confirmation email ("CONFIRM" / "DISPUTE <reason>") come back
        # through the platform's mail in, which names no layer: the layer registers its route.
        from campaign.mail import routing

        from . import mailreply

        routing.register(mailreply.PREFIX, mailreply.handle)
