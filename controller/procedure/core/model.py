"""What every procedure model shares: the outbox, rejected triggers, holds and faults.

A model is driven only through `fire`, on the loop thread. Conditions and callbacks append
effects to the outbox instead of doing I/O; the runtime takes them after each trigger. A
trigger the current state does not accept, or whose conditions all fail, is never a silent
no-op: `fire` records it as a `procedure:rejected` fault (journal and operational log). An
exception inside a callback sends the table to the fault state (R9).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from transitions import EventData, Machine, MachineError

from controller.procedure.core.effects import Effect, Journal, OpLog
from controller.procedure.core.states import TableState

_LOG = logging.getLogger(__name__)

HOLD_STATES = frozenset({str(TableState.SHOE_ERROR), str(TableState.FAULT)})
"""States only the supervisor key leaves (R9)."""


class ProcedureModel:
    """The base of the blackjack and baccarat models (the machine binds `trigger` and `state`).

    Attributes:
        state: Current state name (set by the machine).
        outbox: Effects produced since the runtime last took them.
        resume_state: Where a hold returns to when the supervisor clears it.
    """

    state: str
    trigger: Callable[..., bool]
    machine: Machine

    def __init__(self) -> None:
        self.outbox: list[Effect] = []
        self.resume_state = ""
        self.hold_reason = ""
        self.hold_kind = ""
        self.error_return = ""
        self.reshuffle_return = ""
        self._fired: list[tuple[str, bool]] = []
        self._triggers: dict[str, frozenset[str]] = {}

    if not TYPE_CHECKING:  # hidden from mypy, so a misspelt attribute stays an error

        def __getattr__(self, name: str) -> Callable[[EventData], Any]:
            """Resolve the tables' names that are not plain methods of the model.

            `part.method` is a method of one of the model's parts (its shoe, wagers, progressive
            desk...); `resumes_to_<state>` and its kin are the generated return conditions.
            """
            part, dot, method = name.partition(".")
            if dot:
                found: Callable[[EventData], Any] = getattr(getattr(self, part), method)
                return found
            for prefix, attribute in _RETURN_CONDITIONS.items():
                if name.startswith(prefix):
                    return _returns(self, attribute, name.removeprefix(prefix), name)
            raise AttributeError(name)

    # ------------------------------------------------------------------ driving
    def fire(self, name: str, **kwargs: Any) -> bool:
        """Fire trigger `name`; return True when some transition took place.

        A trigger the state refuses (or whose every condition failed) is recorded as a fault
        record and an operational log line; it never changes anything else.
        """
        self._fired = []
        try:
            self.trigger(name, **kwargs)
        except MachineError as exc:
            self._reject(name, str(exc.value))
            return False
        except AttributeError as exc:
            self._reject(name, f"no such trigger ({exc})")
            return False
        return next((ok for fired, ok in self._fired if fired == name), False)

    def triggers_here(self) -> frozenset[str]:
        """The triggers the current state has transitions for (their conditions aside)."""
        found = self._triggers.get(self.state)
        if found is None:
            found = self._triggers[self.state] = frozenset(self.machine.get_triggers(self.state))
        return found

    def take_effects(self) -> list[Effect]:
        """Hand over (and clear) the effects produced so far."""
        taken, self.outbox = self.outbox, []
        return taken

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        self.outbox.extend(effects)

    # ------------------------------------------------------------------ machine hooks
    def finalize(self, event: EventData) -> None:
        """Machine hook: record every trigger that changed nothing."""
        name = event.event.name if event.event else "?"
        self._fired.append((name, bool(event.result)))
        if not event.result and event.error is None:
            self._reject(name, f"conditions not met in state {event.state.name}")

    def record_state_change(self, event: EventData) -> None:
        """Machine hook: every change of state is journaled (internal transitions are not)."""
        transition = event.transition
        if transition is None or transition.dest is None or transition.dest == transition.source:
            return
        self.emit(Journal("procedure:state", {"from": transition.source, "to": transition.dest,
                                              "trigger": event.event.name if event.event
                                              else ""}))

    def on_exception(self, event: EventData) -> None:
        """Machine hook: an exception inside a callback halts the table (R9)."""
        name = event.event.name if event.event else "?"
        if isinstance(event.error, MachineError):
            self._reject(name, str(event.error.value))
            return
        reason = f"{type(event.error).__name__} during {name}"
        _LOG.error("procedure: %s in state %s", reason, self.state)
        self.emit(Journal("procedure:exception", {"trigger": name, "state": self.state,
                                                  "error": repr(event.error)}))
        self.enter_hold(str(TableState.FAULT), reason)

    def _reject(self, name: str, why: str) -> None:
        self.emit(Journal("procedure:rejected", {"trigger": name, "state": self.state,
                                                 "reason": why}),
                  OpLog(f"procedure: {name} refused in state {self.state}", "warning"))

    # ------------------------------------------------------------------ holds
    def enter_hold(self, hold: str, reason: str) -> None:
        """Stop the table in `hold` (shoe_error or fault) until the supervisor clears it."""
        if self.state not in HOLD_STATES:
            self.resume_state = self.state
        self.hold_reason = reason
        self.hold_kind = "software_fault"
        self.machine.set_state(hold, model=self)
        self.emit(Journal("procedure:hold", {"hold": hold, "reason": reason,
                                             "resume": self.resume_state}),
                  OpLog(f"table stopped ({hold}): {reason}", "error"))

    def record_hold(self, event: EventData) -> None:
        """Callback on entering a hold through the table: remember where to resume."""
        source = event.transition.source if event.transition else ""
        if source not in HOLD_STATES:
            self.resume_state = source
        trigger = event.event.name if event.event else ""
        reason = str(event.kwargs.get("reason", trigger))
        self.hold_reason = reason
        self.hold_kind = hold_kind(trigger, reason)
        self.emit(Journal("procedure:hold", {"hold": self.state, "reason": reason,
                                             "resume": self.resume_state}),
                  OpLog(f"table stopped ({self.state}): {reason}", "error"))

    def record_clear(self, event: EventData) -> None:
        """Callback: the supervisor key cleared a hold."""
        who = str(event.kwargs.get("who", "supervisor"))
        self.emit(Journal("supervisor:clear", {"who": who, "reason": self.hold_reason,
                                               "resumed": self.state}),
                  OpLog(f"supervisor cleared the hold; table resumes in {self.state}"))
        self.hold_reason = ""
        self.hold_kind = ""
        self.resume_state = ""


def hold_kind(trigger: str, reason: str) -> str:
    """A hold's kind, as the console names it: `jam`, `impossible_card`, `camera`..."""
    if trigger == "shoe_error":
        first = reason.split(" ", 1)[0]
        return first if first in ("jam", "lid_open") else "cards_missing"
    return {"card": "impossible_card", "card_unreadable": "unreadable_card",
            "wrong_back": "wrong_back", "camera_fault": "camera",
            "fault": "device_fault"}.get(trigger, trigger or "fault")


_RETURN_CONDITIONS = {"resumes_to_": "resume_state", "returns_to_": "error_return",
                      "reshuffled_to_": "reshuffle_return"}


def _returns(model: ProcedureModel, attribute: str, state: str,
             name: str) -> Callable[[EventData], bool]:
    def check(event: EventData) -> bool:
        return bool(model.__dict__.get(attribute) == state)
    check.__name__ = name
    return check
