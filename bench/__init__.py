"""pgq's benchmark harness: `make bench` / `make bench-quick` (see README, section Benchmarks)."""
