"""Issue 33: drop the indexes on campaign_id alone that a unique constraint starting with it
already covers (the dice log's (campaign, seq); the map's cells, whose unique becomes
(campaign, y, x) to read a map in its order). The new unique is made before the old one goes, so
the foreign key is never without an index."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaign', '0012_api_tokens_hashed'),
    ]

    operations = [
        migrations.AddConstraint(
            model_name='mapcell',
            constraint=models.UniqueConstraint(fields=('campaign', 'y', 'x'), name='mapcell_unique_cell'),
        ),
        migrations.AlterField(
            model_name='diceroll',
            name='campaign',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='dice_rolls', to='campaign.campaign'),
        ),
        migrations.AlterField(
            model_name='mapcell',
            name='campaign',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='cells', to='campaign.campaign'),
        ),
        migrations.RemoveConstraint(
            model_name='mapcell',
            name='mapcell_unique_xy',
        ),
    ]
