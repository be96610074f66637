"""Software self-authentication (R16): a SHA-256 manifest of the installed files.

`shoectl install` writes the manifest after it has installed (and byte-compiled) the
software: one `sha256sum`-compatible line per file (`<hex digest>  <absolute path>`) plus
`# tree <dir>` lines naming the directories it covers completely. At every start the
controller recomputes every digest and refuses to run when a file changed, went missing,
or appeared in a covered directory (an injected module is as bad as a changed one). A lab
tester can check the same file with `sha256sum -c --strict manifest.sha256`, and the
manifest's own SHA-256 is the software signature recorded in the journal on every start.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from controller.service.hosting import KIND_MISMATCH, KIND_UNVERIFIED, KIND_VERIFIED, Recorder

_log = logging.getLogger(__name__)

MANIFEST_ENV: Final = "SHOECTL_MANIFEST"
HEADER: Final = "# shoectl software manifest v1"
_TREE: Final = "# tree "
_LINK: Final = "# link "
_CHUNK: Final = 1 << 20
_MAX_REPORTED: Final = 20


class IntegrityError(RuntimeError):
    """The installed software does not match its manifest (or has none where one is needed)."""


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes, as lowercase hex."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _under(root: Path, absolute: str) -> Path:
    """Map an absolute target path into `root` (the system root, or a staging root)."""
    return root / absolute.lstrip("/")


def _walk(directory: Path) -> Iterator[Path]:
    """Every file and every symbolic link under `directory` (links are not followed)."""
    for top, dirs, names in os.walk(directory):
        dirs.sort()
        linked_dirs = [name for name in dirs if Path(top, name).is_symlink()]
        for name in sorted(names + linked_dirs):
            yield Path(top, name)


def _entry(root: Path, target: str) -> str:
    """The manifest line of one target path: a digest, or the link's own target."""
    path = _under(root, target)
    if path.is_symlink():
        # A link is recorded by where it points (a venv's python -> /usr/bin/python3).
        return f"{_LINK}{target} -> {os.readlink(path)}"
    return f"{file_digest(path)}  {target}"


def build_manifest(trees: Sequence[str], files: Sequence[str] = (), root: Path = Path("/")) -> str:
    """Return the manifest text for whole directory trees plus single files.

    Args:
        trees: Absolute target paths of directories covered completely.
        files: Absolute target paths of single files (the unit, the udev rules...).
        root: Where the target file system is (a staging root during `install --root`).

    Raises:
        IntegrityError: A named tree or file does not exist.
    """
    lines = [HEADER] + [_TREE + tree for tree in trees]
    targets: list[str] = []
    for tree in trees:
        base = _under(root, tree)
        if not base.is_dir():
            raise IntegrityError(f"manifest: directory {tree} does not exist under {root}")
        targets += ["/" + str(path.relative_to(root)) for path in _walk(base)]
    for single in files:
        if not _under(root, single).is_file() and not _under(root, single).is_symlink():
            raise IntegrityError(f"manifest: file {single} does not exist under {root}")
        targets.append(single)
    lines += [_entry(root, target) for target in sorted(set(targets))]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class IntegrityReport:
    """The outcome of checking the installed software against its manifest.

    Attributes:
        manifest: Path of the manifest checked.
        signature: SHA-256 of the manifest itself (the software signature), or "".
        files: Number of files the manifest lists.
        problems: One line per changed, missing or unexpected file (empty when intact).
    """

    manifest: str
    signature: str
    files: int
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when every file matched and nothing was added."""
        return not self.problems

    def journal_data(self) -> dict[str, Any]:
        """The journal record's data: signature, counts and the first problems."""
        return {
            "manifest": self.manifest, "signature": self.signature, "files": self.files,
            "problems": list(self.problems[:_MAX_REPORTED]), "problem_count": len(self.problems),
            "severity": "info" if self.ok else "critical",
        }


def _parse(text: str, manifest: Path) -> tuple[list[str], dict[str, str]]:
    lines = text.splitlines()
    if not lines or lines[0] != HEADER:
        raise IntegrityError(f"{manifest}: not a shoectl manifest (first line must be {HEADER!r})")
    trees: list[str] = []
    digests: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        if line.startswith(_TREE):
            trees.append(line[len(_TREE):])
            continue
        if line.startswith(_LINK):
            path, arrow, pointee = line[len(_LINK):].partition(" -> ")
            if not arrow or not path.startswith("/"):
                raise IntegrityError(f"{manifest} line {number}: malformed link {line[:80]!r}")
            digests[path] = _LINK + pointee
            continue
        digest, sep, path = line.partition("  ")
        if not sep or len(digest) != 64 or not path.startswith("/"):
            raise IntegrityError(f"{manifest} line {number}: malformed entry {line[:80]!r}")
        digests[path] = digest
    return trees, digests


