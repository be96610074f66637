"""Blazing 7's meter arithmetic (RULES.md "Progressive meter"; R10, R12, R13).

Pure values: the controller's meter service keeps the books (journal, history, keys); these
functions say what the numbers become.

* At "no more bets" each accepted wager adds the increment, up to the limit (0 = none); what
  the limit holds back goes to the overflow meter. The reserve rate goes to the reserve meter.
* Winners are settled counter-clockwise (highest seat first). A 100% hit pays the meter and
  resets it to the reset amount, applying parameter changes filed since the last reset; the
  next winner is paid from the reset meter. A 10% hit pays a tenth, rounded down to the cent,
  and lowers the meter by exactly that.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from controller.rules.errors import ConfigError
from controller.rules.limits import MAX_WAGER_CENTS, SIGN_MAX_CENTS
from controller.rules.money import ForOne, MeterShare
from controller.rules.reader import SectionReader


@dataclass(frozen=True, slots=True)
class ProgressiveSettings:
    """`[progressive]`, in cents: reset (seed), increment and reserve per accepted wager, limit."""

    reset: int = 1_000_000
    increment: int = 100
    reserve: int = 0
    limit: int = 0


def progressive_from_mapping(data: Mapping[str, object] | None) -> ProgressiveSettings:
    """Validate `[progressive]` (None: the defaults).

    Reset and limit are amounts the sign can show (at most `SIGN_MAX_CENTS`, its u32); the
    increment is at least a cent (a meter that never rises is no progressive). That the
    increment and reserve fit in the fixed wager is `check_progressive_wager`'s.

    Raises:
        ConfigError: unknown key, wrong type, an amount out of range, or a limit below the
            reset amount.
    """
    reader = SectionReader("progressive", data)
    defaults = ProgressiveSettings()
    settings = ProgressiveSettings(
        reset=reader.integer("reset", defaults.reset),
        increment=reader.integer("increment", defaults.increment),
        reserve=reader.money("reserve", defaults.reserve),
        limit=reader.integer("limit", defaults.limit),
    )
    reader.finish()
    check_progressive(settings, "[progressive] ")
    return settings


def check_progressive(settings: ProgressiveSettings, where: str) -> None:
    """Refuse a limit below the reset, or any amount the sign cannot show.

    Args:
        settings: The meter's parameters.
        where: What the message names before the key: `"[progressive] "` or `"--meter-"`.

    Raises:
        ConfigError: naming `where` and the key.
    """
    sign = f" (the sign shows at most {SIGN_MAX_CENTS} cents)"
    for key, value, low, high, why in (("reset", settings.reset, 1, SIGN_MAX_CENTS, sign),
                                       ("increment", settings.increment, 1, MAX_WAGER_CENTS, ""),
                                       ("limit", settings.limit, 0, SIGN_MAX_CENTS, sign)):
        if not low <= value <= high:
            raise ConfigError(f"{where}{key}: must be {low}..{high} cents{why}, got {value}")
    if settings.limit and settings.limit < settings.reset:
        raise ConfigError(f"{where}limit: {settings.limit} is below the reset amount "
                          f"{settings.reset} (0 means no limit)")


def check_progressive_wager(settings: ProgressiveSettings, wager: int) -> None:
    """Refuse an increment and reserve that take more than the fixed wager they come from.

    Raises:
        ConfigError: naming `[progressive] increment` (or `reserve`).
    """
    if settings.increment > wager:
        raise ConfigError(f"[progressive] increment: {settings.increment} cents is above the "
                          f"fixed wager {wager} ([paytables.blazing7s] wager) it comes from")
    if settings.increment + settings.reserve > wager:
        raise ConfigError(f"[progressive] reserve: increment {settings.increment} + reserve "
                          f"{settings.reserve} cents is above the fixed wager {wager} "
                          "([paytables.blazing7s] wager)")


@dataclass(frozen=True, slots=True)
class MeterState:
    """The meter, its side meters and any parameters waiting for the next 100% reset."""

    amount: int
    settings: ProgressiveSettings
    reserve: int = 0
    overflow: int = 0
    pending: ProgressiveSettings | None = None


def new_meter(settings: ProgressiveSettings, amount: int | None = None) -> MeterState:
    """A meter at `amount` (default: the reset amount)."""
    return MeterState(settings.reset if amount is None else amount, settings)


def accept_wagers(meter: MeterState, count: int) -> MeterState:
    """Add `count` accepted wagers' increments (R10), capped at the limit."""
    for _ in range(count):
        settings = meter.settings
        to_meter = settings.increment
        if settings.limit:
            to_meter = max(0, min(settings.increment, settings.limit - meter.amount))
        meter = replace(meter, amount=meter.amount + to_meter,
                        overflow=meter.overflow + settings.increment - to_meter,
                        reserve=meter.reserve + settings.reserve)
    return meter


def file_settings(meter: MeterState, settings: ProgressiveSettings) -> MeterState:
    """File new parameters: they apply at the next 100% reset, never to the live jackpot (R12)."""
    return replace(meter, pending=settings)


def pay_share(meter: MeterState, share: MeterShare) -> tuple[MeterState, int]:
    """Pay a meter share; a 100% hit resets the meter (applying pending settings).

    Returns:
        The meter after the hit and the amount paid (cents).
    """
    paid = share.of(meter.amount)
    if share.percent == 100:
        settings = meter.pending or meter.settings
        return replace(meter, amount=settings.reset, settings=settings, pending=None), paid
    return replace(meter, amount=meter.amount - paid), paid


@dataclass(frozen=True, slots=True)
class ProgressiveWin:
    """One seat's Blazing 7's pay to settle: its stake and the line's pay (None: a loss)."""

    seat: int
    stake: int
    pay: ForOne | MeterShare | None


def settle_progressive(meter: MeterState,
                       wins: Iterable[ProgressiveWin]) -> tuple[MeterState, dict[int, int]]:
    """Settle every seat's progressive wager counter-clockwise (highest seat first).

    Returns:
        The meter after the round and each seat's net (returned minus the stake).
    """
    nets: dict[int, int] = {}
    for win in sorted(wins, key=lambda w: w.seat, reverse=True):
        if win.pay is None:
            nets[win.seat] = -win.stake
        elif isinstance(win.pay, MeterShare):
            meter, paid = pay_share(meter, win.pay)
            nets[win.seat] = paid - win.stake
        else:
            nets[win.seat] = win.pay.returned(win.stake) - win.stake
    return meter, nets
