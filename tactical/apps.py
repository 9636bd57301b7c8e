from django.apps import AppConfig


class TacticalConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tactical"
    verbose_name = "Tactical battles"
