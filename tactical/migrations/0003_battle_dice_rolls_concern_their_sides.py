from django.db import migrations


def mark_sides(apps, schema_editor):
    """Rolls of an embedded battle logged before rolls recorded whom they concern: they concern
    the battle's two sides (ruling C21), as every roll of a battle does from now on. ``concerns``
    is not covered by these rows' (version 1) hashes, so the chain is unchanged."""
    Battle = apps.get_model("tactical", "Battle")
    DiceRoll = apps.get_model("campaign", "DiceRoll")
    for pk, campaign_id, attacker, defender in Battle.objects.values_list("pk", "campaign_id", "attacker", "defender"):
        DiceRoll.objects.filter(campaign_id=campaign_id, phase=f"battle {pk}", hash_version=1).update(
            concerns=sorted({attacker, defender}))


def unmark(apps, schema_editor):
    DiceRoll = apps.get_model("campaign", "DiceRoll")
    DiceRoll.objects.filter(phase__startswith="battle ", hash_version=1).update(concerns=[])


class Migration(migrations.Migration):

    dependencies = [
        ("tactical", "0002_deploying"),
        ("campaign", "0007_dice_roll_concerns_and_salted_hash"),
    ]

    operations = [
        migrations.RunPython(mark_sides, unmark),
    ]
