import pytest

from controller.procedure.shared import meter_books as p


def test_contribution_hits_and_pending_parameters() -> None:
    meters, _ = p.start(p.MeterParams(reset=100_000, increment=150, limit=100_400))
    meters, recs = p.contribute(meters, 1, [1, 2, 3])
    assert meters.amount == 100_400
    assert meters.overflow == 50
    assert meters.progressive_in == 3
    assert [r.data["after"] for r in recs] == [100_150, 100_300, 100_400]
    meters, _ = p.change_params(meters, "supervisor", p.MeterParams(reset=50_000, increment=10))
    meters, _, paid = p.hit(meters, 1, 3, p.HitKind.TENTH)
    assert paid == 10_040
    assert meters.params.reset == 100_000
    meters, _, paid = p.hit(meters, 1, 2, p.HitKind.FULL)
    assert paid == 90_360
    assert meters.amount == 50_000
    assert meters.params.increment == 10
    assert meters.pending is None
    assert meters.hits == 2
    assert meters.cumulative_paid == meters.attendant_paid == 100_400
    assert [h.seat for h in meters.history] == [2, 3]


def test_history_keeps_the_last_25_hits() -> None:
    meters, _ = p.start(p.MeterParams(reset=1000, increment=1))
    for n in range(30):
        meters, _, _ = p.hit(meters, n, 1, p.HitKind.TENTH)
    assert len(meters.history) == 25
    assert meters.history[0].round == 29


def test_replay_reconciles_and_detects_a_skipped_record() -> None:
    meters, init = p.start(p.MeterParams(reset=1000, increment=10))
    records = [init]
    meters, recs = p.contribute(meters, 1, [4, 5])
    records += recs
    meters, rec = p.correct(meters, "supervisor:key", 2000, "sign replaced")
    records.append(rec)
    replayed, problem = p.replay((r.kind, r.data) for r in records)
    assert problem == ""
    assert p.reconcile(meters, replayed) == ""
    _, problem = p.replay((r.kind, r.data) for r in [records[0], records[2]])
    assert "before" in problem


def test_bad_parameters_and_corrections_are_refused() -> None:
    with pytest.raises(p.MeterError, match="increment"):
        p.start(p.MeterParams(reset=1000, increment=-1))
    meters, _ = p.start(p.MeterParams(reset=1000, increment=1))
    with pytest.raises(p.MeterError, match="who"):
        p.correct(meters, "", 5, "x")
