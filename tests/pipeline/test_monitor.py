"""run_monitor: outputs, --follow on a file a background thread grows, the kept order."""
from __future__ import annotations

import json
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from ranger_eval.errors import ConfigError
from ranger_eval.pipeline.monitor import MONITOR_OUTPUTS, monitor_logs, run_monitor
from ranger_eval.settings import MonitorSettings

HEADER = "dataset,system,item,value\n"


def _rows(start: int, stop: int, p_a: float = 0.5, p_b: float = 0.85, seed: int = 0) -> str:
    rng = np.random.default_rng(seed + start)
    return "".join(f"qa,A,q{i},{int(rng.random() < p_a)}\nqa,B,q{i},{int(rng.random() < p_b)}\n"
                   for i in range(start, stop))


@pytest.mark.slow  # draws the figure: about 0.8 s
def test_outputs_and_decision(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text(HEADER + _rows(0, 200))
    run = run_monitor(log, tmp_path / "out", control="A", treatment="B", figures="png")
    assert run.command == "monitor" and run.parts["rounds"] == 1
    assert run.result.decision == "treatment better"
    names = {p.name for p in run.written}
    assert set(MONITOR_OUTPUTS) | {"monitor.png", "manifest.json"} <= names
    data = json.loads((tmp_path / "out" / "monitor.json").read_text())
    assert data["result"]["n_used"] == run.result.n_used
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert str(run.result.signature) in json.dumps(manifest)


@pytest.mark.slow  # a writer thread and many reads: about 0.4 s
def test_follow_reads_a_growing_file_until_a_decision(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text(HEADER + _rows(0, 5))
    stop = threading.Event()

    def writer() -> None:  # the evaluation: 5 items a step, the last line often cut
        i = 5
        while not stop.is_set() and i < 400:
            text = _rows(i, i + 5)
            with log.open("a") as f:
                f.write(text[:-7])
                f.flush()
                time.sleep(0.002)
                f.write(text[-7:])
            i += 5
            time.sleep(0.01)

    seen: list[int] = []
    thread = threading.Thread(target=writer)
    thread.start()
    try:
        with warnings.catch_warnings():  # cut lines and pending items are reported
            warnings.simplefilter("ignore")
            run = run_monitor(log, tmp_path / "out", control="A", treatment="B",
                              follow=True, interval=0.02, max_rounds=500, figures="none",
                              on_round=lambda k, r: seen.append(r.n_available))
    finally:
        stop.set()
        thread.join()
    assert run.result.decision == "treatment better"
    assert run.parts["rounds"] == len(seen) > 1
    assert seen == sorted(seen)  # the stream only grows
    full = monitor_logs(log, control="A", treatment="B", settings=MonitorSettings())
    assert run.result.n_used == full.n_used  # the same sequence as on the finished log


def test_follow_gives_up_after_max_rounds(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text(HEADER + _rows(0, 30, p_a=0.5, p_b=0.5))
    waits: list[float] = []
    run = run_monitor(log, tmp_path / "out", control="A", treatment="B", follow=True,
                      interval=7.0, max_rounds=3, figures="none", sleep=waits.append)
    assert run.result.decision == "continue" and run.parts["rounds"] == 3
    assert waits == [7.0, 7.0]
    assert any("no decision after 3 reads" in w for w in run.warnings)


def test_follow_waits_for_an_unreadable_log(tmp_path: Path) -> None:
    log = tmp_path / "log.eval"
    log.write_bytes(b"PK\x03\x04 half an archive")
    waits: list[float] = []

    def later(seconds: float) -> None:
        waits.append(seconds)
        log.unlink()
        (tmp_path / "log.csv").write_text(HEADER + _rows(0, 100))

    with pytest.raises(Exception):  # noqa: B017 - the .eval never becomes readable
        run_monitor(log, tmp_path / "out", control="A", treatment="B", follow=True,
                    interval=1.0, max_rounds=2, figures="none", sleep=later)
    assert waits == [1.0]


def test_kept_order_appends_new_items(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text(HEADER + "qa,A,q1,1\nqa,B,q1,1\nqa,A,q2,0\nqa,A,q3,1\nqa,B,q3,0\n")
    with pytest.warns(UserWarning, match="1 item.* not yet for the other"):
        first = monitor_logs(log, control="A", treatment="B", settings=MonitorSettings(),
                             arrival=())
    # q2 of A was there before; its B row arrives now, after q4's pair
    log.write_text(log.read_text() + "qa,A,q4,0\nqa,B,q4,1\nqa,B,q2,1\n")
    kept = monitor_logs(log, control="A", treatment="B", settings=MonitorSettings(),
                        arrival=first.units)
    assert first.n_available == 2  # q2 waits for B
    assert first.units == ("q1", "q3")
    assert kept.units[:2] == first.units and set(kept.units) == {"q1", "q2", "q3", "q4"}


def test_bad_option_names_the_option(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text(HEADER + _rows(0, 10))
    with pytest.raises(ConfigError, match="--interval"):
        run_monitor(log, tmp_path / "out", control="A", treatment="B", interval=0)


def test_partial_clusters_are_held_out_whole(tmp_path: Path) -> None:
    """p2 has q4 scored for A only (the log is being written): p2 is held out whole, named in
    the warning; p1 (complete) enters."""
    log = tmp_path / "log.csv"
    log.write_text("dataset,system,item,value,cluster\n"
                   "qa,A,q1,0,p1\nqa,B,q1,1,p1\nqa,A,q2,1,p1\nqa,B,q2,1,p1\n"
                   "qa,A,q3,0,p2\nqa,B,q3,1,p2\nqa,A,q4,1,p2\n")
    with pytest.warns(UserWarning, match=r"1 item\(s\).*1 cluster\(s\) are held out whole"):
        res = monitor_logs(log, control="A", treatment="B", settings=MonitorSettings(),
                           cluster="cluster")
    assert res.unit != "item" and res.units == ("p1",)
    np.testing.assert_allclose(res.differences, [0.5])


def test_kept_state_gives_the_same_result_as_a_fresh_read(tmp_path: Path) -> None:
    """The reader parses only the appended lines and the sequence is extended by the new units:
    the numbers equal a fresh read's, a cut last line is ignored, a rewritten file is re-read."""
    from ranger_eval.budget.monitor import monitor_again
    from ranger_eval.io.growing import GrowingReader

    log = tmp_path / "log.csv"
    log.write_text(HEADER + _rows(0, 150, p_b=0.55) + "qa,A,q150,")
    reader = GrowingReader(log)
    settings = MonitorSettings()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = monitor_logs(log, control="A", treatment="B", settings=settings, reader=reader)
        with log.open("a") as fh:
            fh.write("1\n" + "qa,B,q150,1\n" + _rows(151, 400, p_b=0.55).replace(
                "qa,A,q151", "qa,A,q151", 1))
        again = monitor_logs(log, control="A", treatment="B", settings=settings, reader=reader,
                             previous=first, arrival=first.units)
        fresh = monitor_logs(log, control="A", treatment="B", settings=settings)
    assert reader.incremental_reads == 1
    assert again.units == fresh.units and again.decision == fresh.decision
    np.testing.assert_array_equal(again.sequence.lower, fresh.sequence.lower)
    np.testing.assert_array_equal(again.sequence.upper, fresh.sequence.upper)
    np.testing.assert_array_equal(again.sequence.mean, fresh.sequence.mean)
    log.write_text(HEADER + _rows(0, 50, p_b=0.55, seed=5))  # rewritten: read whole
    third = monitor_logs(log, control="A", treatment="B", settings=settings, reader=reader,
                         previous=again)
    assert third.n_available == 50 and reader.incremental_reads == 1
    assert monitor_again(first, _scores_of(log), control="A",
                         treatment="B", settings=settings).n_available == 50


def _scores_of(path: Path):  # type: ignore[no-untyped-def]
    from ranger_eval.io.growing import read_growing

    return read_growing(path)


def test_bad_appended_line_is_named_by_the_whole_read(tmp_path: Path) -> None:
    from ranger_eval.errors import RangerError
    from ranger_eval.io.growing import GrowingReader

    log = tmp_path / "log.csv"
    log.write_text(HEADER + _rows(0, 20))
    reader = GrowingReader(log)
    reader.read()
    with log.open("a") as fh:
        fh.write("qa,A,q20,notanumber\n")
    with pytest.raises(RangerError) as caught:
        reader.read()
    with pytest.raises(RangerError) as whole:
        _scores_of(log)
    assert str(caught.value) == str(whole.value)
