"""Writing results so that a reader never sees a half-written file."""

from __future__ import annotations

import json
import os
import platform
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


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


def versions() -> dict[str, str]:
    """The software and machine a record came from."""
    import numpy

    from . import __version__

    return {
        "collectives": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "platform": platform.platform(),
        "cpus": str(os.cpu_count()),
    }
