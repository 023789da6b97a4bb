"""Generate setmetrics_oracle.json: set-level metrics, their paired bootstrap variance and exact
permutation p-values, computed by scikit-learn, scipy and sacrebleu (no ranger_eval).

Oracle for tests/test_setmetrics.py, tests/effects/test_bootstrap.py and
tests/comparison/test_compare_setmetrics.py. For every case (fixed data, stored in the JSON):

* ``values``: the metric of each system on all items: ``sklearn.metrics.accuracy_score``,
  ``f1_score`` (binary, ``pos_label``), ``f1_score(average="macro")``, ``matthews_corrcoef``,
  ``scipy.stats.pearsonr``/``spearmanr``/``kendalltau``, ``mean_absolute_error``,
  ``root_mean_squared_error``, ``sacrebleu.corpus_bleu`` / ``corpus_chrf`` (also
  ``word_order=2``) / ``corpus_ter``; lm-eval's likelihood aggregations as
  lm_eval/api/metrics.py (0.4.13) writes them, in plain Python: ``perplexity`` =
  ``math.exp(-(sum(ll) / len(ll)))``, ``weighted_perplexity`` = ``math.exp(-(sum(ll) / sum(n)))``,
  ``bits_per_byte`` = ``-(sum(ll) / sum(n)) / math.log(2)`` (labels = n, systems = ll),
  ``median`` = ``sorted(v)[len(v) // 2]`` (Ranger's ``upper_median``);
* ``boot_vi``: the variance (ddof = 1) over B paired bootstrap resamples of
  metric(treatment) − metric(control), each computed by the reference library on the resampled
  items. The resamples follow the documented stream of
  ``ranger_eval.stats.resampling.BootstrapIndices`` (re-implemented here): row r, item j is
  floor(u·n) with u the (r·n + j)-th draw of ``numpy.random.Generator(PCG64(seed)).random()``;
* ``perm_p`` (tiny n only): the exact two-sided paired permutation p-value, enumerating all 2^n
  swaps of the two systems' predictions with itertools:
  p = #{|T*| >= |T| - 1e-12} / 2^n.

Floats are written with ``repr`` (they read back exactly). The tests compare at rtol 1e-10.

Usage: python tests/oracles/setmetrics_oracle.py   (needs scikit-learn, scipy, sacrebleu)
"""
from __future__ import annotations

import itertools
import json
import math
from importlib.metadata import version
from pathlib import Path

import numpy as np
import sacrebleu
from scipy import stats
from sklearn import metrics as skm

HERE = Path(__file__).resolve().parent
B = 200
SEED = 7


def boot_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    u = np.random.Generator(np.random.PCG64(seed)).random(n_resamples * n).reshape(n_resamples, n)
    return np.minimum(np.floor(u * n).astype(np.int64), n - 1)


