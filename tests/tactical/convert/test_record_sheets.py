"""Issue 31 item 4: the converted ships as printable record sheets, each book's own form (Buoyz
SDs, 000 1.5; Event Horizon designs, 003 Star Ship Design Rules): one A4 or Letter page per ship,
checked by printing them to PDF in Chromium (Playwright's ``page.pdf``) and counting the pages."""

from __future__ import annotations

import os
import re

import pytest

from campaign.rules.cam.ships import STARTER_CATALOGUE
from campaign.rules.eventhorizon.designs import SAMPLE_DESIGNS
from tactical.rules import registry
from tactical.rules.buoyz import play as bz_play
from tactical.rules.buoyz.sheets import record_sheets as buoyz_sheets
from tactical.rules.eventhorizon import convert as eh_convert
from tactical.rules.eventhorizon.sheets import record_sheets as eh_sheets

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _eh_ship(i, design, damage=None, hero=False):
    return {"id": i, "name": f"Ship {i}", "design_id": None, "design": design.to_dict(), "damage": damage or {},
            "hero_crew": hero}


EH_SETUP = {"hex": [1, 1], "terrain": "space", "world": None, "attacker": 1, "defender": 2, "aewa": False,
            "sides": {"1": {"name": "Red", "ships": [_eh_ship(i, d) for i, d in enumerate(SAMPLE_DESIGNS, 1)]},
                      "2": {"name": "Blue", "ships": [_eh_ship(10 + i, d, {"hull": 1, "engine": 0, "weapons": [],
                                                                             "force_field_generators": 2,
                                                                             "stealth": False, "boarding_parties": 0},
                                                               hero=True)
                                                      for i, d in enumerate(SAMPLE_DESIGNS, 1)]}}}
CAM_SETUP = {"attacker": 1, "defender": 2, "nature": "gas_giant", "planet_owner": 2, "sides": {
    "1": {"name": "Kirk", "units": [{"uid": f"ship:{i}", "kind": "ship", "name": sd.name, "points": sd.points,
                                     "sd": eh_convert.sd_json(sd), "crippled": i % 2 == 0}
                                    for i, sd in enumerate(STARTER_CATALOGUE.values(), 1)]},
    "2": {"name": "Kor", "units": [{"uid": "ac:1", "kind": "ac", "name": "AC", "points": 3},
                                   {"uid": "base:1", "kind": "base", "name": "Battery", "points": 8},
                                   {"uid": "minefield:1", "kind": "minefield", "name": "Mines", "points": 3}]}}}


def _sheet_count(html: str) -> int:
    return html.count('<section class="sheet">')


def test_each_book_draws_one_sheet_per_ship_with_its_tracks():
    bz_setup = registry.find_converter("eventhorizon", "buoyz").to_book(EH_SETUP)
    html = buoyz_sheets(bz_setup)
    assert _sheet_count(html) == 8
    assert "Hull 10/5" in html or re.search(r"Hull \d+/\d+", html)  # 1.5 "Hull 7/3"
    assert "Criticals (5.8)" in html and "Command</th><td>3" in html  # XC5: a hero crew is Command 3
    eh_setup = registry.find_converter("cam", "eventhorizon").to_book(CAM_SETUP)
    ships = sum(len(s["ships"]) for s in eh_setup["sides"].values())
    html = eh_sheets(eh_setup)
    assert _sheet_count(html) == ships and ships > len(STARTER_CATALOGUE)  # squadrons (XC10)
    assert 'class="box gone"' in html  # the crippled ships' carried damage is struck (XC14)
    assert "Mines" not in html  # XC16: a minefield fights no Event Horizon battle
    # The catalogue's own SDs too (a CAM battle on its own book, printed).
    own = bz_play.setup_for({1: list(STARTER_CATALOGUE.values())[:6], 2: list(STARTER_CATALOGUE.values())[6:]})
    assert _sheet_count(buoyz_sheets(own)) == len(STARTER_CATALOGUE)


@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"Chromium is not installed at {CHROMIUM}")
@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_record_sheets_print_one_page_per_ship(paper):
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM_ARGS

    documents = [
        buoyz_sheets(registry.find_converter("eventhorizon", "buoyz").to_book(EH_SETUP)),
        eh_sheets(registry.find_converter("cam", "eventhorizon").to_book(CAM_SETUP)),
        buoyz_sheets(bz_play.setup_for({1: list(STARTER_CATALOGUE.values())[:6],
                                        2: list(STARTER_CATALOGUE.values())[6:]})),
    ]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            for html in documents:
                page.set_content(html)
                pdf = page.pdf(format=paper)
                pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
                assert pages == _sheet_count(html), (paper, pages, _sheet_count(html))
        finally:
            browser.close()


# --- Print&Play: its dashboards (001 Dashboards), rulings XC19-XC30 ------------------------------

