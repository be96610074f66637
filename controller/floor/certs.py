"""A test CA and a certificate per table for the emulated rig (`shoectl floor certs`).

Made with `cryptography`: an ECDSA P-256 CA, the broker's certificate (for 127.0.0.1 and
localhost), one per link group's controller (`progressive-GROUP`), the floor process's
(`floor`) and one per table whose common name is the table's name. The broker takes a
certificate's common name as the client's user name (`use_identity_as_username`) and the
user name as its client id (`use_username_as_clientid`), so no certificate can take another's
client id; the ACL names every user and topic (no `+` for a group): a table writes only its
own topics of its own group, and only its group's controller writes its tables' answers.
Running it again on the same directory adds a group (or replaces one) under the same CA, and
writes the ACL for every group so far (`groups.json`). Keys are written mode 0600. Not for a
casino's production PKI: the CA key lies beside the certificates.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from controller.floor.protocol import FloorProtocolError, check_name
from controller.floor.surveillance import ALERTS_TOPIC, SURVEILLANCE_NAME

VALID_DAYS: Final = 365
CONTROLLER_PREFIX: Final = "progressive-"
"""A group's controller's certificate is `progressive-GROUP`."""
FLOOR_NAME: Final = "floor"
"""The floor process's certificate (`shoectl floor serve`: the journals and the pit view)."""
SURVEILLANCE_TOPICS: Final = ALERTS_TOPIC.rsplit("/", 1)[0] + "/#"
"""What the floor alone writes and `surveillance` alone reads."""


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


def controller_name(group: str) -> str:
    """The common name (user, client id) of a link group's controller."""
    return f"{CONTROLLER_PREFIX}{group}"


class FloorTestCA:
    """The CA, issuing leaf certificates into one directory (the one there, if any)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.name = _name("shoectl test floor CA")
        cert_path, key_path = directory / "ca.pem", directory / "ca.key"
        if cert_path.exists() and key_path.exists():
            key = serialization.load_pem_private_key(key_path.read_bytes(), None)
            if not isinstance(key, ec.EllipticCurvePrivateKey):
                raise FloorProtocolError(f"{key_path}: not this tool's CA key")
            self.key = key
            self.cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
            self.files = Issued(cert_path, key_path)
            return
        self.key = ec.generate_private_key(ec.SECP256R1())
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


def acl_text(groups: dict[str, list[str]]) -> str:
    """The broker's ACL for every group: each user's own topics, named one by one.

    A table (`user T1`) writes its own `up` and reads its own `down` of its own group, reads
    the group's `meter` and `controller/status`, and ships its own journal; the group's
    controller (`user progressive-GROUP`) reads its tables' `up` and alone writes their
    `down`, the `meter`, `alarms` and `controller/status`; the floor reads every group's
    public topics and the journals. A client named in no `user` block may do nothing.
    """
    journal = "shoectl/journal"
    out = [f"user {FLOOR_NAME}", f"topic readwrite {journal}/#",
           "topic readwrite shoectl/floor-store/status", "topic read shoectl/pit/#",
           f"topic write {SURVEILLANCE_TOPICS}"]
    for group in sorted(groups):
        base = f"shoectl/floor/{group}"
        out += [f"topic read {base}/{t}" for t in ("meter", "alarms", "controller/status")]
        out += [f"topic read {base}/table/{table}/status" for table in groups[group]]
    for group in sorted(groups):
        base = f"shoectl/floor/{group}"
        out += ["", f"user {controller_name(group)}",
                *(f"topic readwrite {base}/{t}" for t in ("meter", "alarms",
                                                           "controller/status"))]
        for table in groups[group]:
            out += [f"topic read {base}/table/{table}/up",
                    f"topic write {base}/table/{table}/down"]
        for table in groups[group]:
            out += ["", f"user {table}", f"topic write {base}/table/{table}/up",
                    f"topic read {base}/table/{table}/down",
                    f"topic readwrite {base}/table/{table}/status",
                    f"topic read {base}/meter", f"topic read {base}/controller/status",
                    f"topic write {journal}/{table}/records",
                    f"topic read {journal}/{table}/stored",
                    f"topic readwrite {journal}/{table}/status",
                    f"topic write shoectl/pit/{table}/state"]
    out += ["", f"user {SURVEILLANCE_NAME}", f"topic read {SURVEILLANCE_TOPICS}"]
    return "\n".join(out) + "\n"


def broker_config(directory: Path, port: int) -> str:
    """A Mosquitto listener that requires a client certificate signed by the test CA.

    The certificate's common name is the user, and the user is the client id.
    """
    return (f"listener {port} 127.0.0.1\ncafile {directory / 'ca.pem'}\n"
            f"certfile {directory / 'broker.pem'}\nkeyfile {directory / 'broker.key'}\n"
            "require_certificate true\nuse_identity_as_username true\n"
            "use_username_as_clientid true\n"
            f"acl_file {directory / 'acl'}\n")


def _groups(directory: Path) -> dict[str, list[str]]:
    path = directory / "groups.json"
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(g): [str(t) for t in tables] for g, tables in data.items()}
    except (ValueError, AttributeError, TypeError) as exc:
        raise FloorProtocolError(f"{path}: unreadable ({exc})") from None


def make_floor_certs(directory: Path, tables: list[str], group: str) -> list[Issued]:
    """Write the certificates and keys of a group, and the ACL of every group so far.

    The CA (unless there), the broker's, the group's controller's, the floor's, surveillance's
    and each table's.

    Returns:
        Every file pair written (CA first).
    """
    check_name("group", group)
    groups = _groups(directory)
    elsewhere = {t: g for g, names in groups.items() if g != group for t in names}
    for table in tables:
        check_name("table", table)
        if table in (FLOOR_NAME, SURVEILLANCE_NAME, "broker", "ca") or \
                table.startswith(CONTROLLER_PREFIX):
            raise FloorProtocolError(f"table {table!r}: the name of one of the floor's own "
                                     "certificates")
        if table in elsewhere:
            raise FloorProtocolError(f"table {table!r}: in group {elsewhere[table]} already")
    if len(set(tables)) != len(tables):
        raise FloorProtocolError(f"tables {','.join(tables)}: a name repeated")
    directory.mkdir(parents=True, exist_ok=True)
    authority = FloorTestCA(directory)
    issued = [authority.files, authority.issue("broker", server=True),
              authority.issue(controller_name(group)), authority.issue(FLOOR_NAME),
              authority.issue(SURVEILLANCE_NAME)]
    issued += [authority.issue(table) for table in tables]
    groups[group] = list(tables)
    (directory / "groups.json").write_text(json.dumps(groups, indent=1, sort_keys=True) + "\n",
                                           encoding="utf-8")
    (directory / "acl").write_text(acl_text(groups), encoding="utf-8")
    return issued
