"""Pay tables and options as data: validators, error messages, the shipped defaults."""

import tomllib
from pathlib import Path

import pytest

from controller.rules.errors import ConfigError
from controller.rules.hands import Game
from controller.rules.money import ForOne, MeterShare, Odds
from controller.rules.options import GameConfig, check_consistency, game_config_from_mapping
from controller.rules.paytables import paytables_from_mapping
from controller.service.tableconfig import (
    default_table_text,
    load_default_table,
    load_table_file,
    parse_table_text,
)


def config(text: str) -> GameConfig:
    return game_config_from_mapping(tomllib.loads(text))


def test_the_example_error_message() -> None:
    with pytest.raises(ConfigError) as err:
        paytables_from_mapping({"perfect-pairs": {"perfect_pair": 25}})
    assert str(err.value) == ('[paytables.perfect-pairs] perfect_pair: expected a ratio like '
                              '"25:1", got 25')


@pytest.mark.parametrize(("text", "message"), [
    ("[paytables.perfect-pairs]\nperfect = '25:1'",
     "[paytables.perfect-pairs] perfect: unknown key"),
    ("[paytables.lucky-ladies]\nany_20 = '4 to one'", "[paytables.lucky-ladies] any_20: expected"),
    ("[paytables.nonsense]\nx = 1", "[paytables] nonsense: unknown pay table"),
    ("[paytables.blazing7s]\none_7 = '2:1'", "[paytables.blazing7s] one_7: expected a pay like"),
    ("[paytables.blazing7s]\nthree_7d = '150%'", "[paytables.blazing7s] three_7d: expected"),
    ("[paytables.blazing7s]\nwager = 0", "[paytables.blazing7s] wager: the fixed wager"),
    ("[paytables.axman]\ntwo_kings_of_diamonds = 0", "[paytables.axman] two_kings_of_diamonds"),
    ("[paytables.axman]\nflush = true", "[paytables.axman] flush: expected a ratio"),
    ("[paytables.match-the-dealer.3]\nunsuited = '3:1'", "[paytables.match-the-dealer] 3:"),
    ("[paytables.match-the-dealer.8]\nunsuited = '3:1'",
     "[paytables.match-the-dealer.8] suited: missing"),
    ("[paytables.spanish21-bonus]\nsuper_bonus = []", "[paytables.spanish21-bonus] super_bonus"),
    ("[paytables.spanish21-bonus]\nsuper_bonus = [{min_wager = 2500, award = 1}, "
     "{min_wager = 500, award = 2}]", "rising min_wager"),
    ("[paytables.spanish21-bonus]\nsuper_bonus = [{min_wager = 500}]",
     "[paytables.spanish21-bonus.super_bonus[0]] award: missing"),
    ("[rules.blackjack]\nsurrender = 1", "[rules.blackjack] surrender: expected true or false"),
    ("[rules.blackjack]\nmax_hands = 9", "[rules.blackjack] max_hands: must be 1..4"),
    ("[rules.blackjack]\nblackjack_pays = '0:1'",
     "[rules.blackjack] blackjack_pays: a winning line must pay something, got 0:1"),
    ("[rules.spanish21]\npeek_on_tens = true", "[rules.spanish21] peek_on_tens: unknown key"),
    ("[rules.community]\ncharlie_cards = 3", "[rules.community] charlie_cards: must be 5..21"),
    ("[rules.baccarat]\ncommission_percent = 101", "[rules.baccarat] commission_percent"),
    ("[rules.poker]\nx = 1", "[rules] poker: unknown game"),
    ("[rules.roulette]\nx = 1", "[rules.roulette] x: unknown key (known keys: wheel,"),
    ("[rules.roulette]\nwheel = 'triple'", "[rules.roulette] wheel: expected one of double, "
                                           "single, got 'triple'"),
    ("[rules.roulette]\nbias_spins = 100", "[rules.roulette] bias_spins: must be 190..5000"),
    ("[rules.roulette]\nwheel = 'single'\nbias_spins = 180",
     "[rules.roulette] bias_spins: must be 185..5000, got 180"),
    ("[rules.roulette]\nboard_spins = 1000000", "[rules.roulette] board_spins: must be 20..5000"),
    ("[paytables.roulette]\nstraight = '0:1'",
     "[paytables.roulette] straight: a winning line must pay something, got 0:1"),
    ("[paytables.roulette]\nsplit = 17", '[paytables.roulette] split: expected a ratio like'),
    ("[paytables.roulette]\ntrio = '11:1'", "[paytables.roulette] trio: unknown key"),
    ("[table]\ndecks = 3", "[table] decks: a shoe holds 1, 2, 4, 5, 6 or 8 decks, not 3"),
    ("[table]\ndecks = true", "[table] decks: expected a whole number"),
    ("[table]\ngame = 'poker'", "[table] game: expected one of"),
    ("[table]\nside_bets = ['axman', 'bingo']", "[table] side_bets: unknown name 'bingo'"),
    ("[table]\ngame = 'spanish21'\nside_bets = ['axman']", "[table] side_bets: unknown name"),
    ("[table]\ndecks = 4", "[table] side_bets: AxMan is offered only at 6- or 8-deck tables"),
    ("[table]\ndecks = 1\nside_bets = ['match-the-dealer']",
     "[paytables.match-the-dealer] 1: no pay table for a 1-deck shoe"),
    ("[table]\nmin_wager = 1000\nmax_wager = 500", "[table] max_wager: 500 is below min_wager"),
    ("[progressive]\nreset = 100\nlimit = 50", "[progressive] limit: 50 is below the reset"),
    ("[progressive]\nincrement = -1", "[progressive] increment: must be >= 0"),
    ("[progressive]\nseed = 5", "[progressive] seed: unknown key (known keys: reset, increment"),
    ("table = 5", "[table]: expected a table of keys"),
    ("[table]\nsensor_cents = { 'seat1.ante' = 1000 }",
     "[table] sensor_cents: a fixed amount per bet sensor is for a holdem table, not blackjack"),
    ("[table]\ngame = 'holdem'\nside_bets = []\nseats = 3\nsensor_cents = { 'seat4.ante' = 1000 }",
     "[table.sensor_cents] seat4.ante: not a sensor of this table: seat1.ante to seat3.bonus"),
    ("[table]\ngame = 'holdem'\nside_bets = []\nsensor_cents = { 'seat1.main' = 1000 }",
     "[table.sensor_cents] seat1.main: not a sensor of this table"),
    ("[table]\ngame = 'holdem'\nside_bets = []\nsensor_cents = { 'seat1.ante' = 100 }",
     "[table.sensor_cents] seat1.ante: must be >= 500, got 100"),
    ("[table]\ngame = 'holdem'\nside_bets = []\nsensor_cents = { 'seat1.ante' = 900000 }",
     "[table.sensor_cents] seat1.ante: must be 500..500000 cents"),
    ("[table]\ngame = 'holdem'\nside_bets = []\nsensor_cents = { 'seat1.ante' = '10.00' }",
     "[table.sensor_cents] seat1.ante: expected a whole number"),
])
def test_bad_configuration_names_section_and_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        config(text)
    assert message in str(err.value)


