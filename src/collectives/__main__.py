"""`python -m collectives ...` is the `collectives` command."""

from .cli import main

raise SystemExit(main())
