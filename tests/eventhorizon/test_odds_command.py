"""The odds management command ("003 Alternative to a Tactical Battle"). DB-free: no `db` fixture."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaign.rules.eventhorizon.autoresolve import Side, odds


def run(*args: str) -> str:
    out = StringIO()
    call_command("odds", *args, stdout=out)
    return out.getvalue()


def test_json_for_the_books_three_to_one_example():  # 003 Alternative to a Tactical Battle
    data = json.loads(run("--json", "--a-bp", "180", "--b-bp", "60"))
    assert list(data) == ["a_dice", "b_dice", "p_a_wins", "p_b_wins", "expected_a_losses", "expected_b_losses"]
    assert (data["a_dice"], data["b_dice"]) == (3, 1)
    exact = odds(Side(180), Side(60))
    assert data["p_a_wins"] == exact.p_a_wins and data["expected_b_losses"] == 0.5
    assert all(isinstance(data[key], float) for key in list(data)[2:])


def test_json_with_force_multipliers():  # 003 Alternative to a Tactical Battle: Force Multipliers
    data = json.loads(run("--json", "--a-bp", "100", "--b-bp", "100", "--a-cruiser", "--b-destroyer", "--b-defences"))
    assert (data["a_dice"], data["b_dice"]) == (2, 2)
    assert data["p_a_wins"] + data["p_b_wins"] == pytest.approx(1)


def test_table_without_json():
    out = run("--a-bp", "180", "--b-bp", "60", "--a-destroyer")
    assert "Dice (d6)" in out and "Chance to win" in out and "Expected ships lost" in out
    assert "4" in out.splitlines()[2]  # 3 dice for the odds, +1 for the destroyer


@pytest.mark.parametrize(
    "args,message",
    [
        (["--a-bp", "-5", "--b-bp", "60"], "--a-bp must be 0 or more"),
        (["--a-bp", "60", "--b-bp", "-1"], "--b-bp must be 0 or more"),
        (["--a-bp", "0", "--b-bp", "0"], "both 0"),
        (["--a-bp", "2.5", "--b-bp", "60"], "invalid int value"),
        (["--a-bp", "60"], "--b-bp"),
        (["--a-bp", "60", "--b-bp", "60", "--a-defences", "--b-defences"], "not allowed with"),
        (["--a-bp", "0", "--b-bp", "60", "--a-cruiser"], "cannot have 0 BP"),
    ],
)
def test_bad_input_is_a_command_error(args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)
