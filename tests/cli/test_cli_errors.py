"""A bad command-line value is blamed on its option (``option --x: …``), names the value
and what is accepted; bad paths and garbage arguments are RangerErrors, never bare exceptions."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ranger_eval.cli import app, friendly_errors
from ranger_eval.errors import ConfigError, InputError
from ranger_eval.io import load_experiment
from ranger_eval.pipeline import (
    MAX_RESAMPLES,
    OutputFolder,
    compare_options,
    compare_settings,
    meta_options,
    rank_options,
    run_demo,
    run_meta,
)

runner = CliRunner()


def _chain(exc: BaseException | None) -> list[BaseException]:
    out = []
    while exc is not None:
        out.append(exc)
        exc = exc.__cause__ or exc.__context__
    return out


def _invoke(args: list[str]) -> tuple[str, list[BaseException]]:
    """stderr of a failing command (exit status 2, one line) and its exception chain."""
    result = runner.invoke(app, [str(a) for a in args])
    err = result.stderr if hasattr(result, "stderr") else result.output
    assert result.exit_code == 2, result.output
    assert err.startswith("ranger-eval: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in result.output
    return err, _chain(result.exception)


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(1)
    rows = []
    for d in ("d1", "d2", "d3"):
        base = rng.normal(0.5, 0.1, 12)
        for s, shift in (("A", 0.0), ("B", 0.1), ("C", 0.2)):
            rows += [(d, s, f"q{i}", float(v)) for i, v in enumerate(base + shift
                                                                     + rng.normal(0, .05, 12))]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "system", "item", "value"]).to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------- meta options
@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("level", float("nan"), "option --level: must be strictly between 0 and 1 "
                                "(e.g. 0.95); got nan"),
        ("format", "excel", "option --format: unknown format 'excel'; use one of auto, lm-eval"),
        ("meta_seeds", "sometimes", "option --seeds: unknown seeds policy 'sometimes'; use one "
                                    "of balanced, allow-unbalanced"),
        ("method", "rmle", "(did you mean 'REML'?)"),
        ("measure", "cohen", "option --measure: unknown effect measure 'cohen'; use one of MD, "
                             "SMD, SMCC, SMCR, ZCOR"),
        ("order", "size", "option --order: unknown row order 'size'"),
        ("test", "f", "option --test: unknown test 'f'; use one of z, t, knha"),
    ],
)
def test_meta_options_are_blamed_on_the_option(option, value, expected):
    with pytest.raises(ConfigError) as info:
        meta_options({option: value})
    message = str(info.value)
    assert expected in message and "meta_" not in message


def test_meta_option_names_are_case_insensitive_and_canonical():
    got = meta_options({"method": "reml", "measure": "smd", "test": "KNHA", "order": "Effect",
                        "format": "LM_EVAL", "meta_seeds": "Balanced", "control": "a"})
    assert got == {"method": "REML", "measure": "SMD", "test": "knha", "order": "effect",
                   "format": "lm-eval", "meta_seeds": "balanced", "control": "a"}


def test_meta_cli_format_error_names_the_option_not_the_file(table):
    err, chain = _invoke(["meta", table, "--control", "A", "--treatment", "B", "--format", "xls"])
    assert "option --format: unknown format 'xls'" in err and str(table) not in err
    assert any(isinstance(e, ConfigError) for e in chain)


def test_meta_table_without_control_says_which_options_and_lists_systems(table, tmp_path):
    err, chain = _invoke(["meta", table, "--out", tmp_path / "o", "--figures", "none"])
    assert "no --control or --treatment given" in err and "systems in the table: A, B, C" in err
    assert any(isinstance(e, ConfigError) for e in chain)
    with pytest.raises(ConfigError, match=r"no --treatment given: .*systems in the table: A, B"):
        run_meta(table, tmp_path / "o2", control="A", figures="none")
    assert not (tmp_path / "o").exists() and not (tmp_path / "o2").exists()


def test_yaml_without_control_says_how_to_give_it(tmp_path):
    (tmp_path / "a.txt").write_text("0.1\n0.4\n0.3\n")
    (tmp_path / "b.txt").write_text("0.2\n0.5\n0.6\n")
    cfg = tmp_path / "e.yaml"
    cfg.write_text("tasks: [t]\nsystems:\n  a: {files: {t: a.txt}}\n  b: {files: {t: b.txt}}\n")
    with pytest.raises(ConfigError, match=r"e\.yaml: control: required .* pass --control and "
                                          r"--treatment \(systems: a, b\)"):
        run_meta(cfg, tmp_path / "o", figures="none")


# --------------------------------------------------------------------------- compare options
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--correction", "holms"], "option --correction: unknown correction 'holms'"),
        (["--n-resamples", "0"], "option --n-resamples: must be a whole number from 1 to "
                                 "100,000,000 (10^8); got 0"),
        (["--n-resamples", "1000000000000000"], "option --n-resamples: must be a whole number "
                                                "from 1 to 100,000,000 (10^8); got 1000000000000000"),
        (["--seed", "-1"], "option --seed: must be a whole number ≥ 0; got -1"),
        (["--family", "metric"], "option --family: unknown family 'metric'; use one of "
                                 "dataset-metric, dataset, all"),
        (["--alternative", "bigger"], "option --alternative: unknown alternative 'bigger'; use "
                                      "one of two-sided, greater, less"),
        (["--level", "0"], "option --level: must be strictly between 0 and 1 (e.g. 0.95); "
                           "got 0.0"),
        (["--test", "Wilcoxon"], "option --test: unknown test 'Wilcoxon'; use one of auto"),
        (["--pairs", "some"], "option --pairs: unknown pairs order 'some'"),
        (["--seeds", "x"], "option --seeds: unknown seeds policy 'x'"),
        (["--format", "excel"], "option --format: unknown format 'excel'"),
    ],
)
def test_compare_option_errors_name_the_option(table, tmp_path, args, expected):
    err, chain = _invoke(["compare", table, "--out", tmp_path / "o", "--figures", "none", *args])
    assert expected in err, err
    assert any(isinstance(e, ConfigError) for e in chain)
    assert not (tmp_path / "o").exists()  # refused before any output


def test_n_resamples_bound_is_10_to_the_8():
    assert MAX_RESAMPLES == 10**8
    assert compare_options({"n_resamples": 10**8})["n_resamples"] == 10**8
    with pytest.raises(ConfigError, match="option --n-resamples"):
        compare_options({"n_resamples": 10**8 + 1})
    with pytest.raises(ConfigError, match="option --n-resamples: .*got True"):
        compare_options({"n_resamples": True})


def test_n_resamples_bound_in_the_yaml_names_the_file_and_key(tmp_path):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("scores: s.csv\ncompare:\n  n_resamples: 1000000000\n"
                   "aggregate:\n  n_resamples: 1000000000\n")
    (tmp_path / "s.csv").write_text("dataset,system,item,value\n")
    with pytest.raises(ConfigError, match=rf"{cfg}:3: compare\.n_resamples: must be a whole "
                                          r"number from 1 to 100,000,000 \(10\^8\); got "
                                          rf"1000000000; {cfg}:5: aggregate\.n_resamples"):
        load_experiment(cfg)


@pytest.mark.parametrize("alias", ["BH", "bh", "benjamini-hochberg", "fdr_bh"])
def test_correction_alias_is_recorded_by_its_canonical_name(alias):
    assert compare_settings(None, {"correction": alias}).correction == "fdr_bh"


def test_correction_bh_signature_and_numbers_match_fdr_bh(table, tmp_path):
    outs = {}
    for name in ("BH", "fdr_bh"):
        result = runner.invoke(app, ["compare", str(table), "--out", str(tmp_path / name),
                                     "--figures", "none", "--correction", name])
        assert result.exit_code == 0, result.output
        outs[name] = ((tmp_path / name / "comparison.csv").read_text(),
                      json.loads((tmp_path / name / "manifest.json").read_text())["signature"])
    assert "corr:fdr_bh" in outs["BH"][1] and "corr:BH" not in outs["BH"][1]
    assert outs["BH"] == outs["fdr_bh"]


def test_pairs_baseline_without_baseline_says_to_pass_it():
    with pytest.raises(ConfigError, match=r"pass --baseline SYSTEM"):
        compare_settings(None, {"pairs": "baseline"})


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"level": 2.0}, "option --level: must be strictly between 0 and 1"),
        ({"posthoc": "tukey"}, "option --posthoc: unknown post-hoc test 'tukey'; use one of "
                               "nemenyi"),
        ({"comparisons": "some"}, "option --comparisons: unknown comparisons 'some'; use one of "
                                  "successive"),
        ({"correction": "BH"}, None),
        ({"seed": -3}, "option --seed: must be a whole number ≥ 0; got -3"),
    ],
)
def test_rank_options(options, expected):
    if expected is None:
        assert rank_options(options) == {"correction": "fdr_bh"}
        return
    with pytest.raises(ConfigError) as info:
        rank_options(options)
    assert expected in str(info.value)


# --------------------------------------------------------------------------- demo, signature, paths
def test_demo_negative_seed_is_an_option_error(tmp_path):
    err, chain = _invoke(["demo", "--seed", "-1", "--out", tmp_path / "d", "--figures", "none"])
    assert "option --seed: must be a whole number ≥ 0; got -1" in err
    assert any(isinstance(e, ConfigError) for e in chain)
    with pytest.raises(ConfigError, match="option --seed"):
        run_demo(tmp_path / "d2", seed=-5)
    assert not (tmp_path / "d").exists() and not (tmp_path / "d2").exists()


def test_signature_garbage_is_an_input_error_showing_a_signature():
    err, chain = _invoke(["signature", "hello world"])
    assert "'hello world'" in err and "key:value fields separated by |, e.g. ranger-eval:" in err
    assert any(isinstance(e, InputError) for e in chain)
    err, _ = _invoke(["signature", "kind:meta|test:z"])
    assert "has no ranger-eval:VERSION field" in err


def test_out_under_a_file_names_the_file(table, tmp_path):
    target = table / "sub"
    err, chain = _invoke(["meta", table, "--control", "A", "--treatment", "B", "--out", target])
    assert f"--out {target}: cannot create the folder, because {table} is a file" in err
    assert any(isinstance(e, ConfigError) for e in chain)
    with pytest.raises(ConfigError, match="is a file, not a folder"):
        OutputFolder(tmp_path / "scores.csv" / "a" / "b")


def test_a_missing_file_is_an_input_error_naming_it(tmp_path):
    err, chain = _invoke(["compare", tmp_path / "nothere.csv", "--out", tmp_path / "o"])
    assert f"{tmp_path / 'nothere.csv'}: file not found" in err
    assert any(isinstance(e, InputError) for e in chain)

    @friendly_errors
    def reads() -> None:  # a reader that let FileNotFoundError through
        open(tmp_path / "gone.txt")  # noqa: SIM115

    with pytest.raises(Exception) as info:
        reads()
    assert any(isinstance(e, InputError) and "gone.txt: file not found" in str(e)
               for e in _chain(info.value))
