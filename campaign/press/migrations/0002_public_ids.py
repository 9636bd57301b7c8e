"""Public ids (issue 24 item 4): a random public id per conversation and a number per message
within its conversation, in place of the site-wide primary keys that pages, the API, reply
addresses and mail headers showed. Existing conversations keep answering their old reply
addresses (``legacy_reply_address``); read marks move from message ids to numbers."""

import secrets

from django.db import migrations, models
from django.db.models import Count

PUBLIC_ID_MIN = 10**11
PUBLIC_ID_MAX = 10**12


def fill(apps, schema_editor):
    Conversation = apps.get_model("press", "Conversation")
    PressMessage = apps.get_model("press", "PressMessage")
    ReadMark = apps.get_model("press", "ReadMark")
    used = set()
    for conversation in Conversation.objects.order_by("pk").iterator():
        public_id = PUBLIC_ID_MIN + secrets.randbelow(PUBLIC_ID_MAX - PUBLIC_ID_MIN)
        while public_id in used:
            public_id = PUBLIC_ID_MIN + secrets.randbelow(PUBLIC_ID_MAX - PUBLIC_ID_MIN)
        used.add(public_id)
        Conversation.objects.filter(pk=conversation.pk).update(public_id=public_id, legacy_reply_address=True)
        # Numbered in the order they were stored (their ids), the order read marks counted in.
        for number, pk in enumerate(PressMessage.objects.filter(conversation_id=conversation.pk)
                                    .order_by("pk").values_list("pk", flat=True), start=1):
            PressMessage.objects.filter(pk=pk).update(number=number)
    for mark in ReadMark.objects.filter(last_read__gt=0).iterator():
        read = PressMessage.objects.filter(conversation_id=mark.conversation_id, pk__lte=mark.last_read).aggregate(
            n=Count("pk"))["n"]
        ReadMark.objects.filter(pk=mark.pk).update(last_read=read)


class Migration(migrations.Migration):
    dependencies = [("press", "0001_press")]

    operations = [
        migrations.AddField("conversation", "public_id", models.BigIntegerField(null=True, editable=False)),
        migrations.AddField("conversation", "legacy_reply_address", models.BooleanField(
            default=False, editable=False,
            help_text="Made before public ids: reply addresses already sent name its primary key, and still work.")),
        migrations.AddField("pressmessage", "number", models.PositiveIntegerField(null=True)),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField("conversation", "public_id", models.BigIntegerField(unique=True, editable=False)),
        migrations.AlterField("pressmessage", "number", models.PositiveIntegerField()),
        migrations.RemoveIndex("pressmessage", "press_message_conv_id"),
        migrations.AddConstraint("pressmessage", models.UniqueConstraint(fields=["conversation", "number"],
                                                                         name="press_message_unique_number")),
        migrations.AlterModelOptions("pressmessage", {"ordering": ["conversation_id", "created_at", "number"]}),
        migrations.AlterField("readmark", "last_read", models.PositiveBigIntegerField(
            default=0, help_text="Number of the last message read (PressMessage.number).")),
    ]
