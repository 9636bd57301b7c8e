"""Issue 26: Event Horizon's rows move to their own app, ``eventhorizon``
(campaign/eventhorizon/migrations/0001_initial.py). Only Django's record of the models changes
(``SeparateDatabaseAndState`` with no database operation): the tables keep their names
(``Meta.db_table``), so every row stays where it is."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('campaign', '0014_sweep_partial_indexes'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='design',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='design',
                    name='empire',
                ),
                migrations.RemoveField(
                    model_name='ship',
                    name='design',
                ),
                migrations.RemoveField(
                    model_name='fleet',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='fleet',
                    name='owner',
                ),
                migrations.RemoveField(
                    model_name='ship',
                    name='fleet',
                ),
                migrations.RemoveField(
                    model_name='mapcell',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='ordersecret',
                    name='empire',
                ),
                migrations.RemoveField(
                    model_name='ordersecret',
                    name='user',
                ),
                migrations.RemoveField(
                    model_name='ship',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='ship',
                    name='owner',
                ),
                migrations.RemoveField(
                    model_name='structure',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='structure',
                    name='owner',
                ),
                migrations.RemoveField(
                    model_name='world',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='world',
                    name='held_out_by',
                ),
                migrations.RemoveField(
                    model_name='world',
                    name='home_of',
                ),
                migrations.RemoveField(
                    model_name='world',
                    name='owner',
                ),
                migrations.DeleteModel(
                    name='BuildOrder',
                ),
                migrations.DeleteModel(
                    name='Design',
                ),
                migrations.DeleteModel(
                    name='Fleet',
                ),
                migrations.DeleteModel(
                    name='MapCell',
                ),
                migrations.DeleteModel(
                    name='OrderSecret',
                ),
                migrations.DeleteModel(
                    name='Ship',
                ),
                migrations.DeleteModel(
                    name='Structure',
                ),
                migrations.DeleteModel(
                    name='World',
                ),
            ],
            database_operations=[],
        ),
    ]
