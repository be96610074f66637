"""A FUSE file system that loses, at a power cut, every write not yet flushed to storage.

`python -m tests.support.powercut_fs DISK MOUNTPOINT --cut-after N [--done FILE]` mounts, at
MOUNTPOINT, the files of the directory DISK (the storage as it was when power came back).
It keeps two states of everything: what the programs see, and what is on storage. A file's
data reaches storage only when it is fsynced (fsync or fdatasync); a name created, removed
or renamed in a directory only when that directory is fsynced. At the N-th operation that
changes anything (write, truncate, fsync, create, mkdir, unlink, rename, fsyncdir, chmod),
the power is cut: that operation and every later one fail with EIO, DISK is replaced by
exactly what was on storage, and FILE (when given) is created to say so. The mount stays
until `fusermount3 -u`.

This is the test rig for power cuts (`hil_tests/test_controller_power_loss.py`): unlike a
killed process, whose writes survive in the page cache, a cut here loses them, so a journal
that returns from a commit before the commit is on storage loses records.
"""

from __future__ import annotations

import argparse
import errno
import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mfusepy as fuse


@dataclass
class Node:
    """A file or directory: what programs see (`data`) and what is on storage (`stored`)."""

    mode: int
    data: bytearray = field(default_factory=bytearray)
    stored: bytes = b""
    mtime_ns: int = field(default_factory=time.time_ns)

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)


