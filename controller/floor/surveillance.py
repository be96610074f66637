"""Surveillance on the floor: every table's shipped journal watched for advantage play.

The floor process (`shoectl floor serve`) hands each table's newly stored rows to
`SurveillanceWatch.stored`, which runs them through that table's
`controller.analysis.journal_feed.JournalFeed` and keeps the alerts they raise. The receiver
publishes each alert on `ALERTS_TOPIC`, which the broker's ACL (`shoectl floor certs`) lets
only the floor write and only the `surveillance` certificate read; the floor view shows
them only to a user of role surveillance. Nothing here reaches a table: the alerts never
change the game (decision 050).

Rows reach the floor only after their round is settled (decision 014), so an alert comes at
the end of the round that tipped the test. At start the watch reads every stored row again,
so a restart of the floor neither forgets a seat's evidence nor repeats an alert raised
before it.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any, Final

from controller.analysis.advantage import Alert
from controller.analysis.journal_feed import JournalFeed
from controller.journal.chain import Entry
from controller.rules.options import BLACKJACK_RULES

ALERTS_TOPIC: Final = "shoectl/surveillance/alerts"
"""Each alert as JSON (`Alert.as_record`), QoS 1: surveillance's topic alone."""
SURVEILLANCE_NAME: Final = "surveillance"
"""The certificate (and broker user) that may read `ALERTS_TOPIC`."""
KEPT: Final = 200
"""Alerts the floor view keeps, newest first."""


class SurveillanceWatch:
    """One journal feed a table; the alerts, newest first."""

    def __init__(self) -> None:
        self._feeds: dict[str, JournalFeed] = {}
        self._alerts: deque[dict[str, Any]] = deque(maxlen=KEPT)
        self._lock = threading.Lock()

    def replay(self, table: str, entries: Iterable[Entry]) -> None:
        """Read a table's stored rows again at start: evidence kept, no alert repeated."""
        for alert in self._take(table, entries):
            with self._lock:
                self._alerts.appendleft(alert.as_record())

    def stored(self, table: str, new: Sequence[Entry]) -> list[Alert]:
        """The floor stored `new` rows of `table`: the alerts they raise (to publish)."""
        alerts = self._take(table, new)
        with self._lock:
            self._alerts.extendleft(alert.as_record() for alert in alerts)
        return alerts

    def alerts(self) -> list[dict[str, Any]]:
        """The alerts kept, newest first (for the floor view's surveillance page)."""
        with self._lock:
            return list(self._alerts)

    def _take(self, table: str, entries: Iterable[Entry]) -> list[Alert]:
        feed = self._feeds.get(table)
        if feed is None:  # each shoe:shuffled row tells the feed its decks
            feed = self._feeds[table] = JournalFeed(table, BLACKJACK_RULES)
        return [alert for entry in entries for alert in feed.take(entry.kind, entry.data)]
