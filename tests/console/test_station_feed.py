"""The station feed publishes, after every commit, exactly the object `station_view` builds.

A community table on a real journal and a fake clock plays rounds through betting (chips,
side wagers, REPEAT, a station with none), the deal, insurance under an ace, splits, hits, doubles,
stands, a timer expiry, the dealer and settlement; after every commit, for every station, the
feed's published text decodes to `station_view`'s dict, and a station whose object did not
change gets no new publication.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.console.hub import ConsoleHub, Published
from controller.console.station_feed import StationFeed
from controller.console.station_view import station_view
from controller.service.runtime import TableRuntime
from tests.controller.community_helpers import SECONDS, SIDE_BETS, Table, table

STATIONS = 4


class Checked:
    """The feed on its hubs, and a watcher after it comparing each station's object."""

    def __init__(self, t: Table) -> None:
        self.t = t
        self.hubs = [ConsoleHub(lambda _event: None) for _ in range(STATIONS)]
        self.feed = StationFeed(self.hubs)
        self.feed.attach(t.rt)
        self.commits = 0
        self.published: list[list[Published]] = [[] for _ in range(STATIONS)]
        for number, hub in enumerate(self.hubs):
            hub.subscribe(self.published[number].append)
        t.rt.watchers.append(self.check)

    def check(self, runtime: TableRuntime) -> None:
        self.commits += 1
        model = self.t.model
        for number, hub in enumerate(self.hubs, start=1):
            latest = hub.latest
            assert latest is not None
            assert latest.table == station_view(model, number), (number, model.state)

    def states(self) -> set[str]:
        return {p.table["state"] for kept in self.published for p in kept}


def command(t: Table, name: str, **fields: Any) -> None:
    assert t.fire(name, **fields, source="test"), (name, fields, t.model.state)


def play_out(t: Table, cards: list[str]) -> None:
    """Cards while one is due, the timers' time while stations decide, to the round's end."""
    shoe = iter(cards * 4)
    while t.model.state != "round_over":
        if t.model.card_due_to() is not None:
            t.deal(next(shoe))
        else:
            t.wait(SECONDS)


@pytest.fixture
def checked(tmp_path: Path) -> Checked:
    return Checked(table(tmp_path, stations=STATIONS, side_bets=SIDE_BETS))


def test_every_commit_of_two_rounds_publishes_station_view(checked: Checked) -> None:
    t = checked.t
    command(t, "shuffle_done")
    command(t, "wager", station=1, spot=1, cents=1000)
    command(t, "wager", station=1, spot=3, cents=1000)
    command(t, "wager", station=1, spot=1, cents=500, bet="perfect-pairs")
    command(t, "wager", station=2, spot=1, cents=2000)
    command(t, "wager", station=2, spot=2, cents=500)
    command(t, "wager", station=2, spot=2, cents=500, bet="match-the-dealer")
    command(t, "wager", station=3, spot=2, cents=1000)
    command(t, "clear_last", station=3)
    command(t, "wager", station=3, spot=2, cents=1500)
    command(t, "auto_repeat", station=3, on=True)  # station 4 plays nothing
    command(t, "no_more_bets")
    # spot 1 a pair of eights, spot 2 6 7, spot 3 T 9; the dealer's ace up, 7 in the hole.
    t.deal("8S", "6D", "TS", "AC", "8H", "7D", "9S", "7C")
    assert t.model.state == "insurance"
    command(t, "insurance", station=1, spot=1, cents=500)
    command(t, "insurance", station=1, spot=3, cents=0)
    t.wait(SECONDS)  # stations 2 and 3 decline by their timers
    assert t.model.state == "decisions"
    command(t, "split", station=1, spot=1)
    command(t, "double", station=2, spot=2)
    command(t, "stand", station=3, spot=2)
    t.deal("3C")
    t.wait(SECONDS / 2)
    command(t, "hit", station=1, spot=1)
    play_out(t, ["2D", "KD", "4H", "9H", "5C", "TC", "6S"])
    assert t.model.state == "round_over"
    assert checked.t.model.results[-1]["round"] == 1
    command(t, "clear_round")
    command(t, "repeat", station=1)
    command(t, "no_more_bets")
    t.deal("5H", "6D", "8S", "9C", "TH", "7D", "QS", "7C")
    play_out(t, ["4S", "3S", "TD"])
    assert t.model.state == "round_over"
    assert checked.commits > 30
    assert {"betting", "dealing", "insurance", "decisions", "dealer", "round_over"} \
        <= checked.states()


def test_a_station_whose_object_did_not_change_gets_no_publication(checked: Checked) -> None:
    t = checked.t
    command(t, "shuffle_done")
    before = [len(kept) for kept in checked.published]
    command(t, "wager", station=2, spot=1, cents=1000)
    after = [len(kept) for kept in checked.published]
    assert after[1] == before[1] + 1  # station 2's chips
    assert after[0] == before[0]  # nothing changed for stations 1 and 3
    assert after[2] == before[2]
    seqs = [p.seq for p in checked.published[1]]
    assert seqs == sorted(set(seqs))
