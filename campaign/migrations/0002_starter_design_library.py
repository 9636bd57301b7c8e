"""The four sample designs of "003 Star Ship Design Rules" as the starter library.

The designs are written out here (not imported from the rules package) so this migration stays
the same whatever later code does; tests check they equal ``SAMPLE_DESIGNS``.
"""

from django.db import migrations

STARTER_DESIGNS = [
    {
        "spec": {
            "name": "Venetian San Marco Class Star Cruiser",
            "ship_type": "star_cruiser",
            "hull": 10,
            "engine": 8,
            "force_field": 8,
            "weapons": {
                "laser_bank": 3,
                "fighter_bay": 1,
                "guided_missile_bay": 3
            },
            "stealth_field": False,
            "boarding_parties": 0,
            "cargo": 0,
            "improved_force_fields": False,
            "nanobot_skin": False,
            "core_containment_capacitor": False,
            "ai_supercomputer": False,
            "civilian": False
        },
        "bp": 40,
        "description": "The San Marco class act as fleet flagships for the Venetian Star Republic."
    },
    {
        "spec": {
            "name": "Knights of G.O.D Sword Class Frigate",
            "ship_type": "frigate",
            "hull": 6,
            "engine": 7,
            "force_field": 6,
            "weapons": {
                "laser_bank": 4,
                "fighter_bay": 2
            },
            "stealth_field": True,
            "boarding_parties": 1,
            "cargo": 0,
            "improved_force_fields": False,
            "nanobot_skin": False,
            "core_containment_capacitor": False,
            "ai_supercomputer": False,
            "civilian": False
        },
        "bp": 30,
        "description": "The Sword class is the standard ship of the line for the Knights of S.T.J.O.N (Strategic Terran Joint Operations Navy)."
    },
    {
        "spec": {
            "name": "Automann Torque Sultan Class Destroyer",
            "ship_type": "destroyer",
            "hull": 8,
            "engine": 7,
            "force_field": 5,
            "weapons": {
                "particle_accelerator": 2,
                "guided_missile_bay": 2
            },
            "stealth_field": True,
            "boarding_parties": 1,
            "cargo": 0,
            "improved_force_fields": False,
            "nanobot_skin": False,
            "core_containment_capacitor": False,
            "ai_supercomputer": False,
            "civilian": False
        },
        "bp": 35,
        "description": "The Sultan class is the standard ship of the line for the robo-worlds that compose the Automann Torque Empire."
    },
    {
        "spec": {
            "name": "Cyber-Corsair Galiot Class Corvette",
            "ship_type": "corvette",
            "hull": 5,
            "engine": 9,
            "force_field": 7,
            "weapons": {
                "laser_bank": 4,
                "fighter_bay": 1
            },
            "stealth_field": False,
            "boarding_parties": 1,
            "cargo": 0,
            "improved_force_fields": False,
            "nanobot_skin": False,
            "core_containment_capacitor": False,
            "ai_supercomputer": False,
            "civilian": False
        },
        "bp": 25,
        "description": "The Cyber-Corsairs are the cyborg allies of the Automann Torques. The Galiot class is representative of the kinds of vessel preferred by these raiders."
    }
]


def add_library(apps, schema_editor):
    Design = apps.get_model("campaign", "Design")
    for row in STARTER_DESIGNS:
        spec = row["spec"]
        Design.objects.get_or_create(
            campaign=None, empire=None, name=spec["name"],
            defaults={"ship_type": spec["ship_type"], "bp": row["bp"], "spec": spec,
                      "description": row["description"]},
        )


def remove_library(apps, schema_editor):
    Design = apps.get_model("campaign", "Design")
    names = [row["spec"]["name"] for row in STARTER_DESIGNS]
    Design.objects.filter(campaign=None, empire=None, name__in=names, ships__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("campaign", "0001_initial")]

    operations = [migrations.RunPython(add_library, remove_library)]
