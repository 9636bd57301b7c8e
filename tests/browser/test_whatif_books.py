"""What-if for any rule book in a real browser at phone width (issue 27 item 5): the toy book of
tests/tactical/toybook, registered and nothing else, is offered on the what-if list; a player
buys two forces of skiffs, runs the battles, watches them and reads the win rates. Nothing
scrolls sideways. Screenshots: tests/artifacts/test_whatif_books*.png."""

import pytest
from django.urls import reverse

from tests.tactical import toybook

from .conftest import sideways_overflow


@pytest.fixture
def toy():
    toybook.register()
    yield toybook.BOOK
    toybook.unregister()


def test_a_player_runs_a_toy_book_what_if_on_a_phone(toy, eager_tasks, phone, login, shot, settings,
                                                     django_user_model):
    settings.WHATIF_IN_BACKGROUND = True
    django_user_model.objects.create_user("bob", "bob@example.com", "pw-bob")
    login(phone, "bob", "pw-bob")
    phone.goto(reverse("whatif-list"))
    assert "Toy skiffs (a test book)" in phone.inner_text("#whatif-books") and sideways_overflow(phone) == []
    with phone.expect_navigation():
        phone.locator("#whatif-books a[data-book=toy]").click()
    assert sideways_overflow(phone) == []
    phone.select_option("select[name=s1_ship_1]", "skiff")
    phone.fill("input[name=s1_count_1]", "2")
    phone.select_option("select[name=s2_ship_1]", "skiff")
    phone.fill("input[name=trials]", "30")
    phone.fill("input[name=seed]", "phone")
    shot(phone, "01-form")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Run the battles").click()
    phone.wait_for_selector("#whatif-book-results", timeout=60_000)
    assert sideways_overflow(phone) == []
    table = phone.inner_text("#whatif-book-results")
    assert "Side 1" in table and "Side 2" in table and "Nobody" in table and "%" in table
    shot(phone, "02-result")
    phone.goto(reverse("whatif-list"))
    assert "Toy skiffs (a test book)" in phone.inner_text("#whatif-runs") and sideways_overflow(phone) == []
