"""The overhead camera as the card reader of a hand-dealt Texas Hold'em Bonus table.

No shoe deals this game: the camera reads each card as it is turned up in its area (the
`flop`, `turn`, `river`, `dealer` and `seat<n>` positions of `layout_points`). On the loop
thread, `HoldemReader` asks the camera worker for a frame whenever the round waits for a card
(and again every `[vision] frame_interval_ms` until it has it); each frame's readings
(`Sighting`s, already assigned to positions by the worker) become `camera_card` triggers:

* a card the area the round waits for has not read yet, named confidently there on two of
  the camera's frames since the area was due (`FRAMES_TO_AGREE`), one of them surely (a
  confidence of `SURE` or more), is a confirmed card (the round itself holds the round if
  that card was read elsewhere: a card seen twice). A card lying there stays from one frame
  to the next; a misreading seldom comes back, and seldom surely: one frame's answer alone
  is only a candidate, and the next frame is asked for at once;
* frames that name more cards in an area than lie there unread disagree: one of them
  misreads a card, and no frame tells which, so the area's card is asked for at the console
  at once, with no guess; once the dealer keys it, the frames count afresh. An unsure
  reading's likeness (the card it looks most like) counts as a name once two frames show
  it: a card unsure twice as a ten, then read twice as a seven, is not read;
* an area whose card is not confirmed within `[vision] frames` frames in a row has it asked
  for at the console (`camera_card`, not confirmed): the dealer keys it, or confirms the
  recogniser's guess when one card not read yet was guessed, or named, in most of those
  frames;
* a camera that gives no frame is down (`camera_status`, on the dealer display), and a card
  due meanwhile is asked for at the console at once.

Readings elsewhere (other areas, face-down cards never drawn) are ignored: only the area the
round waits for is read (the worker recognises only that area's part of the frame, where the
layout's slots are known), and only on frames asked for once that area was due (a frame asked
for earlier may show the layout before the dealer moved on). Card identities go to the
journal only (`card:read`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, Final

from controller.camera.crosscheck import (
    CameraFrame,
    CardLayout,
    FrameRequests,
    FrameVerdict,
    Schedule,
    VisionSettings,
)
from controller.procedure.core.effects import CameraCheck
from controller.procedure.families import model_as
from controller.procedure.holdem import HE, Area, HoldemModel, HoldemRound, due_area
from controller.procedure.shared.table_model import TableModel

FRAMES_TO_AGREE: Final = 2
"""Frames that must name a card in its area before it is read (one frame may misread)."""
SURE: Final = 0.99
"""Confidence one of the frames naming a card must reach before it is read (decision 170)."""
AREA_CARDS: Final = {Area.FLOP: 3, Area.TURN: 1, Area.RIVER: 1, Area.DEALER: 2, Area.SEAT: 2}
"""How many cards each area holds once dealt (a seat's and the dealer's hand: two)."""


def area_cards(game: HoldemRound, area: Area, seat: int | None) -> list[str]:
    """The cards already read in `area` this round."""
    codes = {Area.FLOP: game.board[:3], Area.TURN: game.board[3:4],
             Area.RIVER: game.board[4:5], Area.DEALER: game.dealer}.get(area)
    if codes is None:
        codes = game.seats[seat].cards if seat in game.seats else []
    return [str(card) for card in codes]


class HoldemReader:
    """Turns the camera's frames into the hold'em round's card readings (loop thread).

    Args:
        settings: The `[vision]` settings (`frames`, `frame_interval_ms`).
        frames: The camera worker.
        schedule: Runs a callback later on the loop thread.
    """

    def __init__(self, settings: VisionSettings, frames: FrameRequests,
                 schedule: Schedule) -> None:
        self.settings = settings
        self._frames = frames
        self._schedule = schedule
        self._model: Callable[[], TableModel | None] = lambda: None
        self._asked = 0
        self._in_flight: int | None = None
        self._timer = False
        self._unsure = 0
        self._guessed: Counter[str] = Counter()
        """In how many frames of the unsure run each card was guessed."""
        self._named: Counter[str] = Counter()
        """Each card named in the due area, in how many of the camera's frames."""
        self._likened: Counter[str] = Counter()
        """Each card an unsure reading in the due area looked like, in how many frames."""
        self._sure: set[str] = set()
        """The cards named in the due area with a confidence of `SURE` or more on some frame."""
        self._last_number = 0
        """The camera's number of the last frame read for the due area."""
        self._candidate = False
        """The frame just read named a card not read yet: the next frame is asked at once."""
        self._wanted: tuple[object, ...] = ()
        self._since = 1
        """The first request whose frame may show the area due now (earlier ones may not)."""
        self.down = False
        self.checked = 0
        """Cards read (each a `camera_card` trigger with a confirmed card)."""
        self.disagreed = 0
        """Areas asked at the console because their frames named too many cards."""

    @property
    def frames_asked(self) -> int:
        """How many frames the reader has asked the camera for (`bench/holdem_camera.py`)."""
        return self._asked

    def attach(self, model: Callable[[], TableModel | None]) -> None:
        """Read for the round of the table `model()` returns (the runtime's model)."""
        self._model = model

    @property
    def idle(self) -> bool:
        """True when no frame is on its way or waited for."""
        return self._in_flight is None and not self._timer

    def probe(self) -> None:
        """Ask for one frame now (at start: is the camera there?)."""
        if self._in_flight is None:
            self._ask()

    def request(self, checks: Iterable[CameraCheck], round_no: int) -> None:
        """The cross-check's entry: a hold'em table places no card for checking."""

    def _due(self) -> tuple[HoldemRound, Area, int | None] | None:
        table = self._model()
        if table is None:
            return None
        model = model_as(table, HoldemModel)  # a reader is built for a hold'em table only
        if model.state != HE.CARDS or model.game is None:
            return None
        found = due_area(model.game)
        if found is None:
            return None
        wanted = (model.round.number, *found)
        if wanted != self._wanted:
            # A frame asked for before this area was due may have been taken before the
            # dealer moved on (a card of an earlier area, or round): it is not read.
            self._wanted, self._since = wanted, self._asked + 1
            self._restart_unsure()
        return (model.game, *found)

    def look(self) -> None:
        """Ask for a frame when the round waits for a card and none is on its way.

        Called after every commit (a runtime watcher) and after each frame's interval.
        """
        due = self._due()
        if due is not None and self._in_flight is None and not self._timer:
            self._ask(area_zone(*due[1:]))

    def _ask(self, zone: str | None = None) -> None:
        self._asked += 1
        self._in_flight = self._asked
        self._frames.request(self._asked, (zone,) if zone else ())

    def _ask_later(self, delay_ms: int | None = None) -> None:
        """Ask for the next frame after `delay_ms` (default: the frame interval).

        Until then `look` asks for nothing: with 0, the readings just posted are taken first
        (each a commit that calls `look`), so no frame is asked for an area about to change.
        """
        self._timer = True

        def fire() -> None:
            self._timer = False
            self.look()
        interval = self.settings.frame_interval_ms if delay_ms is None else delay_ms
        self._schedule(interval / 1000, fire)

    # ------------------------------------------------------------ a frame arrives
    def on_frame(self, frame: CameraFrame, layout: CardLayout, loose: Iterable[str],
                 round_no: int) -> FrameVerdict:
        """The frame's readings in the area the round waits for, as `camera_card` triggers."""
        if frame.request == self._in_flight:
            self._in_flight = None
        verdict = FrameVerdict()
        self._candidate = False
        if frame.error and not self.down:
            self.down = True
            verdict.triggers.append(("camera_status", {"down": True, "reason": frame.error}))
        elif not frame.error and self.down:
            self.down = False
            verdict.triggers.append(("camera_status", {"down": False}))
        due = self._due()
        if due is not None and frame.request >= self._since:
            verdict.triggers.extend(self._readings(frame, *due))
        if due is not None and verdict.triggers:
            self._ask_later(0)
        elif due is not None:
            if self._candidate:
                self._ask(area_zone(*due[1:]))  # the next frame decides it
            else:
                self._ask_later()
        return verdict

    def _readings(self, frame: CameraFrame, game: HoldemRound, area: Area,
                  seat: int | None) -> list[tuple[str, dict[str, Any]]]:
        where: dict[str, Any] = {"area": area.value, "seat": seat}
        if frame.error:
            return [("camera_card", {**where, "card": None, "confirmed": False})]
        zone = area_zone(area, seat)
        here = [s for s in frame.sightings if s.zone == zone]
        taken = area_cards(game, area, seat)
        named = {s.card for s in here if s.card is not None and s.card not in taken}
        likened = {s.likeness for s in here
                   if s.card is None and s.likeness is not None and s.likeness not in taken}
        if frame.number != self._last_number:  # the same frame again agrees with nothing
            self._last_number = frame.number
            self._named.update(named)
            self._likened.update(likened)
            self._sure.update(s.card for s in here
                              if s.card in named and s.confidence >= SURE)
            self._candidate = bool(named)
        # A card keyed since it was counted lies there taken: it names nothing unread.
        echoed = {code for code, n in self._likened.items() if n >= FRAMES_TO_AGREE}
        if len((set(self._named) | echoed) - set(taken)) > AREA_CARDS[area] - len(taken):
            self.disagreed += 1
            self._restart_unsure()  # the dealer's card decides; then the frames count afresh
            return [("camera_card", {**where, "card": None, "confirmed": False})]
        new = sorted(code for code, n in self._named.items()
                     if n >= FRAMES_TO_AGREE and code in self._sure and code not in taken)
        if new:
            candidates = Counter({c: n for c, n in self._named.items()
                                  if c not in new and c not in taken})
            alike = Counter({c: n for c, n in self._likened.items()
                             if c not in new and c not in taken})
            sure = self._sure & set(candidates)
            self._restart_unsure()
            # the other cards keep theirs
            self._named, self._likened, self._sure = candidates, alike, sure
            self.checked += len(new)
            return [("camera_card", {**where, "card": code, "confirmed": True}) for code in new]
        unsure = [s for s in here if s.card is None]
        if unsure or named:
            self._unsure += 1
            self._guessed.update({s.guess for s in unsure if s.guess is not None} | named)
            if self._unsure >= self.settings.frames:
                guess = self._guess(game)
                self._restart_unsure()
                return [("camera_card", {**where, "card": guess, "confirmed": False})]
        return []

    def _guess(self, game: HoldemRound) -> str | None:
        """The one card not read yet guessed in most frames of the unsure run, if any."""
        seen = {str(c) for c in game.seen_cards()}
        likely = [code for code, frames in self._guessed.items()
                  if code not in seen and 2 * frames > self._unsure]
        return likely[0] if len(likely) == 1 else None

    def _restart_unsure(self) -> None:
        self._unsure = 0
        self._guessed.clear()
        self._named = Counter()
        self._likened = Counter()
        self._sure = set()


def area_zone(area: Area, seat: int | None) -> str:
    """The camera's layout position of a hold'em area (`flop`..., `dealer`, `seat<n>`)."""
    return f"seat{seat}" if area is Area.SEAT else area.value
