"""The roulette wheel's facts as procedure triggers (the runtime's part for the wheel).

The wheel's driver reports device facts (`drivers.events`): a change of its state, one
winning number per game, a void game, a warning. The roulette procedure
(`controller/procedure/core/machine.py`, `_roulette`) takes them as these triggers, each with the
wheel's own game number:

| fact | trigger |
|---|---|
| `WheelStatus` place bets or before game | `wheel_start` |
| `WheelStatus` ball in rim | `ball_in_rim` |
| `WheelStatus` no more bets | `wheel_no_more_bets` |
| `WheelStatus` closed | `wheel_closed` |
| `WheelStatus` winning number or another state | `wheel_status` |
| `WheelResult` | `winning_number` (`game`, `number`, `sources`) |
| `WheelVoid` | `void_spin` (`game`, `reason`) |
| `WheelWarning` | `wheel_warning` (`game`, `warning`, `detail`) |
"""

from __future__ import annotations

from typing import Any, Final

from drivers import events as ev

WheelFact = ev.WheelStatus | ev.WheelResult | ev.WheelVoid | ev.WheelWarning
"""A fact of the wheel's driver."""
WHEEL_FACTS: Final = (ev.WheelStatus, ev.WheelResult, ev.WheelVoid, ev.WheelWarning)

_PHASE_TRIGGERS: Final = {
    ev.WheelPhase.BEFORE_GAME: "wheel_start", ev.WheelPhase.PLACE_BETS: "wheel_start",
    ev.WheelPhase.BALL_IN_RIM: "ball_in_rim", ev.WheelPhase.NO_MORE_BETS: "wheel_no_more_bets",
    ev.WheelPhase.CLOSED: "wheel_closed",
}


def wheel_trigger(fact: WheelFact) -> tuple[str, dict[str, Any]]:
    """The trigger a wheel fact fires, and its arguments (JSON-ready)."""
    if isinstance(fact, ev.WheelStatus):
        return _PHASE_TRIGGERS.get(fact.phase, "wheel_status"), {
            "phase": fact.phase.value, "state": fact.state, "game": fact.game,
            "flags": fact.flags}
    if isinstance(fact, ev.WheelResult):
        return "winning_number", {"game": fact.game, "number": fact.number,
                                  "sources": list(fact.sources)}
    if isinstance(fact, ev.WheelVoid):
        return "void_spin", {"game": fact.game, "reason": fact.reason}
    return "wheel_warning", {"game": fact.game, "warning": fact.warning, "detail": fact.detail}
