from django.apps import AppConfig


class TacticalConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tactical"
    verbose_name = "Tactical battles"

    def ready(self):
        # The platform reaches battles only through this registered handler (campaign/battles.py).
        from campaign import battles

        from .battles.hooks import TacticalBattles

        battles.register(TacticalBattles())
