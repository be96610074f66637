"""sd_notify client against real datagram sockets (path and abstract), watchdog parsing."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.appliance import sdnotify


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[str, socket.socket]]:
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(2)
    yield str(path), sock
    sock.close()


def _received(sock: socket.socket) -> list[str]:
    return sock.recv(4096).decode().split("\n")


def test_ready_status_watchdog_stopping_reach_a_path_socket(listener) -> None:
    address, sock = listener
    notifier = sdnotify.Notifier(address)
    assert notifier.enabled
    assert notifier.ready("table open")
    assert _received(sock) == ["READY=1", "STATUS=table open", f"MAINPID={os.getpid()}"]
    assert notifier.status("shoe\nfault")
    assert _received(sock) == ["STATUS=shoe fault"]
    assert notifier.watchdog()
    assert _received(sock) == ["WATCHDOG=1"]
    assert notifier.stopping("power-off")
    assert _received(sock) == ["STOPPING=1", "STATUS=power-off"]
    notifier.close()


def test_abstract_socket_is_supported() -> None:
    name = f"shoectl-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.settimeout(2)
    try:
        notifier = sdnotify.Notifier.from_environment({"NOTIFY_SOCKET": "@" + name})
        assert notifier.watchdog()
        assert sock.recv(100) == b"WATCHDOG=1"
        notifier.close()
    finally:
        sock.close()


def test_without_notify_socket_every_call_is_a_no_op() -> None:
    notifier = sdnotify.Notifier.from_environment({})
    assert not notifier.enabled
    assert not notifier.ready()
    assert not notifier.watchdog()


def test_unset_removes_notify_socket_for_children(monkeypatch, listener) -> None:
    address, _ = listener
    monkeypatch.setenv("NOTIFY_SOCKET", address)
    notifier = sdnotify.Notifier.from_environment(unset=True)
    assert notifier.enabled
    assert "NOTIFY_SOCKET" not in os.environ


def test_unsupported_address_is_refused_by_name() -> None:
    with pytest.raises(sdnotify.NotifyError, match="vsock:2:99"):
        sdnotify.Notifier("vsock:2:99")


def test_send_to_a_vanished_socket_logs_and_returns_false(tmp_path: Path, caplog) -> None:
    notifier = sdnotify.Notifier(str(tmp_path / "gone.sock"))
    assert not notifier.watchdog()
    notifier.close()
    assert f"sd_notify to {tmp_path / 'gone.sock'} failed" in caplog.text


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, None),
        ({"WATCHDOG_USEC": "10000000"}, 10.0),
        ({"WATCHDOG_USEC": "2500000", "WATCHDOG_PID": str(os.getpid())}, 2.5),
        ({"WATCHDOG_USEC": "2500000", "WATCHDOG_PID": "1"}, None),
    ],
)
def test_watchdog_interval(env, expected) -> None:
    assert sdnotify.watchdog_interval(env) == expected


@pytest.mark.parametrize(
    "env",
    [{"WATCHDOG_USEC": "0"}, {"WATCHDOG_USEC": "ten"}, {"WATCHDOG_USEC": "1", "WATCHDOG_PID": "x"}],
)
def test_malformed_watchdog_variables_are_refused(env) -> None:
    with pytest.raises(sdnotify.NotifyError, match="WATCHDOG_"):
        sdnotify.watchdog_interval(env)


def test_loop_watchdog_pings_at_half_the_timeout_and_only_when_healthy(listener) -> None:
    address, sock = listener
    now = [100.0]
    notifier = sdnotify.Notifier(address)
    dog = sdnotify.LoopWatchdog(notifier, 4.0, clock=lambda: now[0])
    assert dog.period_s == 2.0
    assert dog.tick(healthy=True)
    assert sock.recv(100) == b"WATCHDOG=1"
    now[0] += 1.9
    assert not dog.tick(healthy=True)
    now[0] += 0.2
    assert not dog.tick(healthy=False)
    assert dog.tick(healthy=True)
    assert sock.recv(100) == b"WATCHDOG=1"
    notifier.close()


def test_loop_watchdog_without_timeout_never_pings(listener) -> None:
    address, _ = listener
    assert not sdnotify.LoopWatchdog(sdnotify.Notifier(address), None).tick(healthy=True)
