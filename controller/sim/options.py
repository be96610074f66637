"""The plan of a simulated run: the table configuration, seats, wagers, bots and shoe.

`build_options` turns `shoectl simulate`'s arguments into a validated `Options`: the shipped
table set to the game, decks, seats, side wagers and meter asked for, the bots' policy and a
scripted shoe (`--shoe-file`, every card one the shoe can hold). Anything the table cannot take
is refused with a `ConfigError` naming the option.
"""

from __future__ import annotations

import argparse
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path

from controller.rules.axman import AXMAN_DECK_COUNTS
from controller.rules.baccarat import BaccaratBet
from controller.rules.cards import ALLOWED_DECK_COUNTS, Card, Rank
from controller.rules.errors import ConfigError
from controller.rules.hands import Game
from controller.rules.limits import MAX_WAGER_CENTS, SIGN_MAX_CENTS
from controller.rules.meter import ProgressiveSettings, check_progressive
from controller.rules.options import SIDE_BETS_BY_GAME, GameConfig, check_consistency
from controller.rules.roulette import RouletteBet, Wheel, spots
from controller.rules.strategy import BasicStrategyPolicy, PlayerPolicy, StandPolicy
from controller.service.tableconfig import load_default_table
from controller.sim import table_view
from controller.sim.players import Players, Spread, parse_strategies
from drivers.emulated import shoe_file

DEFAULT_ROUNDS = 100
MAX_ROUNDS = 10_000_000
"""The most rounds (or spins) one run deals: about a day at full speed."""


MAX_PACE = 10.0


DEFAULT_BETS = {
    "blackjack": "main=1000,perfect-pairs=100,lucky-ladies=100,match-the-dealer=100,"
                 "blazing7s=500,axman=100",
    "spanish21": "main=1000,match-the-dealer=100",
    "community": "main=1000",
    "holdem": "ante=1000,bonus=500",
    "baccarat": "banker=1000,tie=100,dragon-banker=100",
    "roulette": "straight=500,split=500,street=500,corner=500,five-number=500,six-line=500,"
                "column=1000,dozen=1000,red=1000,black=1000,odd=1000,even=1000,low=1000,"
                "high=1000",
}
"""What the bots wager: blackjack and baccarat on every seat; at roulette each seat picks
`ROULETTE_PICKS` of these bets a spin, on spots of the seeded bots' choosing."""
ROULETTE_PICKS = 3


@dataclass
class Options:
    """Validated simulate options."""

    config: GameConfig
    seats: int
    rounds: int
    seed: int
    bets: dict[str, int]
    policy: PlayerPolicy
    scripted: list[str] | None
    meter_start: int | None
    as_json: bool
    state_dir: Path | None
    in_process: bool = False
    notes: list[str] = field(default_factory=list)
    camera: bool = False
    pace: float = table_view.DEFAULT_PACE
    spins: int = 0
    """Roulette: the wheel games to play (`--spins`; with a replay, 0 reads it all)."""
    wheel_replay: Path | None = None
    """Roulette: a recorded byte stream of a real wheel, read through the real driver."""
    stations: int = 0
    """Community: the player stations the bots sit at (`--stations`)."""
    stop: threading.Event = field(default_factory=threading.Event)
    """Set (by Ctrl-C) to stop after the round in play: the journal closes cleanly."""


def parse_bets(text: str) -> dict[str, int]:
    """`main=1000,blazing7s=500` -> {"main": 1000, "blazing7s": 500}.

    Raises:
        ConfigError: a part is not NAME=CENTS, names a wager twice, or an amount is not
            1..MAX_WAGER_CENTS.
    """
    bets: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = (item.strip() for item in part.partition("="))
        if not eq or not value.isascii() or not value.isdigit():
            raise ConfigError(f"--bets: {part!r} is not NAME=CENTS")
        if name in bets:
            raise ConfigError(f"--bets: {name} is named twice")
        if not 1 <= int(value) <= MAX_WAGER_CENTS:
            raise ConfigError(f"--bets: {name}={value}: a wager is 1..{MAX_WAGER_CENTS} cents")
        bets[name] = int(value)
    return bets


def read_shoe_file(path: Path) -> list[str]:
    """The cards of a scripted shoe (the shoe file format of `drivers.emulated.shoe_file`).

    Raises:
        ConfigError: unreadable file, no card, or a token that is no card (naming the line).
    """
    return [card for _, card in read_shoe_lines(path)]


