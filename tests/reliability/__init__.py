"""Reliability and security proof (issue 5): fast suites run by `make test`; the long ones live in soak/."""
