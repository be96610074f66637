import threading

from controller.service.loop import EventLoop
from tests.support.clock import FakeClock


def test_posted_events_run_in_order_on_the_loop() -> None:
    seen: list[object] = []
    loop = EventLoop(seen.append, clock=FakeClock())
    for n in range(5):
        loop.post(n)
    assert loop.run_until_idle() == 5
    assert seen == [0, 1, 2, 3, 4]


def test_timers_fire_only_when_the_fake_clock_reaches_them() -> None:
    clock = FakeClock()
    fired: list[str] = []
    loop = EventLoop(lambda e: None, clock=clock)
    loop.call_later(2.0, lambda: fired.append("late"))
    loop.call_later(1.0, lambda: fired.append("early"))
    cancelled = loop.call_later(1.5, lambda: fired.append("cancelled"))
    loop.cancel(cancelled)
    assert loop.run_until_idle() == 0
    clock.advance(1.0)
    loop.run_until_idle()
    assert fired == ["early"]
    clock.advance(5.0)
    loop.run_until_idle()
    assert fired == ["early", "late"]


def test_post_from_other_threads_and_stop() -> None:
    seen: list[int] = []
    loop = EventLoop(lambda e: seen.append(e) if e != "stop" else loop.stop())
    workers = [threading.Thread(target=lambda base=b: [loop.post(base + i) for i in range(50)])
               for b in (0, 1000)]
    runner = threading.Thread(target=loop.run_forever)
    runner.start()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    loop.post("stop")
    runner.join(timeout=10)
    assert not runner.is_alive()
    assert sorted(seen) == sorted([*range(50), *range(1000, 1050)])
    assert [x for x in seen if x < 1000] == list(range(50))
