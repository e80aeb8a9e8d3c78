"""`python -m pgq_client ...` is the `pgq` command, for environments where
another package's console script is also called `pgq` (pgqueuer's is)."""

from .cli import main

main()