def _actual(path: Path, expected: str) -> str:
    """What the file is now, in the form the manifest recorded it."""
    if expected.startswith(_LINK):
        return _LINK + os.readlink(path) if path.is_symlink() else "not a link"
    if path.is_symlink():
        return "a link"
    return file_digest(path)


def _check_listed(digests: Mapping[str, str], root: Path) -> Iterator[str]:
    for path, expected in digests.items():
        try:
            actual = _actual(_under(root, path), expected)
        except FileNotFoundError:
            yield f"missing: {path}"
            continue
        except OSError as exc:
            yield f"unreadable: {path} ({exc.strerror})"
            continue
        if actual != expected:
            yield f"changed: {path}"


def _check_unlisted(trees: Iterable[str], digests: Mapping[str, str], root: Path) -> Iterator[str]:
    for tree in trees:
        for path in _walk(_under(root, tree)):
            target = "/" + str(path.relative_to(root))
            if target not in digests:
                yield f"unexpected: {target}"


def verify_manifest(manifest: Path, root: Path = Path("/")) -> IntegrityReport:
    """Check every file the manifest lists, and every covered tree for extra files.

    Args:
        manifest: The manifest file (a path on this system, not under `root`).
        root: Where the listed absolute paths live (a staging root in tests).

    Returns:
        The report; a missing or malformed manifest is reported as a problem, not raised.
    """
    try:
        raw = manifest.read_bytes()
        trees, digests = _parse(raw.decode("utf-8"), manifest)
    except (OSError, UnicodeDecodeError, IntegrityError) as exc:
        return IntegrityReport(str(manifest), "", 0, (f"manifest unusable: {exc}",))
    problems = [*_check_listed(digests, root), *_check_unlisted(trees, digests, root)]
    signature = hashlib.sha256(raw).hexdigest()
    return IntegrityReport(str(manifest), signature, len(digests), tuple(problems))


def default_manifest(environ: Mapping[str, str] | None = None) -> Path | None:
    """The manifest of this installation: SHOECTL_MANIFEST, else the one beside the venv.

    `shoectl install` puts the venv at PREFIX/venv and the manifest at PREFIX/manifest.sha256;
    a development checkout has neither, and this returns None.
    """
    env = os.environ if environ is None else environ
    configured = env.get(MANIFEST_ENV)
    if configured:
        return Path(configured)
    beside = Path(sys.prefix).parent / "manifest.sha256"
    return beside if beside.is_file() else None


def authenticate_at_start(
    record: Recorder, *, required: bool, environ: Mapping[str, str] | None = None
) -> IntegrityReport | None:
    """The start-of-service software check (R16); records the outcome in the journal.

    Reads the manifest path from SHOECTL_MANIFEST (the systemd unit sets it), else takes the
    one beside the running venv (`default_manifest`). The outcome
    is recorded through `record`: `system:software-verified` with the signature, or
    `system:software-mismatch` with severity critical and the files that differ.

    Args:
        record: Appends one journal record `(kind, data)`; called exactly once.
        required: True on a real table: no manifest configured is then a mismatch. False
            on emulated rigs run from a development tree, where it is recorded as
            `system:software-unverified` and the start goes on.
        environ: Environment to read (default os.environ).

    Returns:
        The report, or None when no manifest is configured and none is required.

    Raises:
        IntegrityError: The software does not match its manifest: refuse to start.
    """
    configured = default_manifest(environ)
    if configured is None:
        if required:
            problem = (f"{MANIFEST_ENV} is not set: this installation cannot be authenticated "
                       "(a development tree runs with --unverified-software)")
            record(KIND_MISMATCH, IntegrityReport("", "", 0, (problem,)).journal_data())
            raise IntegrityError(problem)
        _log.warning("software not authenticated: %s is not set (development tree)", MANIFEST_ENV)
        record(KIND_UNVERIFIED, {"severity": "warning", "reason": f"{MANIFEST_ENV} not set"})
        return None
    report = verify_manifest(configured)
    if report.ok:
        _log.info("software verified: %d files, signature %s", report.files, report.signature)
        record(KIND_VERIFIED, report.journal_data())
        return report
    for problem in report.problems[:_MAX_REPORTED]:
        _log.critical("software mismatch: %s", problem)
    record(KIND_MISMATCH, report.journal_data())
    raise IntegrityError(
        f"software does not match {report.manifest}: {len(report.problems)} problem(s), "
        f"first: {report.problems[0]}"
    )
