"""The console hub publishes a table only when it changed, object or text alike."""

from __future__ import annotations

from controller.console.hub import ConsoleHub, Published


def _hub_and_received() -> tuple[ConsoleHub, list[Published]]:
    hub = ConsoleHub(post=lambda _work: None)
    received: list[Published] = []
    hub.subscribe(received.append)
    return hub, received


def test_an_unchanged_table_object_is_not_published_again() -> None:
    hub, received = _hub_and_received()
    hub.publish({"phase": "betting", "round": 1})
    hub.publish({"phase": "betting", "round": 1})
    hub.publish({"phase": "players", "round": 1})
    assert [(p.seq, p.table["phase"]) for p in received] == [(1, "betting"), (2, "players")]


def test_an_unchanged_table_text_is_not_published_again() -> None:
    hub, received = _hub_and_received()
    hub.publish_text('{"phase":"betting"}')
    hub.publish_text('{"phase":"betting"}')
    hub.publish_text('{"phase":"players"}')
    assert [(p.seq, p.text) for p in received] == [
        (1, '{"phase":"betting"}'), (2, '{"phase":"players"}')]
    assert hub.latest is received[-1]
