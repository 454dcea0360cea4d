"""fakekube.runtime.events: client-go's EventCorrelator (spec §1.12; ``tools/record/events_cache.go``).

Times are virtual and exact: the spam filter refills ``float32(1/300)`` tokens per second, so the
first token after a burst comes 299.999993 s later (not 300 s), and an aggregation group lasts
while similar events are at most 600 s apart.
"""

from __future__ import annotations

from typing import Any

from fakekube import NotFound, Reactor
from fakekube.cluster import FakeCluster
from fakekube.runtime.events import NORMAL, WARNING, EventRecorder

COMBINED = "(combined from similar events): "


def make(*, correlate: bool = True) -> tuple[FakeCluster, EventRecorder, dict[str, Any]]:
    cluster = FakeCluster(seed=0, simulate=False)
    config = cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}})
    return cluster, EventRecorder(cluster.runtime.shared_client("ctl"), "ctl", correlate=correlate), config


def stored(cluster: FakeCluster) -> list[tuple[str, str, int]]:
    return [(e["reason"], e["message"], e["count"]) for e in cluster.events()]


def test_an_identical_event_patches_count_last_timestamp_and_message() -> None:
    cluster, rec, config = make()
    rec.event(config, NORMAL, "Synced", "all good")
    cluster.advance(5)
    rec.event(config, NORMAL, "Synced", "all good")
    [event] = cluster.events()
    assert event["metadata"]["name"] == "cfg.1a46e83335d50000"  # <object>.<hex UnixNano of 2030-01-01>
    assert (event["count"], event["firstTimestamp"], event["lastTimestamp"]) == \
        (2, "2030-01-01T00:00:00Z", "2030-01-01T00:00:05Z")
    assert (event["source"], event["reportingComponent"], event["involvedObject"]["kind"]) == \
        ({"component": "ctl"}, "ctl", "ConfigMap")


def test_a_source_may_burst_25_events_about_an_object_then_one_every_299_999993_seconds() -> None:
    cluster, rec, config = make()
    for i in range(30):  # distinct reasons: no counting, no aggregation, only the spam filter
        rec.event(config, NORMAL, f"R{i}", "m")
    assert len(cluster.events()) == 25
    rec.event(config, WARNING, "Oops", "m")  # the bucket is per type (and source and object)
    assert len(cluster.events()) == 26
    cluster.advance(299.99999)  # float32(1/300) tokens/s: not quite one token yet
    rec.event(config, NORMAL, "Late", "m")
    assert len(cluster.events()) == 26
    cluster.advance(0.000003)  # 299.999993 s after the burst: one token
    rec.event(config, NORMAL, "OnTime", "m")
    rec.event(config, NORMAL, "TooSoon", "m")
    assert [e["reason"] for e in cluster.events()][26:] == ["OnTime"]
    cluster.advance(300 * 3)  # three tokens
    for i in range(5):
        rec.event(config, NORMAL, f"Later{i}", "m")
    assert [e["reason"] for e in cluster.events()][27:] == ["Later0", "Later1", "Later2"]


def test_dropped_repeats_still_count() -> None:
    cluster, rec, config = make()
    for _ in range(30):
        rec.event(config, NORMAL, "Synced", "all good")
    assert stored(cluster) == [("Synced", "all good", 25)]  # 1 create + 24 patches, then dropped
    cluster.advance(300)
    rec.event(config, NORMAL, "Synced", "all good")
    assert stored(cluster) == [("Synced", "all good", 31)]


