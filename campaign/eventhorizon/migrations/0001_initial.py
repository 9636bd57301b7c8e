"""Issue 26: Event Horizon's rows, moved from the platform app ``campaign`` (its migration 0015
drops them from its record). ``SeparateDatabaseAndState`` with no database operation: the models
keep their tables (``Meta.db_table``: ``campaign_<model>``), so a database made before the move
keeps every row. Their content types are relabelled too, so admin history and permissions follow."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVED = ("mapcell", "world", "structure", "design", "fleet", "ship", "buildorder", "ordersecret")


def relabel(old: str, new: str):
    def run(apps, schema_editor):
        ContentType = apps.get_model("contenttypes", "ContentType")
        db = schema_editor.connection.alias
        for model in MOVED:
            if not ContentType.objects.using(db).filter(app_label=new, model=model).exists():
                ContentType.objects.using(db).filter(app_label=old, model=model).update(app_label=new)
    return run


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('campaign', '0015_eventhorizon_models_to_their_app'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Design',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=80)),
                        ('ship_type', models.CharField(max_length=20)),
                        ('bp', models.PositiveSmallIntegerField()),
                        ('spec', models.JSONField(help_text='The design as documented in docs/export-format.md.')),
                        ('description', models.TextField(blank=True, default='')),
                        ('campaign', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='designs', to='campaign.campaign')),
                        ('empire', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='designs', to='campaign.empire')),
                    ],
                    options={
                        'db_table': 'campaign_design',
                        'ordering': ['campaign_id', 'bp', 'name'],
                    },
                ),
                migrations.CreateModel(
                    name='Fleet',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('number', models.PositiveIntegerField()),
                        ('x', models.PositiveSmallIntegerField()),
                        ('y', models.PositiveSmallIntegerField()),
                        ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='fleets', to='campaign.campaign')),
                        ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='fleets', to='campaign.empire')),
                    ],
                    options={
                        'db_table': 'campaign_fleet',
                        'ordering': ['campaign', 'number'],
                    },
                ),
                migrations.CreateModel(
                    name='MapCell',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('x', models.PositiveSmallIntegerField()),
                        ('y', models.PositiveSmallIntegerField()),
                        ('terrain', models.CharField(choices=[('black_hole', 'Black hole'), ('empty', 'Empty space'), ('particle_cloud', 'Particle cloud'), ('planet', 'Planet'), ('colony', 'Colony'), ('wormhole', 'Worm hole')], max_length=16)),
                        ('campaign', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='cells', to='campaign.campaign')),
                    ],
                    options={
                        'db_table': 'campaign_mapcell',
                        'ordering': ['campaign', 'y', 'x'],
                    },
                ),
                migrations.CreateModel(
                    name='OrderSecret',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('secret_hash', models.CharField(max_length=80)),
                        ('created_at', models.DateTimeField()),
                        ('empire', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='order_secret', to='campaign.empire')),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'campaign_ordersecret',
                    },
                ),
                migrations.CreateModel(
                    name='Ship',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('number', models.PositiveIntegerField()),
                        ('name', models.CharField(blank=True, default='', max_length=80)),
                        ('hero_crew', models.BooleanField(default=False)),
                        ('damage', models.JSONField(blank=True, default=dict)),
                        ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ships', to='campaign.campaign')),
                        ('design', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='ships', to='eventhorizon.design')),
                        ('fleet', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ships', to='eventhorizon.fleet')),
                        ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ships', to='campaign.empire')),
                    ],
                    options={
                        'db_table': 'campaign_ship',
                        'ordering': ['campaign', 'number'],
                    },
                ),
                migrations.CreateModel(
                    name='Structure',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('number', models.PositiveIntegerField(help_text='Per-campaign number; builds name dockyards by it.')),
                        ('resource', models.CharField(choices=[('diplomatic_corps', 'Diplomatic Corps'), ('planetary_defences', 'Planetary Defences'), ('hold_out_garrison', 'Hold Out Garrison'), ('aewa', 'Advanced Early Warning Array'), ('dockyard', 'Dockyard'), ('military_academy', 'Military Academy'), ('merchants_guild', 'Merchants Guild'), ('enrichment', 'Enrichment'), ('stabilised_economy', 'Stabilised Economy'), ('research_facility', 'Research Facility'), ('star_gate', 'Star Gate')], max_length=20)),
                        ('x', models.PositiveSmallIntegerField()),
                        ('y', models.PositiveSmallIntegerField()),
                        ('technology', models.CharField(blank=True, default='', max_length=32)),
                        ('built_turn', models.PositiveIntegerField(default=0)),
                        ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='structures', to='campaign.campaign')),
                        ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='structures', to='campaign.empire')),
                    ],
                    options={
                        'db_table': 'campaign_structure',
                        'ordering': ['campaign', 'number'],
                    },
                ),
                migrations.CreateModel(
                    name='BuildOrder',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(blank=True, default='', max_length=80)),
                        ('hero_crew', models.BooleanField(default=False)),
                        ('ordered_turn', models.PositiveIntegerField()),
                        ('turns_remaining', models.PositiveSmallIntegerField()),
                        ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='builds', to='campaign.campaign')),
                        ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='builds', to='campaign.empire')),
                        ('design', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='builds', to='eventhorizon.design')),
                        ('dockyard', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='build', to='eventhorizon.structure')),
                    ],
                    options={
                        'db_table': 'campaign_buildorder',
                        'ordering': ['campaign', 'dockyard__number'],
                    },
                ),
                migrations.CreateModel(
                    name='World',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('x', models.PositiveSmallIntegerField()),
                        ('y', models.PositiveSmallIntegerField()),
                        ('kind', models.CharField(choices=[('planet', 'Planet'), ('colony', 'Colony')], max_length=10)),
                        ('economy', models.CharField(blank=True, choices=[('industrial', 'Industrial'), ('commercial', 'Commercial'), ('agricultural', 'Agricultural')], default='', max_length=15)),
                        ('held_out_until', models.PositiveIntegerField(blank=True, null=True)),
                        ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='worlds', to='campaign.campaign')),
                        ('held_out_by', models.ForeignKey(blank=True, help_text='An invader kept out for a turn by a hold-out garrison.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='campaign.empire')),
                        ('home_of', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='home_worlds', to='campaign.empire')),
                        ('owner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='worlds', to='campaign.empire')),
                    ],
                    options={
                        'db_table': 'campaign_world',
                        'ordering': ['campaign', 'y', 'x'],
                    },
                ),
                migrations.AddConstraint(
                    model_name='design',
                    constraint=models.UniqueConstraint(fields=('campaign', 'empire', 'name'), name='design_unique_name', nulls_distinct=False),
                ),
                migrations.AddConstraint(
                    model_name='fleet',
                    constraint=models.UniqueConstraint(fields=('campaign', 'number'), name='fleet_unique_number'),
                ),
                migrations.AddConstraint(
                    model_name='mapcell',
                    constraint=models.UniqueConstraint(fields=('campaign', 'y', 'x'), name='mapcell_unique_cell'),
                ),
                migrations.AddConstraint(
                    model_name='ship',
                    constraint=models.UniqueConstraint(fields=('campaign', 'number'), name='ship_unique_number'),
                ),
                migrations.AddConstraint(
                    model_name='structure',
                    constraint=models.UniqueConstraint(fields=('campaign', 'number'), name='structure_unique_number'),
                ),
                migrations.AddConstraint(
                    model_name='world',
                    constraint=models.UniqueConstraint(fields=('campaign', 'x', 'y'), name='world_unique_xy'),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(relabel("campaign", "eventhorizon"), relabel("eventhorizon", "campaign")),
    ]
