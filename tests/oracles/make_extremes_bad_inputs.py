"""Writes the bad-input cases 340-361 (extreme scores through
``ranger-eval compare`` and the Python API).

The scores are two datasets of ``extremes_oracle.json`` (unscaled paired-t p-values about 0.05 and
0.0004) with a third system, multiplied by 1e-300, 1e-150, 1e300, 2^-997, 2^1019, 2^1020 or scaled
to the float64 limit. Each ok case checks every row of ``comparison.csv``: the p-value (10
significant digits) and the difference (9 digits, times the factor) of ``rg.compare`` on the
unscaled scores. Run from the repository root: ``python tests/oracles/make_extremes_bad_inputs.py``.
"""
from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

import ranger_eval as rg

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent / "bad_inputs"
o = json.loads((HERE / "extremes_oracle.json").read_text())
base = {c["dataset"]: c for c in o["cases"] if c["scale"] == "1"}


def xy(name: str) -> tuple[np.ndarray, np.ndarray]:
    c = base[name]
    return (np.array([float.fromhex(v) for v in c["x"]]),
            np.array([float.fromhex(v) for v in c["y"]]))


x1, y1 = xy("near-0.05")
x2, y2 = xy("near-0.008")
rows = []
for ds, (x, y) in (("rte", (x1, y1)), ("mrpc", (x2, y2))):
    for s, v in (("A", x), ("B", y), ("C", (x + y) / 2 + 0.01)):
        for i, val in enumerate(v):
            rows.append(dict(dataset=ds, metric="f1", system=s, item=f"q{i}", value=float(val)))
BASE = pd.DataFrame(rows)

def write_csv(path, d):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        f.write("dataset,metric,system,item,value\n")
        for r in d.itertuples(index=False):
            f.write(f"{r.dataset},{r.metric},{r.system},{r.item},{float(r.value)!r}\n")

def _sig1(v, k):
    if v == 0:
        return r"-?0\.0"
    m, e = f"{abs(v):.{k + 3}e}".split("e")
    digits = m.replace(".", "")[:k]
    e = int(e)
    sign = "-" if v < 0 else ""
    if -4 <= e < 16:  # repr prints these positionally
        if e < 0:
            body = r"0\." + "0" * (-e - 1) + digits.rstrip("0")
        else:
            digits = digits.ljust(e + 1, "0")
            body = digits[:e + 1] + r"\." + digits[e + 1:].rstrip("0")
        return sign + body + r"\d*"
    rest = digits[1:].rstrip("0")
    mid = (r"\." + rest + r"\d*") if rest else r"(?:\.\d*)?"
    return sign + digits[0] + mid + "e" + re.escape(f"{e:+03d}")


def sig(v, k=11):
    """Regex for v to k significant digits, allowing a relative error of 1e-11 either way."""
    alts = sorted({_sig1(v * (1 - 1e-11), k), _sig1(v, k), _sig1(v * (1 + 1e-11), k)})
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


def checks_for(test, scale, nres=10000):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tab = rg.compare(BASE, test=test, n_resamples=nres).table
    out = []
    for r in tab.itertuples(index=False):
        key = f"{r.dataset},{r.metric},{r.system_a},{r.system_b},"
        p = sig(float(r.pvalue), 10)
        d = sig(float(r.diff) * scale, 9)
        out.append({"file_contains": {"file": "{out}/comparison.csv",
                    "text": f"re:{re.escape(key)}[^,]*,[^,]*,{d},.*,{re.escape(r.test)},[^,]*,{p},"}})
    return out

def case(num, name, desc, scale, test=None, extra_args=(), cls="degenerate", nres=10000,
         timeout=None):
    folder = ROOT / f"{num}-{name}"
    df = BASE.assign(value=BASE["value"] * scale)
    write_csv(folder / "scores.csv", df)
    cmd = ["compare", "{case}/scores.csv", "--out", "{out}", "--figures", "none"]
    if test:
        cmd += ["--test", test]
    cmd += list(extra_args)
    spec = {"description": desc, "class": cls, "command": cmd,
            "expect": {"ok": True, "checks": [{"exists": "{out}/comparison.csv"}] +
                       checks_for(test or "auto", scale, nres)}}
    if timeout is not None:  # scipy's exact Wilcoxon with ties enumerates 2^12 sign vectors
        spec["timeout"] = timeout
    (folder / "case.yaml").write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True, width=100))