def test_sections_owned_by_others_are_left_alone() -> None:
    found = config("""
[devices.scanner]
kind = "serial"
anything = [1, 2, 3]
[journal]
path = "x"
[vision]
whatever = true
""")
    assert found == GameConfig()


def test_keys_override_defaults_and_keep_the_rest() -> None:
    found = config("""
[table]
game = "spanish21"
decks = 8
side_bets = ["match-the-dealer"]
[rules.spanish21]
dealer_hits_soft_17 = true
[paytables.blazing7s]
three_7s = "250 for 1"
three_suited_7s = "15%"
[paytables.match-the-dealer.8]
unsuited = "5:1"
suited = "20:2"
""")
    assert found.table.game is Game.SPANISH21
    assert found.spanish21.dealer_hits_soft_17
    assert found.spanish21.double_rescue
    assert found.paytables.blazing7s.three_7s == ForOne(250)
    assert found.paytables.blazing7s.three_suited_7s == MeterShare(15)
    assert found.paytables.blazing7s.one_7 == ForOne(2)
    pays = found.paytables.match_the_dealer.for_decks(8)
    assert (pays.unsuited, pays.suited) == (Odds(5), Odds(20, 2))
    with pytest.raises(ConfigError, match=r"\[paytables.match-the-dealer\] 6: no pay table"):
        found.paytables.match_the_dealer.for_decks(6)


