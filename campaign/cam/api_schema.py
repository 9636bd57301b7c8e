"""The OpenAPI schema of the CAM API's answers (``api.py``, ``api_online.py``): what each endpoint
really sends, so that /api/schema/ describes it. The schemathesis probe of /api/schema/ found the
scenarios, rosters and SDs lists declared as one object, the POSTs that create declared 200 where
they answer 201, and the refusals (400, 403, 404, 409) not declared at all.

These serializers only describe: the answers are built by ``api.campaign_json``, ``scenario_json``,
``adapters.sd_json`` and the views. A record of the engine's (a force, the battle, a score, an event)
is described as a free JSON value: docs/cam.md and the rule book say what is in it.
"""

from __future__ import annotations

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from campaign.models import Campaign

# "reason" is on the scenario's own refusals; an outsider's 404 (no such campaign or scenario for him) has
# only "detail" (the schemathesis probe found the schema requiring it there).
REFUSED = inline_serializer("CamRefusal", fields={
    "detail": serializers.CharField(),
    "reason": serializers.CharField(required=False, help_text="the refusal's key; absent on an outsider's 404")})


class CamOnlineBattleSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    ruleset = serializers.CharField()
    status = serializers.CharField()
    status_label = serializers.CharField()
    resolved_how = serializers.CharField()
    doctrine_sides = serializers.ListField(child=serializers.IntegerField())
    deciding = serializers.IntegerField(allow_null=True, help_text="The seat whose decision it is now.")
    game_turn = serializers.IntegerField(allow_null=True)
    phase = serializers.CharField(allow_null=True)
    decision_deadline = serializers.DateTimeField(allow_null=True,
                                                  help_text="After it the doctrine decides for that side.")
    steps = serializers.IntegerField()
    url = serializers.CharField(help_text="The battle's page.")
    play_url = serializers.CharField(help_text="The battle's play page (tactical/play/).")

    class Meta:
        ref_name = "CamOnlineBattle"


class CamSettingsSerializer(serializers.Serializer):
    period = serializers.IntegerField()
    starting_points = serializers.IntegerField()
    scenarios = serializers.IntegerField()
    points_level = serializers.IntegerField()
    break_percent = serializers.IntegerField()
    replacement_percent = serializers.IntegerField()
    survival_roll = serializers.BooleanField()
    battle_mode = serializers.CharField()
    scenario_mode = serializers.CharField()
    tables = serializers.IntegerField()
    replacement_house_rule = serializers.BooleanField()


class CamPlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField()
    name = serializers.CharField()
    faction = serializers.CharField()
    wealth = serializers.CharField()
    temper = serializers.CharField()
    preset = serializers.BooleanField()
    replacement_points = serializers.IntegerField()
    campaign_points = serializers.IntegerField()
    between_ready = serializers.BooleanField()


class CamScenarioLineSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    stage = serializers.CharField()
    nature = serializers.CharField()


class CamStepSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    label = serializers.CharField()
    deadline = serializers.DateTimeField(allow_null=True)
    paused = serializers.BooleanField()
    hours = serializers.IntegerField()


class CamCampaignSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    layer = serializers.CharField()
    status = serializers.ChoiceField(choices=Campaign.Status.choices)
    seed_hash = serializers.CharField()
    seed = serializers.CharField(allow_null=True, help_text="Revealed once the campaign has finished.")
    settings = CamSettingsSerializer()
    players = CamPlayerSerializer(many=True)
    scenarios = CamScenarioLineSerializer(many=True)
    replacements_done = serializers.IntegerField()
    step = CamStepSerializer(help_text="The step the rubber is at and its deadline.")

    class Meta:
        ref_name = "CamCampaign"


class CamScenarioSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    stage = serializers.CharField()
    nature = serializers.CharField()
    nature_roll = serializers.IntegerField(allow_null=True)
    defender = serializers.IntegerField(allow_null=True)
    points_level = serializers.IntegerField()
    break_percent = serializers.IntegerField()
    forces = serializers.DictField(
        child=serializers.JSONField(),
        help_text='Seat → its force; the opponent\'s is {"chosen": true} until the table is rolled.')
    break_levels = serializers.DictField(child=serializers.JSONField())
    tables = serializers.ListField(child=serializers.JSONField())
    edges = serializers.DictField(child=serializers.JSONField())
    battle = serializers.JSONField(allow_null=True, help_text="The battle record once the table is rolled.")
    turn_entered = serializers.ListField(child=serializers.CharField(),
                                         help_text="The seats that entered this game turn's losses.")
    confirmed_by = serializers.IntegerField(
        allow_null=True, help_text="A confirmation taken while the rubber is paused, scored on resuming (CAM60).")
    proposed_by = serializers.IntegerField(allow_null=True)
    force_end = serializers.BooleanField()
    score = serializers.JSONField(allow_null=True)
    events = serializers.ListField(child=serializers.JSONField())
    mode = serializers.CharField()
    online = CamOnlineBattleSerializer(allow_null=True, help_text="The battle fought online, if it is.")
    ship_tables = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()),
        help_text="Seat → the table each of its ships starts on (ruling BZ94), for the forces you may see.")

    class Meta:
        ref_name = "CamScenario"


