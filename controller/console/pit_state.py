"""The table as the floor supervisor's pit view shows it: status, faults, meters, journal.

Public: the same information the table shows (no card of a round in play), plus every
progressive meter (R11), the last 25 hits and the journal's state; at a community table each
station's credits and meters (the attendant adds and cashes out credits there); at a linked
table the hits the progressive controller rejected (the supervisor settles them by hand).
Built on the loop thread after every commit, like the dealer's console; `PitView` adds the
day's figures (docs/reference/metrics.md).
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Final

from controller.analysis.shift import DayFigures
from controller.console.prompts import faults
from controller.console.views import view_of
from controller.console.views.common import JsonObject
from controller.service.runtime import TableRuntime

_LOG = logging.getLogger(__name__)

PIT_PARTS: Final = ("wheel_bias", "stations")
"""The pit view's keys that belong to one family (its view's `pit`), null at the others."""


class PitView:
    """The pit view's table object with today's figures (`"today"`), read on from the journal.

    One a table: it remembers how far it has read the journal, so each commit reads only
    the rows it added (`controller.analysis.shift.DayFigures`).
    """

    def __init__(self) -> None:
        self.day = DayFigures()
        self.failed = False

    def __call__(self, runtime: TableRuntime) -> JsonObject:
        """The pit view's object now (loop thread)."""
        return {**pit_state(runtime), "today": self._today(runtime)}

    def _today(self, runtime: TableRuntime) -> JsonObject | None:
        """Today's figures; None, logged once, if a record cannot be read as one.

        A figure is never worth stopping the table's loop.
        """
        if self.failed:
            return None
        try:
            self.day.read(runtime.journal.entries(after=self.day.last_seq))
            return self.day.figures()
        except (KeyError, TypeError, ValueError) as exc:
            self.failed = True
            _LOG.error("pit view: today's figures stopped at journal seq %s: %s",
                       self.day.last_seq, exc)
            return None


def pit_state(runtime: TableRuntime) -> JsonObject:
    """The pit view's table object (see API.md, "The pit view")."""
    model = runtime.model
    table = model.setup.config.table
    meters = model.progressive.meters
    pit = view_of(model).pit
    return {
        "table": table.name, "game": table.game.value, "phase": model.state,
        "round": model.round.number, "faults": faults(model),
        "links_down": sorted(model.progressive.links_down),
        "bad_frames": dict(sorted(model.link_frames.items())),
        "progressive_offered": model.offers_progressive(),
        "progressive_open": model.progressive.is_open(),
        "meters": {"amount": meters.amount, "progressive_in": meters.progressive_in,
                   "hits": meters.hits, "cumulative_paid": meters.cumulative_paid,
                   "attendant_paid": meters.attendant_paid, "reserve": meters.reserve,
                   "overflow": meters.overflow},
        "hits": [{**asdict(hit), "kind": hit.kind.value} for hit in meters.history],
        "journal": _journal(runtime),
        "rounds_settled": len(model.results), "rounds_void": len(model.voided),
        **{key: pit[key](model) if key in pit else None for key in PIT_PARTS},
        "rejected_hits": [{key: hit[key] for key in ("round", "seat", "kind", "stake", "reason")}
                          for hit in model.progressive.rejected],
    }


def _journal(runtime: TableRuntime) -> JsonObject:
    """The journal's state: verified at start-up, healthy since, and its anchor (count, head).

    The pit keeps the count and head it is shown, a copy outside the table's own files: a
    journal later cut back or replaced no longer matches what the floor saw.
    """
    journal = runtime.journal
    verdict = journal.verdict
    return {"healthy": runtime.journal_ok(), "verified_at_start": verdict.ok,
            "verdict": verdict.lines[0] if verdict.lines else "",
            "records": journal.records, "head": journal.head}
