from django.apps import AppConfig


class TacticalConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tactical"
    verbose_name = "Tactical battles"

    def ready(self):
        # The platform reaches battles only through this registered handler (campaign/battles.py).
        from campaign import battles
        from campaign.cam import battles as cam_battles

        from .battles.hooks import TacticalBattles
        from .hosts.cam.scenarios import CamOnlineBattles

        battles.register(TacticalBattles())
        # CAM scenarios fought online reach the Buoyz engine through their layer's own door.
        cam_battles.register(CamOnlineBattles())
        # Pickup battles (tactical/hosts/pickup/): their host campaigns' layer, and where their results go.
        from campaign import layers

        from .hosts.pickup import actions as pickup
        from .hosts.pickup.layer import RECORD, battle_page
        from .play import actions as play
        from .play import kinds

        layers.register(RECORD)
        play.RESULT_SINKS[RECORD.key] = pickup.record_result
        kinds.HOST_PAGES[RECORD.key] = battle_page  # its battles' titles (issue 23 item 15)
        # CAM scenarios fought online are played on the generic play and replay pages as a battle
        # kind of their own.
        from .hosts.cam.kind import CamPlayKind

        kinds.register(CamPlayKind())
        # A CAM scenario fought online on another rule book (issue 31) is a battle of the generic
        # kind: its sides are the CAM players, its result is scored by the CAM layer, and it waits
        # while the rubber is paused (ruling CAM60).
        from campaign.cam.models import LAYER as CAM

        from .hosts.cam import converted

        play.RESULT_SINKS[CAM] = converted.record_result
        kinds.HOST_SEATS[CAM] = converted.seats_of
        kinds.HOST_PAGES[CAM] = converted.page
        play.PAUSE_HOLDS.add(CAM)
        play.DECISION_MAILS[CAM] = converted.tell_decision