class CamSDSerializer(serializers.Serializer):
    key = serializers.CharField()
    ship_class = serializers.CharField()
    name = serializers.CharField()
    speed = serializers.IntegerField(allow_null=True)
    turning = serializers.IntegerField(allow_null=True)
    target_size = serializers.IntegerField()
    shields = serializers.ListField(child=serializers.IntegerField(), help_text="[fore, port, starboard, aft]")
    hull = serializers.IntegerField()
    crippled_at = serializers.IntegerField()
    command = serializers.IntegerField()
    ac = serializers.IntegerField()
    ac_capacity = serializers.IntegerField()
    special_abilities = serializers.ListField(child=serializers.CharField())
    main = serializers.ListField(child=serializers.ListField(child=serializers.JSONField()),
                                 help_text="[[count, name, arc], …]")
    secondary = serializers.IntegerField()
    close_defence = serializers.IntegerField()
    period_first = serializers.IntegerField()
    period_last = serializers.IntegerField()
    notes = serializers.CharField(allow_blank=True)
    points = serializers.IntegerField()
    group = serializers.CharField()
    custom = serializers.BooleanField()

    class Meta:
        ref_name = "CamSD"


class CamShipSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    sd = serializers.CharField()
    name = serializers.CharField()
    status = serializers.CharField()
    destroyed_in = serializers.IntegerField(allow_null=True)
    replaced_by = serializers.IntegerField(allow_null=True)
    points = serializers.IntegerField(allow_null=True, help_text="Null for an SD the catalogue no longer holds.")


class CamRosterSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    ships = CamShipSerializer(many=True)

    class Meta:
        ref_name = "CamRoster"


FLEET = inline_serializer("CamStartingFleet", fields={
    "seat": serializers.IntegerField(), "fleet": serializers.ListField(child=serializers.JSONField())})

BETWEEN = inline_serializer("CamReplacements", fields={
    "seat": serializers.IntegerField(), "requests": serializers.ListField(child=serializers.JSONField()),
    "ready": serializers.BooleanField()})

BREAK_CONTACT = inline_serializer("CamBreakContact", fields={
    "turn": serializers.IntegerField(allow_null=True),
    "must_check": serializers.DictField(child=inline_serializer("CamBreakCondition", fields={
        "condition": serializers.IntegerField(help_text="The condition's number in CAM 3.1."),
        "text": serializers.CharField()}, many=True),
        help_text="Seat → the CAM 3.1 conditions it meets now."),
    "broken": serializers.DictField(child=serializers.JSONField()),
    "checks": serializers.ListField(child=serializers.JSONField(), help_text="The break contact checks made."),
})

STANDINGS = inline_serializer("CamStandings", fields={
    "finished": serializers.BooleanField(),
    "leader": serializers.IntegerField(allow_null=True, help_text="None while tied on campaign points."),
    "winner": serializers.IntegerField(allow_null=True),
    "table": inline_serializer("CamStanding", fields={
        "seat": serializers.IntegerField(), "name": serializers.CharField(),
        "campaign_points": serializers.IntegerField(), "scenario_wins": serializers.IntegerField(),
        "victories": serializers.DictField(child=serializers.IntegerField())}, many=True),
    "scenarios": inline_serializer("CamScoredScenario", fields={
        "number": serializers.IntegerField(), "winner": serializers.IntegerField(allow_null=True),
        "victory": serializers.CharField(allow_null=True), "sides": serializers.DictField(
            child=serializers.JSONField())}, many=True),
})


def refusals(ok, *codes: int, created: bool = False) -> dict:
    """An endpoint's responses: ``ok`` on success (201 when it creates), ``REFUSED`` for each of
    ``codes``."""
    return {201 if created else 200: ok, **{code: REFUSED for code in codes}}
