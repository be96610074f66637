"""`shoectl odds`: the JSON shape, the table, and refusals that name what is wrong."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from controller.cli import odds_command, shoectl
from controller.odds.registry import BETS

FAST_BETS = [name for name in BETS if name != "axman"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = odds_command.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_registered_as_a_shoectl_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert shoectl.main(["odds", "perfect-pairs", "--decks", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bet"] == "perfect-pairs"


@pytest.mark.parametrize("bet", FAST_BETS)
def test_json_is_one_object_whose_lines_sum_to_exactly_one(
        capsys: pytest.CaptureFixture[str], bet: str) -> None:
    status, out, err = run(capsys, bet, "--json")
    assert status == 0, err
    assert out.count("\n") == 1
    data = json.loads(out)
    assert data["bet"] == bet
    assert data["decks"] == (BETS[bet].usual_decks[0] if BETS[bet].decks else None)
    assert sum(Fraction(line["exact"]) for line in data["lines"]) == 1
    for line in data["lines"]:
        assert set(line) == {"name", "pays", "probability", "exact"}
        assert line["probability"] == pytest.approx(float(Fraction(line["exact"])))
    if bet in ("dealer-outcomes", "spanish21-bonus-cards"):
        assert data["house_edge"] is None
    else:
        assert isinstance(data["house_edge"], float)
        assert Fraction(data["house_edge_exact"]) == pytest.approx(data["house_edge"])


def test_table_output_names_lines_and_house_edge(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "perfect-pairs", "--decks", "6")
    assert status == 0
    assert "perfect pair" in out
    assert "25:1" in out
    assert "House edge: 6.1093% of the wager" in out


def test_dealer_outcomes_offers_both_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "dealer-outcomes", "--decks", "6", "--soft17", "hit", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["soft17"] == "hit"
    assert "conditioned on the dealer not having blackjack" in data["conditioning"]
    ace = data["by_up_card"][0]
    assert ace["up"] == "A"
    assert sum(ace["totals"].values()) + ace["blackjack"] == pytest.approx(1)
    assert sum(ace["totals_given_no_blackjack"].values()) == pytest.approx(1)
    assert data["by_up_card"][5]["blackjack"] == 0  # a 6 up: no blackjack


def test_blazing7s_uses_the_meter(capsys: pytest.CaptureFixture[str]) -> None:
    _, low, _ = run(capsys, "blazing7s", "--meter", "2000", "--json")
    _, high, _ = run(capsys, "blazing7s", "--meter", "200000", "--json")
    low_data, high_data = json.loads(low), json.loads(high)
    assert low_data["meter"] == 2000
    assert low_data["meter_cents"] == 1_000_000
    assert high_data["house_edge"] < low_data["house_edge"]
    assert low_data["lines"][0]["pays"].startswith("100% of meter (10,000.00")


@pytest.mark.parametrize(("argv", "message"), [
    (["axman", "--decks", "4"], "--decks 4: axman is dealt with 6, 8 decks only"),
    (["holdem-bonus", "--decks", "2"], "--decks 2: holdem-bonus is dealt with 1 deck only"),
    (["perfect-pairs", "--decks", "3"], "--decks 3: perfect-pairs is dealt with 1, 2, 4, 5"),
    (["match-the-dealer", "--decks", "1"],
     "[paytables.match-the-dealer] 1: no pay table for a 1-deck shoe"),
    (["perfect-pairs", "--meter", "2000"], "--meter applies only to blazing7s"),
    (["baccarat-tie", "--soft17", "hit"], "--soft17 applies only to axman, dealer-outcomes"),
])
def test_bad_options_are_refused(capsys: pytest.CaptureFixture[str], argv: list[str],
                                 message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert message in err


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "paytable.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(("bet", "text", "message"), [
    ("perfect-pairs", "perfect_pair = 25\n",
     '[paytables.perfect-pairs] perfect_pair: expected a ratio like "25:1", got 25'),
    ("perfect-pairs", 'perfect_par = "25:1"\n',
     "[paytables.perfect-pairs] perfect_par: unknown key"),
    ("lucky-ladies", '[paytables.lucky-ladies]\nany_20 = "four to one"\n',
     "[paytables.lucky-ladies] any_20"),
    ("perfect-pairs", '[paytables.lucky-ladies]\nany_20 = "4:1"\n',
     "no [paytables.perfect-pairs] section for perfect-pairs"),
    ("baccarat-banker", "commission_percent = 150\n",
     "[rules.baccarat] commission_percent: must be 0..100, got 150"),
    ("holdem-bonus", 'pair_of_aces = "30"\n', "[paytables.holdem-bonus] pair_of_aces"),
    ("blazing7s", 'three_7s = "200:1"\n', "[paytables.blazing7s] three_7s"),
    ("dealer-outcomes", 'x = "1:1"\n', "dealer-outcomes has no pay table"),
    ("perfect-pairs", "perfect_pair = \n", "not valid TOML"),
])
def test_bad_pay_tables_are_refused_naming_the_key(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, bet: str, text: str,
        message: str) -> None:
    status, out, err = run(capsys, bet, "--paytable", write(tmp_path, text))
    assert status == 2
    assert out == ""
    assert message in err


def test_missing_pay_table_file_is_refused(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    status, _, err = run(capsys, "perfect-pairs", "--paytable", str(tmp_path / "none.toml"))
    assert status == 2
    assert "cannot read" in err


def test_a_pay_table_file_changes_the_sheet(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    table_a = ('[paytables.lucky-ladies]\nqueen_hearts_pair = "125:1"\nmatched_20 = "19:1"\n'
               'suited_20 = "9:1"\n')
    status, out, _ = run(capsys, "lucky-ladies", "--decks", "6", "--json", "--paytable",
                         write(tmp_path, table_a))
    assert status == 0
    assert json.loads(out)["house_edge"] == pytest.approx(0.247089, abs=5e-7)
    bare = 'perfect_pair = "30:1"\ncoloured_pair = "10:1"\nmixed_pair = "5:1"\n'
    status, out, _ = run(capsys, "perfect-pairs", "--decks", "8", "--json", "--paytable",
                         write(tmp_path, bare))
    assert json.loads(out)["house_edge"] == pytest.approx(0.033735, abs=5e-7)


def test_match_the_dealer_pay_table_per_deck_count(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    text = '[paytables.match-the-dealer.4]\nunsuited = "4:1"\nsuited = "12:1"\n'
    status, out, _ = run(capsys, "match-the-dealer", "--decks", "4", "--json", "--paytable",
                         write(tmp_path, text))
    assert status == 0
    assert json.loads(out)["lines"][0]["pays"] == "24:1"
    status, _, err = run(capsys, "match-the-dealer", "--decks", "8", "--paytable",
                         write(tmp_path, text))
    assert status == 2
    assert "[paytables.match-the-dealer] 8: no pay table for a 8-deck shoe" in err


def test_the_table_file_itself_is_a_pay_table_file(capsys: pytest.CaptureFixture[str]) -> None:
    table_file = Path(__file__).resolve().parents[2] / "controller/service/default_table.toml"
    status, out, err = run(capsys, "match-the-dealer", "--decks", "8", "--json", "--paytable",
                           str(table_file))
    assert status == 0, err
    assert json.loads(out)["house_edge"] == pytest.approx(0.036738, abs=5e-7)


# The seed's Spanish 21 Match the Dealer (3, 12, 6, 24, 15 to 1), posted with no deck count:
# the house edge by exact count of a 48-card-deck shoe, 6 decks 2112/41041, 8 decks 2184/73153.
@pytest.mark.parametrize(("decks", "house_edge"), [
    (6, Fraction(2112, 41041)), (8, Fraction(2184, 73153)), (2, Fraction(1008, 4465))])
def test_spanish21_match_the_dealer_follows_the_posted_table_at_every_deck_count(
        capsys: pytest.CaptureFixture[str], decks: int, house_edge: Fraction) -> None:
    status, out, err = run(capsys, "spanish21-match-the-dealer", "--decks", str(decks), "--json")
    assert status == 0, err
    data = json.loads(out)
    assert Fraction(data["house_edge_exact"]) == house_edge
    assert {line["name"]: line["pays"] for line in data["lines"]} == {
        "two suited matches": "24:1", "one suited and one unsuited match": "15:1",
        "one suited match": "12:1", "two unsuited matches": "6:1",
        "one unsuited match": "3:1", "no match": "loses"}


def test_a_four_and_nine_to_one_spanish21_table_stays_configurable(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = '[paytables.match-the-dealer-spanish21.6]\nunsuited = "4:1"\nsuited = "9:1"\n'
    status, out, err = run(capsys, "spanish21-match-the-dealer", "--decks", "6", "--json",
                           "--paytable", write(tmp_path, text))
    assert status == 0, err
    assert json.loads(out)["house_edge"] == pytest.approx(0.03055, abs=5e-6)
    status, _, err = run(capsys, "spanish21-match-the-dealer", "--decks", "8", "--paytable",
                         write(tmp_path, text))
    assert status == 2
    assert "[paytables.match-the-dealer-spanish21] 8: no pay table for a 8-deck shoe" in err
