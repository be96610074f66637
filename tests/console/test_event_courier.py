"""Publications reach the event streams in bursts: one wake-up of the web loop a burst, every
publication in order, a client too far behind closed (routes' `_Courier` and `_Follower`)."""

from __future__ import annotations

import asyncio
from typing import Any

from controller.console.hub import Published
from controller.web.routes import EVENT_QUEUE, _Courier, _Follower


def test_a_burst_wakes_the_web_loop_once_and_keeps_every_publication_in_order() -> None:
    loop = asyncio.new_event_loop()
    wakes: list[Any] = []
    real = loop.call_soon_threadsafe

    def counted(callback: Any, *args: Any) -> Any:
        wakes.append(callback)
        return real(callback, *args)
    loop.call_soon_threadsafe = counted  # type: ignore[method-assign,assignment]
    try:
        courier, first, second = _Courier(loop), _Follower(), _Follower()
        for seq in (1, 2, 3):  # one commit publishing to two stations, three times
            courier.send(first, Published(seq, table={"n": seq}))
            courier.send(second, Published(seq, table={"n": -seq}))
        assert len(wakes) == 1
        loop.run_until_complete(asyncio.sleep(0))
        assert [p.seq for p in first.pending] == [1, 2, 3]
        assert [p.table["n"] for p in second.pending] == [-1, -2, -3]
        assert first.wake.is_set()
        courier.send(first, Published(4, table={"n": 4}))  # the next burst wakes it again
        assert len(wakes) == 2
    finally:
        loop.close()


def test_each_publication_is_its_own_event_encoded_once() -> None:
    published = Published(7, text='{"station": 2}')
    assert published.sse() == 'id: 7\ndata: {"seq":7,"table":{"station": 2}}\n\n'
    assert published.sse() is published.sse()
    assert published.table == {"station": 2}
    assert Published(8, table={"a": [1], "b": "é"}).text == '{"a":[1],"b":"é"}'  # as /api/table


def test_a_client_too_far_behind_is_closed_not_fed_a_gap() -> None:
    follower = _Follower()
    for seq in range(1, EVENT_QUEUE + 1):
        follower.offer(Published(seq, table={}))
    assert not follower.overflowed
    follower.offer(Published(EVENT_QUEUE + 1, table={}))
    follower.offer(Published(EVENT_QUEUE + 2, table={}))
    assert follower.overflowed
    assert not follower.pending  # nothing after the gap: the stream ends, the client restarts
