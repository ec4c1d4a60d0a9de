"""Generations of a derived directory: write a whole new one beside the live one, then switch.

The lexical index (`paperfind.index.manager`) and the document vectors
(`paperfind.index.vectors`) are rebuilt, never edited in place, while other processes read them.
Layout: `root/<prefix>N/` directories and `root/CURRENT` naming the live one. A writer holds
`root/.build.lock` (one writer at a time; readers never wait), fills a new directory, fsyncs it,
then replaces CURRENT with `os.replace` and fsyncs `root`: a reader, or a restart after a crash
or a power cut, finds the old generation or the new one, never half of one. A write that raises
leaves CURRENT as it was and its directory is removed; one killed outright leaves a directory
the next write removes. The generation CURRENT named before a switch is kept for a reader that
read CURRENT just before it; older ones are removed (a process still mapping their files keeps
them: POSIX keeps unlinked inodes alive).
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

CURRENT_FILE = "CURRENT"
LOCK_FILE = ".build.lock"


@dataclass(frozen=True)
class Generations:
    """The generations under `root`, named `prefix` + number (zero-padded to `width` digits)."""

    root: Path
    prefix: str
    width: int = 0

    def name_of(self, number: int) -> str:
        return f"{self.prefix}{number:0{self.width}d}"

    def number_of(self, name: str) -> int | None:
        """The number in a generation's directory name; None for any other name."""
        match = re.fullmatch(re.escape(self.prefix) + r"([0-9]+)", name)
        return int(match.group(1)) if match else None

    def numbers(self) -> list[int]:
        """The generation directories present (finished or not), ascending."""
        if not self.root.is_dir():
            return []
        found = (self.number_of(p.name) for p in self.root.iterdir() if p.is_dir())
        return sorted(n for n in found if n is not None)

    def pointer(self) -> str | None:
        """What CURRENT says, or None when no generation was ever switched to."""
        try:
            return (self.root / CURRENT_FILE).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None

    def current(self) -> Path | None:
        """The live generation's directory; None when there is none, or CURRENT names something
        that is not one of our generation directories."""
        name = self.pointer()
        if name is None or self.number_of(name) is None or not (self.root / name).is_dir():
            return None
        return self.root / name

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the writers' lock: no generation is made current or removed meanwhile. For files
        added to an existing generation (its ANN graph), which must not land in a removed one."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / LOCK_FILE, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    @contextmanager
    def write(self) -> Iterator[Path]:
        """A new, empty generation directory to fill in the `with` block. When the block ends, the
        directory is fsynced and made current; when it raises, the directory is removed and
        CURRENT stays as it was."""
        with self.locked():
            previous = self.current()
            target = self.root / self.name_of(max(self.numbers(), default=0) + 1)
            target.mkdir()
            try:
                yield target
                _fsync_tree(target)
            except BaseException:
                shutil.rmtree(target, ignore_errors=True)
                raise
            self._switch_to(target)
            for number in self.numbers():  # killed writes too: the lock says none is running
                old = self.root / self.name_of(number)
                if old not in (target, previous):
                    shutil.rmtree(old, ignore_errors=True)

    def _switch_to(self, target: Path) -> None:
        tmp = self.root / f".{CURRENT_FILE}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(target.name + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.root / CURRENT_FILE)
        _fsync_dir(self.root)


def _fsync_tree(path: Path) -> None:
    """Every file under `path` and every directory entry on disk, so CURRENT never names
    files a power cut could still take back."""
    for folder, _, files in os.walk(path, topdown=False):
        for name in files:
            with open(os.path.join(folder, name), "rb") as f:
                os.fsync(f.fileno())
        _fsync_dir(Path(folder))


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
