"""The `collectives` command (also `python -m collectives`)."""

import os

# The command never calls BLAS: one BLAS thread per process, set before numpy is first
# imported, spares every process (ranks included) a pool of idle threads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .run.cli import main


def run() -> int:
    """Console-script entry point."""
    return main()


if __name__ == "__main__":
    raise SystemExit(main())
