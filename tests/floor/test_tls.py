"""TLS with a client certificate per table (`shoectl floor certs`), on a real Mosquitto.

The broker requires a certificate of the floor's CA and takes its common name as the user:
a client without one is refused, and a table cannot publish on another table's topic.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.floor.link import TlsFiles
from tests.support.floor_rig import GROUP, Controller, Table, online, settle, wait_for
from tests.support.mosquitto import CEILING_S, Mosquitto, free_port


@pytest.fixture
def tls_floor(tmp_path: Path) -> Iterator[tuple[Path, Mosquitto, Controller]]:
    certs, port = tmp_path / "certs", free_port()
    made = subprocess.run([sys.executable, "-m", "controller", "floor", "certs", str(certs),
                           "--tables", "2", "--port", str(port)],
                          capture_output=True, text=True, check=False, timeout=CEILING_S)
    assert made.returncode == 0, made.stderr
    assert (certs / "T2.pem").exists()
    broker = Mosquitto(tmp_path / "broker", (certs / "mosquitto.conf").read_text(), port)
    broker.start()
    controller = Controller(tmp_path, f"mqtts://127.0.0.1:{port}", certs)
    controller.start()
    yield certs, broker, controller
    controller.stop()
    broker.stop()


def _files(certs: Path, table: str) -> TlsFiles:
    return TlsFiles(certs / "ca.pem", certs / f"{table}.pem", certs / f"{table}.key")


def _pub(broker: Mosquitto, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-q",
                           "1", "-V", "mqttv5", *args],
                          capture_output=True, text=True, check=False, timeout=CEILING_S)


def test_tables_with_certificates_are_linked(
        tmp_path: Path, tls_floor: tuple[Path, Mosquitto, Controller]) -> None:
    certs, broker, controller = tls_floor
    tables = [Table(tmp_path, name, f"mqtts://127.0.0.1:{broker.port}", _files(certs, name))
              for name in ("T1", "T2")]
    for table in tables:
        wait_for(lambda t=table: online(t), f"{table.name} online over TLS")
        table.link.contribute(1, 1)
    settle(tables, controller)
    assert controller.show()["progressive_in"] == 2
    for table in tables:
        table.close()


def test_a_client_without_a_certificate_is_refused(
        tls_floor: tuple[Path, Mosquitto, Controller]) -> None:
    certs, broker, _ = tls_floor
    done = _pub(broker, "--cafile", str(certs / "ca.pem"), "-t", "x", "-m", "{}")
    assert done.returncode != 0


def test_a_table_cannot_speak_for_another(
        tmp_path: Path, tls_floor: tuple[Path, Mosquitto, Controller]) -> None:
    certs, broker, controller = tls_floor
    honest = Table(tmp_path, "T2", f"mqtts://127.0.0.1:{broker.port}", _files(certs, "T2"))
    wait_for(lambda: online(honest), "T2 online (so the controller listens)")
    forged = ('{"type": "contribution", "table": "T2", "boot": "forged", "seq": 1, '
              '"round": 1, "seat": 1}')
    done = _pub(broker, "--cafile", str(certs / "ca.pem"), "--cert", str(certs / "T1.pem"),
                "--key", str(certs / "T1.key"), "-t", f"shoectl/floor/{GROUP}/table/T2/up",
                "-m", forged)
    assert done.returncode == 0, done.stderr  # the broker takes it and drops it (its ACL)
    honest.link.contribute(1, 1)
    settle([honest], controller)
    assert controller.show()["progressive_in"] == 1
    honest.close()


def test_the_acl_names_each_tables_own_topics_and_no_group_wildcard(tmp_path: Path) -> None:
    from controller.floor.certs import acl_text

    acl = acl_text({"bank-a": ["T1", "T2"], "bank-b": ["T3"]})
    blocks = {block.splitlines()[0]: block.splitlines()[1:] for block in acl.split("\n\n")}
    for table, group in (("T1", "bank-a"), ("T2", "bank-a"), ("T3", "bank-b")):
        lines = blocks[f"user {table}"]
        assert all("+" not in line and "#" not in line for line in lines), lines
        assert f"topic write shoectl/floor/{group}/table/{table}/up" in lines
        assert not any(line.startswith("topic write") and "/down" in line for line in lines)
    assert "topic write shoectl/floor/bank-a/table/T1/down" in blocks["user progressive-bank-a"]
    assert not any("bank-b" in line for line in blocks["user progressive-bank-a"])
    assert not any(line.startswith("pattern") for line in acl.splitlines())
