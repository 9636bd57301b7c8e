from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("campaign", "0003_online_play"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="activation_hours",
            field=models.PositiveIntegerField(default=24, help_text="Embedded battles: hours a side has for each activation before the computer doctrine plays it (0: no deadline)."),
        ),
        migrations.AddField(
            model_name="campaign",
            name="battle_hours",
            field=models.PositiveIntegerField(default=48, help_text="Hours to fight an embedded or tabletop battle before it is settled without the players (auto-resolve; 0: no deadline)."),
        ),
        migrations.AddField(
            model_name="campaign",
            name="battle_requests",
            field=models.CharField(choices=[("nobody", "Nobody: always the campaign's mode"), ("either", "Either side of a battle"), ("both", "Both sides, asking for the same mode")], default="either", help_text="Who may ask for an embedded or tabletop battle instead of the campaign's mode (a player's battle preference, set on the orders page).", max_length=10),
        ),
        migrations.AddField(
            model_name="empire",
            name="battle_preference",
            field=models.CharField(blank=True, choices=[("", "The campaign's mode"), ("auto", "Auto-resolve"), ("tactical", "Embedded tactical battle"), ("tabletop", "Fought on a real tabletop")], default="", help_text="How this empire asks for its battles to be settled (if the campaign lets players ask).", max_length=10),
        ),
        migrations.AlterField(
            model_name="campaign",
            name="battle_mode",
            field=models.CharField(choices=[("auto", "Auto-resolve (003 Alternative to a Tactical Battle)"), ("tactical", "Embedded tactical resolver"), ("tabletop", "Fought on a real tabletop")], default="auto", help_text="How battles are settled unless a player asks otherwise (see who may ask).", max_length=10),
        ),
        migrations.AlterField(
            model_name="turn",
            name="status",
            field=models.CharField(choices=[("open", "Taking orders"), ("processing", "Processing"), ("battles", "Waiting for its battles"), ("done", "Processed")], default="open", max_length=12),
        ),
        migrations.AddField(
            model_name="turn",
            name="pending",
            field=models.JSONField(blank=True, editable=False, help_text="While the turn waits for its battles: the battles in order and what the rest of the turn needs.", null=True),
        ),
    ]
