"""Files of runs and tables, written so that a reader never sees a half-written one."""

from __future__ import annotations

import errno
import io
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..transport.trace import Trace


def write_atomic(path: str | os.PathLike, write: Callable[[Any], None], mode: str = "w") -> None:
    """Create `path` via a temporary file in the same directory, renamed into place.

    `write` receives the open temporary file. On any error the temporary file is removed
    and `path` is left as it was.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.chmod(tmp, 0o666 & ~_umask())  # as open() would create it, not mkstemp's 0600
    try:
        with os.fdopen(fd, mode) as handle:
            write(handle)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_writable(path: str | os.PathLike) -> None:
    """OSError now, before a run, if write_atomic could not create `path`: it is a directory,
    or its directory (the nearest that exists, under which it would be made) takes no new
    file; the error's filename is that directory. A probe file is created there and removed:
    nothing stays."""
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(target))
    directory = target.absolute().parent
    while not directory.exists():
        directory = directory.parent
    if not directory.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(directory))
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:  # named by the probe's name: name the directory instead
        raise OSError(exc.errno, exc.strerror, str(directory)) from None
    os.close(fd)
    os.unlink(probe)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Atomically write `obj` as indented JSON."""
    write_atomic(path, lambda handle: handle.write(json.dumps(obj, indent=2) + "\n"))


def write_text(path: str | os.PathLike, text: str) -> None:
    """Atomically write a text file."""
    write_atomic(path, lambda handle: handle.write(text))


def write_csv(path: str | os.PathLike, table: Any) -> None:
    """Atomically write a pandas DataFrame as CSV (no index)."""
    write_atomic(path, lambda handle: table.to_csv(handle, index=False))


def trace_path_for(record: str | os.PathLike) -> str:
    """Where a record's trace sits: results/x/N8_M1024.json -> results/x/N8_M1024.trace.npz."""
    return str(Path(record).with_suffix("")) + ".trace.npz"


def save_trace(path: str | os.PathLike, trace: Trace) -> None:
    """Write a trace as a compressed .npz, atomically."""
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer, offsets=trace.offsets, kind=trace.kind, peer=trace.peer, amount=trace.amount
    )
    write_atomic(path, lambda handle: handle.write(buffer.getvalue()), "wb")


def load_trace(path: str | os.PathLike) -> Trace:
    """Read a trace written by save_trace."""
    with np.load(path) as data:
        return Trace(data["offsets"], data["kind"], data["peer"], data["amount"])
