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
    assert lines[0] == f"{'map':<22}\t301\t0.0324"  # named as asked, as trec_eval prints it
    got = parse_trec(res.stdout)
    gold = golden(te / "out.test.aqc")
    names = {n: n for n in ("map", "ndcg_cut_10", "P_5", "num_ret", "num_rel_ret")}
    assert len(got) == 5 * 4
    for (m, q), v in got.items():
        assert v == gold[(names[m], q)], (m, q)


def test_without_q_prints_only_all_and_without_c_drops(te: Path) -> None:
    res = run(te / "qrels.test", te / "results.trunc", "-m", "map")
    assert res.exit_code == 0
    assert res.stdout.splitlines() == [f"{'map':<22}\tall\t0.1523"]  # mean over 301 and 303
    assert "1 qrels topic(s) absent from the run dropped: '302'" in res.stderr


def test_max_docs_and_relevance_level(te: Path) -> None:
    res = run(te / "qrels.test", te / "results.trunc", "-c", "-M", "100", "-m", "map", "-q")
    gold = golden(te / "out.test.aqcM")
    assert {k: v for k, v in parse_trec(res.stdout).items()} == {
        ("map", q): gold[("map", q)] for q in ("301", "302", "303", "all")}
    res = run(te / "qrels.rel_level", te / "results.test", "-l", "2", "-m", "P.5", "-m", "ndcg")
    gold = golden(te / "out.test.aql")
    assert parse_trec(res.stdout) == {("P_5", "all"): gold[("P_5", "all")],
                                      ("ndcg", "all"): gold[("ndcg", "all")]}


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
    assert {r["run"] for r in recs} == {"STANDARD"}  # the run tag names the run


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
    (["QRELS", "RUN", "--format", "xml"], "option --format: unknown format"),
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


def test_no_common_topic_fails_naming_the_run(te: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-collection.txt"
    other.write_text("q9 Q0 a 1 1.0 r\nq8 Q0 b 1 1.0 r\n")
    for extra in ([], ["-c"]):
        res = run(te / "qrels.test", other, "-m", "map", *extra)
        assert res.exit_code == 2
        err = res.stderr.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("ranger-eval: error:"), err
        assert f"{other}: no topic in common with the qrels" in err[0]
        assert "'q9', 'q8'" in err[0] and "'301', '302', '303'" in err[0]
        assert "--allow-no-overlap" in err[0] and "allow_no_overlap=" not in err[0]
        assert res.stdout == ""
    # one good run and one from another collection: still an error naming the bad one
    res = run(te / "qrels.test", te / "results.test", other, "-m", "map")
    assert res.exit_code == 2 and str(other) in res.stderr


def test_allow_no_overlap_warns_loudly_and_prints_as_before(te: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-collection.txt"
    other.write_text("q9 Q0 a 1 1.0 r\nq8 Q0 b 1 1.0 r\n")
    res = run(te / "qrels.test", other, "-m", "map", "--allow-no-overlap")
    assert res.exit_code == 0
    assert res.stdout.strip() == ""
    assert "ranger-eval: warning:" in res.stderr and "NO TOPIC IN COMMON" in res.stderr
    res = run(te / "qrels.test", other, "-m", "map", "-q", "-c", "--allow-no-overlap")
    assert res.exit_code == 0
    assert parse_trec(res.stdout) == {("map", q): "0.0000" for q in ("301", "302", "303", "all")}


def _supported(gold: dict[tuple[str, str], str]) -> dict[str, str]:
    """{canonical name: trec_eval name} of the golden file's measures that Ranger computes."""
    from ranger_eval import ir

    out = {}
    for name in sorted({n for n, _ in gold}):
        try:
            out[str(ir.parse_measure(name))] = name
        except ir.MeasureError:
            continue
    return out


def _cli_equals_golden(gold: dict[tuple[str, str], str], *args: object) -> tuple[int, str]:
    names = _supported(gold)
    res = run(*args, *(x for n in names.values() for x in ("-m", n)), "-q")
    assert res.exit_code == 0, res.output
    got = parse_trec(res.stdout)
    # measures come back named as asked: trec_eval's own names
    assert set(got) == {k for k in gold if k[0] in names.values()}
    for (m, q), v in got.items():
        assert v == gold[(m, q)], (m, q, v, gold[(m, q)])
    return len(got), res.stderr


def test_relevance_level_matches_golden_aql(te: Path) -> None:
    """trec_eval -m all_trec -q -l2 qrels.rel_level results.test (out.test.aql): every row of every
    supported measure, printed the same, including num_rel and num_rel_ret."""
    n, _ = _cli_equals_golden(golden(te / "out.test.aql"), te / "qrels.rel_level",
                              te / "results.test", "-l", "2")
    assert n >= 4 * 40


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_complete_relevance_level_num_rel_matches_trec_eval(te: Path, oracles: Path,
                                                           level: int) -> None:
    """trec_eval -c -lN: the num_rel ``all`` row is trec_eval's count of labels > 0 over all qrels
    topics (559), not the sum of the per-topic values (labels >= N); a warning says so."""
    if level == 1:
        gold = golden(te / "out.test.aqc")  # -c -l1 on qrels.test: the two agree
        n, err = _cli_equals_golden(gold, te / "qrels.test", te / "results.trunc", "-c")
        assert "num_rel" not in err
        return
    gold = golden(oracles / "trec_eval" / f"out.rel_level.trunc.aqcl{level}")
    n, err = _cli_equals_golden(gold, te / "qrels.rel_level", te / "results.trunc", "-c",
                                "-l", str(level))
    assert n >= 4 * 40
    assert gold[("num_rel", "all")] == "559"
    per_topic = sum(int(gold[("num_rel", q)]) for q in ("301", "302", "303"))
    assert ("ranger-eval: warning: STANDARD: NumRel 'all' = 559 as trec_eval -c prints it"
            in err
            and f"per-topic NumRel values (label >= {level}) sum to {per_topic}" in err)
