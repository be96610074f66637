"""The table runtime: driver events in, procedure triggers, journal first, then devices.

It runs on the loop thread only. For every event it fires the matching trigger, takes the
model's effects, commits the journal records together with the new critical state (meters,
configuration hash, the round in progress) in one transaction, and only then applies the
public effects: lamp changes, the sign, the dealer display and the operational log (R14).
After a restart it rebuilds the exact prior state from the critical state and re-asserts
every public output.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from controller.camera.crosscheck import CameraFrame, CrossCheck
from controller.camera.holdem_reader import HoldemReader
from controller.journal.store import JournalError, JournalStore, canonical
from controller.procedure.core.channels import BUTTONS, button_trigger
from controller.procedure.core.effects import (
    Effect,
    Journal,
    LampState,
    OpLog,
    PublicEffect,
    SetLamp,
    ShowDealer,
    ShowSign,
    camera_checks,
    split,
)
from controller.procedure.core.model import HOLD_STATES
from controller.procedure.core.roundstate import NumberPlacement
from controller.procedure.core.states import TableState
from controller.procedure.shared import meter_books
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.table_model import TableModel
from controller.procedure.shared.table_outputs import PublicView
from controller.rules.cards import Card, CardError
from controller.service.shoe_numbers import ShoeNumbers
from controller.service.wheel_intake import WHEEL_FACTS, wheel_trigger
from drivers import events as ev

_LOG = logging.getLogger(__name__)
_OPLOG = logging.getLogger("shoectl.table")


class PublicOutputs(Protocol):
    """Where public effects go: the layout lamps, the sign, the dealer display."""

    def apply(self, effect: PublicEffect) -> None:
        """Carry out one public effect."""


class RecordingOutputs:
    """Public outputs kept in a list (tests, the simulation's table view)."""

    def __init__(self) -> None:
        self.applied: list[PublicEffect] = []

    def apply(self, effect: PublicEffect) -> None:
        """Record the effect."""
        self.applied.append(effect)


@dataclass(frozen=True, slots=True)
class ControllerEvent:
    """An event from inside the controller (bots, the auto-dealer, a CLI) for the loop.

    Attributes:
        trigger: The procedure trigger to fire.
        kwargs: Its arguments (JSON-ready).
    """

    trigger: str
    kwargs: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RuntimeCall:
    """Work for the loop thread that needs the runtime itself (the console's commands).

    Attributes:
        run: Called on the loop thread with the runtime; it may fire triggers and read the
            model (which only the loop thread may touch).
    """

    run: Callable[[TableRuntime], None]


Watcher = Callable[["TableRuntime"], None]
"""Called on the loop thread after every commit (the console publishes the table from it).

Watchers run after the journal and before the boards are driven for that commit, so a
watcher looks and hands over; it never fires, records or commits through the runtime (that
commit would drive the boards before the one the watcher was called for)."""


ModelFactory = Callable[[Setup, meter_books.Meters, str], TableModel]


class TableRuntime:
    """One table: the procedure model, its journal, its public outputs.

    Args:
        setup: Validated game configuration.
        journal: The state directory's journal.
        outputs: Public devices (or a recorder).
        factory: Builds the family's model (BlackjackModel or BaccaratModel).
        config_hash: SHA-256 of the configuration, kept in the critical state.
    """

    def __init__(self, setup: Setup, journal: JournalStore, outputs: PublicOutputs,
                 factory: ModelFactory, config_hash: str, meter_start: int | None = None) -> None:
        self.setup = setup
        self.meter_start = meter_start
        self.journal = journal
        self.outputs = outputs
        self.config_hash = config_hash
        self.shown: PublicView | None = None
        self.pending_faults: dict[int, ev.ShoeFaultKind] = {}
        self.numbers = ShoeNumbers(lambda: self.model.shoe.tally)
        self.shoe_conditions: set[str] = set()  # lid open, jam: what the shoe reports now
        self.handled = 0
        self.handled_kinds: dict[str, int] = {}
        self.journal_healthy = True
        self.crosscheck: CrossCheck | HoldemReader | None = None
        """The camera's judge: the cross-check, or at a hold'em table the card reader."""
        self.watchers: list[Watcher] = []
        self.return_to_betting = True
        """After settlement the table returns to betting by itself (a live table)."""
        self.model = self._start(factory)

    # ------------------------------------------------------------------ start and stop
    def _start(self, factory: ModelFactory) -> TableModel:
        critical = self.journal.load_critical()
        if critical is None:
            meters, init = meter_books.start(self.setup.config.progressive, self.meter_start)
            model = factory(self.setup, meters, str(TableState.SHOE_LOADING))
            self._commit(model, [Journal("power:on", {"first_start": True,
                                                      "config_hash": self.config_hash}), init])
        else:
            meters = meter_books.Meters.from_json(critical["meters"])
            model = factory(self.setup, meters, str(TableState.SHOE_LOADING))
            model.restore(critical["procedure"])
            last = self.journal.last_kind()
            records: list[Effect] = [Journal("power:on", {
                "first_start": False, "clean_shutdown": last == "power:off",
                "after_crash": last == "system:crash", "resumed_state": model.state,
                "round": model.round.number, "config_hash": self.config_hash,
                "config_changed": critical.get("config_hash") != self.config_hash})]
            self._commit(model, records)
        self.reassert(model)
        return model

    def meters_reconcile(self) -> bool:
        """True when the meters equal what the journal's meter records add up to (R15)."""
        records = ((e.kind, e.data) for e in self.journal.entries(meter_books.METER_KINDS))
        replayed, problem = meter_books.replay(records)
        return not problem and not meter_books.reconcile(self.model.progressive.meters, replayed)

    def record(self, kind: str, data: dict[str, Any]) -> None:
        """Append one journal record now (start-up checks, self-test results)."""
        self._commit(self.model, [Journal(kind, data)])

    def commit_effects(self, effects: list[Effect]) -> None:
        """Commit effects made outside a trigger (the lines' health checks), then show."""
        self._commit(self.model, effects)

    def commit_pending(self) -> None:
        """Commit what the model emitted outside a trigger (timers started when attached)."""
        effects = self.model.take_effects()
        if effects:
            self._commit(self.model, effects)

    def journal_ok(self) -> bool:
        """True while the journal accepts writes (the last commit succeeded)."""
        return self.journal_healthy

    def shutdown(self, reason: str = "stop") -> None:
        """Record an orderly power-off."""
        self._commit(self.model, [Journal("power:off", {"reason": reason,
                                                        "state": self.model.state})])

    def reassert(self, model: TableModel | None = None) -> None:
        """Send every public output again (after recovery or when a link comes back)."""
        self.shown = (model or self.model).outputs.public_view()
        self._show(self.shown, None)

    # ------------------------------------------------------------------ events
    def handle(self, event: object) -> None:
        """The loop handler: one driver or controller event, or a call for the runtime."""
        if isinstance(event, RuntimeCall):
            event.run(self)
            name, kwargs = "", dict[str, Any]()
        else:
            name, kwargs = self.translate(event)
        if name:
            self.fire(name, **kwargs)
        if isinstance(event, ev.LinkUp):
            self.reassert()  # a board back from failsafe shows the table again (the meter)
        self.handled += 1
        kind = type(event).__name__
        self.handled_kinds[kind] = self.handled_kinds.get(kind, 0) + 1

    def fire(self, name: str, **kwargs: Any) -> bool:
        """Fire a trigger, commit its journal records and state, then apply public effects.

        A round just settled is committed and shown first; then, on a live table, the table
        returns to betting (or to the shuffle) as a step of its own.
        """
        fired = self.model.fire(name, **kwargs)
        self._commit(self.model, self.model.take_effects())
        if fired and self.return_to_betting and self.model.state == TableState.ROUND_OVER:
            self.model.fire("clear_round")
            self._commit(self.model, self.model.take_effects())
        return fired

    def fire_together(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        """Fire triggers that fall due at the same moment (timers) with one commit.

        Each is fired in turn (`TableModel.fire_all`); their records and the state after the
        last are committed together, so K timers running out at once cost one journal write.
        """
        fired = self.model.fire_all(calls)
        self._commit(self.model, self.model.take_effects())
        if fired and self.return_to_betting and self.model.state == TableState.ROUND_OVER:
            self.model.fire("clear_round")
            self._commit(self.model, self.model.take_effects())

    def translate(self, event: object) -> tuple[str, dict[str, Any]]:  # noqa: PLR0911
        """Map a driver or controller event to a trigger and its arguments."""
        if isinstance(event, ControllerEvent):
            return event.trigger, dict(event.kwargs)
        if isinstance(event, ev.CardDrawn):
            return self._card(event)
        if isinstance(event, ev.ShoeFault):
            return self._shoe_fault(event)
        if isinstance(event, ev.ShoeLoaded):
            return self._shoe_loaded(event)
        if isinstance(event, ev.ButtonPressed):
            return self._button(event.button)
        if isinstance(event, ev.BetSensorChanged):
            return "bet_sensor", {"sensor": event.sensor, "occupied": event.occupied}
        if isinstance(event, ev.KeySwitchTurned):
            return self._key(event)
        if isinstance(event, ev.LinkDown):
            return "link_down", {"device": event.device, "reason": event.reason}
        if isinstance(event, ev.LinkUp):
            return "link_up", {"device": event.device, "reconciled": self.meters_reconcile()}
        if isinstance(event, ev.DeviceFault):
            return "fault", {"reason": f"{event.device}: {event.reason}"}
        return self._other_event(event)

    def _other_event(self, event: object) -> tuple[str, dict[str, Any]]:
        """A camera frame, a fact of the roulette wheel, or an event nobody knows."""
        if isinstance(event, CameraFrame):
            self._camera_frame(event)
            return "", {}
        if isinstance(event, WHEEL_FACTS):
            return wheel_trigger(event)
        self._commit(self.model, [OpLog(f"unknown event {type(event).__name__} ignored",
                                        "warning")])
        return "", {}

    def _shoe_fault(self, event: ev.ShoeFault) -> tuple[str, dict[str, Any]]:
        if event.kind in (ev.ShoeFaultKind.UNREADABLE, ev.ShoeFaultKind.FACE_UP):
            self.pending_faults[event.count] = event.kind  # its CardDrawn follows
            return "", {}
        if event.kind in _SHOE_CONDITIONS:
            if event.active:
                self.shoe_conditions.add(event.kind.value)
            else:
                self.shoe_conditions.discard(event.kind.value)
        if not event.active:
            self._commit(self.model, [Journal("shoe:cleared", {"condition": event.kind.value})])
            return "", {}
        self.numbers.note(event.numbering)  # a restarted board: committed with its fault
        reason = f"{event.kind.value} {event.detail}".strip()
        return _SHOE_FAULTS.get(event.kind, "shoe_error"), {"reason": reason}

    def _shoe_loaded(self, event: ev.ShoeLoaded) -> tuple[str, dict[str, Any]]:
        self.numbers.loaded(event.numbering)  # a loaded shoe numbers its cards from 1
        if self.model.state in (TableState.SHOE_LOADING, TableState.RESHUFFLE_DISCARDS):
            return "shuffle_done", {}
        self._commit(self.model, [Journal("shoe:loaded", {"state": self.model.state})])
        return "", {}

    def _card(self, event: ev.CardDrawn) -> tuple[str, dict[str, Any]]:
        place = self.numbers.card(event)
        if place.effects:
            self._commit(self.model, place.effects)
        if place.hold:
            return "shoe_error", {"reason": place.hold}
        if place.placement is NumberPlacement.REPEATED:
            return "", {}
        fault = self.pending_faults.pop(event.count, None)
        if fault is ev.ShoeFaultKind.FACE_UP:
            return "face_up_card", {"count": event.count}
        if event.code is None or fault is ev.ShoeFaultKind.UNREADABLE:
            return "card_unreadable", {"reason": f"card {event.count} unreadable"}
        try:
            code = str(Card.parse(event.code))
        except CardError:
            return "card_unreadable", {"reason": f"card {event.count} is no card code"}
        return "card", {"code": code, "count": event.count}

    def _camera_frame(self, frame: CameraFrame) -> None:
        """A frame from the camera worker: judge it, journal the verdict, then act on it."""
        if self.crosscheck is None:
            return
        layout, loose = self.model.camera_layout()
        verdict = self.crosscheck.on_frame(frame, layout, loose, self.model.layout_round())
        if verdict.effects:
            self._commit(self.model, verdict.effects)
        for trigger, kwargs in verdict.triggers:
            self.fire(trigger, **kwargs)

    def _button(self, button: str) -> tuple[str, dict[str, Any]]:
        name, arg = button_trigger(button)
        if name not in BUTTONS:
            return name, {}
        return name, ({"seat": int(arg)} if arg.isdigit() else {})

    def _key(self, event: ev.KeySwitchTurned) -> tuple[str, dict[str, Any]]:
        # Supervisor actions come only from the Pi's GPIO switch or a board that proved its
        # pairing key (R10, R12); the journal names the switch either way.
        if not event.authenticated:
            self._commit(self.model, [
                Journal("supervisor:key_refused", {"device": event.device, "key": event.key,
                                                   "position": event.position}),
                OpLog(f"key switch refused: {event.key} is not authenticated", "warning")])
            return "", {}
        if event.position == "normal":
            return "key_off", {}
        self.model.key_on = f"{event.device}:{event.position}"
        self._commit(self.model, [Journal("supervisor:key_on", {"who": self.model.key_on,
                                                               "key": event.key})])
        if self.model.state in HOLD_STATES and self.shoe_conditions:
            conditions = sorted(self.shoe_conditions)
            self._commit(self.model, [
                Journal("supervisor:clear_refused", {"who": self.model.key_on,
                                                     "shoe": conditions}),
                OpLog(f"hold not cleared: the shoe still reports {', '.join(conditions)}",
                      "warning")])
            return "", {}
        if self.model.state in HOLD_STATES:
            return "supervisor_clear", {"who": self.model.key_on}
        if event.position == "reset":
            # The keyed reset mechanism (R12): the meter returns to its reset amount.
            return "meter_correction", {"amount": self.model.progressive.meters.params.reset,
                                        "reason": "keyed meter reset"}
        return "", {}

    # ------------------------------------------------------------------ commit and apply
    def critical_state(self, model: TableModel) -> dict[str, Any]:
        """What survives a power loss: meters, configuration hash, the round in progress."""
        return {"meters": model.progressive.meters.to_json(), "config_hash": self.config_hash,
                "procedure": model.snapshot()}

    def _commit(self, model: TableModel, effects: list[Effect]) -> None:
        secure, public = split(effects)
        try:
            self.journal.commit(secure, self.critical_state(model))
        except JournalError:
            # Nothing public may happen that the journal did not record (R14).
            self.journal_healthy = False
            raise
        for effect in public:
            if isinstance(effect, OpLog):
                _OPLOG.log(logging.getLevelName(effect.level.upper()), "%s", effect.message)
        before, view = self.shown, model.outputs.public_view()
        self.shown = view
        checks = camera_checks(effects)
        if checks and self.crosscheck is not None:
            self.crosscheck.request(checks, model.layout_round())
        # The watchers first (the console's and the pit's hubs among them): what was just
        # recorded reaches the screens without waiting for the boards' frames below.
        for watcher in self.watchers:
            watcher(self)
        for effect in public:
            self.outputs.apply(effect)
        self._show(view, before)

    def _show(self, view: PublicView, before: PublicView | None) -> None:
        """Drive the boards where `view` differs from `before` (all of it after None).

        The lamps, the dealer's display and the sign.
        """
        old_lamps = dict(before.lamps) if before else {}
        for lamp, state in view.lamps:
            if old_lamps.get(lamp) != state:
                self.outputs.apply(SetLamp(lamp, LampState(state)))
        if before is None or before.dealer_text != view.dealer_text:
            self.outputs.apply(ShowDealer(view.dealer_text))
        if before is None or (before.sign_amount, before.sign_message, before.sign_win) != (
                view.sign_amount, view.sign_message, view.sign_win):
            self.outputs.apply(ShowSign(view.sign_amount, view.sign_message, *view.sign_win))


_SHOE_CONDITIONS = (ev.ShoeFaultKind.JAM, ev.ShoeFaultKind.LID_OPEN)
"""Shoe conditions that last until the shoe reports them cleared."""

_SHOE_FAULTS = {
    ev.ShoeFaultKind.CUT_CARD: "cut_card",
    ev.ShoeFaultKind.SHOE_EMPTY: "shoe_empty",
}


def config_digest(document: dict[str, Any]) -> str:
    """SHA-256 of a configuration document in canonical JSON."""
    return hashlib.sha256(canonical(document).encode()).hexdigest()
