"""The dealer console's API over real HTTP: the contract in controller/console/API.md.

A live table (its loop on its own thread, the console served by uvicorn on loopback) is dealt
from stacked cards as the shoe's driver reports them; the rounds it settles are compared with
the independent oracle dealer of tests/oracle.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers import events as ev
from tests.oracle.dealer import Seat, Table, play_blackjack

from .live import PIT_PASSWORD, EventStream, LiveTable, scripts_of, start


@pytest.fixture
def table(tmp_path: Path) -> Iterator[LiveTable]:
    live = start(tmp_path)
    try:
        yield live
    finally:
        live.close()


def opened(table: LiveTable) -> LiveTable:
    table.attach()
    assert table.command("shuffle_done")[0] == 200
    return table


def test_the_console_answers_503_until_the_table_has_started(table: LiveTable) -> None:
    assert table.get() == (503, {"error": "starting"})
    assert table.command("shuffle_done") == (503, {"error": "starting"})
    table.attach()
    status, body = table.get()
    assert status == 200
    assert body["phase"] == "shoe_loading"
    assert body["accepting"] == ["shuffle_done"]


def test_a_round_dealt_through_the_console_settles_as_the_oracle_says(table: LiveTable) -> None:
    opened(table)
    assert table.command("seat", seat=1, in_play=True, main=1000)[0] == 200
    assert table.command("seat", seat=3, in_play=True, main=2500)[0] == 200
    cards = ["TS", "9D", "9H", "7H", "9C", "7C", "2S"]
    table.draw(*cards[:6])  # the first card closes betting (counts as no more bets)
    _, body = table.get()
    assert body["phase"] == "players"
    assert body["dealer"] == {"cards": ["9H"], "total": 9, "soft": False, "face_down": 1,
                              "blackjack": None}  # the hole card's place only; no peek under a 9
    assert body["next_card"] == {"to": "seat", "seat": 1, "hand": 1}  # a card now is a hit
    assert [s["in_play"] for s in body["seats"][:3]] == [True, False, True]
    assert table.command("stand")[0] == 200
    assert table.command("stand", seat=3)[0] == 200
    table.draw(cards[6])
    _, body = table.get()
    assert body["phase"] == "betting"  # settled, and back to betting by itself
    expected = play_blackjack(Table(), [Seat(1, 1000), Seat(3, 2500)], iter(cards), 1)
    assert body["last_round"] == expected
    assert not any(s["in_play"] for s in body["seats"])  # nothing carries over


@pytest.mark.parametrize(("body", "why"), [
    ({"command": "nonsense"}, "unknown command"),
    ({"nope": 1}, "unknown command"),
    ({"command": "seat", "in_play": True}, "field 'seat' is required"),
    ({"command": "seat", "seat": "3", "in_play": True}, "field 'seat' must be int"),
    ({"command": "seat", "seat": 3, "in_play": 1}, "field 'in_play' must be bool"),
    ({"command": "seat", "seat": True, "in_play": True}, "field 'seat' must be int"),
    ({"command": "stand", "hand": 2}, "unknown field 'hand'"),
    ([1, 2], "a JSON object"),
])
def test_malformed_commands_are_refused_with_400(table: LiveTable, body: object,
                                                 why: str) -> None:
    opened(table)
    status, answer = table.request("POST", "/api/command", body)
    assert status == 400
    assert why in answer["error"], answer


def test_a_body_that_is_not_json_is_400(table: LiveTable) -> None:
    opened(table)
    status, answer = table.request("POST", "/api/command", raw=b"{not json")
    assert status == 400
    assert "not JSON" in answer["error"]


def test_commands_the_table_does_not_take_now_are_409_with_what_to_do(table: LiveTable) -> None:
    opened(table)
    status, answer = table.command("shuffle_done")  # counted once already
    assert status == 409
    assert answer["what_to_do"].startswith("place your bets")
    status, answer = table.command("stand")
    assert status == 409
    assert answer["error"] == "no hand is due to act"
    status, answer = table.command("seat", seat=2, in_play=True, main=5)
    assert status == 409
    assert "outside the table limits" in answer["error"]
    status, answer = table.command("seat", seat=9, in_play=True)
    assert status == 409
    assert "seat number from 1 to 7" in answer["error"]
    status, answer = table.command("insurance", seat=1, take=True)
    assert status == 409
    assert answer["error"] == "insurance is not open"
    assert "place your bets" in answer["what_to_do"]


def test_shoe_loaded_counts_as_shuffle_done_once(table: LiveTable) -> None:
    table.attach()
    table.loop.post(ev.ShoeLoaded("shoe", 0.0))
    table.call(lambda rt: None)
    assert table.get()[1]["phase"] == "betting"  # the test table burns no card
    assert table.command("shuffle_done")[0] == 409


def test_insurance_in_any_order_then_the_peek_follows_the_last_answer(table: LiveTable) -> None:
    opened(table)
    for seat in (1, 2, 4):
        table.command("seat", seat=seat, in_play=True, main=1000)
    table.draw("TS", "9D", "8H", "AS", "7H", "9C", "7S", "6C")  # dealer ace up, hole 6C
    _, body = table.get()
    assert body["phase"] == "insurance"
    assert body["insurance"] == [1, 2, 4]
    assert "seats to answer: 1, 2, 4" in body["prompt"]
    assert table.command("insurance", seat=3, take=False)[0] == 409  # not in play
    assert table.command("insurance", seat=4, take=True)[1]["insurance"] == [1, 2]
    assert table.command("insurance", seat=1, take=False)[1]["phase"] == "insurance"
    assert table.command("insurance", seat=4, take=False)[0] == 409  # answered already
    _, body = table.command("insurance", seat=2, take=False)
    assert body["phase"] == "players"  # the peek followed the last answer
    assert body["dealer"] == {"cards": ["AS"], "total": 11, "soft": True, "face_down": 1,
                              "blackjack": False}  # the one bit


def test_a_seat_in_play_without_an_amount_is_settled_by_ratio(table: LiveTable) -> None:
    opened(table)
    table.command("seat", seat=2, in_play=True)
    stream = EventStream(table.server.port)
    try:
        # Seat 2 has blackjack, the dealer 9 up and 7 in the hole: no one else plays, so the
        # dealer draws nothing and the round settles on the hole card.
        table.draw("AS", "9H", "KD", "7C")
        while (event := stream.next()["table"])["phase"] != "round_over":
            pass
    finally:
        stream.close()
    assert event["seats"][1]["main"] is None
    assert event["seats"][1]["hands"][0]["result"] == "blackjack"
    assert event["seats"][1]["hands"][0]["net"] is None
    _, body = table.get()
    assert body["phase"] == "betting"
    record = body["last_round"]
    assert record["seats"][0]["hands"][0]["net"] is None  # not reported: the amount is unknown
    assert "pay seat 2 3:2" in body["prompt"]


def test_the_first_card_with_no_seat_in_play_is_a_card_in_error(table: LiveTable) -> None:
    opened(table)
    table.draw("5C")
    _, body = table.get()
    assert body["phase"] == "card_in_error"
    assert "EXPOSED or NOT EXPOSED" in body["prompt"]
    assert set(body["accepting"]) == {"error_exposed", "error_unexposed"}
    assert table.command("error_exposed")[1]["phase"] == "betting"


def test_events_are_numbered_one_by_one_and_carry_the_table(table: LiveTable) -> None:
    table.attach()
    stream = EventStream(table.server.port)
    try:
        first = stream.next()
        assert set(first) == {"seq", "table"}
        assert first["table"]["phase"] == "shoe_loading"
        table.command("shuffle_done")
        table.command("seat", seat=1, in_play=True, main=1000)
        seqs = [first["seq"]] + [stream.next()["seq"] for _ in range(2)]
        assert seqs == [first["seq"], first["seq"] + 1, first["seq"] + 2]
        _, now = table.get()
        assert now["seats"][0]["in_play"] is True
    finally:
        stream.close()


HOLE = "QD"
"""A hole card no other card of these rounds shows, so its code can be searched for."""


def read_until(stream: EventStream, seq: int) -> list[str]:
    """The stream's events up to and including `seq`, as text."""
    texts = []
    while True:
        event = stream.next()
        texts.append(json.dumps(event))
        if event["seq"] >= seq:
            return texts


