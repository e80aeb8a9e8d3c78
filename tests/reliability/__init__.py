"""Reliability and security proof (RELIABILITY.md): fast suites run by `make test`; the long ones live in soak/."""
