"""The orders format (docs/orders.md) as OpenAPI schema, for ``/api/schema/`` and ``/api/docs/``.

These serializers only *document* the bodies of ``PUT campaigns/{id}/orders/`` and ``POST
campaigns/{id}/orders/preview/``: the orders are checked by the engine (campaign/eventhorizon/actions/orders.py →
campaign/rules/eventhorizon/orders.py), which names the place and the rule of anything wrong;
keeping one checker means the schema cannot refuse what the engine accepts or the other way round.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema_field
from rest_framework import serializers


def _coord(help_text: str, **kw) -> serializers.ListField:
    return serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2,
                                 help_text=help_text + " [x, y]", **kw)


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}],
                      "description": "A fleet number, or the label a split gave it this turn (`as`)."})
class FleetRefField(serializers.Field):
    def to_representation(self, value):
        return value

    def to_internal_value(self, data):
        return data


class PurchaseSerializer(serializers.Serializer):
    """One of `buy`, `build` or `repair` (003 Use of BP in a Campaign)."""

    buy = serializers.CharField(required=False, help_text="A resource key, e.g. planetary_defences.")
    at = _coord("Where the resource is bought", required=False)
    technology = serializers.CharField(required=False, help_text="A research facility's technology.")
    build = serializers.CharField(required=False, help_text="The name of a design available to the empire.")
    repair = serializers.IntegerField(required=False, help_text="A ship number to repair.")
    dockyard = serializers.IntegerField(
        required=False, help_text="The dockyard (structure number) building or repairing."
    )
    hero_crew = serializers.BooleanField(required=False)
    name = serializers.CharField(required=False, help_text="The new ship's name.")


class SplitSerializer(serializers.Serializer):
    fleet = serializers.IntegerField()
    ships = serializers.ListField(child=serializers.IntegerField())
    as_ = serializers.CharField(help_text="A label `moves` can use this turn.")

    def get_fields(self):
        fields = super().get_fields()
        fields["as"] = fields.pop("as_")
        return fields


class MergeSerializer(serializers.Serializer):
    fleets = serializers.ListField(child=FleetRefField(), min_length=2, help_text="Joined into the first listed.")


class MoveSerializer(serializers.Serializer):
    fleet = FleetRefField()
    path = serializers.ListField(child=_coord("A cell entered"), help_text="The cells entered, in order.")


class InvasionOrderSerializer(serializers.Serializer):
    hex = _coord("The hex this order covers", required=False)
    fleet = FleetRefField(required=False)
    response = serializers.ChoiceField(choices=["fight", "retreat"])
    retreat_to = _coord("Where to retreat", required=False)


class StandingSerializer(serializers.Serializer):
    invasion = InvasionOrderSerializer(many=True, required=False)
    loss_order = serializers.ChoiceField(choices=["cheapest", "costliest"], required=False)
    initiative = serializers.ChoiceField(choices=["first", "last"], required=False)


class OrderSetSerializer(serializers.Serializer):
    """One empire's orders for one turn (docs/orders.md); `{}` holds."""

    purchases = PurchaseSerializer(many=True, required=False)
    split = SplitSerializer(many=True, required=False)
    merge = MergeSerializer(many=True, required=False)
    moves = MoveSerializer(many=True, required=False)
    standing = StandingSerializer(required=False)


class OrdersPutSerializer(serializers.Serializer):
    orders = OrderSetSerializer()
    ready = serializers.BooleanField(required=False, allow_null=True,
                                     help_text="Done with the turn; left out or null: unchanged.")


class OrdersPreviewRequestSerializer(serializers.Serializer):
    orders = OrderSetSerializer()


class OrdersGetSerializer(serializers.Serializer):
    turn = serializers.IntegerField()
    setup = serializers.BooleanField(help_text="True in the set-up round (turn 0, 003 Set Up): purchases and standing "
                                               "orders only, ships delivered at once (docs/orders.md).")
    orders = OrderSetSerializer()
    ready = serializers.BooleanField()
    revision = serializers.IntegerField()