def reference(name: str, pos_label: object = 1):
    return {
        "accuracy": skm.accuracy_score,
        "f1": lambda y, p: skm.f1_score(y, p, pos_label=pos_label, zero_division=0),
        "macro_f1": lambda y, p: skm.f1_score(y, p, average="macro", zero_division=0),
        "mcc": skm.matthews_corrcoef,
        "pearson": lambda y, p: stats.pearsonr(y, p).statistic,
        "spearman": lambda y, p: stats.spearmanr(y, p).statistic,
        "kendall": lambda y, p: stats.kendalltau(y, p).statistic,
        "mae": skm.mean_absolute_error,
        "rmse": skm.root_mean_squared_error,
        "bleu": lambda y, p: sacrebleu.corpus_bleu(list(p), [list(y)]).score,
        "chrf": lambda y, p: sacrebleu.corpus_chrf(list(p), [list(y)]).score,
        "chrf++": lambda y, p: sacrebleu.corpus_chrf(list(p), [list(y)], word_order=2).score,
        "ter": lambda y, p: sacrebleu.corpus_ter(list(p), [list(y)]).score,
        "perplexity": lambda _y, ll: math.exp(-(sum(ll) / len(ll))),
        "weighted_perplexity": lambda n, ll: math.exp(-(sum(ll) / sum(n))),
        "bits_per_byte": lambda n, ll: -(sum(ll) / sum(n)) / math.log(2),
        "upper_median": lambda _y, v: sorted(v)[len(v) // 2],
    }[name]


def case(name: str, labels, treatment, control, metric_names, pos_label=1, perm=False) -> dict:
    y = np.asarray(labels, dtype=object)
    t = np.asarray(treatment, dtype=object)
    c = np.asarray(control, dtype=object)
    if all(isinstance(v, (int, float)) for v in labels):
        y, t, c = (np.asarray(a, dtype=float if any(isinstance(v, float) for v in a) else int)
                   for a in (labels, treatment, control))
    n = len(y)
    idx = boot_indices(n, B, SEED)
    out: dict = {"name": name, "labels": list(labels), "treatment": list(treatment),
                 "control": list(control), "pos_label": pos_label, "metrics": {}}
    for m in metric_names:
        f = reference(m, pos_label)
        vt, vc = float(f(y, t)), float(f(y, c))
        diffs = np.array([float(f(y[r], t[r])) - float(f(y[r], c[r])) for r in idx])
        entry = {"treatment": vt, "control": vc, "boot_vi": float(np.var(diffs, ddof=1)),
                 "boot_diff_mean": float(diffs.mean())}
        if perm:
            obs = vt - vc
            count = 0
            for bits in itertools.product((False, True), repeat=n):
                s = np.array(bits)
                a, b = np.where(s, c, t), np.where(s, t, c)
                count += abs(float(f(y, a)) - float(f(y, b))) >= abs(obs) - 1e-12
            entry["perm_p"] = count / 2.0**n
        out["metrics"][m] = entry
    return out


def main() -> None:
    rng = np.random.default_rng(20240611)
    cases = []
    # binary, n = 60
    y = rng.integers(0, 2, 60)
    t = np.where(rng.random(60) < 0.85, y, 1 - y)
    c = np.where(rng.random(60) < 0.7, y, 1 - y)
    cases.append(case("binary", y.tolist(), t.tolist(), c.tolist(),
                      ["accuracy", "f1", "macro_f1", "mcc"]))
    # multiclass (4 classes), n = 80; control never predicts class 3
    y = rng.integers(0, 4, 80)
    t = np.where(rng.random(80) < 0.7, y, rng.integers(0, 4, 80))
    c = np.where(rng.random(80) < 0.6, y, rng.integers(0, 3, 80))
    cases.append(case("multiclass", y.tolist(), t.tolist(), c.tolist(),
                      ["accuracy", "macro_f1", "mcc"]))
    # string classes; the treatment predicts a class ("maybe") that no label has
    classes = np.array(["no", "yes", "maybe"])
    y = classes[rng.integers(0, 2, 50)]
    t = np.where(rng.random(50) < 0.75, y, classes[rng.integers(0, 3, 50)])
    c = np.where(rng.random(50) < 0.65, y, classes[rng.integers(0, 2, 50)])
    cases.append(case("strings", y.tolist(), t.tolist(), c.tolist(),
                      ["accuracy", "macro_f1", "mcc"]))
    # string binary with a positive label
    y = classes[rng.integers(0, 2, 40)]
    t = np.where(rng.random(40) < 0.8, y, classes[rng.integers(0, 2, 40)])
    c = np.where(rng.random(40) < 0.6, y, classes[rng.integers(0, 2, 40)])
    cases.append(case("strings_binary", y.tolist(), t.tolist(), c.tolist(), ["f1"],
                      pos_label="yes"))
    # regression with ties (values rounded to one decimal), n = 45
    y = np.round(rng.normal(3.0, 1.0, 45), 1)
    t = np.round(y + rng.normal(0, 0.5, 45), 1)
    c = np.round(y + rng.normal(0, 0.9, 45), 1)
    cases.append(case("regression", y.tolist(), t.tolist(), c.tolist(),
                      ["pearson", "spearman", "kendall", "mae", "rmse"]))
    # tiny: exact permutation p-values (2^10 swaps)
    y = [0, 1, 1, 0, 1, 0, 0, 1, 1, 0]
    t = [0, 1, 1, 0, 1, 0, 1, 1, 1, 0]
    c = [1, 1, 0, 0, 0, 0, 1, 1, 0, 0]
    cases.append(case("tiny_binary", y, t, c, ["accuracy", "f1", "macro_f1", "mcc"], perm=True))
    y = [0, 2, 1, 1, 2, 0, 1, 2, 0]
    t = [0, 2, 1, 1, 1, 0, 1, 2, 0]
    c = [1, 2, 0, 1, 1, 0, 2, 2, 1]
    cases.append(case("tiny_multiclass", y, t, c, ["macro_f1", "mcc"], perm=True))
    y = [1.0, 2.5, 0.3, 4.1, 2.2, 3.3, 0.9, 1.7]
    t = [1.2, 2.1, 0.1, 3.9, 2.6, 3.0, 1.1, 1.5]
    c = [2.0, 1.1, 0.9, 3.0, 1.2, 3.9, 0.2, 2.5]
    cases.append(case("tiny_regression", y, t, c, ["pearson", "spearman", "kendall", "rmse"],
                      perm=True))
    # BLEU on a small corpus (one reference per sentence)
    refs = [
        "the cat sat on the mat", "a dog runs in the park today", "hello world",
        "it is raining heavily in the north", "we went to the market to buy fresh bread",
        "the meeting was postponed until next week", "she reads a book every night",
        "prices rose sharply after the announcement", "the train leaves at seven",
        "they won the final match", "please close the window", "the sky is blue and clear",
    ]
    hyp_t = [
        "the cat sat on a mat", "a dog runs in the park", "hello world",
        "it rains heavily in the north", "we went to market to buy bread",
        "the meeting was delayed until next week", "she reads one book each night",
        "prices rose sharply after announcement", "the train leaves at seven",
        "they won the final game", "close the window please", "the sky is clear and blue",
    ]
    hyp_c = [
        "cat on mat", "dog running park", "hello there world", "rain in north",
        "market bread", "meeting postponed", "she read book night", "prices rose",
        "train at seven", "they won", "close window", "blue sky",
    ]
    cases.append(case("bleu", refs, hyp_t, hyp_c, ["bleu"]))
    cases.append(case("text", refs, hyp_t, hyp_c, ["chrf", "chrf++", "ter"]))
    cases.append(case("tiny_text", refs[:8], hyp_t[:8], hyp_c[:8], ["chrf", "ter"], perm=True))
    # log-likelihoods (systems) and words per document (labels), n = 40
    lik = np.random.default_rng(18)
    n_words = lik.integers(1, 60, 40)
    ll_t = -lik.gamma(2.0, 1.5, 40) * n_words / 10
    ll_c = ll_t - lik.gamma(1.0, 1.0, 40)
    cases.append(case("likelihood", n_words.tolist(), ll_t.tolist(), ll_c.tolist(),
                      ["perplexity", "weighted_perplexity", "bits_per_byte", "upper_median"]))
    cases.append(case("tiny_likelihood", n_words[:10].tolist(), ll_t[:10].tolist(),
                      ll_c[:10].tolist(), ["perplexity", "weighted_perplexity", "bits_per_byte",
                                           "upper_median"], perm=True))
    out = {
        "generator": "tests/oracles/setmetrics_oracle.py",
        "versions": {p: version(p) for p in ("scikit-learn", "scipy", "sacrebleu", "numpy")},
        "n_resamples": B,
        "seed": SEED,
        "cases": cases,
    }
    path = HERE / "setmetrics_oracle.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
