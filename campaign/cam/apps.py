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

        from campaign.press import seats

        from .models import LAYER, CamPlayer

        def cam_seats(campaign) -> list[seats.Seat]:
            """Press (campaign/press/) names a CAM seat by its fleet's name."""
            return [seats.Seat(seat, name, user_id)
                    for seat, name, user_id in CamPlayer.objects.filter(cam__campaign=campaign)
                    .order_by("seat").values_list("seat", "name", "user_id")]

        seats.register(LAYER, cam_seats)