class PowerCutFS(fuse.Operations):
    """The file system; paths are absolute inside the mount ("/", "/state/journal.sqlite3")."""

    use_ns = True

    def __init__(self, disk: Path, cut_after: int, done: Path | None) -> None:
        self.disk = disk
        self.cut_after = cut_after
        self.done = done
        self.changes = 0
        self.dead = False
        self.live: dict[str, Node] = {"/": Node(stat.S_IFDIR | 0o755)}
        self._load()
        self.named: dict[str, Node] = dict(self.live)  # the names on storage

    # ------------------------------------------------------------------ storage image
    def _load(self) -> None:
        for path in sorted(self.disk.rglob("*")):
            inside = "/" + str(path.relative_to(self.disk))
            mode = path.lstat().st_mode
            node = Node(mode)
            if not node.is_dir:
                node.data = bytearray(path.read_bytes())
                node.stored = bytes(node.data)
            self.live[inside] = node

    def _cut(self) -> None:
        """The power goes: storage is what the fsyncs put there, nothing else."""
        self.dead = True
        shutil.rmtree(self.disk)
        self.disk.mkdir()
        for inside in sorted(self.named):
            if inside == "/" or not self._stored_parents(inside):
                continue
            node, target = self.named[inside], self.disk / inside.lstrip("/")
            if node.is_dir:
                target.mkdir()
            else:
                target.write_bytes(node.stored)
            target.chmod(stat.S_IMODE(node.mode))
        if self.done is not None:
            self.done.write_text(f"cut at change {self.changes}\n")

    def _stored_parents(self, inside: str) -> bool:
        parent = os.path.dirname(inside)
        while parent != "/":
            if parent not in self.named:
                return False
            parent = os.path.dirname(parent)
        return True

    def _change(self) -> None:
        if self.dead:
            raise fuse.FuseOSError(errno.EIO)
        self.changes += 1
        if self.changes >= self.cut_after:
            self._cut()
            raise fuse.FuseOSError(errno.EIO)

    def _node(self, path: str) -> Node:
        if self.dead:
            raise fuse.FuseOSError(errno.EIO)
        node = self.live.get(path)
        if node is None:
            raise fuse.FuseOSError(errno.ENOENT)
        return node

    # ------------------------------------------------------------------ reading
    def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
        node = self._node(path)
        return {"st_mode": node.mode, "st_nlink": 2 if node.is_dir else 1,
                "st_size": len(node.data), "st_uid": os.getuid(), "st_gid": os.getgid(),
                "st_mtime": node.mtime_ns, "st_atime": node.mtime_ns, "st_ctime": node.mtime_ns,
                "st_blocks": (len(node.data) + 511) // 512, "st_blksize": 4096}

    def readdir(self, path: str, fh: int) -> list[str]:
        self._node(path)
        prefix = path.rstrip("/") + "/"
        return [".", "..", *(p[len(prefix):] for p in self.live
                             if p.startswith(prefix) and "/" not in p[len(prefix):] and p != "/")]

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        return bytes(self._node(path).data[offset:offset + size])

    def open(self, path: str, flags: int) -> int:
        self._node(path)
        return 0

    def opendir(self, path: str) -> int:
        self._node(path)
        return 0

    def access(self, path: str, amode: int) -> int:
        self._node(path)
        return 0

    def statfs(self, path: str) -> dict[str, int]:
        return {"f_bsize": 4096, "f_frsize": 4096, "f_blocks": 1 << 20, "f_bfree": 1 << 19,
                "f_bavail": 1 << 19, "f_files": 1 << 16, "f_ffree": 1 << 15, "f_namemax": 255}

    # ------------------------------------------------------------------ changing
    def create(self, path: str, mode: int, fi: Any = None) -> int:
        self._change()
        self.live[path] = Node(stat.S_IFREG | (mode & 0o7777))
        return 0

    def mkdir(self, path: str, mode: int) -> int:
        self._change()
        self.live[path] = Node(stat.S_IFDIR | (mode & 0o7777))
        return 0

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        node = self._node(path)
        self._change()
        if offset > len(node.data):
            node.data.extend(b"\0" * (offset - len(node.data)))
        node.data[offset:offset + len(data)] = data
        node.mtime_ns = time.time_ns()
        return len(data)

    def truncate(self, path: str, length: int, fh: int | None = None) -> int:
        node = self._node(path)
        self._change()
        del node.data[length:]
        node.data.extend(b"\0" * (length - len(node.data)))
        return 0

    def fsync(self, path: str, datasync: int, fh: int) -> int:
        node = self._node(path)
        self._change()
        node.stored = bytes(node.data)
        return 0

    def fsyncdir(self, path: str, datasync: int, fh: int) -> int:
        self._node(path)
        self._change()
        prefix = path.rstrip("/") + "/"
        for name in [p for p in self.named if p.startswith(prefix) and "/" not in p[len(prefix):]]:
            del self.named[name]
        for name, node in self.live.items():
            if name.startswith(prefix) and name != "/" and "/" not in name[len(prefix):]:
                self.named[name] = node
        return 0

    def unlink(self, path: str) -> int:
        self._node(path)
        self._change()
        del self.live[path]
        return 0

    def rmdir(self, path: str) -> int:
        return self.unlink(path)

    def rename(self, old: str, new: str) -> int:
        node = self._node(old)
        self._change()
        self.live[new] = node
        del self.live[old]
        return 0

    def chmod(self, path: str, mode: int) -> int:
        node = self._node(path)
        self._change()
        node.mode = stat.S_IFMT(node.mode) | (mode & 0o7777)
        return 0

    def chown(self, path: str, uid: int, gid: int) -> int:
        self._node(path)
        return 0

    def utimens(self, path: str, times: tuple[int, int] | None = None) -> int:
        self._node(path).mtime_ns = times[1] if times else time.time_ns()
        return 0

    def flush(self, path: str, fh: int) -> int:
        return 0

    def release(self, path: str, fh: int) -> int:
        return 0

    def releasedir(self, path: str, fh: int) -> int:
        return 0


def main() -> None:
    parser = argparse.ArgumentParser(description="Mount DISK at MOUNTPOINT; cut the power at "
                                                 "the N-th change.")
    parser.add_argument("disk", type=Path)
    parser.add_argument("mountpoint", type=Path)
    parser.add_argument("--cut-after", type=int, required=True, metavar="N")
    parser.add_argument("--done", type=Path, default=None, metavar="FILE")
    args = parser.parse_args()
    fs = PowerCutFS(args.disk, args.cut_after, args.done)
    fuse.FUSE(fs, str(args.mountpoint), foreground=True, nothreads=True, fsname="powercut")


if __name__ == "__main__":
    main()