def test_shipped_defaults_equal_the_rules_defaults() -> None:
    shipped = load_default_table()
    assert shipped.game == GameConfig(table=shipped.game.table)
    assert shipped.game.table.name == "BJ-01"
    # Every key the code reads appears in the shipped file, commented.
    text = default_table_text()
    for key in ("dealer_hits_soft_17", "insurance_chip", "charlie_cards", "win_by_4",
                "super_bonus", "envy", "two_kings_of_diamonds", "reserve", "limit"):
        assert f"\n{key} = " in text


# RULES.md / seed 000: Spanish 21 Match the Dealer is posted 3, 12, 6, 24, 15 to 1 with no
# deck count, so a table at any deck count pays it unless its file says otherwise.
def test_spanish21_match_the_dealer_default_is_the_posted_table_at_every_deck_count() -> None:
    for decks in (1, 2, 4, 5, 6, 8):
        found = parse_table_text(f'[table]\ngame = "spanish21"\ndecks = {decks}\n'
                                 'side_bets = ["match-the-dealer"]\n', "t.toml")
        check_consistency(found.game)
        pays = found.game.paytables.match_the_dealer_for(Game.SPANISH21).for_decks(decks)
        assert (pays.unsuited, pays.suited) == (Odds(3), Odds(12)), decks


def test_a_spanish21_table_may_file_four_and_nine_to_one_at_six_decks() -> None:
    text = """
[table]
game = "spanish21"
decks = 6
side_bets = ["match-the-dealer"]
[paytables.match-the-dealer-spanish21.6]
unsuited = "4:1"
suited = "9:1"
"""
    found = parse_table_text(text, "t.toml").game
    check_consistency(found)
    pays = found.paytables.match_the_dealer_for(Game.SPANISH21).for_decks(6)
    assert (pays.unsuited, pays.suited) == (Odds(4), Odds(9))
    # The file names only 6 decks: the same file on an 8-deck shoe has no table.
    with pytest.raises(ConfigError, match=r"\[paytables.match-the-dealer-spanish21\] 8: no pay"):
        check_consistency(parse_table_text(text.replace("decks = 6", "decks = 8"), "t.toml").game)


def test_table_file_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text("[table\n")
    with pytest.raises(ConfigError, match=r"table\.toml: not valid TOML"):
        load_table_file(bad)
    with pytest.raises(ConfigError, match="cannot read the table file"):
        load_table_file(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match=r"^x.toml: \[table\] seats: must be 1..9"):
        parse_table_text("[table]\nseats = 12\n", "x.toml")


def test_odds_forms() -> None:
    assert Odds.parse("3:2").winnings(1001) == 1501          # 15.015 rounds down
    assert Odds.parse("25 to 1") == Odds(25)
    assert ForOne.parse("500 for 1").returned(500) == 250_000
    assert MeterShare.parse("10%").of(1_234_567) == 123_456
    for bad in ("3", "3:0", "-1:1", "a:b"):
        with pytest.raises(ValueError, match=r"ratio|impossible"):
            Odds.parse(bad)


def test_a_holdem_table_fixes_the_amount_of_a_sensed_wager() -> None:
    table = config("[table]\ngame = 'holdem'\nside_bets = []\n"
                   "sensor_cents = { 'seat1.ante' = 1000, 'seat2.bonus' = 500 }").table
    assert table.sensor_cents == (("seat1.ante", 1000), ("seat2.bonus", 500))
    assert config("[table]\ngame = 'holdem'\nside_bets = []").table.sensor_cents == ()
