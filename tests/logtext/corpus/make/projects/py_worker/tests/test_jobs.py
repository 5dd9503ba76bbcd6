from worker.jobs import process


def test_process_small():
    assert process([{"id": "a", "size": 1}]) == ["a"]


def test_process_skips_large():
    batch = [{"id": "a", "size": 1}, {"id": "b", "size": 500}, {"id": "c", "size": 20}]
    assert process(batch) == ["a", "b", "c"]
