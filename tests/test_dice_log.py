"""The stored dice log: append-only, hash-chained, checked by verifydice (docs/dice.md)."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import QuerySet

from campaign import actions
from campaign.models import Campaign, DiceRoll

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    return actions.create_campaign(name="Dice", grid="square", width=16, height=12, players=2, seed="dice")


def test_verifydice_passes_on_a_generated_campaign(campaign, capsys):
    call_command("verifydice", str(campaign.pk))
    out = capsys.readouterr().out
    assert out.startswith("OK:") and f"{campaign.dice_rolls.count()} rolls" in out


def test_verifydice_fails_on_an_altered_row(campaign):
    row = campaign.dice_rolls.get(seq=5)
    faces = [f % 20 + 1 for f in row.faces]
    # Tamper below the model's guard, as someone with database access could.
    QuerySet(DiceRoll).filter(pk=row.pk).update(faces=faces, total=sum(faces))
    with pytest.raises(CommandError, match=r"MISMATCH at roll #5"):
        call_command("verifydice", str(campaign.pk))


def test_verifydice_fails_on_a_deleted_row(campaign):
    QuerySet(DiceRoll).filter(campaign=campaign, seq=3)._raw_delete(DiceRoll.objects.db)
    with pytest.raises(CommandError, match=r"roll #4"):
        call_command("verifydice", str(campaign.pk))


def test_verifydice_with_the_revealed_seed(campaign, capsys):
    call_command("verifydice", str(campaign.pk), "--seed", campaign.dice_seed)
    assert capsys.readouterr().out.startswith("OK:")
    with pytest.raises(CommandError, match="published seed hash"):
        call_command("verifydice", str(campaign.pk), "--seed", "00" * 32)
    with pytest.raises(CommandError, match="hexadecimal"):
        call_command("verifydice", str(campaign.pk), "--seed", "not-hex")


@pytest.mark.parametrize("ident,message", [("999", "no campaign with id 999"), ("abc", "not a campaign id")])
def test_verifydice_unknown_campaign(db, ident, message):
    with pytest.raises(CommandError, match=message):
        call_command("verifydice", ident)


def test_log_rows_cannot_be_changed_or_deleted(campaign):
    row = campaign.dice_rolls.first()
    row.total = 99
    with pytest.raises(PermissionError):
        row.save()
    with pytest.raises(PermissionError):
        row.delete()
    with pytest.raises(PermissionError):
        campaign.dice_rolls.update(total=0)
    with pytest.raises(PermissionError):
        campaign.dice_rolls.all().delete()
    assert DiceRoll.objects.get(pk=row.pk).total != 99


def test_seed_is_revealed_only_when_the_campaign_ends(campaign):
    assert campaign.revealed_seed is None
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.FINISHED)
    campaign.refresh_from_db()
    assert campaign.revealed_seed == campaign.dice_seed
