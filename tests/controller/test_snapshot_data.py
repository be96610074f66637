"""The critical state's plain-data pieces: every field written, and read back the same.

`Round`, `ShoeTally` and `Meters` write their `to_json` out field by field (no `asdict`, whose
deep copy costs every commit); a field added to the class and not to `to_json` would be lost
at the next restart, so these fail on it.
"""

from dataclasses import fields

from controller.procedure.core.roundstate import Round, ShoeTally
from controller.procedure.shared.meter_books import Hit, HitKind, Meters, params_json
from controller.rules.meter import ProgressiveSettings


def test_a_round_writes_every_field_and_reads_back_the_same() -> None:
    played = Round(number=7, next_card="AS", next_card_exposed=True, refused=[2],
                   contributions=[{"seat": 1, "amount": 100}], loose=["KD"], settled=True,
                   result={"seats": [{"seat": 1, "net": 500}]})
    data = played.to_json()
    assert set(data) == {f.name for f in fields(Round)}
    assert Round.from_json(data) == played
    data["refused"].append(3)
    data["contributions"][0]["amount"] = 1
    assert played.refused == [2]
    assert played.contributions == [{"seat": 1, "amount": 100}]


def test_a_tally_writes_every_field_and_reads_back_the_same() -> None:
    tally = ShoeTally(seen={"AS": 2}, cut_seen=True, shuffles=3, cards_out=40, empty=True,
                      last_card_no=40, recent=["AS", ""], board_boot=9, board_base=4,
                      board_handled=77)
    data = tally.to_json()
    assert set(data) == {f.name for f in fields(ShoeTally)}
    assert ShoeTally(**data) == tally


def test_meters_write_every_field_and_read_back_the_same() -> None:
    params = ProgressiveSettings(reset=500_000, increment=50, reserve=10, limit=900_000)
    meters = Meters(amount=612_345, params=params, progressive_in=88, hits=2,
                    cumulative_paid=1_000_000, attendant_paid=20_000, reserve=440, overflow=3,
                    pending=ProgressiveSettings(reset=600_000),
                    history=(Hit(12, 3, HitKind.FULL, 700_000, 700_000),
                             Hit(15, 1, HitKind.TENTH, 51_000, 510_000)))
    data = meters.to_json()
    assert set(data) == {f.name for f in fields(Meters)}
    assert set(data["params"]) == {f.name for f in fields(ProgressiveSettings)}
    assert set(data["history"][0]) == {f.name for f in fields(Hit)}
    assert params_json(params) == data["params"]
    assert Meters.from_json(data) == meters
