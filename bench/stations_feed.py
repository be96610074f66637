"""Stations figures in process: the loop thread's cost of publishing K station objects a card.

A community table on a real journal (its writes left out of the figure: the journal is
replaced by a no-op for the timed cards, so only the publication is timed), K stations each
with a wager; for each of the eight starting cards, the time the runtime's watchers take to
publish every station's object, plus encoding each publication as its Server-Sent Event
(what the web thread then writes). Two ways, on the same cards:

  * `views`: a hub a station, each building `station_view`'s dict and comparing dicts, the
    event encoded apart (how the stations were published before the feed);
  * `feed`: `StationFeed`, the shared part encoded once a commit, each station's own part
    joined as text (`controller/console/station_feed.py`).

    python bench/stations_feed.py [--stations 10,50,100,200] [--repeat 3]

Prints the median over `--repeat` runs of the mean per card (ms). The machine's other work
shows in the figures: run it twice.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # runnable without installing

from controller.console.hub import ConsoleHub, Published  # noqa: E402
from controller.console.station_feed import StationFeed  # noqa: E402
from controller.console.station_view import station_now  # noqa: E402
from tests.controller.community_helpers import table  # noqa: E402

CARDS = ["5H", "6D", "8S", "9C", "TH", "7D", "QS", "7C"]


def per_card(k: int, way: str) -> float:
    """Mean milliseconds a card to publish (and encode) K stations' objects."""
    with tempfile.TemporaryDirectory(prefix="bench-feed-") as tmp:
        t = table(Path(tmp), stations=k)

        def encode(published: Published) -> None:
            published.sse()
        hubs = [ConsoleHub(lambda _e: None) if way == "feed"
                else ConsoleHub(lambda _e: None, view=functools.partial(station_now, station=n))
                for n in range(1, k + 1)]
        for hub in hubs:
            hub.subscribe(encode)
        if way == "feed":
            StationFeed(hubs).attach(t.rt)
        else:
            for hub in hubs:
                hub.attach(t.rt)
        watchers = list(t.rt.watchers)
        spent = [0.0]

        def timed(runtime: object) -> None:
            start = time.perf_counter()
            for watcher in watchers:
                watcher(runtime)  # type: ignore[arg-type]
            spent[0] += time.perf_counter() - start
        t.rt.watchers[:] = [timed]
        assert t.fire("shuffle_done")
        for station in range(1, k + 1):
            assert t.fire("wager", station=station, spot=1 + station % 3, cents=500,
                          source="bench")
        assert t.fire("no_more_bets")
        t.rt.journal.commit = lambda *_a, **_k: 0  # type: ignore[method-assign,assignment]
        spent[0] = 0.0
        for card in CARDS:
            assert t.fire("card", code=card)
        return spent[0] / len(CARDS) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", default="10,50,100,200")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'K':>4} {'views ms/card':>14} {'feed ms/card':>13} {'ratio':>6}")
    for k in (int(x) for x in args.stations.split(",")):
        views = statistics.median(per_card(k, "views") for _ in range(args.repeat))
        feed = statistics.median(per_card(k, "feed") for _ in range(args.repeat))
        print(f"{k:>4} {views:>14.2f} {feed:>13.2f} {views / feed:>6.1f}", flush=True)


if __name__ == "__main__":
    main()
