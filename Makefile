# pgq — a job queue inside PostgreSQL.
#
# With no DATABASE_URL, every target uses the embedded default: a throwaway
# PostgreSQL cluster in .pg/ (Unix socket only, so it clashes with nothing),
# started on demand. With DATABASE_URL set, that server is used instead.

.DEFAULT_GOAL := help
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

VENV := .venv
PY := $(VENV)/bin/python

ifeq ($(strip $(DATABASE_URL)),)
EMBEDDED := 1
export DATABASE_URL := $(shell scripts/embedded-pg url)
endif

.PHONY: help deps db stop migrate dist test pgtap pytest pytest-fast demo bench bench-quick bench-flow bench-scale bench-sustained bench-profile soak verify revision lint generate docs sql-reference clean

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_\/-]+:.*## / {printf "  \033[36m%-14s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

deps: ## Install what is missing: PostgreSQL, pgTAP, pg_prove, PgBouncer, the virtualenv
	@scripts/install-deps

db: deps ## Start the embedded PostgreSQL (skipped when DATABASE_URL is set)
ifdef EMBEDDED
	@scripts/embedded-pg start
endif

stop: ## Stop the embedded PostgreSQL
	@scripts/embedded-pg stop

migrate: db ## alembic upgrade head on DATABASE_URL
	$(VENV)/bin/alembic upgrade head

dist: deps ## Build the sdist and the wheel (with pgq's migrations inside) into dist/
	$(PY) -m build --outdir dist python_client

# pytest runs in two passes: the tests not marked serial on PYTEST_WORKERS processes at once (pytest-xdist;
# an xdist_group's tests share one process), then those marked serial, alone. Both passes run even when the
# first fails; a pass that selects nothing (exit 5, e.g. ARGS="-k" matching only one kind) is not a failure.
PYTEST_WORKERS ?= 3
define pytest_two_passes
status=0; \
$(PY) -m pytest -q $(1) -n $(PYTEST_WORKERS) --dist loadgroup -m "not soak and not serial" tests $(ARGS) \
  || [ $$? = 5 ] || status=1; \
$(PY) -m pytest -q $(1) -m "serial and not soak" tests $(ARGS) || [ $$? = 5 ] || status=1; \
exit $$status
endef

test: db verify lint docs ## Run every fast suite: pgTAP (install.sql and alembic head) and pytest; build the docs
	scripts/run-pgtap
	$(call pytest_two_passes,--durations=25)

pgtap: db ## Only the pgTAP suite
	scripts/run-pgtap

pytest: db ## Only pytest, as make test runs it: in parallel, then the serial tests (pass ARGS="-k name" to select)
	$(call pytest_two_passes,)

pytest-fast: db ## pytest without the slow and soak-like tests: the quick loop (pass ARGS="-x")
	$(PY) -m pytest -q -m "not slow and not soak" tests $(ARGS)

demo: db migrate ## Enqueue a few thousand jobs and drain them with several workers
	$(PY) scripts/demo.py
ifdef EMBEDDED
	@echo "The embedded PostgreSQL (.pg/, $$DATABASE_URL) is still running: 'make stop' stops it, 'make clean' deletes it."
endif

# PGQ_REVISIONS="0002" also measures pgq migrated to those Alembic revisions beside head
# (claim sweep, enqueue), e.g. `make bench PGQ_REVISIONS=0002`.
BENCH := .venv-bench/bin/python -m bench $(if $(EMBEDDED),,--database-url "$(DATABASE_URL)") \
	$(foreach r,$(PGQ_REVISIONS),--pgq-revision $(r))

bench: db ## Benchmarks (about 43 minutes: 27 + flow control's 16); writes BENCHMARKS.md and bench/charts/
	@bench/install-deps
	$(BENCH)
	$(BENCH) --only flow

bench-flow: db ## Flow control: limited vs unlimited claims, a rate held 60 s, a per-key rate 30 s (about 16 minutes); its block of BENCHMARKS.md
	@bench/install-deps
	$(BENCH) --only flow

bench-quick: db ## Benchmarks, short version (about 2 minutes); writes bench/results/quick/
	@bench/install-deps
	$(BENCH) --quick

bench-scale: db ## Scale curve, 10k to 10M jobs, 10,000 queues (about 15 minutes; ~6 GB of disk)
	@bench/install-deps
	$(BENCH) --only scale

bench-sustained: db ## Sustained run at 70% of capacity, stock vs recommended autovacuum (MINUTES=30 each)
	@bench/install-deps
	$(BENCH) --only sustained_long --minutes $(or $(MINUTES),30)

bench-profile: db ## Where q.claim's time goes: pg_stat_statements, auto_explain, perf (a few minutes)
	@bench/install-deps
	$(BENCH) --only claim_profile

soak: db ## Long reliability suites (bounded, self-stopping); updates RELIABILITY.md
	cd tests && ../$(PY) -m reliability.soak.run $(ARGS)

verify: deps ## Check generated artifacts: frozen SQL snapshots unchanged, one Alembic head, sync code from async
	$(PY) scripts/verify_frozen.py
	$(PY) tools/async_to_sync.py --check

revision: deps ## Start an Alembic revision: make revision NAME="what changes"
	$(PY) scripts/new_revision.py "$(NAME)"
	$(PY) scripts/verify_frozen.py --update

docs: deps ## Build the documentation site into .docs-build/site (warnings are errors)
	$(PY) scripts/build_docs.py

sql-reference: db ## Regenerate docs/reference/sql.md from the catalog of a scratch database migrated to head
	$(PY) scripts/gen_sql_reference.py docs/reference/sql.md

lint: deps ## ruff, mypy --strict on pgq_client, and the generated sync code is current
	$(VENV)/bin/ruff check --quiet .
	cd python_client && ../$(VENV)/bin/mypy --strict pgq_client
	$(PY) tools/async_to_sync.py --check

generate: deps ## Regenerate the sync code from its async source (tools/async_to_sync.py)
	$(PY) tools/async_to_sync.py

clean: stop ## Stop and delete the embedded cluster
	rm -rf .pg
