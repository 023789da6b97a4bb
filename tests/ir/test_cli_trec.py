"""``ranger-eval trec``: trec_eval layout, -q/-c/-M/-l, formats, several runs, bad input."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

try:
    from ranger_eval.cli import app
except ImportError:  # pragma: no cover - before the lead's cli.py exists
    from ranger_eval import cli_trec

    app = typer.Typer()
    cli_trec.register(app)

    @app.callback()
    def _main() -> None:
        """Test application."""

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, ["trec", *map(str, args)])


@pytest.fixture(scope="module")
def te(corpus: Path) -> Path:
    return corpus / "trec_eval"


def parse_trec(text: str) -> dict[tuple[str, ...], str]:
    out = {}
    for line in text.strip().splitlines():
        *key, value = (x.strip() for x in line.split("\t"))
        out[tuple(key)] = value
    return out


def golden(path: Path) -> dict[tuple[str, str], str]:
    return {(n, q): v for (n, q), v in parse_trec(path.read_text()).items()}


def test_trec_layout_matches_trec_eval_aqc(te: Path) -> None:
    """Same numbers, same per-query/all layout as `trec_eval -q -c` (out.test.aqc)."""
    res = run(te / "qrels.test", te / "results.trunc", "-m", "map", "-m", "ndcg_cut.10",
              "-m", "P.5", "-m", "num_ret", "-m", "num_rel_ret", "-q", "-c")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == f"{'AP':<22}\t301\t0.0324"
    got = parse_trec(res.stdout)
    gold = golden(te / "out.test.aqc")
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5", "NumRet": "num_ret",
             "NumRelRet": "num_rel_ret"}
    assert len(got) == 5 * 4
    for (m, q), v in got.items():
        assert v == gold[(names[m], q)], (m, q)


def test_without_q_prints_only_all_and_without_c_drops(te: Path) -> None:
    res = run(te / "qrels.test", te / "results.trunc", "-m", "map")
    assert res.exit_code == 0
    assert res.stdout.splitlines() == [f"{'AP':<22}\tall\t0.1523"]  # mean over 301 and 303
    assert "1 qrels topic(s) absent from the run dropped: '302'" in res.stderr


def test_max_docs_and_relevance_level(te: Path) -> None:
    res = run(te / "qrels.test", te / "results.trunc", "-c", "-M", "100", "-m", "map", "-q")
    gold = golden(te / "out.test.aqcM")
    assert {k: v for k, v in parse_trec(res.stdout).items()} == {
        ("AP", q): gold[("map", q)] for q in ("301", "302", "303", "all")}
    res = run(te / "qrels.rel_level", te / "results.test", "-l", "2", "-m", "P.5", "-m", "ndcg")
    gold = golden(te / "out.test.aql")
    assert parse_trec(res.stdout) == {("P@5", "all"): gold[("P_5", "all")],
                                      ("nDCG", "all"): gold[("ndcg", "all")]}


def test_several_runs_prefix_run_name(te: Path) -> None:
    res = run(te / "qrels.test", te / "results.test", te / "results.trunc", "-m", "AP", "-c")
    assert res.exit_code == 0
    got = parse_trec(res.stdout)
    assert got == {("results.test", "AP", "all"): "0.1785",
                   ("results.trunc", "AP", "all"): "0.1016"}


@pytest.mark.parametrize("fmt", ["tsv", "csv", "json"])
def test_machine_formats(te: Path, fmt: str) -> None:
    res = run(te / "qrels.test", te / "results.test", "-m", "AP", "-m", "NumRet", "-q",
              "--format", fmt)
    assert res.exit_code == 0
    if fmt == "json":
        recs = json.loads(res.stdout)
    else:
        recs = list(csv.DictReader(io.StringIO(res.stdout), delimiter="\t" if fmt == "tsv" else ","))
    assert len(recs) == 2 * 4
    by_key = {(r["measure"], r["query_id"]): r["value"] for r in recs}
    assert float(by_key[("AP", "all")]) == pytest.approx(0.1785, abs=5e-5)
    assert int(by_key[("NumRet", "all")]) == 1500
    assert {r["run"] for r in recs} == {"results.test"}


def test_default_measures(te: Path) -> None:
    res = run(te / "qrels.test", te / "results.test")
    got = parse_trec(res.stdout)
    gold = golden(te / "out.test")
    assert got[("AP", "all")] == gold[("map", "all")]
    assert got[("NumRel", "all")] == gold[("num_rel", "all")]
    assert got[("nDCG@10", "all")] == "0.3016"  # out.test.aq: ndcg_cut_10 all


@pytest.mark.parametrize("args,needle", [
    (["QRELS", "missing-run.txt"], "run file not found"),
    (["QRELS", "RUN", "-m", "nDCG@0"], "bad cutoff"),
    (["QRELS", "RUN", "-m", "BLEU"], "unknown measure 'BLEU'"),
    (["QRELS", "RUN", "--format", "xml"], "--format must be one of"),
    (["QRELS", "RUN", "-M", "0"], "max_docs must be a positive integer"),
    (["QRELS", "BADRUN"], ":2: expected at least 6 fields"),
])
def test_bad_input_one_line_exit_2(te: Path, tmp_path: Path, args: list[str], needle: str) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("301 Q0 a 1 1.0 r\n301 Q0 b\n")
    subst = {"QRELS": str(te / "qrels.test"), "RUN": str(te / "results.test"), "BADRUN": str(bad)}
    res = run(*[subst.get(a, a) for a in args])
    assert res.exit_code == 2
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ranger-eval: error:") and needle in err[0]
    assert "Traceback" not in res.output