def _printplay_documents() -> list[str]:
    from tactical.rules.printplay import play as pp_play
    from tactical.rules.printplay.sheets import record_sheets as pp_sheets

    return [
        registry.find_converter("eventhorizon", "printplay").sheets(
            registry.find_converter("eventhorizon", "printplay").to_book(EH_SETUP)
        ),
        registry.find_converter("cam", "printplay").sheets(
            registry.find_converter("cam", "printplay").to_book(CAM_SETUP)
        ),
        pp_sheets(pp_play.setup_for({1: ["borg_cube", "constitution"], 2: ["sovereign", "talon"]})),
    ]


def test_print_and_play_draws_one_dashboard_per_ship():
    eh, cam, own = _printplay_documents()
    assert _sheet_count(eh) == 8 and "001 Dashboards" in eh and "Hero crew: Sensors +1, ECM +1, WPS +1" in eh
    assert _sheet_count(cam) == len(STARTER_CATALOGUE) + 2  # the AC counter and the base; no minefield (XC29)
    assert "Mines" not in cam and "Crippled (5.7)" in cam
    assert _sheet_count(own) == 4 and "the book's dashboard" in own  # the Constitution as printed (PP2)
    assert own.count('class="box"') > 60 * 1  # the Borg Cube's hull alone is 60 boxes


def _mytrek_documents() -> list[str]:
    from tactical.rules.mytrek.fleets import ROSTER, design_json
    from tactical.rules.mytrek.sheets import record_sheets as mt_sheets

    eh, cam = (registry.find_converter(layer, "mytrek") for layer in ("eventhorizon", "cam"))
    return [eh.sheets(eh.to_book(EH_SETUP)), cam.sheets(cam.to_book(CAM_SETUP)),
            mt_sheets({"sides": {"1": [design_json(d) for d in ROSTER.values()], "2": ["Scout"]}})]


def test_my_trek_draws_one_ship_log_per_ship():  # XC31-XC40; 002 Hull Damage, System Damage
    eh, cam, own = _mytrek_documents()
    assert _sheet_count(eh) == 8 and "My Trek V ship log (002)" in eh and "Hero crew" in eh
    assert eh.count('class="box gone"') > 0  # the carried damage struck (hull, a generator's fields)
    assert _sheet_count(cam) == len(STARTER_CATALOGUE) + 2  # the AC counter and the base; no minefield (XC39)
    assert "Mines" not in cam and "Crippled (5.7)" in cam
    assert _sheet_count(own) == 8 and own.count('class="box"') >= 60  # the Dreadnought's 60 hull boxes


# --- Star Sectors: its profile cards (004 II), rulings XC41-XC51 ---------------------------------

def _starsectors_documents() -> list[str]:
    from tactical.rules.starsectors.cards import ROSTER
    from tactical.rules.starsectors.sheets import record_sheets as ss_sheets

    eh, cam = (registry.find_converter(layer, "starsectors") for layer in ("eventhorizon", "cam"))
    keys = sorted(ROSTER)
    own = {"sides": {"1": {"name": "Red", "ships": [{"card": k, "crew": i == 0, "mines": min(1, ROSTER[k].cargo)}
                                                    for i, k in enumerate(keys[:7])]},
                     "2": {"name": "Blue", "ships": [{"card": k} for k in keys[7:]]}}}
    return [eh.sheets(eh.to_book(EH_SETUP)), cam.sheets(cam.to_book(CAM_SETUP)), ss_sheets(own)]


def test_star_sectors_draws_one_profile_card_per_ship():  # XC41-XC50; 004 II, III, IV.F
    from tactical.rules.starsectors.cards import ROSTER

    eh, cam, own = _starsectors_documents()
    assert _sheet_count(eh) == 8 and "Star Sectors profile card (004 II)" in eh and "command crew" in eh
    assert "Damage control (IV.F)" in eh and "destroyed" in eh  # the last box of each track
    assert _sheet_count(cam) == len(STARTER_CATALOGUE) + 3  # the AC counter, the base (XC49), the Cube's 2nd card
    assert "Mines" not in cam and "Crippled (5.7)" in cam and "sections of one hull" in cam  # XC51
    assert _sheet_count(own) == len(ROSTER) and "Plasma Torpedo Launcher" in own and "Mines:" in own
    dread = ROSTER["fed-dreadnought"]
    assert own.count('class="box"') >= dread.ss  # one Damage Control box per point of SS


# Every new book's sheets, printed to PDF in Chromium: one page per ship (A4 and Letter).
NEW_BOOKS = {"printplay": _printplay_documents, "mytrek": _mytrek_documents, "starsectors": _starsectors_documents}


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium for the module's six printings (a launch costs more than a printing);
    each test prints on a page of its own."""
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM_ARGS

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"Chromium is not installed at {CHROMIUM}")
@pytest.mark.parametrize("paper", ["A4", "Letter"])
@pytest.mark.parametrize("book", sorted(NEW_BOOKS))
def test_a_new_books_sheets_print_one_page_per_ship(chromium, book, paper):
    page = chromium.new_page()
    try:
        for html in NEW_BOOKS[book]():
            page.set_content(html)
            pdf = page.pdf(format=paper)
            pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
            assert pages == _sheet_count(html), (book, paper, pages, _sheet_count(html))
    finally:
        page.close()
