"""The toy rule book (issue 27 item 7): registering is all it takes to pass the rule-book
contract and be offered for pickup battles and what-if runs — no file outside its package and this test."""

from __future__ import annotations

import pytest

from campaign.rules.dice import SeededDice, derive_seed
from tactical.hosts.pickup import books
from tactical.rules import registry
from tactical.whatif import pool
from tests.tactical import test_rulebook_contract as contract
from tests.tactical import toybook


@pytest.fixture
def toy():
    toybook.register()
    yield toybook.BOOK
    toybook.unregister()


def test_it_registers_as_a_rule_book(toy):
    assert toy in registry.books()
    assert registry.find_play("toy") is toy.play


def test_it_is_offered_for_pickup_battles(toy):
    assert "toy" in [name for name, _, _ in books.available()]
    fleet = books.book("toy").check_fleet(["skiff", "skiff"], books.BOOKS["toy"].offers(None), 30)
    setup = books.book("toy").setup({1: fleet, 2: fleet[:1]}, {}, {})
    state = toy.new_battle(setup, SeededDice(derive_seed("toy")))
    assert toy.is_over(toy.simulate(state, SeededDice(derive_seed("toy"))))


def test_it_is_offered_for_what_if(toy):
    result = pool.play_run("toy", {"sides": {"1": 2, "2": 1}}, "toy seed", 12).result()
    assert result["trials"] == 12 and sum(result["wins"].values()) == 12
    assert result == pool.play_run("toy", {"sides": {"1": 2, "2": 1}}, "toy seed", 12).result()


def test_it_keeps_the_contract(toy):
    for seed in contract.SEEDS:
        t = contract.trace(toy, seed)
        contract.clause_codec(toy, t.states)
        contract.clause_doctrine(toy, t.states)
        contract.clause_refusals(toy, t.states)
        contract.clause_replay(toy, t)
        contract.clause_owner(toy, t.states)
        contract.clause_hidden(toy, t.states)
    contract.clause_ends(toy, range(5))


def test_its_hidden_skiff_would_be_caught_leaking(toy):
    t = contract.trace(toy, 1)

    def telling(state, action):  # a refusal that names the cloaked skiff
        if getattr(action, "target", None) == 99 and any(s.id == 99 for s in state.ships):
            raise toybook.IllegalActionError(toybook.RULE, "ship 99 is cloaked")
        toybook.check(state, action)
    with pytest.raises(contract.ContractError):
        contract.clause_hidden(contract.Faulty(toy, check=telling), t.states)
