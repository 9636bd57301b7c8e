from django.apps import AppConfig


class PressConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "campaign.press"
    label = "press"
    verbose_name = "Press (messages between players)"
