"""Which queues a worker serves in which database (worker/_databases.py): the rules, without a database."""

from __future__ import annotations

import pgq_client
import pytest
from pgq_client.worker._databases import Database, labels, plan


def test_a_list_of_urls_serves_every_queue_in_every_database() -> None:
    assert plan(["dbname=eu", "dbname=us"], ["emails", "orders"]) == [
        Database("eu", "dbname=eu"), Database("us", "dbname=us")]


def test_a_queue_map_serves_each_queue_in_its_own_database_only() -> None:
    mapped = {"orders": "dbname=shop", "emails": "dbname=shop", "invoices": "dbname=billing"}
    assert plan(mapped, ["orders", "invoices", "emails"]) == [
        Database("shop", "dbname=shop", ("orders", "emails")), Database("billing", "dbname=billing", ("invoices",))]
    # a worker for some of the queues connects only where they are
    assert plan(mapped, ["invoices"]) == [Database("billing", "dbname=billing", ("invoices",))]


def test_a_queue_the_map_does_not_place_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no database for queue.*emails"):
        plan({"orders": "dbname=shop"}, ["orders", "emails"])


@pytest.mark.parametrize("bad", [[], ["dbname=a", "dbname=a"], ["dbname=a", ""], {"orders": ""}, {"bad name": "x"}])
def test_bad_settings_fail_before_anything_connects(bad: object) -> None:
    with pytest.raises(ValueError):
        plan(bad, ["orders"])  # type: ignore[arg-type]


def test_labels_are_the_dbnames_unless_two_share_one() -> None:
    assert labels(["postgresql://h1/app", "postgresql://h2/billing"]) == ["app", "billing"]
    assert labels(["postgresql://h1:5432/app", "postgresql://h2:5433/app"]) == ["h1:5432/app", "h2:5433/app"]
    assert labels(["host=/run/a port=1 dbname=app", "host=/run/b port=1 dbname=app"]) == [
        "socket:1/app#1", "socket:1/app#2"]


def test_an_app_refuses_database_url_and_databases_together_and_a_bad_map_at_once() -> None:
    with pytest.raises(ValueError, match="not both"):
        pgq_client.App(database_url="dbname=a", databases=["dbname=b"])
    with pytest.raises(ValueError, match="database URL"):
        pgq_client.App(databases={"orders": ""})


def test_an_apps_worker_for_several_databases_is_a_group_of_one_worker_per_database() -> None:
    app = pgq_client.App(databases={"orders": "dbname=shop", "invoices": "dbname=billing"}, name="w1")

    @app.task(queue="orders")
    def orders(payload: dict[str, object]) -> None: ...

    @app.task(queue="invoices")
    def invoices(payload: dict[str, object]) -> None: ...

    group = app.worker()
    assert isinstance(group, pgq_client.worker.WorkerGroup)
    assert {name: (w.options.database_url, w.queues, w.options.name) for name, w in group.workers.items()} == {
        "shop": ("dbname=shop", ("orders",), "w1/shop"), "billing": ("dbname=billing", ("invoices",), "w1/billing")}
    # the worker's own database_url wins over the App's databases: one plain worker
    single = app.worker(database_url="dbname=other")
    assert isinstance(single, pgq_client.Worker) and single.queues == ("orders", "invoices")
    with pytest.raises(ValueError, match="metrics_port"):
        app.worker(metrics_port=0)
