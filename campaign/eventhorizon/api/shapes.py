"""The shapes of the Event Horizon API's larger answers (campaign/eventhorizon/api/campaigns.py's
map, turn report and fleets), as drf-spectacular declares them; tests/campaign/test_schema_shapes.py
holds real answers to them. The order answers' are in campaign/eventhorizon/order_schema.py."""

from __future__ import annotations

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from campaign.models import GRID_CHOICES


def _nullable_seat(help_text: str) -> serializers.IntegerField:
    return serializers.IntegerField(allow_null=True, help_text=help_text)


# The fleets as fog of war shows them (visibility.fleets_json): a fleet's ships by name only to
# its owner and the moderator.
MAP_FLEETS = inline_serializer("MapFleet", many=True, fields={
    "number": serializers.IntegerField(), "owner": serializers.IntegerField(help_text="The owner's seat."),
    "x": serializers.IntegerField(), "y": serializers.IntegerField(),
    "ships": serializers.IntegerField(help_text="How many ships."),
    "types": serializers.CharField(allow_blank=True, help_text="Ships by type, e.g. \"2 Destroyer\"."),
    "ship_list": inline_serializer("MapShip", many=True, required=False, fields={
        "number": serializers.IntegerField(), "name": serializers.CharField(allow_blank=True),
        "design": serializers.CharField(allow_null=True), "hero_crew": serializers.BooleanField(),
        "damaged": serializers.BooleanField()},
        help_text="Only in your own fleets (every fleet, for the moderator)."),
})

CAMPAIGN_MAP = inline_serializer("CampaignMap", {
    "grid": serializers.ChoiceField(choices=GRID_CHOICES),
    "width": serializers.IntegerField(), "height": serializers.IntegerField(),
    "turn": serializers.IntegerField(help_text="The turn whose start the map shows."),
    "terrain": serializers.ListField(child=serializers.CharField(), help_text="One string a row, a symbol a cell."),
    "symbols": serializers.DictField(child=serializers.CharField(), help_text="Terrain symbol → terrain."),
    "worlds": inline_serializer("MapWorld", many=True, fields={
        "x": serializers.IntegerField(), "y": serializers.IntegerField(), "kind": serializers.CharField(),
        "economy": serializers.CharField(allow_null=True), "owner": _nullable_seat("The owner's seat; null: none."),
        "home_of": _nullable_seat("The seat whose home world it is; null: no one's.")}),
    "structures": inline_serializer("MapStructure", many=True, fields={
        "number": serializers.IntegerField(), "owner": serializers.IntegerField(help_text="The owner's seat."),
        "resource": serializers.CharField(),
        "symbol": serializers.CharField(allow_null=True, help_text="Its map symbol; null: the rule book gives none."),
        "x": serializers.IntegerField(), "y": serializers.IntegerField()}),
    "fleets": MAP_FLEETS,
})


# A turn report (campaign/rules/eventhorizon/report.py, TurnReport.as_dict), fogged for a seat.
TURN_REPORT = inline_serializer("TurnReport", {
    "campaign": serializers.CharField(), "turn": serializers.IntegerField(),
    "seat": _nullable_seat("The seat reported on; null: the moderator's full report."),
    "empire": serializers.CharField(),
    "sections": inline_serializer("TurnReportSection", many=True, fields={
        "step": serializers.CharField(help_text="The step of the turn sequence (003 Campaign Turn Sequence)."),
        "title": serializers.CharField(),
        "lines": serializers.ListField(child=serializers.CharField()),
        "events": serializers.ListField(child=serializers.DictField(), help_text=(
            "The events behind the lines (step, kind, seats, text, data, public, …), as the turn stored them."))}),
    "position": serializers.ListField(child=serializers.CharField()),
    "victory": serializers.ListField(child=serializers.CharField()),
})


FLEET_ROWS = inline_serializer("FleetRows", {
    "count": serializers.IntegerField(),
    "next": serializers.URLField(allow_null=True), "previous": serializers.URLField(allow_null=True),
    "results": inline_serializer("FleetRow", many=True, fields={
        "id": serializers.IntegerField(help_text="The fleet's number."),
        "owner": serializers.IntegerField(help_text="The owner's seat."),
        "x": serializers.IntegerField(), "y": serializers.IntegerField(),
        "speed": serializers.IntegerField(help_text="Its slowest ship's campaign move."),
        "ships": inline_serializer("FleetRowShip", many=True, fields={
            "id": serializers.IntegerField(), "name": serializers.CharField(allow_blank=True),
            "design": serializers.CharField(allow_null=True), "ship_type": serializers.CharField(allow_null=True),
            "move": serializers.IntegerField(), "hero_crew": serializers.BooleanField(),
            "damaged": serializers.BooleanField(),
            "damage": inline_serializer("ShipDamage", {
                "hull": serializers.IntegerField(), "engine": serializers.IntegerField(),
                "weapons": serializers.ListField(child=serializers.CharField(), help_text="Weapons lost."),
                "force_field_generators": serializers.IntegerField(), "stealth": serializers.BooleanField(),
                "boarding_parties": serializers.IntegerField()})})}),
})
