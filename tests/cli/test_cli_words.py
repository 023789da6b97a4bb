"""Messages speak the caller's language. A command that triggers a warning or an
error whose Python text names a keyword (``degenerate='drop'``, ``approach='bayesian'``,
``missing='zero'``) says the command's option instead — on stderr and in the warnings that
manifest.json records — while the same call from Python keeps the keyword."""
from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ranger_eval.cli import app
from ranger_eval.errors import AggregateError, Hint, in_callers_words, speaking

#: ``keyword='value'`` / ``keyword=`` as Python spells an argument
PYTHON_SPELLING = re.compile(r"\b[a-z_]+=(?:'|\"|\s|$|\))")


def _python_words(text: str) -> list[str]:
    return PYTHON_SPELLING.findall(text)


def _degenerate_table(path: Path) -> Path:
    """Three tasks; on t2 the systems are identical (zero variance for MD)."""
    rng = np.random.default_rng(7)
    frames = []
    for task in ("t1", "t2", "t3"):
        a = rng.random(12)
        b = a if task == "t2" else a + rng.normal(0.1, 0.2, 12)
        frames += [pd.DataFrame({"dataset": task, "system": s, "item": range(12), "value": v})
                   for s, v in (("a", a), ("b", b))]
    pd.concat(frames).to_csv(path, index=False)
    return path


def test_a_warning_of_the_cli_names_the_option_on_stderr_and_in_the_manifest(
        tmp_path: Path) -> None:
    table = _degenerate_table(tmp_path / "scores.csv")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["meta", str(table), "--control", "a", "--treatment", "b",
                                      "--measure", "MD", "--drop-degenerate", "--out", str(out),
                                      "--figures", "none"])
    assert result.exit_code == 0, result.output
    assert "(--drop-degenerate)" in result.stderr
    assert not _python_words(result.stderr), result.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    (said,) = [w for w in manifest["warnings"] if "left out 1 of 3 dataset(s)" in w]
    assert "(--drop-degenerate)" in said and not _python_words(said)


def test_the_same_run_from_python_keeps_the_keyword(tmp_path: Path) -> None:
    from ranger_eval.pipeline import run_meta

    table = _degenerate_table(tmp_path / "scores.csv")
    run = run_meta(table, tmp_path / "out", None, "none", control="a", treatment="b",
                   measure="MD", meta_degenerate="drop")
    (said,) = [w for w in run.warnings if "left out 1 of 3 dataset(s)" in w]
    assert "(degenerate='drop')" in said
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert said in manifest["warnings"]


def test_an_error_of_the_cli_names_the_option(tmp_path: Path) -> None:
    """rank --approach bayesian on 3 datasets (5 needed): the error says the option."""
    wide = pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.2, 0.3, 0.5], "C": [0.3, 0.1, 0.2]},
                        index=pd.Index(["d1", "d2", "d3"], name="dataset"))
    path = tmp_path / "wide.csv"
    wide.to_csv(path)
    result = CliRunner().invoke(app, ["rank", str(path), "--approach", "bayesian", "--out",
                                      str(tmp_path / "out"), "--figures", "none"])
    assert result.exit_code == 2, result.output
    assert "--approach bayesian needs at least 5 datasets" in result.stderr
    assert not _python_words(result.stderr), result.stderr
    from ranger_eval.aggregate import rank_test

    with pytest.raises(AggregateError, match="approach='bayesian' needs at least 5 datasets"):
        rank_test(wide, approach="bayesian")


def test_trec_no_overlap_warning_names_complete(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run = tmp_path / "run"
    run.write_text("7 Q0 d1 1 2.0 r\n")
    result = CliRunner().invoke(app, ["trec", str(qrels), str(run), "--allow-no-overlap"])
    assert result.exit_code == 0, result.output
    assert "every qrels topic scores 0 with --complete (trec_eval -c); with the default " \
           "(no --complete) no topic is left" in " ".join(result.stderr.split())
    assert not _python_words(result.stderr), result.stderr


def test_in_callers_words_only_while_speaking() -> None:
    hint = Hint("missing", "intersect")
    text = f"two items are missing; {hint.text}"
    assert in_callers_words(text, [hint]) == text  # the Python API's own words
    with speaking(lambda h: f"pass --{h.keyword} {h.value}"):
        assert in_callers_words(text, [hint]) == "two items are missing; pass --missing intersect"
        with warnings.catch_warnings():
            assert in_callers_words(text, [Hint("other")]) == text
    with speaking(lambda h: None):  # no words for it: say whose words they are
        assert in_callers_words(text, [hint]).endswith("in the Python API, pass "
                                                       "missing='intersect'")
    assert in_callers_words(text, [hint]) == text  # the block ended
