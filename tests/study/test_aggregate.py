"""Aggregation of run records and the seed's table."""

from __future__ import annotations

import json

import pytest

from collectives.run.files import write_json
from collectives.run.measure import measure
from collectives.study import aggregate, markdown


@pytest.fixture(scope="module")
def records():
    runs = [measure(a, 8, 1024) for a in ("ring", "recursive_doubling")] + [measure("naive", 3, 5)]
    return [run.record for run in runs]


def test_measurements_table_has_measured_and_theory_columns(records):
    table = aggregate.measurements_table(records)
    assert list(table.columns) == aggregate.measurement_columns()
    assert len(table) == 3
    ring = table[table.algorithm == "ring"].iloc[0]
    assert ring.message_bytes == 8192 and ring.theory_bytes_total == ring.bytes_total == 114688
    aggregate.check_runs(table)


def test_seed_check_reproduces_the_seed_rows(records):
    text = markdown.seed_check_markdown(aggregate.measurements_table(records))
    assert "| ring | 8 | 1024 | 14 | 114688 | 114688 | OK |" in text
    assert "| recursive_doubling | 8 | 1024 | 3 | 196608 | 196608 | OK |" in text
    assert "| naive | float64 | 3 | 5 |" in text


def test_seed_rows_outside_the_grid_are_said_so(records):
    text = markdown.seed_check_markdown(aggregate.measurements_table(records[2:]))
    assert "| ring | 8 | 1024 | not in this grid |" in text


def test_a_bad_run_fails_the_check(records):
    table = aggregate.measurements_table(records)
    table.loc[0, "verified"] = False
    with pytest.raises(aggregate.RunCheckError, match=r"1 run\(s\) failed"):
        aggregate.check_runs(table)


@pytest.fixture(scope="module")
def two_level():
    return measure("hierarchical", 4, 6, parameters={"ranks_per_node": 2}).record


def _write(directory, records):
    """Each record as `collectives measure` writes it, in `directory`; their paths."""
    paths = [directory / f"{index}.json" for index in range(len(records))]
    for path, record in zip(paths, records, strict=True):
        write_json(path, record.to_dict())
    return paths


def _alter(path, **changes):
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def test_good_records_load_and_stay(records, two_level, tmp_path):
    paths = _write(tmp_path, [*records, two_level])
    assert aggregate.load_records(paths) == [*records, two_level]
    assert all(path.exists() for path in paths)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rounds": 999, "bytes_critical": 1},
         "rounds 999, theory 14; bytes_critical 1, theory 14336 (yet matches_theory is true)"),
        ({"matches_theory": False}, "matches_theory is not true, yet every count equals theory"),
        ({"theory": {"rounds": 999}}, "theory {'rounds': 999}, not the closed form"),
        ({"bytes_sent": [0] * 8}, "do not add up to bytes_total and hotspot_bytes"),
        ({"verified": False}, "verified is false"),
        ({"itemsize": 4}, "itemsize 4, but float64 has 8"),
        ({"ranks": 0}, "ranks must be between 1 and 1024, got 0"),
        ({"rounds": "14"}, 'rounds is "14", not int | None'),
        ({"record_version": 1}, "record_version 1, expected 6"),
    ],
)  # fmt: skip
def test_a_record_at_odds_with_theory_or_its_schema_is_named_and_removed(
    records, tmp_path, capfd, change, message
):
    ring, *others = _write(tmp_path, records)
    _alter(ring, **change)
    with pytest.raises(aggregate.BadRecords) as raised:
        aggregate.load_records([ring, *others])
    expected = f"bad record {ring}: "
    assert str(raised.value).startswith(expected) and message in str(raised.value)
    assert str(raised.value).endswith(f"; removed it: {aggregate.RERUN}")
    assert "\n" not in str(raised.value)
    assert capfd.readouterr().err == f"{raised.value}\n"  # on the console too
    assert not ring.exists() and all(path.exists() for path in others)


def test_link_class_counts_are_checked_against_theory(two_level, tmp_path):
    (path,) = _write(tmp_path, [two_level])
    classes = json.loads(path.read_text())["link_classes"]
    classes["measured"]["inter"]["rounds"] += 1
    _alter(path, link_classes=classes)
    with pytest.raises(aggregate.BadRecords, match=r"link_classes\.measured .* theory"):
        aggregate.load_records([path])


def test_every_bad_record_is_listed_a_line_each(records, tmp_path):
    truncated, altered, good = _write(tmp_path, records)
    truncated.write_text(truncated.read_text()[:567])
    _alter(altered, rounds=999)
    with pytest.raises(aggregate.BadRecords) as raised:
        aggregate.load_records([truncated, altered, good])
    lines = str(raised.value).splitlines()
    assert [line.split(": ")[0] for line in lines] == [
        f"bad record {truncated}", f"bad record {altered}"
    ]  # fmt: skip
    assert "Unterminated string" in lines[0] or "Expecting" in lines[0]
    assert good.exists() and not truncated.exists() and not altered.exists()


def test_a_record_already_gone_is_named_without_claiming_its_removal(records, tmp_path):
    (path,) = _write(tmp_path, records[:1])
    path.unlink()  # as when a job reading the same records at the same time removed it
    with pytest.raises(aggregate.BadRecords) as raised:
        aggregate.load_records([path])
    assert str(raised.value) == f"bad record {path}: No such file or directory; {aggregate.RERUN}"


def test_every_run_is_checked_by_its_counts_not_its_flag(records):
    table = aggregate.measurements_table(records)
    table.loc[table.algorithm == "ring", "rounds"] = 999  # matches_theory still says True
    text = markdown.seed_check_markdown(table)
    assert "| ring | 8 | 1024 | 999 | 114688 | 114688 | MISMATCH |" in text
    assert "| ring | float64 | 8 | 1024 | 999 | 114688 | 114688 | FAIL |" in text