def test_the_hole_card_is_in_no_response_or_event_before_it_is_turned(table: LiveTable) -> None:
    """Cut where this test knows the hole is turned: the last player's stand."""
    table.attach()
    auth = {"Authorization": "Basic " + base64.b64encode(
        f"supervisor:{PIT_PASSWORD}".encode()).decode()}
    console = EventStream(table.server.port)
    pit = EventStream(table.pit.port, "/api/pit/events", auth)
    try:
        table.command("shuffle_done")
        table.command("seat", seat=1, in_play=True, main=1000)
        table.draw("5S", "TH", "9S", HOLE)  # dealer ten up: a peek, no blackjack
        for path in ("/api/table", "/", "/console.js"):
            table.get(path)
        table.request("GET", "/api/pit", port=table.pit.port, headers=auth)
        console_seq, pit_seq = table.hub.latest.seq, table.pit_hub.latest.seq
        before = [*table.seen, *read_until(console, console_seq), *read_until(pit, pit_seq)]
        assert not [text for text in before if HOLE in text]
        _, after = table.command("stand")  # the players are done: the hole is turned
        assert HOLE in after["dealer"]["cards"] or HOLE in json.dumps(after["last_round"])
    finally:
        console.close()
        pit.close()


def test_the_pit_view_needs_its_credential(table: LiveTable) -> None:
    table.attach()
    assert table.request("GET", "/api/pit", port=table.pit.port,
                         headers={"Authorization": ""})[0] == 401
    assert table.request("GET", "/api/pit", port=table.pit.port)[0] == 403  # the kiosk's
    wrong = {"Authorization": "Basic " + base64.b64encode(b"supervisor:guess").decode()}
    assert table.request("GET", "/api/pit", port=table.pit.port, headers=wrong)[0] == 401
    right = {"Authorization": "Basic " + base64.b64encode(
        f"supervisor:{PIT_PASSWORD}".encode()).decode()}
    status, body = table.request("GET", "/api/pit", port=table.pit.port, headers=right)
    assert status == 200
    assert body["meters"]["amount"] == 1_000_000
    assert body["journal"]["healthy"] is True
    assert table.request("GET", "/", port=table.pit.port, headers=right)[0] == 200


def test_every_script_the_console_and_pit_pages_load_is_served(table: LiveTable) -> None:
    table.attach()
    right = {"Authorization": "Basic " + base64.b64encode(
        f"supervisor:{PIT_PASSWORD}".encode()).decode()}
    for port, headers, expected in ((table.server.port, {}, ["common.js", "console.js",
                                                              "holdem.js"]),
                                    (table.pit.port, right, ["common.js", "hours_chart.js",
                                                             "pit.js"])):
        status, page = table.request("GET", "/", port=port, headers=headers)
        assert status == 200
        assert scripts_of(page) == expected
        for script in expected:
            status, text = table.request("GET", f"/{script}", port=port, headers=headers)
            assert status == 200, script
            assert '"use strict";' in text
