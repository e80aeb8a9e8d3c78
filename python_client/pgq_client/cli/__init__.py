"""The ``pgq`` command (typer + rich): migrate, run workers, enqueue, and look after queues and jobs.

``python -m pgq_client`` runs it too. The worker's options are generated from
:class:`pgq_client.worker.WorkerOptions` (``_worker_command.py``), so the
command, the Python API and the README table say the same thing.
"""

from __future__ import annotations

from ._commands import app, main

__all__ = ["app", "main"]
