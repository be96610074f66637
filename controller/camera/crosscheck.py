"""The camera cross-check (R9): each card the shoe reports is matched with what the camera sees.

The procedure asks (a `CameraCheck` effect) for every card dealt face up, and for the hole
card when it is turned over. The cross-check, on the loop thread, asks the camera worker for
a frame; the worker (never the loop) reads it and runs `vision.Recognizer.recognize`, and
posts a `CameraFrame` back to the loop. Each reading is assigned to the layout position it
lies on. Then, for the frame:

* a confident card on a position that holds no such card, and is not loose this round, seen
  there on two frames in a row, is a fault: a *mismatch* when a card checked on that
  position is missing from it, else a *phantom* (a card the shoe never dealt). Only the
  supervisor key clears it (R9). Seen on one frame only, it is journalled as a misread (a
  card does not come and go between two frames; a misreading does). Where a card lies face
  down (the hole card) one reading is excused and journalled: the camera cannot tell a
  misread back from the card turned early;
* a checked card seen on its position is confirmed (`camera:match` in the journal);
* a checked card not seen (unsure reading, not landed yet) asks for another frame, up to
  `frames` frames; then it is unconfirmed: a warning or a fault (`on_unsure`);
* a camera that gives no frame is down: shown on the dealer display, and a warning or a
  fault (`on_camera_down`); its pending cards are journalled as unchecked.

Card identities go to the journal only; operational log lines name the position and the
shoe's card number, never the card (R5, R17).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from confkeys import Section
from controller.procedure.core.effects import CameraCheck, Effect, Journal, OpLog
from controller.rules.errors import ConfigError, config_error
from controller.rules.hands import Game


class CameraPolicy(StrEnum):
    """What a camera problem does to the table."""

    WARN = "warn"
    """Journal it, warn the dealer and the engineer; dealing goes on."""
    STOP = "stop"
    """Stop the table in `fault` until the supervisor key clears it (R9)."""


@dataclass(frozen=True, slots=True)
class VisionSettings:
    """`[vision]`: how the camera cross-check behaves.

    Attributes:
        on_camera_down: A camera that gives no frame: warn, or stop the table.
        on_unsure: A card the camera could not confirm within `frames` frames.
        frames: Frames tried per card before it counts as unconfirmed (1..20).
        frame_interval_ms: Wait between two frames for the same card (10..5000).
        profile: Deck profile file (`shoectl vision enroll`); "" for the generic profile.
        positions: Frame pixel (x, y) of each layout position, or of several points per
            position named "seat3.0", "seat3.1"...; empty for the default layout drawing.
    """

    on_camera_down: CameraPolicy = CameraPolicy.STOP
    on_unsure: CameraPolicy = CameraPolicy.WARN
    frames: int = 6
    frame_interval_ms: int = 250
    profile: str = ""
    positions: tuple[tuple[str, float, float], ...] = ()


def vision_settings_from_mapping(data: object) -> VisionSettings:
    """Validate `[vision]` (missing keys take the defaults).

    Raises:
        ConfigError: An unknown key, a wrong type or value, naming `[vision] key`.
    """
    reader = Section("vision", data, error=config_error)
    policies = [p.value for p in CameraPolicy]
    settings = VisionSettings(
        on_camera_down=CameraPolicy(reader.text("on_camera_down", CameraPolicy.STOP, policies)),
        on_unsure=CameraPolicy(reader.text("on_unsure", CameraPolicy.WARN, policies)),
        frames=reader.integer("frames", 6, minimum=1, maximum=20),
        frame_interval_ms=reader.integer("frame_interval_ms", 250, minimum=10, maximum=5000),
        profile=reader.text("profile", ""),
        positions=_positions(reader.section("positions")) if reader.has("positions") else (),
    )
    reader.finish()
    return settings


def _positions(section: Section) -> tuple[tuple[str, float, float], ...]:
    found = []
    for name in section.names():
        value = section.raw(name)
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, int | float) and not isinstance(v, bool)
                           for v in value)):
            raise section.error(name, f"expected [x, y] in frame pixels, got {value!r}")
        found.append((name, float(value[0]), float(value[1])))
    section.finish()
    return tuple(found)


def table_zones(game: Game, seats: int) -> tuple[str, ...]:
    """The layout positions the camera watches: the dealer and each seat, or the two hands.

    Texas Hold'em Bonus adds the board's areas: the flop, the turn and the river.
    """
    if game is Game.BACCARAT:
        return ("player", "banker")
    if game is Game.HOLDEM:
        return ("dealer", "flop", "turn", "river", *(f"seat{n}" for n in range(1, seats + 1)))
    return ("dealer", *(f"seat{n}" for n in range(1, seats + 1)))


def check_positions(settings: VisionSettings, zones: Iterable[str]) -> None:
    """Refuse configured positions that name no layout position of this table.

    Raises:
        ConfigError: naming `[vision.positions] <name>`.
    """
    known = list(zones)
    for name, _x, _y in settings.positions:
        if name.partition(".")[0] not in known:
            raise ConfigError(f"[vision.positions] {name}: no such position at this table "
                              f"(positions: {', '.join(known)})")


# ---------------------------------------------------------------- worker <-> loop


@dataclass(frozen=True, slots=True)
class Sighting:
    """One card the camera found, and the layout position it lies on.

    Attributes:
        zone: The position ("seat3", "dealer", "player"), or "" when off every position.
        card: The card code, or None when the reading is unsure (or the card face down).
        confidence: The recogniser's estimate that its best guess is right.
        guess: The card itself when answered; for an unsure card, the recogniser's guess
            when the reading failed no check but the confidence threshold (else None). Never
            an answer: a hand-dealt table offers it to the dealer to confirm by eye.
        likeness: The recogniser's best card whatever check the reading failed (None when
            it has none). Never offered, never an answer: only a sign that frames disagree
            (the hold'em reader, decision 168).
    """

    zone: str
    card: str | None
    confidence: float
    guess: str | None = None
    likeness: str | None = None


@dataclass(frozen=True, slots=True)
class CameraFrame:
    """Posted by the camera worker to the loop: one frame's sightings, or why there is none.

    Attributes:
        request: The cross-check's request number this frame answers.
        number: The camera's frame number (0 when no frame was read).
        sightings: Every card found, in reading order.
        error: Why no frame or no reading was had ("" when the frame was read).
    """

    request: int
    number: int
    sightings: tuple[Sighting, ...] = ()
    error: str = ""


class FrameRequests(Protocol):
    """The camera worker as the cross-check sees it."""

    def request(self, number: int, zones: tuple[str, ...] = ()) -> None:
        """Read and recognise one frame; post a `CameraFrame` for `number` to the loop.

        With `zones`, only those positions are wanted: where the layout's slots are known,
        only their part of the frame is recognised (the other positions' cards are not
        sighted).
        """


Schedule = Callable[[float, Callable[[], None]], object]
"""Runs a callback on the loop thread after a delay in seconds (`EventLoop.call_later`)."""


@dataclass
class _Pending:
    check: CameraCheck
    round: int
    first_frame: int
    tried: int = 0


@dataclass
class FrameVerdict:
    """What a frame means for the table: records to commit, then triggers to fire.

    Attributes:
        effects: Journal records and operational log lines (no card in a log line).
        triggers: Procedure triggers with their arguments, in order.
    """

    effects: list[Effect] = field(default_factory=list)
    triggers: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


CardLayout = Mapping[str, list[str | None]]
"""Cards by layout position, as the procedure placed them (None: face down)."""


class CrossCheck:
    """Correlates the cards the procedure placed with the frames of the camera (loop thread).

    Args:
        settings: The `[vision]` settings.
        frames: The camera worker.
        schedule: Runs a callback later on the loop thread.
    """

    def __init__(self, settings: VisionSettings, frames: FrameRequests,
                 schedule: Schedule) -> None:
        self.settings = settings
        self._frames = frames
        self._schedule = schedule
        self._pending: list[_Pending] = []
        self._asked = 0
        self._in_flight: int | None = None
        self._timer = False
        self._round = -1
        self._frame_round: dict[int, int] = {}
        self._suspect: dict[str, list[str]] = {}
        self.down = False
        self.checked = 0

    @property
    def idle(self) -> bool:
        """True when no card waits for a frame and no frame is on its way."""
        return (not self._pending and not self._suspect and self._in_flight is None
                and not self._timer)

    def probe(self) -> None:
        """Ask for one frame now (at start: is the camera there?)."""
        if self._in_flight is None:
            self._ask()

    def request(self, checks: Iterable[CameraCheck], round_no: int) -> None:
        """Cards the procedure just placed (or turned over) in round `round_no`: confirm each."""
        self._round = round_no
        for check in checks:
            self._pending.append(_Pending(check, round_no, self._asked + 1))
        if self._pending and self._in_flight is None and not self._timer:
            self._ask()

    def _ask(self) -> None:
        self._asked += 1
        self._in_flight = self._asked
        self._frame_round[self._asked] = self._round
        self._frames.request(self._asked)

    def _ask_later(self) -> None:
        self._timer = True

        def fire() -> None:
            self._timer = False
            if self._pending and self._in_flight is None:
                self._ask()
        self._schedule(self.settings.frame_interval_ms / 1000, fire)

    # ------------------------------------------------------------ a frame arrives
    def on_frame(self, frame: CameraFrame, layout: CardLayout, loose: Iterable[str],
                 round_no: int) -> FrameVerdict:
        """Judge a frame against the layout as the procedure has it now.

        A frame asked for in an earlier round (the cards since collected) is not searched
        for strays, and cards of an earlier round still unconfirmed are journalled unchecked.

        Args:
            frame: The worker's frame.
            layout: Cards by position (`TableModel.camera_layout`).
            loose: Cards drawn this round that lie on no position.
            round_no: The round the procedure is in now.
        """
        if frame.request == self._in_flight:
            self._in_flight = None
        asked_in = self._frame_round.pop(frame.request, -1)
        if asked_in != round_no:
            self._suspect = {}
        verdict = FrameVerdict()
        self._drop_pending(verdict, "the round ended before the camera confirmed it",
                           lambda p: p.round != round_no)
        if frame.error:
            self._camera_down(frame, verdict)
        else:
            self._camera_up(verdict)
            self._judge(frame, layout, Counter(loose), verdict, strays=asked_in == round_no)
        if (self._pending or self._suspect) and self._in_flight is None and not self._timer:
            if any(p.first_frame > frame.request for p in self._pending):
                self._ask()  # cards placed while this frame was taken: look now
            else:
                self._ask_later()
        return verdict

    def _camera_down(self, frame: CameraFrame, verdict: FrameVerdict) -> None:
        if not self.down:
            self.down = True
            verdict.triggers.append(("camera_status", {"down": True, "reason": frame.error}))
        stop = self.settings.on_camera_down is CameraPolicy.STOP
        self._drop_pending(verdict, "camera down")
        if stop:
            verdict.triggers.append(("camera_fault", {"reason": f"camera down: {frame.error}"}))

    def _camera_up(self, verdict: FrameVerdict) -> None:
        if self.down:
            self.down = False
            verdict.triggers.append(("camera_status", {"down": False}))

    def _drop_pending(self, verdict: FrameVerdict, why: str,
                      which: Callable[[_Pending], bool] = lambda _p: True) -> None:
        dropped = [p for p in self._pending if which(p)]
        for pending in dropped:
            check = pending.check
            verdict.effects.append(Journal("camera:unchecked", {
                "ref": check.ref, "zone": check.zone, "card": check.card, "reason": why}))
        if dropped:
            verdict.effects.append(OpLog(f"camera: {len(dropped)} card(s) not checked "
                                         f"({why})", "warning"))
        self._pending = [p for p in self._pending if p not in dropped]

    def _judge(self, frame: CameraFrame, layout: CardLayout, loose: Counter[str],
               verdict: FrameVerdict, *, strays: bool) -> None:
        seen = _answered_by_zone(frame.sightings)
        wanted = {zone: Counter(c for c in cards if c is not None)
                  for zone, cards in layout.items()}
        face_down = {zone: sum(c is None for c in cards) for zone, cards in layout.items()}
        found, excused = _strays(seen, wanted, loose, face_down) if strays else ({}, {})
        if self._judge_strays(frame, found, wanted, seen, verdict):
            return
        if excused:
            # Where a card lies face down the camera cannot tell its back from a misread
            # back or the card turned early: recorded, not judged.
            verdict.effects.append(Journal("camera:face_down_read", {
                "cards": excused, "frame": frame.number}))
        self._judge_pending(frame, seen, wanted, verdict)

    def _judge_strays(self, frame: CameraFrame, found: dict[str, list[str]],
                      wanted: Mapping[str, Counter[str]], seen: Mapping[str, Counter[str]],
                      verdict: FrameVerdict) -> bool:
        """A stray seen on two frames in a row is a fault; on one, the camera looks again.

        Returns True when the strays decide this frame (nothing else is judged on it).
        """
        if found and set(found) & set(self._suspect):
            self._suspect = {}
            self._fault(frame, found, wanted, seen, verdict)
            return True
        if found:  # once: look again before stopping the table
            self._suspect = found
            verdict.effects.append(Journal("camera:stray_seen", {"cards": found,
                                                                 "frame": frame.number}))
            return True
        if self._suspect:
            verdict.effects.append(Journal("camera:stray_not_repeated", {
                "cards": self._suspect, "frame": frame.number}))
            verdict.effects.append(OpLog(f"camera: a reading at {', '.join(self._suspect)} "
                                         "was not seen again; taken for a misread", "warning"))
            self._suspect = {}
        return False

    def _judge_pending(self, frame: CameraFrame, seen: Mapping[str, Counter[str]],
                       wanted: Mapping[str, Counter[str]], verdict: FrameVerdict) -> None:
        """Confirm each card this frame was asked for, or count one more try."""
        due = [p for p in self._pending if p.first_frame <= frame.request]
        for pending in due:
            check = pending.check
            if seen.get(check.zone, Counter())[check.card] >= wanted.get(
                    check.zone, Counter())[check.card] > 0:
                self._confirm(pending, frame, verdict)
            else:
                pending.tried += 1
                if pending.tried >= self.settings.frames:
                    self._unconfirmed(pending, frame, verdict)

    def _confirm(self, pending: _Pending, frame: CameraFrame, verdict: FrameVerdict) -> None:
        check = pending.check
        self._pending.remove(pending)
        self.checked += 1
        confidence = max((s.confidence for s in frame.sightings
                          if s.zone == check.zone and s.card == check.card), default=0.0)
        verdict.effects.append(Journal("camera:match", {
            "ref": check.ref, "zone": check.zone, "card": check.card, "frame": frame.number,
            "frames": pending.tried + 1, "confidence": round(confidence, 4)}))

    def _unconfirmed(self, pending: _Pending, frame: CameraFrame, verdict: FrameVerdict) -> None:
        check = pending.check
        self._pending.remove(pending)
        unsure = sum(1 for s in frame.sightings if s.zone == check.zone and s.card is None)
        verdict.effects.append(Journal("camera:unconfirmed", {
            "ref": check.ref, "zone": check.zone, "card": check.card, "frames": pending.tried,
            "unsure_readings": unsure, "policy": self.settings.on_unsure.value}))
        what = f"camera could not confirm {check.ref} at {check.zone} in {pending.tried} frames"
        if self.settings.on_unsure is CameraPolicy.STOP:
            verdict.triggers.append(("camera_fault", {"reason": what}))
        else:
            verdict.effects.append(OpLog(what, "warning"))

    def _fault(self, frame: CameraFrame, strays: dict[str, list[str]],
               wanted: Mapping[str, Counter[str]], seen: Mapping[str, Counter[str]],
               verdict: FrameVerdict) -> None:
        mismatch = next((p for p in self._pending if p.check.zone in strays
                         and seen.get(p.check.zone, Counter())[p.check.card]
                         < wanted.get(p.check.zone, Counter())[p.check.card]), None)
        if mismatch is not None:
            check = mismatch.check
            verdict.effects.append(Journal("camera:mismatch", {
                "ref": check.ref, "zone": check.zone, "shoe": check.card,
                "camera": strays[check.zone], "frame": frame.number}))
            reason = f"camera mismatch: {check.ref} at {check.zone} is not the shoe's card"
        else:
            verdict.effects.append(Journal("camera:phantom", {
                "cards": strays, "frame": frame.number}))
            reason = f"camera saw a card the shoe never dealt at {', '.join(sorted(strays))}"
        self._drop_pending(verdict, "table stopped by the cross-check")
        verdict.triggers.append(("camera_fault", {"reason": reason}))


def _answered_by_zone(sightings: Iterable[Sighting]) -> dict[str, Counter[str]]:
    seen: dict[str, Counter[str]] = {}
    for sighting in sightings:
        if sighting.card is not None:
            seen.setdefault(sighting.zone, Counter())[sighting.card] += 1
    return seen


def _strays(seen: Mapping[str, Counter[str]], wanted: Mapping[str, Counter[str]],
            loose: Counter[str], face_down: Mapping[str, int]
            ) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Cards seen where the procedure placed no such card, and those excused.

    Loose cards may lie anywhere; each face-down card of a position excuses one reading
    there. Returns (strays, excused face-down readings), by position.
    """
    allowance = Counter(loose)
    strays: dict[str, list[str]] = {}
    excused: dict[str, list[str]] = {}
    for zone in sorted(seen):
        extra = seen[zone] - wanted.get(zone, Counter())
        hidden = face_down.get(zone, 0)
        for card, count in sorted(extra.items()):
            as_loose = min(count, allowance[card])
            allowance[card] -= as_loose
            as_face_down = min(count - as_loose, hidden)
            hidden -= as_face_down
            excused.setdefault(zone, []).extend([card] * as_face_down)
            strays.setdefault(zone, []).extend([card] * (count - as_loose - as_face_down))
    return ({z: c for z, c in strays.items() if c}, {z: c for z, c in excused.items() if c})
