"""Orders as text (campaign/rules/eventhorizon/textorders.py): every order kind, the block around
it, bad lines with their numbers, and format∘parse round trips (hypothesis)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from campaign.rules.eventhorizon.orders import parse_orders
from campaign.rules.eventhorizon.textorders import (
    Header,
    format_orders,
    parse_header,
    parse_text,
)

HEAD = "#SECTOR 12 3 s3cr-et_X TURN 4"


def block(*lines: str) -> str:
    return "\n".join([HEAD, *lines, "#END"]) + "\n"


def test_header_is_read():
    parsed = parse_text(block())
    assert parsed.ok
    assert parsed.header == Header(campaign=12, seat=3, secret="s3cr-et_X", turn=4)
    assert parsed.orders == {}


def test_every_order_kind_becomes_the_documented_json():
    parsed = parse_text(block(
        "BUY planetary_defences AT 3,4",
        "buy research_facility at (3, 4) tech nanobot_skin",
        'BUILD "Cyber-Corsair Galiot Class Corvette" AT DOCKYARD 1 HERO NAME "Swift"',
        "BUILD Venetian San Marco Class Star Cruiser AT 2 NAME Flag ship",
        "REPAIR 7 AT DOCKYARD 1",
        "SPLIT 3 SHIPS 7, 8 AS raiders",
        "MERGE 4 5",
        "MOVE 3 TO 4,4 5,4 6,5",
        "MOVE raiders 3,5",
        "INVASION HEX 3,4 RETREAT TO 2,2",
        "INVASION FLEET 4 FIGHT",
        "INVASION FIGHT",
        "LOSSES costliest",
        "INITIATIVE last",
        "DRIFT AWAY FROM 5,6",
        'DESIGN "Sword Class" frigate hull=6 engine=7 force_field=6 weapons=laser_bank:4,fighter_bay:2 stealth_field',
        "BATTLE tabletop",
        "READY",
    ))
    assert parsed.ok, parsed.lines
    assert parsed.orders == {
        "purchases": [
            {"buy": "planetary_defences", "at": [3, 4]},
            {"buy": "research_facility", "at": [3, 4], "technology": "nanobot_skin"},
            {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": 1, "hero_crew": True, "name": "Swift"},
            {"build": "Venetian San Marco Class Star Cruiser", "dockyard": 2, "name": "Flag ship"},
            {"repair": 7, "dockyard": 1},
        ],
        "split": [{"fleet": 3, "ships": [7, 8], "as": "raiders"}],
        "merge": [{"fleets": [4, 5]}],
        "moves": [{"fleet": 3, "path": [[4, 4], [5, 4], [6, 5]]}, {"fleet": "raiders", "path": [[3, 5]]}],
        "standing": {
            "invasion": [{"response": "retreat", "hex": [3, 4], "retreat_to": [2, 2]},
                         {"response": "fight", "fleet": 4}, {"response": "fight"}],
            "loss_order": "costliest", "initiative": "last", "drift": {"away_from": [5, 6]},
        },
    }
    parse_orders(parsed.orders)  # the engine's own shape check takes it
    assert parsed.designs == ({"name": "Sword Class", "ship_type": "frigate", "hull": 6, "engine": 7, "force_field": 6,
                               "weapons": {"laser_bank": 4, "fighter_bay": 2}, "stealth_field": True},)
    assert parsed.battle == "tabletop" and parsed.ready is True
    # Engine refusals point back at their line.
    assert parsed.line_for("moves[1].path[0]") == 10
    assert parsed.line_for("purchases[2]") == 4
    assert parsed.line_for("standing.invasion[0].retreat_to") == 11
    assert parsed.line_for("standing.drift.away_from") == 16
    assert parsed.line_for("purchases") is None


def test_set_up_round_orders():
    parsed = parse_text("#SECTOR 1 2 abc TURN 0\nBUY diplomatic_corps AT 3,4\n"
                        'BUILD "Venetian San Marco Class Star Cruiser" AT DOCKYARD 1 NAME "Flagship"\n'
                        "LOSSES cheapest\n#END\n")
    assert parsed.ok and parsed.header.turn == 0
    assert parsed.orders == {
        "purchases": [{"buy": "diplomatic_corps", "at": [3, 4]},
                      {"build": "Venetian San Marco Class Star Cruiser", "dockyard": 1, "name": "Flagship"}],
        "standing": {"invasion": [], "loss_order": "cheapest", "initiative": "first"},
    }


def test_not_ready_and_standing_defaults():
    parsed = parse_text(block("STANDING", "NOT READY"))
    assert parsed.ok and parsed.ready is False
    assert parsed.orders == {"standing": {"invasion": [], "loss_order": "cheapest", "initiative": "first"}}


def test_text_before_the_header_quoted_lines_and_comments_are_ignored():
    text = ("Hi, here are my orders!\nMOVE 9 TO 1,1\n"
            "> #SECTOR 12 3 old TURN 3\n"
            f"{HEAD}\n"
            "# a comment\n; another\n"
            "> MOVE 5 TO 9,9\n"
            "   MOVE 3 TO 4,4   \n"
            "\n"
            "#END\n"
            "MOVE 8 TO 2,2\n"
            "-- \nsignature\n")
    parsed = parse_text(text)
    assert parsed.ok
    assert parsed.header.secret == "s3cr-et_X"
    assert parsed.orders == {"moves": [{"fleet": 3, "path": [[4, 4]]}]}
    assert [line.number for line in parsed.lines] == [4, 8, 10]


def test_a_reply_quoted_without_marks_below_a_separator_is_ignored():
    for separator in ("-----Original Message-----", "_" * 32):
        parsed = parse_text(f"Thanks!\n\n{separator}\nFrom: Sector Command\n{HEAD}\nMOVE 3 TO 4,4\n#END\n")
        assert parsed.header is None and parsed.error.startswith("no order block")
    # Orders written above the separator count; the quoted copy below is not read.
    parsed = parse_text(f"{HEAD}\nMOVE 3 TO 4,4\n#END\n-----Original Message-----\n{HEAD}\nMOVE 9 TO 1,1\n#END\n")
    assert parsed.ok and parsed.orders == {"moves": [{"fleet": 3, "path": [[4, 4]]}]}


def test_bad_lines_are_reported_with_their_numbers():
    parsed = parse_text("greetings\n" + block(
        "MOVE 3 TO 4,4",
        "FLY 3 TO 5,5",
        "BUY planetary_defences 3,4",
        "SPLIT 3 SHIPS AS raiders",
        'BUILD "unterminated AT DOCKYARD 1',
        "MERGE 4",
        "READY",
        "READY",
        "BATTLE sometimes",
    ))
    bad = {line.number: line.message for line in parsed.lines if not line.ok}
    assert sorted(bad) == [4, 5, 6, 7, 8, 10, 11]
    assert "unknown order 'FLY'" in bad[4]
    assert "expected AT" in bad[5]
    assert "the ships are missing" in bad[6]
    assert "unterminated" in bad[7]
    assert "two or more" in bad[8]
    assert "given twice (first on line 9)" in bad[10]
    assert "BATTLE takes one of" in bad[11]
    assert all(line.rule for line in parsed.lines if not line.ok)
    assert not parsed.ok and parsed.error is None
    assert parsed.orders == {"moves": [{"fleet": 3, "path": [[4, 4]]}]}  # the lines that parsed


def test_a_block_without_header_or_end_is_an_error():
    assert parse_text("MOVE 3 TO 4,4\n").error.startswith("no order block")
    assert "no #END" in parse_text(HEAD + "\nMOVE 3 TO 4,4\n").error
    bad = parse_text("#SECTOR twelve 3 x TURN 4\n#END\n")
    assert bad.header is None and "the campaign in the header must be a number" in bad.error
    assert parse_text(HEAD + "\n#SECTOR 1 1 x TURN 1\n#END").lines[1].ok is False


def test_header_needs_every_part():
    for line in ("#SECTOR 1 2 TURN 3", "#SECTOR 1 2 x TURN", "#SECTOR 1 2 x ROUND 3", "#SECTOR 1 2 x TURN 3 more"):
        try:
            parse_header(line)
        except ValueError:
            continue
        raise AssertionError(f"{line!r} was accepted")


def test_quoted_names_keep_commas_and_quotes():
    parsed = parse_text(block(r'BUILD "Corvette" AT DOCKYARD 1 NAME "Unit 7, 8th \"Fleet\""'))
    assert parsed.orders["purchases"][0]["name"] == 'Unit 7, 8th "Fleet"'


def test_format_writes_the_docs_example():
    orders = {
        "purchases": [{"buy": "planetary_defences", "at": [3, 4]},
                      {"build": "Cyber-Corsair Galiot Class Corvette", "dockyard": 1, "name": "Swift"},
                      {"repair": 7, "dockyard": 1}],
        "moves": [{"fleet": 3, "path": [[4, 4], [5, 4]]}],
    }
    text = format_orders(orders, header=Header(1, 2, "k", 5), ready=True)
    assert text == ("#SECTOR 1 2 k TURN 5\n"
                    "BUY planetary_defences AT 3,4\n"
                    'BUILD "Cyber-Corsair Galiot Class Corvette" AT DOCKYARD 1 NAME "Swift"\n'
                    "REPAIR 7 AT DOCKYARD 1\n"
                    "MOVE 3 TO 4,4 5,4\n"
                    "READY\n#END\n")


# --- round trips ----------------------------------------------------------------------------------

# Names: any one-line text (the formatter quotes and escapes it).
names = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=20)
keys = st.from_regex(r"[a-z][a-z_]{0,15}", fullmatch=True)
labels = st.one_of(keys, names.filter(lambda s: s.strip()))
ints = st.integers(min_value=0, max_value=10_000)
coords = st.lists(st.integers(min_value=-50, max_value=200), min_size=2, max_size=2)
fleet_refs = st.one_of(ints, labels)

buys = st.builds(lambda r, at, tech: {"buy": r, "at": at, **({"technology": tech} if tech else {})},
                 keys, coords, st.one_of(st.none(), keys))
builds = st.builds(lambda d, dock, hero, name: {"build": d, "dockyard": dock, **({"hero_crew": True} if hero else {}),
                                                **({"name": name} if name else {})},
                   names, ints, st.booleans(), names)
repairs = st.builds(lambda ship, dock: {"repair": ship, "dockyard": dock}, ints, ints)
splits = st.builds(lambda f, ships, label: {"fleet": f, "ships": ships, "as": label},
                   ints, st.lists(ints, min_size=1, max_size=4), labels)
merges = st.builds(lambda fleets: {"fleets": fleets}, st.lists(fleet_refs, min_size=2, max_size=4))
moves = st.builds(lambda f, path: {"fleet": f, "path": path}, fleet_refs, st.lists(coords, min_size=1, max_size=5))
invasions = st.builds(
    lambda where, value, response, to: {"response": response,
                                        **({where: value[0] if where == "fleet" else value} if where else {}),
                                        **({"retreat_to": to} if to else {})},
    st.sampled_from([None, "hex", "fleet"]), st.tuples(ints, ints).map(list), st.sampled_from(["fight", "retreat"]),
    st.one_of(st.none(), coords))
standings = st.builds(
    lambda inv, loss, ini, drift: {
        "invasion": inv,
        "loss_order": loss,
        "initiative": ini,
        **({"drift": drift} if drift else {}),
    },
    st.lists(invasions, max_size=3),
    st.sampled_from(["cheapest", "costliest"]),
    st.sampled_from(["first", "last"]),
    st.one_of(st.none(), st.builds(lambda m, c: {m: c}, st.sampled_from(["toward", "away_from"]), coords)),
)


@st.composite
def order_sets(draw):
    out = {}
    purchases = draw(st.lists(st.one_of(buys, builds, repairs), max_size=4))
    for key, value in (("purchases", purchases), ("split", draw(st.lists(splits, max_size=2))),
                       ("merge", draw(st.lists(merges, max_size=2))), ("moves", draw(st.lists(moves, max_size=3)))):
        if value:
            out[key] = value
    standing = draw(st.one_of(st.none(), standings))
    if standing is not None:
        out["standing"] = standing
    return out


designs = st.builds(
    lambda name, kind, extra: {"name": name, "ship_type": kind, **extra},
    names, keys,
    st.dictionaries(keys.filter(lambda k: k not in ("name", "ship_type", "weapons")),
                    st.one_of(ints, st.booleans(), st.none()), max_size=5)
    .flatmap(lambda d: st.builds(lambda w: {**d, **({"weapons": w} if w is not None else {})},
                                 st.one_of(st.none(), st.dictionaries(keys, ints, max_size=3))))
)
headers = st.builds(Header, ints, ints, st.from_regex(r"[A-Za-z0-9_-]{1,30}", fullmatch=True), ints)


@pytest.mark.slow  # make test-fast leaves it out (minutes of CPU)
@given(order_sets(), headers, st.one_of(st.none(), st.booleans()),
       st.one_of(st.none(), st.sampled_from(["auto", "tactical", "tabletop", "campaign"])),
       st.lists(designs, max_size=2))
def test_parse_of_format_gives_the_orders_back(orders, header, ready, battle, design_list):
    text = format_orders(orders, header=header, ready=ready, battle=battle, designs=design_list)
    parsed = parse_text(text)
    assert parsed.ok, [line for line in parsed.lines if not line.ok]
    assert parsed.header == header
    assert parsed.orders == orders
    assert parsed.ready == ready and parsed.battle == battle
    assert list(parsed.designs) == design_list
    again = format_orders(parsed.orders, header=parsed.header, ready=parsed.ready, battle=parsed.battle,
                          designs=parsed.designs)
    assert again == text


@given(st.text(max_size=300))
def test_any_text_parses_without_crashing(text):
    parsed = parse_text(HEAD + "\n" + text + "\n#END\n")
    assert parsed.header is not None
    for line in parsed.lines:
        assert line.ok or line.message