def test_the_tenth_similar_event_starts_an_aggregate_which_later_ones_patch() -> None:
    cluster, rec, config = make()
    for i in range(1, 10):
        rec.event(config, NORMAL, "Created", f"Created pod: p{i}")
    assert [m for _, m, _ in stored(cluster)] == [f"Created pod: p{i}" for i in range(1, 10)]
    rec.event(config, NORMAL, "Created", "Created pod: p10")
    rec.event(config, NORMAL, "Other", "a different reason is not similar")
    cluster.advance(1)
    rec.event(config, NORMAL, "Created", "Created pod: p11")
    *singles, aggregate = cluster.events(reason="Created")
    assert len(singles) == 9 and len(cluster.events(reason="Other")) == 1
    assert (aggregate["message"], aggregate["count"]) == (COMBINED + "Created pod: p11", 2)
    assert (aggregate["firstTimestamp"], aggregate["lastTimestamp"]) == ("2030-01-01T00:00:00Z", "2030-01-01T00:00:01Z")
    assert (aggregate["reportingComponent"], aggregate["reportingInstance"]) == ("", "")
    assert aggregate["metadata"]["name"].startswith("cfg.")


def test_similar_events_more_than_600_seconds_apart_start_a_new_group() -> None:
    cluster, rec, config = make()
    for i in range(11):
        rec.event(config, WARNING, "Failed", f"attempt {i}")
    cluster.advance(600)  # not more than 600 s after the last similar one: still aggregated
    rec.event(config, WARNING, "Failed", "attempt 11")
    assert stored(cluster)[-1] == ("Failed", COMBINED + "attempt 11", 3)
    cluster.advance(600.000000001)
    rec.event(config, WARNING, "Failed", "attempt 12")
    assert stored(cluster)[-1] == ("Failed", "attempt 12", 1)
    assert len(cluster.events()) == 11


def test_a_deleted_event_is_created_again_with_its_count() -> None:
    cluster, rec, config = make()
    rec.event(config, NORMAL, "Synced", "ok")
    [event] = cluster.events()
    cluster.delete("events", event["metadata"]["name"])
    rec.event(config, NORMAL, "Synced", "ok")
    [again] = cluster.events()
    assert (again["metadata"]["name"], again["count"], again["firstTimestamp"]) == \
        (event["metadata"]["name"], 2, event["firstTimestamp"])


def test_a_refused_write_is_dropped() -> None:
    cluster, rec, config = make()
    cluster.inject(Reactor(verb="create", resource="events", times=1, error=NotFound("injected")))
    rec.event(config, NORMAL, "Synced", "ok")
    assert cluster.events() == []
    rec.event(config, NORMAL, "Synced", "ok")  # a patch of an Event never created: created now
    assert stored(cluster) == [("Synced", "ok", 2)]


def test_caches_hold_4096_entries() -> None:
    cluster, rec, config = make()
    rec.event(config, NORMAL, "First", "m")
    for i in range(4096):  # other objects: no spam filtering
        rec.event({**config, "metadata": {**config["metadata"], "name": f"o{i}", "uid": f"u{i}"}}, NORMAL, "X", "m")
    rec.event(config, NORMAL, "First", "m")  # forgotten: a second Event rather than a count
    assert [e["count"] for e in cluster.events(config)] == [1, 1]


def test_without_correlation_only_identical_events_are_counted() -> None:
    cluster, rec, config = make(correlate=False)
    for i in range(30):
        rec.event(config, NORMAL, "Created", f"Created pod: p{i}")
        rec.event(config, NORMAL, "Created", f"Created pod: p{i}")
    assert stored(cluster) == [("Created", f"Created pod: p{i}", 2) for i in range(30)]


def test_a_large_job_shows_nine_created_pods_and_one_aggregate() -> None:
    cluster = FakeCluster(seed=0)
    cluster.add_node("n0", capacity={"pods": "100"})
    cluster.apply({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "big"},
                   "spec": {"parallelism": 30, "completions": 30, "template": {"spec": {
                       "restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}})
    cluster.advance(1)
    created = [(e["message"], e["count"]) for e in cluster.events(kind="Job", reason="SuccessfulCreate")]
    assert len(created) == 10 and all(count == 1 for _, count in created[:9])
    # 25 tokens: 9 single events, the aggregate, 15 patches of it; the last 5 are dropped
    assert created[9][0].startswith(COMBINED + "Created pod: big-") and created[9][1] == 16
