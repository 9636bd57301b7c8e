from django.db import migrations, models


class Migration(migrations.Migration):
    """Each logged roll records the empires it concerns and its hash version. Rows logged before
    keep hash version 1 (their hashes cover no salt) and concern nobody: they stay as public as
    they were. New rows are salted (version 2)."""

    dependencies = [
        ("campaign", "0006_deployment"),
    ]

    operations = [
        migrations.AddField(
            model_name="diceroll",
            name="concerns",
            field=models.JSONField(
                blank=True, default=list,
                help_text="Seats of the empires the roll was made for (empty: public). Fog of war withholds "
                          "it from everyone else until the campaign ends (docs/dice.md).",
            ),
        ),
        migrations.AddField(
            model_name="diceroll",
            name="hash_version",
            field=models.PositiveSmallIntegerField(default=1),
        ),
        migrations.AlterField(
            model_name="diceroll",
            name="hash_version",
            field=models.PositiveSmallIntegerField(
                default=2, help_text="1: the hash covers the fields only (rows logged before salts); 2: also "
                                     "the concerns and a salt drawn from the seed (docs/dice.md).",
            ),
        ),
    ]
