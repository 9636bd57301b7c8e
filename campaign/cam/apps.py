from django.apps import AppConfig


class CamConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "campaign.cam"
    label = "cam"
    verbose_name = "CAM campaigns"
