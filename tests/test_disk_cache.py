"""The one on-disk cache: values kept across instances, bounded, and never a reason to fail."""

from __future__ import annotations

import logging

from chemground.cache import DiskCache


def test_values_survive_a_new_instance_and_json_round_trips(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = DiskCache(path, table="t")
    cache.put("text", "value")
    cache.put("blob", b"\x00\x01")
    cache.put_json("json", {"a": [1, 2]})
    cache.close()
    again = DiskCache(path, table="t")
    assert again.get("text") == "value" and again.get("blob") == b"\x00\x01"
    assert again.get_json("json") == {"a": [1, 2]}
    assert again.get_many(["text", "absent", "text"]) == {"text": "value"}
    assert len(again) == 3


def test_the_oldest_writes_go_first_when_bounded(tmp_path):
    cache = DiskCache(tmp_path / "c.sqlite", max_entries=2)
    for key in "abc":
        cache.put(key, key)
    cache.put("a", "again")  # a rewrite makes "a" the newest
    assert set(cache.get_many(list("abc"))) == {"a", "c"}


def test_an_unreadable_json_value_is_dropped(tmp_path):
    cache = DiskCache(tmp_path / "c.sqlite")
    cache.put("k", "{not json")
    assert cache.get_json("k") is None and cache.get("k") is None


def test_a_corrupt_file_is_set_aside_and_replaced(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"not a database at all" * 200)
    with caplog.at_level(logging.WARNING):
        cache = DiskCache(path, name="test cache")
    cache.put("k", "v")
    assert cache.get("k") == "v"
    assert list(tmp_path.glob("c.sqlite.corrupt-*"))
    assert "test cache" in caplog.text


def test_a_database_error_turns_the_cache_off_instead_of_failing(tmp_path, caplog):
    cache = DiskCache(tmp_path / "c.sqlite")
    cache.put("k", "v")
    cache._db.execute("DROP TABLE entries")  # the file changed under us
    with caplog.at_level(logging.WARNING):
        assert cache.get("k") is None
    assert not cache.enabled and "caching is off" in caplog.text
    cache.put("k", "v")  # a no-op now, not an error
    assert cache.get("k") is None and len(cache) == 0


def test_no_path_means_nothing_is_stored():
    cache = DiskCache(None)
    cache.put("k", "v")
    assert not cache.enabled and cache.get("k") is None


def test_a_cache_of_an_older_layout_starts_afresh(tmp_path, caplog):
    """An LLM cache written by an older chemground had (key, body): reading it failed, and the
    cache stayed off in every process."""
    import sqlite3

    from chemground.cache import DiskCache

    path = tmp_path / "llm-cache.sqlite"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, body TEXT NOT NULL)")
    old.execute("INSERT INTO responses VALUES ('k', 'old')")
    old.commit()
    old.close()
    cache = DiskCache(path, name="LLM response cache", table="responses")
    assert cache.enabled
    assert cache.get("k") is None
    cache.put("k", "new")
    assert cache.get("k") == "new"
    assert "older layout" in caplog.text
