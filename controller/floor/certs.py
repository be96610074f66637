"""A test CA and a certificate per table for the emulated rig (`shoectl floor certs`).

Made with `cryptography`: an ECDSA P-256 CA, the broker's certificate (for 127.0.0.1 and
localhost), the controller's (`progressive`) and one per table whose common name is the
table's name, which the broker takes as the client's user name (`use_identity_as_username`)
so its ACL confines each table to its own topics. Keys are written mode 0600. Not for a
casino's production PKI: the CA key lies beside the certificates.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from controller.floor.protocol import FloorProtocolError, check_name

VALID_DAYS: Final = 365
CONTROLLER_NAME: Final = "progressive"
FLOOR_NAME: Final = "floor"
"""The floor process's certificate (`shoectl floor serve`: the journals and the pit view)."""


@dataclass(frozen=True, slots=True)
class Issued:
    """One certificate and its key, as files."""

    cert: Path
    key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "shoectl test floor"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _write(directory: Path, stem: str, cert: x509.Certificate,
           key: ec.EllipticCurvePrivateKey) -> Issued:
    cert_path, key_path = directory / f"{stem}.pem", directory / f"{stem}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return Issued(cert_path, key_path)


def _builder(subject: x509.Name, issuer: x509.Name,
             key: ec.EllipticCurvePrivateKey) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=VALID_DAYS)))


class FloorTestCA:
    """The CA, issuing leaf certificates into one directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.name = _name("shoectl test floor CA")
        self.cert = (_builder(self.name, self.name, self.key)
                     .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                     .sign(self.key, hashes.SHA256()))
        self.files = _write(directory, "ca", self.cert, self.key)

    def issue(self, common: str, *, server: bool = False) -> Issued:
        """A leaf certificate for `common` (a server's names loopback)."""
        key = ec.generate_private_key(ec.SECP256R1())
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        builder = (_builder(_name(common), self.name, key)
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None),
                                  critical=True)
                   .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
        if server:
            builder = builder.add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
        return _write(self.directory, common, builder.sign(self.key, hashes.SHA256()), key)


def acl_text() -> str:
    """The broker's ACL: a table writes only its own `up` and `status`, reads its `down`.

    Its journal likewise: it writes only its own `records` and reads its own `stored`.
    """
    base = "shoectl/floor/+"
    # Mosquitto warns that the last two patterns name no client; they are meant for every one
    # (a `topic` line before any `user` would apply to anonymous clients only).
    journal = "shoectl/journal"
    return (f"user {CONTROLLER_NAME}\ntopic readwrite {base}/#\n\n"
            f"user {FLOOR_NAME}\ntopic readwrite {journal}/#\ntopic read {base}/#\n"
            "topic readwrite shoectl/floor-store/status\ntopic read shoectl/pit/#\n\n"
            f"pattern write {base}/table/%u/up\npattern readwrite {base}/table/%u/status\n"
            f"pattern read {base}/table/%u/down\npattern read {base}/meter\n"
            f"pattern read {base}/controller/status\n"
            f"pattern write {journal}/%u/records\npattern read {journal}/%u/stored\n"
            f"pattern readwrite {journal}/%u/status\npattern write shoectl/pit/%u/state\n")


def broker_config(directory: Path, port: int) -> str:
    """A Mosquitto listener that requires a client certificate signed by the test CA."""
    return (f"listener {port} 127.0.0.1\ncafile {directory / 'ca.pem'}\n"
            f"certfile {directory / 'broker.pem'}\nkeyfile {directory / 'broker.key'}\n"
            "require_certificate true\nuse_identity_as_username true\n"
            f"acl_file {directory / 'acl'}\n")


def make_floor_certs(directory: Path, tables: list[str]) -> list[Issued]:
    """Write the CA, the broker's, the controller's and each table's certificate and key.

    Returns:
        Every file pair written (CA first).
    """
    for table in tables:
        check_name("table", table)
        if table in (CONTROLLER_NAME, FLOOR_NAME, "broker", "ca"):
            raise FloorProtocolError(f"table {table!r}: the name of one of the floor's own "
                                     "certificates")
    directory.mkdir(parents=True, exist_ok=True)
    authority = FloorTestCA(directory)
    issued = [authority.files, authority.issue("broker", server=True),
              authority.issue(CONTROLLER_NAME), authority.issue(FLOOR_NAME)]
    issued += [authority.issue(table) for table in tables]
    (directory / "acl").write_text(acl_text(), encoding="utf-8")
    return issued