case(340, "compare-scores-times-1e-300", "Every score × 1e-300: paired-t p-values equal the unscaled ones (were 0), differences scale by 1e-300.", 1e-300)
case(341, "compare-scores-times-1e300", "Every score × 1e300: paired-t p-values equal the unscaled ones (were 1), differences scale by 1e300.", 1e300)
case(342, "compare-welch-times-1e-150", "Welch's test on scores × 1e-150: p-values equal the unscaled ones (they moved at 1e-150).", 1e-150, "welch")
case(343, "compare-welch-times-1e300", "Welch's test on scores × 1e300.", 1e300, "welch")
case(344, "compare-wilcoxon-times-2-997", "Wilcoxon on scores × 2^-997 (about 7.5e-301; a power of two keeps every tie and zero of the differences): same ranks, same p-values.", 2.0 ** -997, "wilcoxon", timeout=90)
case(345, "compare-permutation-times-1e300", "Paired permutation test on scores × 1e300: same counts, same p-values.", 1e300, "permutation")
case(346, "compare-sign-times-1e-300", "Sign test on scores × 1e-300.", 1e-300, "sign")
top = float(BASE["value"].abs().max())
case(347, "compare-near-float-max", "Scores up to 1.5e308: squares of differences overflow; paired-t p-values equal the unscaled ones (were NaN, then the multiplicity step failed without naming anything).", 1.5e308 / top)
case(348, "compare-bootstrap-times-1e-300", "Paired bootstrap on scores × 1e-300: same resamples, same p-values.", 1e-300, "bootstrap", ["--n-resamples", "999"], nres=999)


def error_case(num, name, desc, df, test, mentions, cls="degenerate", error="CompareError", extra=()):
    folder = ROOT / f"{num}-{name}"
    write_csv(folder / "scores.csv", df)
    cmd = ["compare", "{case}/scores.csv", "--out", "{out}", "--figures", "none"]
    if test:
        cmd += ["--test", test]
    cmd += list(extra)
    spec = {"description": desc, "class": cls, "command": cmd,
            "expect": {"error": error, "mentions": mentions,
                       "not_mentions": ["p-values must lie in"]}}
    (folder / "case.yaml").write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True, width=100))


def beyond():
    df = BASE.copy()
    rte = df["dataset"] == "rte"
    t = float(df.loc[rte, "value"].abs().max())
    df.loc[rte, "value"] = df.loc[rte, "value"] / t * 1.5e308
    df.loc[rte & (df["system"] == "B"), "value"] *= -1.0
    return df


WHO = ["'rte'", "'f1'", "systems 'A' vs 'B'", r"re:e\+308"]
error_case(349, "compare-mean-difference-beyond-float64", "System A scores about +1.5e308, B about -1.5e308 on one dataset: their mean difference does not fit in float64; the error names the dataset, metric, systems and the value (it was a NaN p-value and an anonymous multiplicity error).", beyond(), None, WHO)
error_case(350, "compare-welch-difference-beyond-float64", "Welch's test on means of +1.5e308 and -1.5e308: the error names dataset, metric, systems and the value.", beyond(), "welch", WHO)
error_case(351, "compare-bootstrap-difference-beyond-float64", "Paired bootstrap of differences beyond float64: the error names dataset, metric, systems and the two scores.", beyond(), "bootstrap", WHO, extra=["--n-resamples", "199"])
error_case(352, "compare-permutation-difference-beyond-float64", "Paired permutation test with a mean difference beyond float64: named, never a NaN.", beyond(), "permutation", WHO, extra=["--n-resamples", "199"])


def raw_case(num, name, text, spec_rest, fname="scores.csv"):
    folder = ROOT / f"{num}-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    if text is not None:
        (folder / fname).write_text(text)
    (folder / "case.yaml").write_text(yaml.safe_dump(spec_rest, sort_keys=False, allow_unicode=True, width=100))


HEAD = "dataset,metric,system,item,value\n"
raw_case(353, "compare-inf-score", HEAD + "rte,f1,A,q1,0.5\nrte,f1,A,q2,inf\nrte,f1,B,q1,0.4\nrte,f1,B,q2,0.3\n", {
    "description": "An infinite score: refused naming the file, line and value.", "class": "degenerate",
    "command": ["compare", "{case}/scores.csv", "--out", "{out}", "--figures", "none"],
    "expect": {"error": "any", "mentions": ["scores.csv", "re:line 3|:3", "inf"]}})
raw_case(354, "compare-score-overflows-float64", HEAD + "rte,f1,A,q1,0.5\nrte,f1,A,q2,-2e308\nrte,f1,B,q1,0.4\nrte,f1,B,q2,0.3\n", {
    "description": "A score written as -2e308 (beyond float64, read as -inf): refused naming the file, line and text.", "class": "degenerate",
    "command": ["compare", "{case}/scores.csv", "--out", "{out}", "--figures", "none"],
    "expect": {"error": "any", "mentions": ["scores.csv", "re:line 3|:3", "-2e308"]}})
raw_case(355, "api-paired-ttest-mean-beyond-float64", None, {
    "description": "rg.stats.paired_ttest of scores near +1.7e308 and -1.7e308: the mean difference is beyond float64 and the error says so with its value (it was NaN).", "class": "api",
    "python": "rg.stats.paired_ttest([1.7e308, 1.6e308, 1.65e308], [-1.7e308, -1.5e308, -1.6e308])",
    "expect": {"error": "StatsInputError", "mentions": ["mean difference", r"re:e\+308"]}})