def read_shoe_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, card code) of each card of a scripted shoe file.

    Raises:
        ConfigError: `--shoe-file FILE ...`: unreadable file, no card, or a token that is no
            card (naming file, line, token).
    """
    try:
        return [(card.line, card.code) for card in shoe_file.shoe_file_cards(path)]
    except shoe_file.ShoeFileError as exc:
        raise ConfigError(f"--shoe-file {exc}") from exc


def check_shoe_cards(path: Path, cards: list[tuple[int, str]], decks: int,
                     spanish: bool) -> None:
    """Refuse, before anything is dealt, a card the configured shoe cannot hold (R9).

    Raises:
        ConfigError: naming the file, the line and the card: a ten in a Spanish 21 shoe, or
            one copy more than the shoe's decks hold.
    """
    counts: dict[str, int] = {}
    for number, card in cards:
        if spanish and Card.parse(card).rank is Rank.TEN:
            raise ConfigError(f"--shoe-file {path} line {number}: {card} cannot be in a "
                              "Spanish 21 shoe (its 48-card decks have no tens)")
        counts[card] = counts.get(card, 0) + 1
        if counts[card] > decks:
            raise ConfigError(f"--shoe-file {path} line {number}: {card} is copy "
                              f"{counts[card]} of {card}, but a {decks}-deck shoe holds "
                              f"{decks}")


def build_options(args: argparse.Namespace) -> Options:
    """Turn parsed arguments into a table configuration and a run plan.

    Raises:
        ConfigError: an option the table cannot take.
    """
    base = load_default_table().game
    game = Game(args.game)
    if game is Game.ROULETTE:
        return _roulette_options(base, args)
    if game is Game.COMMUNITY:
        return _community_options(base, args)
    if game is Game.HOLDEM:
        return _holdem_options(base, args)
    for name in ROULETTE_ONLY:
        if getattr(args, name, None) is not None:
            raise ConfigError(f"--{name.replace('_', '-')}: only a roulette table takes it "
                              "(--game roulette)")
    decks = _checked_decks(args, game, base.table.decks)
    wanted = parse_bets(args.bets or DEFAULT_BETS[args.game])
    config = _game_config(base, args, game, decks, wanted)
    bets, notes = _offered_bets(wanted, config)
    policy = _players(args, config, game, decks)
    scripted = _scripted_shoe(args.shoe_file, decks, game) if args.shoe_file else None
    return Options(config, args.seats, args.rounds, args.seed, bets, policy, scripted,
                   args.meter_start, args.json, args.state_dir, args.in_process, notes,
                   args.camera, args.pace)


def _players(args: argparse.Namespace, config: GameConfig, game: Game,
             decks: int) -> PlayerPolicy:
    """The bot players of a shoe game: each seat's strategy (`--strategy`, `--spread`).

    Raises:
        ConfigError: an unknown strategy, a list not one a seat, a bad spread or a spread
            with no counter, a strategy a baccarat table has no use for.
    """
    strategies = parse_strategies(args.strategy, args.seats)
    counting = "counter" in strategies
    if args.spread is not None and not counting:
        raise ConfigError("--spread: only a counter spreads its wager (--strategy counter)")
    if game is Game.BACCARAT:
        if set(strategies) - {"basic", "stand"}:
            raise ConfigError(f"--strategy: {args.strategy!r}: a baccarat seat has no "
                              "decision and no count to bet by")
        return BasicStrategyPolicy()
    return Players(strategies, Spread.parse(args.spread or "1-8"), config.rules_for(game),
                   decks, args.seed)


def _checked_decks(args: argparse.Namespace, game: Game, default_decks: int) -> int:
    """Refuse seats, rounds, decks, pace or a camera the simulated table cannot have; the decks."""
    if not 1 <= args.seats <= 9:
        raise ConfigError(f"--seats: 1..9, got {args.seats}")
    if not 1 <= args.rounds <= MAX_ROUNDS:
        raise ConfigError(f"--rounds: 1..{MAX_ROUNDS}, got {args.rounds}")
    if args.meter_start is not None and not 0 <= args.meter_start <= SIGN_MAX_CENTS:
        raise ConfigError(f"--meter-start: 0..{SIGN_MAX_CENTS} cents (the sign shows at most "
                          f"{SIGN_MAX_CENTS} cents), got {args.meter_start}")
    decks: int = args.decks if args.decks is not None else (
        8 if game is Game.BACCARAT else default_decks)
    if decks not in ALLOWED_DECK_COUNTS:
        raise ConfigError(f"--decks: a shoe holds 1, 2, 4, 5, 6 or 8 decks, not {decks}")
    if args.camera and args.in_process:
        raise ConfigError("--camera: the camera is a device; it cannot run with --in-process")
    if not 0 <= args.pace <= MAX_PACE:
        raise ConfigError(f"--pace: 0..{MAX_PACE} seconds a card, got {args.pace}")
    return decks


def _game_config(base: GameConfig, args: argparse.Namespace, game: Game, decks: int,
                 wanted: dict[str, int]) -> GameConfig:
    """The shipped table set to the game, decks, seats, side wagers and meter asked for."""
    side_bets = {Game.BLACKJACK: base.table.side_bets, Game.SPANISH21: ("match-the-dealer",),
                 Game.BACCARAT: ("dragon-bonus",)}[game]
    if decks not in AXMAN_DECK_COUNTS:
        side_bets = tuple(b for b in side_bets if b != "axman")
    if game is not Game.BACCARAT:  # the table offers the side wagers the bots make
        side_bets = tuple(b for b in side_bets if b in wanted)
    table = replace(base.table, game=game, decks=decks, side_bets=side_bets,
                    seats=max(base.table.seats, args.seats))
    config = replace(base, table=table, progressive=_progressive(base.progressive, args,
                                                                  base.paytables.blazing7s.wager))
    check_consistency(config)  # e.g. no Match the Dealer pay table for this deck count
    return config


def _scripted_shoe(path: Path, decks: int, game: Game) -> list[str]:
    """The cards of `--shoe-file`, each one the configured shoe can hold."""
    lines = read_shoe_lines(path)
    check_shoe_cards(path, lines, decks, game is Game.SPANISH21)
    return [card for _, card in lines]


def _progressive(base: ProgressiveSettings, args: argparse.Namespace,
                 wager: int) -> ProgressiveSettings:
    """The meter's parameters with `--meter-reset` and `--meter-increment` in force.

    Raises:
        ConfigError: an amount the sign cannot show, an increment below a cent or above the
            fixed wager, or a reset above the configured limit, naming the option.
    """
    settings = replace(base, reset=base.reset if args.meter_reset is None else args.meter_reset,
                       increment=base.increment if args.meter_increment is None
                       else args.meter_increment)
    check_progressive(settings, "--meter-")
    if settings.increment > wager:
        raise ConfigError(f"--meter-increment: {settings.increment} cents is above the "
                          f"Blazing 7's fixed wager {wager} it comes from")
    return settings


def _offered_bets(bets: dict[str, int], config: GameConfig) -> tuple[dict[str, int], list[str]]:
    """The wagers the bots make, and a note for each the table does not offer.

    A name that is no wager of the game is refused; a wager of the game this table does
    not offer (AxMan at 4 decks) is left out with a note.

    Raises:
        ConfigError: an unknown wager, naming it and the known ones; no main wager; a main
            wager outside the table limits; a Blazing 7's wager other than its fixed one.
    """
    game = config.table.game
    known = ([b.value for b in BaccaratBet] if game is Game.BACCARAT
             else ["main", *SIDE_BETS_BY_GAME[Game(game)]])
    for name in bets:
        if name not in known:
            raise ConfigError(f"--bets: {name!r} is no {game.value} wager (wagers: "
                              f"{', '.join(known)})")
    if game is Game.BACCARAT:
        return bets, []
    offered = set(config.table.side_bets) | {"main"}
    kept = {k: v for k, v in bets.items() if k in offered}
    notes = [f"{name} is not offered at {game.value} with {config.table.decks} decks; ignored"
             for name in bets if name not in offered]
    if "main" not in kept:
        raise ConfigError("--bets: a main wager (main=CENTS) is needed")
    table = config.table
    if not table.min_wager <= kept["main"] <= table.max_wager:
        raise ConfigError(f"--bets: main={kept['main']} is outside the table limits "
                          f"{table.min_wager}..{table.max_wager} cents")
    if "blazing7s" in kept and kept["blazing7s"] != config.paytables.blazing7s.wager:
        raise ConfigError(f"--bets: blazing7s is a fixed {config.paytables.blazing7s.wager}")
    return kept, notes


MAX_STATIONS = 200
"""The most stations a simulated community table seats."""


def _community_options(base: GameConfig, args: argparse.Namespace) -> Options:
    """The plan of a community run: stations, the main wager on every spot, the bots.

    Raises:
        ConfigError: An option the community table does not take, or a bad value, named.
    """
    for name in (*ROULETTE_ONLY, "meter_start", "meter_reset", "meter_increment"):
        if getattr(args, name, None) is not None:
            raise ConfigError(f"--{name.replace('_', '-')}: not an option of the community "
                              "table (no wheel, no progressive)")
    if args.camera or args.in_process:
        raise ConfigError(f"--{'camera' if args.camera else 'in-process'}: the community "
                          "table is simulated in-process, without a camera")
    stations = args.stations if args.stations is not None else 3
    if not 1 <= stations <= MAX_STATIONS:
        raise ConfigError(f"--stations: 1..{MAX_STATIONS}, got {stations}")
    if args.rounds < 1:
        raise ConfigError(f"--rounds: at least 1, got {args.rounds}")
    decks = args.decks or base.table.decks
    if decks not in ALLOWED_DECK_COUNTS:
        raise ConfigError(f"--decks: a shoe holds 1, 2, 4, 5, 6 or 8 decks, not {decks}")
    bets = _community_bets(parse_bets(args.bets or DEFAULT_BETS["community"]), base)
    table = replace(base.table, game=Game.COMMUNITY, decks=decks, side_bets=())
    policy: PlayerPolicy = StandPolicy() if args.strategy == "stand" else BasicStrategyPolicy()
    scripted = _scripted_shoe(args.shoe_file, decks, Game.COMMUNITY) if args.shoe_file else None
    return Options(replace(base, table=table), 0, args.rounds, args.seed, bets, policy,
                   scripted, None, args.json, args.state_dir, stations=stations)


def _community_bets(bets: dict[str, int], base: GameConfig) -> dict[str, int]:
    """`--bets` at the community table: main=CENTS, and side wagers the table offers.

    The main wager comes first (each spot's side wagers go with it).

    Raises:
        ConfigError: no main wager; a name that is no community wager, or one not offered
            (`[rules.community] side_bets`); an amount outside its limits.
    """
    rules, table = base.community, base.table
    if "main" not in bets:
        raise ConfigError("--bets: a main wager (main=CENTS) is needed")
    for name, cents in bets.items():
        if name == "main":
            if not table.min_wager <= cents <= table.max_wager:
                raise ConfigError(f"--bets: main={cents} is outside the table limits "
                                  f"{table.min_wager}..{table.max_wager} cents")
        elif name not in rules.side_bets:
            raise ConfigError(f"--bets: {name!r} is no side wager offered at this community "
                              f"table ([rules.community] side_bets: "
                              f"{', '.join(rules.side_bets) or 'none'})")
        elif not rules.side_min_wager <= cents <= rules.side_max_wager:
            raise ConfigError(f"--bets: {name}={cents} is outside the side wager limits "
                              f"{rules.side_min_wager}..{rules.side_max_wager} cents")
    return {"main": bets["main"], **{k: v for k, v in bets.items() if k != "main"}}


def _holdem_options(base: GameConfig, args: argparse.Namespace) -> Options:
    """The plan of a hold'em run: seats, ante and bonus on every seat, read by the camera.

    Raises:
        ConfigError: An option the hold'em table does not take, or a bad value, named.
    """
    for name in (*ROULETTE_ONLY, "decks", "shoe_file", "stations", "meter_start",
                 "meter_reset", "meter_increment"):
        if getattr(args, name, None) is not None:
            raise ConfigError(f"--{name.replace('_', '-')}: not an option of the hold'em "
                              "table (one deck shuffled by hand, no progressive)")
    if args.in_process:
        raise ConfigError("--in-process: the hold'em table's cards are read by the emulated "
                          "camera, a device")
    table = replace(base.table, game=Game.HOLDEM, decks=1, side_bets=())
    if not 1 <= args.seats <= table.seats:
        raise ConfigError(f"--seats: 1..{table.seats}, got {args.seats}")
    if args.rounds < 1:
        raise ConfigError(f"--rounds: at least 1, got {args.rounds}")
    if not 0 <= args.pace <= MAX_PACE:
        raise ConfigError(f"--pace: 0..{MAX_PACE} seconds a card, got {args.pace}")
    bets = parse_bets(args.bets or DEFAULT_BETS["holdem"])
    if "ante" not in bets or set(bets) - {"ante", "bonus"}:
        raise ConfigError("--bets: the hold'em table takes ante=CENTS and optionally "
                          "bonus=CENTS")
    for name, cents in bets.items():
        if cents and not table.min_wager <= cents <= table.max_wager:
            raise ConfigError(f"--bets: {name}={cents} is outside the table limits "
                              f"{table.min_wager}..{table.max_wager} cents")
    return Options(replace(base, table=table), args.seats, args.rounds, args.seed, bets,
                   BasicStrategyPolicy(), None, None, args.json, args.state_dir, camera=True,
                   pace=args.pace)


ROULETTE_ONLY = ("spins", "wheel_replay", "wheel")
"""`shoectl simulate` options that only a roulette table takes."""
NOT_AT_ROULETTE = ("decks", "shoe_file", "strategy", "spread", "meter_start", "meter_reset",
                   "meter_increment")


def _roulette_options(base: GameConfig, args: argparse.Namespace) -> Options:
    """The plan of a roulette run: the wheel emulator's games (or a replay) and the bots.

    Raises:
        ConfigError: An option a roulette table does not take, or a bad value, named.
    """
    for name in NOT_AT_ROULETTE:
        if getattr(args, name, None) not in (None, "basic"):
            raise ConfigError(f"--{name.replace('_', '-')}: not an option of a roulette table "
                              "(no shoe, no progressive)")
    if args.in_process or args.camera:
        raise ConfigError(f"--{'in-process' if args.in_process else 'camera'}: roulette is "
                          "simulated through the wheel emulator and the layout board over "
                          "pseudo-terminals, without a camera")
    if not 1 <= args.seats <= 9:
        raise ConfigError(f"--seats: 1..9, got {args.seats}")
    if not 0 <= args.pace <= MAX_PACE:
        raise ConfigError(f"--pace: 0..{MAX_PACE} seconds a step, got {args.pace}")
    spins = args.spins if args.spins is not None else (0 if args.wheel_replay else
                                                       DEFAULT_ROUNDS)
    if spins < 0 or (spins == 0 and args.wheel_replay is None) or spins > MAX_ROUNDS:
        raise ConfigError(f"--spins: 1..{MAX_ROUNDS}, got {spins}")
    replay = args.wheel_replay
    if replay is not None and not replay.is_file():
        raise ConfigError(f"--wheel-replay {replay}: no such file")
    wheel = Wheel(args.wheel or base.roulette.wheel.value)
    table = replace(base.table, game=Game.ROULETTE, side_bets=(), name="RO-01",
                    seats=max(base.table.seats, args.seats))
    config = replace(base, table=table, roulette=replace(base.roulette, wheel=wheel))
    bets = parse_bets(args.bets or DEFAULT_BETS["roulette"])
    notes = _roulette_bets(bets, config)
    return Options(config, args.seats, 0, args.seed, bets, StandPolicy(), None, None,
                   args.json, args.state_dir, notes=notes, pace=args.pace, spins=spins,
                   wheel_replay=replay)


def _roulette_bets(bets: dict[str, int], config: GameConfig) -> list[str]:
    """Refuse a bet the layout does not have or an amount outside the limits; the notes."""
    table, wheel = config.table, config.roulette.wheel
    notes = []
    for name, cents in list(bets.items()):
        try:
            kind = RouletteBet(name)
        except ValueError:
            raise ConfigError(f"--bets: {name!r} is no roulette bet (bets: "
                              f"{', '.join(b.value for b in RouletteBet)})") from None
        if not spots(kind, wheel):
            del bets[name]
            notes.append(f"{name} is not on the {wheel.label} layout; ignored")
        elif not table.min_wager <= cents <= table.max_wager:
            raise ConfigError(f"--bets: {name}={cents} is outside the table limits "
                              f"{table.min_wager}..{table.max_wager} cents")
    if not bets:
        raise ConfigError("--bets: no roulette bet left to place")
    return notes