class OrdersPutResponseSerializer(serializers.Serializer):
    turn = serializers.IntegerField()
    setup = serializers.BooleanField(help_text="True in the set-up round (turn 0, 003 Set Up): purchases and standing "
                                               "orders only, ships delivered at once (docs/orders.md).")
    revision = serializers.IntegerField()
    ready = serializers.BooleanField()
    preview = serializers.ListField(child=serializers.CharField(), help_text="What the orders will do, line by line.")
    warnings = serializers.ListField(child=serializers.CharField(),
                                     help_text="Warnings, not refusals: e.g. the orders can leave you with no ships "
                                               "(docs/rulings.md W1).")
    bp_left = serializers.IntegerField()


class PurchaseOptionSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    reason = serializers.CharField(allow_blank=True, help_text="Why it cannot be bought; empty when it can.")
    worlds = serializers.DictField(child=serializers.CharField(allow_blank=True),
                                   help_text="\"x,y\" of each world you own → why not there (empty: it can).")


class OrderOptionsSerializer(serializers.Serializer):
    """What the order form can still offer after the purchases sent (issue 13 item 14)."""

    resources = serializers.DictField(child=PurchaseOptionSerializer(), help_text="Resource key → its options.")
    dockyards = serializers.DictField(child=serializers.CharField(allow_blank=True),
                                      help_text="Dockyard id → why it takes no build this turn (empty: it can).")
    designs = serializers.DictField(child=serializers.CharField(allow_blank=True),
                                    help_text="Design name → why it cannot be built (empty: it can).")


class PreviewPurchaseSerializer(serializers.Serializer):
    item = serializers.CharField()
    cost = serializers.IntegerField()


class PreviewMoveSerializer(serializers.Serializer):
    fleet = FleetRefField(help_text="A fleet number, or the label a split gave it this turn.")
    start = _coord("Where the move starts")
    end = _coord("Where it ends")
    steps = serializers.IntegerField()
    speed = serializers.IntegerField()


class OrdersPreviewResponseSerializer(serializers.Serializer):
    turn = serializers.IntegerField()
    setup = serializers.BooleanField(help_text="True in the set-up round (turn 0, 003 Set Up).")
    valid = serializers.BooleanField(help_text="Always true: invalid orders answer 400.")
    cost = serializers.IntegerField(help_text="BP the purchases cost.")
    bp_left = serializers.IntegerField()
    lines = serializers.ListField(child=serializers.CharField(), help_text="What the orders will do, line by line.")
    warnings = serializers.ListField(child=serializers.CharField(), help_text="Warnings, not refusals "
                                                                              "(docs/rulings.md W1).")
    purchases = PreviewPurchaseSerializer(many=True)
    moves = PreviewMoveSerializer(many=True)
    options = OrderOptionsSerializer()


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


ORDERS_EXAMPLE = OpenApiExample(
    "Orders (docs/orders.md)",
    request_only=True,
    value={
        "orders": {
            "purchases": [
                {"buy": "planetary_defences", "at": [3, 4]},
                {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": 1, "hero_crew": False, "name": "Swift"},
                {"repair": 7, "dockyard": 1},
            ],
            "split": [{"fleet": 3, "ships": [7, 8], "as": "raiders"}],
            "merge": [{"fleets": [4, 5]}],
            "moves": [{"fleet": 3, "path": [[4, 4], [5, 4], [6, 5]]}, {"fleet": "raiders", "path": [[3, 5]]}],
            "standing": {
                "invasion": [{"hex": [3, 4], "response": "retreat", "retreat_to": [2, 2]},
                             {"fleet": 4, "response": "fight"}, {"response": "fight"}],
                "loss_order": "cheapest", "initiative": "first",
            },
        },
        "ready": True,
    },
)

PREVIEW_EXAMPLE = OpenApiExample("Orders to check (docs/orders.md)", request_only=True,
                                 value={"orders": ORDERS_EXAMPLE.value["orders"]})

__all__ = ["ORDERS_EXAMPLE", "PREVIEW_EXAMPLE", "OrdersPutSerializer", "OrdersPutResponseSerializer",
           "OrdersGetSerializer", "OrdersPreviewRequestSerializer", "OrdersPreviewResponseSerializer",
           "ErrorSerializer", "OrderSetSerializer"]