raw_case(356, "api-paired-ttest-near-float-max", None, {
    "description": "rg.stats.paired_ttest of scores near 1.7e308 whose squared differences overflow (one difference, 1.9e308, does not even fit in float64): the p-value, estimate and interval of the same data divided by 1e308 (it was NaN).", "class": "api",
    "python": ("x = np.array([1.7, 0.4, 0.7, 0.3, 0.8]); y = np.array([-0.2, 0.1, -0.1, 0.3, 0.0])  # 1.9e308: beyond float64\n"
               "r = rg.stats.paired_ttest(x * 1e308, y * 1e308)\n"
               "r0 = rg.stats.paired_ttest(x, y)\n"
               "assert abs(r.pvalue / r0.pvalue - 1) < 1e-12, (r.pvalue, r0.pvalue)\n"
               "assert abs(r.estimate / 1e308 / r0.estimate - 1) < 1e-12\n"
               "assert abs(r.ci_high / 1e308 / r0.ci_high - 1) < 1e-12\n"),
    "expect": {"ok": True}})
raw_case(357, "api-welch-times-1e-150", None, {
    "description": "rg.stats.welch_ttest on scores × 1e-150: the unscaled p-value (it moved: var²/n underflowed).", "class": "api",
    "python": ("x = np.array([0.61, 0.55, 0.72, 0.48, 0.66, 0.59]); y = np.array([0.57, 0.56, 0.65, 0.49, 0.60, 0.41])\n"
               "for c in (1e-300, 1e-150, 1e150, 1e300):\n"
               "    r, r0 = rg.stats.welch_ttest(x * c, y * c), rg.stats.welch_ttest(x, y)\n"
               "    assert abs(r.pvalue / r0.pvalue - 1) < 1e-12, (c, r.pvalue, r0.pvalue)\n"
               "    assert abs(r.df / r0.df - 1) < 1e-12, (c, r.df, r0.df)\n"),
    "expect": {"ok": True}})
raw_case(358, "api-compare-mean-beyond-float64", None, {
    "description": "rg.compare on a table whose mean difference is beyond float64: CompareError naming the dataset, metric, systems and value, not the multiplicity step's 'p-values must lie in [0, 1]'.", "class": "api",
    "python": ("df = pd.DataFrame({'dataset': 'rte', 'metric': 'acc', 'system': ['A'] * 3 + ['B'] * 3,\n"
               "                   'item': ['a', 'b', 'c'] * 2,\n"
               "                   'value': [1.7e308, 1.6e308, 1.65e308, -1.7e308, -1.5e308, -1.6e308]})\n"
               "rg.compare(df)"),
    "expect": {"error": "CompareError", "mentions": ["'rte'", "'acc'", "'A' vs 'B'", r"re:e\+308"],
               "not_mentions": ["p-values must lie in"]}})
raw_case(359, "api-lazy-duckdb-times-1e300", None, {
    "description": "ranger_eval.lazy (DuckDB) on a Parquet file of scores × 1e300: the in-memory answer (sums of squares overflow in the sufficient statistics, so the group is tested in memory).", "class": "api",
    "python": ("pytest_duckdb = __import__('importlib').util.find_spec('duckdb')\n"
               "rng = np.random.default_rng(1)\n"
               "v = rng.normal(0.5, 0.1, (3, 15)); v[1] += 0.05\n"
               "df = pd.DataFrame({'dataset': 'd', 'metric': 'm', 'system': np.repeat(['A', 'B', 'C'], 15),\n"
               "                   'item': [f'i{i}' for i in range(15)] * 3, 'value': v.ravel() * 1e300})\n"
               "if pytest_duckdb is not None:\n"
               "    df.to_parquet(f'{tmp}/s.parquet')\n"
               "    lazy = __import__('ranger_eval.lazy', fromlist=['open_scores'])\n"
               "    got = lazy.open_scores(f'{tmp}/s.parquet').compare().table\n"
               "    want = rg.compare(df.assign(value=df['value'] / 1e300)).table\n"
               "    np.testing.assert_allclose(got['pvalue'], want['pvalue'], rtol=1e-12)\n"
               "    np.testing.assert_allclose(got['diff'] / 1e300, want['diff'], rtol=1e-9)\n"),
    "expect": {"ok": True}})
case(360, "compare-wilcoxon-at-float-max", "Wilcoxon on scores × 2^1020 (up to 1.79e308; some differences do not fit in float64): the p-values and differences of the unscaled scores (× 2^1020).", 2.0 ** 1020, "wilcoxon", timeout=90)
case(361, "compare-bootstrap-at-float-max", "Paired bootstrap on scores × 2^1019 (up to 8.9e307, squares overflow): the unscaled p-values.", 2.0 ** 1019, "bootstrap", ["--n-resamples", "999"], nres=999)
