"""Aggregating several metrics into one: standardised scores (IBM §6.1) and means (IBM §6.3).

Ackerman et al. (2025), *A statistical multi-metric evaluation framework*, §6:

* :func:`aggregate_metrics` — **§6.1, paired score samples.** Within one dataset every system is
  scored on the same items by K metrics. Each metric j is standardised by the mean
  :math:`\\bar V_{\\cdot,j}` and the sample standard deviation :math:`S_{\\cdot,j}` (ddof = 1) of
  the *pooled* observations of all systems, multiplied by :math:`I_j = \\pm 1` so that higher is
  better, and the metrics are averaged element-wise per item with weights :math:`w_j`
  (normalised to sum 1):

  .. math:: V_{b,\\mathrm{agg}}[i] = \\sum_j w_j\\, I_j\\,
            \\frac{V_{b,j}[i] - \\bar V_{\\cdot,j}}{S_{\\cdot,j}}

  The result is a new per-item metric (higher is better) that can be tested and plotted like any
  other; it is what the paper feeds to its pairwise tests in §7.2.

* :func:`standardized_means` — **§6.3, unpaired datasets known only by summaries** (mean, SD and
  size of every system's score sample on each dataset × metric list j):

  .. math:: \\hat S_{\\cdot,j} = \\sqrt{\\frac{\\sum_b (n_{b,j}-1) S_{b,j}^2}
                                          {\\sum_g n_{g,j} - B}},\\qquad
            \\tilde{\\bar V}_{b,j} = \\frac{\\bar V_{b,j} - \\bar V_{\\cdot,j}}
                                        {\\hat S_{\\cdot,j}\\sqrt{\\sum_b 1/n_{b,j}}},\\qquad
            \\dot V_b = \\sum_j w_j I_j \\tilde{\\bar V}_{b,j}

Both are exposed as plain functions of plain data; nothing here tests or ranks.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from numbers import Real

import numpy as np
import pandas as pd

from .._frames import as_frame
from ..design import refuse_prompts
from ..errors import AggregateError, Hint
from ..formatting import preview as _preview
from ..formatting import show as _show
from ..scores import CLUSTER, CLUSTER_NAME, Scores, as_scores

__all__ = [
    "HIGHER_IS_BETTER",
    "LOWER_IS_BETTER",
    "aggregate_metrics",
    "metric_direction",
    "standardized_means",
]

_LIMIT = 10  # ids listed in an error message

# ----------------------------------------------------------------------------- directions

#: Metric names (lower case, after the cutoff ``@k`` / ``(...)`` is removed) known to be better
#: when higher.
HIGHER_IS_BETTER: frozenset[str] = frozenset({
    # IR (ir_measures and trec_eval names)
    "ap", "map", "map_cut", "mrr", "rr", "recip_rank", "p", "r", "p_cut", "recall", "precision",
    "ndcg", "ndcg_cut", "dcg", "rprec", "r_prec", "bpref", "infap", "success", "hits", "hit",
    "hit_rate", "hitrate", "judged", "alpha_ndcg", "set_f",
    # classification / QA
    "accuracy", "acc", "acc_norm", "balanced_accuracy", "f1", "f1_score", "macro_f1", "micro_f1",
    "weighted_f1", "f", "fscore", "f_score", "f_measure", "exact_match", "em", "mcc", "auc",
    "roc_auc", "auroc", "pr_auc", "auprc", "average_precision", "kappa", "cohen_kappa",
    "specificity", "sensitivity", "tpr", "tnr", "top1", "top5", "top_1", "top_5",
    # generation
    "bleu", "sacrebleu", "rouge", "chrf", "chrf++", "bertscore", "bert_score", "meteor", "comet",
    "bleurt", "mauve", "cider", "spice", "pass", "pass_at", "win_rate", "winrate",
    # correlations
    "pearson", "spearman", "kendall", "r2",
})

#: Metric names known to be better when lower.
LOWER_IS_BETTER: frozenset[str] = frozenset({
    "error", "error_rate", "err_rate", "loss", "latency", "perplexity", "ppl", "word_perplexity",
    "byte_perplexity", "bits_per_byte", "bpb", "bpc", "wer", "cer", "ter", "time", "runtime",
    "duration", "cost", "rmse", "mae", "mse", "mape", "smape", "nll", "log_loss", "logloss",
    "cross_entropy", "brier", "brier_score", "ece", "edit_distance", "levenshtein", "fpr", "fnr",
    "eer", "hamming_loss",
})

#: Names whose prefix is enough (``rougeLsum``, ``bleu4``, ``bertscore_f1``, ``perplexity_val``).
_HIGHER_PREFIXES = (
    "ndcg", "rouge", "bleu", "sacrebleu", "chrf", "bertscore", "bert_score", "accuracy",
    "precision", "recall", "exact_match", "judged", "success", "pass_at", "meteor", "spearman",
    "pearson", "kendall", "map_cut", "recip_rank",
)
_LOWER_PREFIXES = ("perplexity", "latency", "runtime", "rmse", "log_loss", "error_rate")
#: A token of the name that makes it lower-is-better (``word_error_rate``, ``val_loss``).
_LOWER_TOKENS = frozenset({
    "error", "errors", "loss", "latency", "perplexity", "ppl", "time", "seconds", "ms", "cost",
    "runtime", "duration",
})


def _normalise(name: str) -> tuple[str, list[str]]:
    """``"nDCG@10"`` → ``("ndcg", ["ndcg"])``; ``"word-error rate"`` → ``("word_error_rate", …)``
    (lower case, cutoff removed, words joined by ``_``)."""
    head = re.split(r"[@(]", name.strip().lower(), maxsplit=1)[0]
    tokens = [t for t in re.split(r"[^a-z0-9+]+", head) if t]
    return "_".join(tokens), tokens


def metric_direction(metric: str) -> bool | None:
    """``True`` if ``metric`` is known to be better when higher, ``False`` if lower, else ``None``.

    Matching is case-insensitive and ignores a cutoff or parameter (``nDCG@10``, ``P(rel=2)@5``,
    ``pass@1``): the name is looked up in :data:`HIGHER_IS_BETTER` / :data:`LOWER_IS_BETTER`, then
    without a trailing number (``P_10``, ``ndcg_cut_10``, ``rouge1``, ``bleu4``), then by its
    first word, then by a known prefix (``rougeLsum``); a name with a word such as ``error``,
    ``loss``, ``time`` or ``latency`` (``word_error_rate``, ``val_loss``) is lower-is-better.
    A name that matches both ways (``accuracy_error``) or none (``score``, ``ERR`` — expected
    reciprocal rank or error?) gives ``None``: pass its direction explicitly.

    Parameters
    ----------
    metric : str
        A metric name as it appears in a scores table (any case, with or without a cutoff).

    Returns
    -------
    bool or None
        ``True`` higher is better, ``False`` lower is better, ``None`` unknown or ambiguous
        (also for a non-string ``metric``).

    Examples
    --------
    >>> from ranger_eval.aggregate.metrics import metric_direction
    >>> metric_direction("nDCG@10"), metric_direction("val_loss"), metric_direction("score")
    (True, False, None)
    """
    if not isinstance(metric, str):
        return None
    base, tokens = _normalise(metric)
    if not base:
        return None
    lowered = any(t in _LOWER_TOKENS for t in tokens)
    stripped = re.sub(r"_?\d+$", "", base)
    first = tokens[0]
    candidates = [base, stripped, first, re.sub(r"\d+$", "", first)]
    found: bool | None = None
    for c in candidates:
        if c in HIGHER_IS_BETTER:
            found = True
            break
        if c in LOWER_IS_BETTER:
            found = False
            break
    if found is None:
        if base.startswith(_LOWER_PREFIXES):
            found = False
        elif base.startswith(_HIGHER_PREFIXES):
            found = True
    if found is None:
        return False if lowered else None
    if found and lowered:
        return None  # contradictory words ("accuracy_error"): let the caller say
    return found


def _is_bool(value: object) -> bool:
    return isinstance(value, (bool, np.bool_))


def _directions(higher_is_better: object, metrics: list[str]) -> dict[str, bool]:
    """Direction of every metric: from ``higher_is_better`` (bool or mapping), else by name."""
    given: dict[str, bool] = {}
    if higher_is_better is None:
        pass
    elif _is_bool(higher_is_better):
        given = {m: bool(higher_is_better) for m in metrics}
    elif isinstance(higher_is_better, Mapping):
        for key, value in higher_is_better.items():
            if not _is_bool(value):
                raise AggregateError(
                    f"higher_is_better[{key!r}] must be True or False; got {value!r}"
                )
            given[str(key)] = bool(value)
    else:
        raise AggregateError(
            "higher_is_better must be a dict metric -> bool (or one bool for every metric); "
            f"got {higher_is_better!r}"
        )
    out: dict[str, bool] = {}
    unknown: list[str] = []
    for m in metrics:
        if m in given:
            out[m] = given[m]
            continue
        d = metric_direction(m)
        if d is None:
            unknown.append(m)
        else:
            out[m] = d
    if unknown:
        hint = Hint("higher_is_better", {m: True for m in unknown[:3]})
        raise AggregateError(
            f"unknown direction of metric(s) {', '.join(map(repr, unknown))}: cannot tell whether "
            f"higher is better; {hint.text} (False where lower is better)", hints=[hint]
        )
    return out


def _check_keys(argument: str, keys: object, metrics: list[str]) -> None:
    if isinstance(keys, Mapping):
        extra = [k for k in keys if k not in metrics]
        if extra:
            raise AggregateError(
                f"{argument} names unknown metric(s) {', '.join(map(repr, extra))}; "
                f"metrics: {', '.join(map(repr, metrics))}"
            )


def _metric_weights(weights: object, metrics: list[str]) -> dict[str, float]:
    if weights is None:
        return {m: 1.0 for m in metrics}
    if not isinstance(weights, Mapping):
        raise AggregateError(f"weights must be a dict metric -> weight; got {weights!r}")
    _check_keys("weights", weights, metrics)
    missing = [m for m in metrics if m not in weights]
    if missing:
        raise AggregateError(
            f"weights has no weight for metric(s) {', '.join(map(repr, missing))}; give every "
            "metric a weight (0 leaves a metric out)"
        )
    out: dict[str, float] = {}
    for m in metrics:
        w = weights[m]
        if _is_bool(w) or not isinstance(w, Real) or not math.isfinite(float(w)) or float(w) < 0:
            raise AggregateError(
                f"weights[{m!r}] must be a finite number >= 0; got {_show(w)}"
            )
        out[m] = float(w)
    if not any(w > 0 for w in out.values()):
        raise AggregateError(f"weights are all zero: {dict(weights)!r}; at least one must be > 0")
    return out


# ----------------------------------------------------------------------------- §6.1


def _codes(col: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes of an id column (in order of first appearance) and the ids.

    Tidy score tables come in blocks (one per system and metric), so the few runs of equal
    values are found by comparing neighbours and only the first value of each run is hashed;
    otherwise, or for non-Arrow strings, :func:`pandas.factorize`.
    """
    n = len(col)
    if n > 1 and getattr(col.dtype, "storage", None) == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = pa.array(col)
        same = pc.equal(arr.slice(1), arr.slice(0, n - 1)).to_numpy(zero_copy_only=False)
        if n - 1 - np.count_nonzero(same) < n // 8:
            starts = np.concatenate([[0], np.flatnonzero(~same) + 1])
            head, ids = pd.factorize(col.iloc[starts])
            return np.repeat(head.astype(np.int64), np.diff(np.append(starts, n))), ids
    codes, ids = pd.factorize(col)
    return codes.astype(np.int64, copy=False), ids


def _combine(a: np.ndarray, size_a: int, b: np.ndarray, size_b: int) -> tuple[np.ndarray, int]:
    """Codes of the pairs (a, b): ``a·size_b + b`` while that range stays small, else factorised
    (so the range never exceeds the number of rows and never overflows)."""
    size = size_a * size_b
    if size <= max(4 * a.size, 1 << 20):
        return a * size_b + b, size
    codes, uniques = pd.factorize(a * size_b + b)
    return codes.astype(np.int64, copy=False), len(uniques)


def _first_rows(codes: np.ndarray, size: int) -> np.ndarray:
    """Index of the first row of every code (−1 for absent codes)."""
    first = np.full(size, -1, dtype=np.int64)
    first[codes[::-1]] = np.arange(codes.size - 1, -1, -1, dtype=np.int64)
    return first


#: The block layout is used when there are at most this many blocks, of at least _MIN_BLOCK rows
#: on average (else hashing the item ids is as fast).
_MAX_BLOCKS = 20_000
_MIN_BLOCK = 8


def _paired_blocks(
    group: np.ndarray, metric: np.ndarray, n_metrics: np.ndarray, items: pd.Series
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Fast pairing for the usual layout; ``None`` when it does not apply.

    ``group`` codes (dataset, system[, seed]) and ``metric`` the metric of every row;
    ``n_metrics[r]`` is the number of metrics of row r's dataset. The layout applies when the
    rows form few contiguous blocks, one per (group, metric), and the blocks of a group list the
    same items in the same order. Returns the blocks' ``starts`` and ``lengths`` and, for every
    block, the index of the first block of its group (where the aggregate is written).
    """
    n = group.size
    change = np.empty(n, dtype=bool)
    change[0] = True
    np.not_equal(group[1:], group[:-1], out=change[1:])
    change[1:] |= metric[1:] != metric[:-1]
    starts = np.flatnonzero(change)
    if starts.size > _MAX_BLOCKS or _MIN_BLOCK * starts.size > n:
        return None
    lengths = np.diff(np.append(starts, n))
    g_codes, g_ids = pd.factorize(group[starts])
    g_codes = g_codes.astype(np.int64)
    if np.unique(g_codes * int(metric.max() + 1) + metric[starts]).size != starts.size:
        return None  # a (group, metric) split over several blocks
    first_of_group = _first_rows(g_codes, len(g_ids))
    if (np.bincount(g_codes) != n_metrics[starts[first_of_group]]).any():
        return None  # some group lacks a metric: the general path says which
    first = first_of_group[g_codes]  # first block of each block's group
    if (lengths != lengths[first]).any():
        return None
    others = np.flatnonzero(first != np.arange(starts.size))
    if getattr(items.dtype, "storage", None) == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = pa.array(items)
        for b in others:
            a, f, length = int(starts[b]), int(starts[first[b]]), int(lengths[b])
            if not pc.all(pc.equal(arr.slice(a, length), arr.slice(f, length))).as_py():
                return None
    else:
        values = items.to_numpy()
        for b in others:
            a, f, length = int(starts[b]), int(starts[first[b]]), int(lengths[b])
            if not np.array_equal(values[a:a + length], values[f:f + length]):
                return None
    return starts, lengths, first


def aggregate_metrics(
    scores: Scores | pd.DataFrame,
    *,
    weights: Mapping[str, float] | None = None,
    higher_is_better: Mapping[str, bool] | bool | None = None,
    name: str = "aggregate",
) -> Scores:
    """One standardised aggregate metric per dataset from paired per-item metrics (IBM §6.1).

    Within each dataset, every metric's values are standardised by the mean and the sample SD
    (ddof = 1) of the **pooled** observations of all systems (and seeds) on that dataset, signed
    so that higher is better, and averaged per (system, item[, seed]) with the metric weights
    normalised to sum 1 over the metrics of that dataset::

        aggregate[b, i] = Σ_j w_j · I_j · (V[b, j, i] − mean_j) / sd_j,   Σ_j w_j = 1

    Source: Ackerman et al. (2025), *A statistical multi-metric evaluation framework*, §6.1.
    The aggregate is better when higher, has (pooled) mean 0, and is unchanged by a positive
    affine rescaling ``a·x + b`` of any metric.

    Parameters
    ----------
    scores
        Per-item scores with several metrics (a :class:`~ranger_eval.scores.Scores` or a tidy
        DataFrame it accepts). Datasets may have different metrics; each dataset aggregates the
        metrics it has.
    weights
        ``{metric: weight >= 0}`` for **every** metric (a weight of 0 leaves the metric out);
        default equal weights. Weights are normalised to sum 1 within each dataset.
    higher_is_better
        ``{metric: bool}`` (or one bool for all metrics). Metrics not listed take their direction
        from their name (:func:`metric_direction`: ``nDCG@10``, ``AP``, ``accuracy`` … higher;
        ``latency``, ``perplexity``, ``WER``, ``loss`` … lower); an unknown name is an error.
    name
        Metric name of the result.

    Returns
    -------
    Scores
        Columns ``dataset, system, metric (= name), item, value`` and ``seed`` if the input had
        seeds (``cluster`` if it had clusters: the design, :mod:`ranger_eval.design`, is kept); one row per (dataset, system, item[, seed]), in the order of their first
        appearance in ``scores``. Other (metadata) columns are not carried over.

    Raises
    ------
    AggregateError
        Unknown direction or bad weights; a system without some metric of its dataset; items
        not the same for every metric of a (dataset, system[, seed]) — the pairing §6.1 needs —
        (up to 10 item ids listed); a metric with fewer than 2 observations in a dataset or the
        same value for every observation (its pooled SD is 0, so it cannot be standardised and
        says nothing about the systems: give it weight 0 or drop its rows for that dataset).

    Notes
    -----
    Vectorised over integer codes of the id columns (``numpy.bincount`` per group). The pooled
    mean and variance use a compensated two-pass algorithm (the mean is corrected by the mean
    residual), which agrees with ``scipy.stats.zscore(ddof=1)`` to ~1e-15. When the rows come
    in blocks per (dataset, system[, seed], metric) listing the same items in the same order,
    items are matched by comparing the blocks; otherwise by hashing the item ids.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> df = pd.DataFrame({"dataset": "d", "metric": ["acc"] * 8 + ["f1"] * 8,
    ...                    "item": list(range(4)) * 4, "system": (["A"] * 4 + ["B"] * 4) * 2,
    ...                    "value": [.8, .6, .9, .5, .7, .5, .8, .6, .7, .5, .8, .4, .6, .5, .7, .4]})
    >>> agg = rg.aggregate_metrics(df)
    >>> agg.metrics, agg.frame.groupby("system")["value"].mean().round(4).to_dict()
    (('aggregate',), {'A': 0.168, 'B': -0.168})
    """
    if not isinstance(name, str) or not name.strip():
        raise AggregateError(f"name must be a non-empty string; got {name!r}")
    scores = as_scores(scores, what="aggregate_metrics", error=AggregateError)
    refuse_prompts(scores, where="aggregate_metrics", error=AggregateError,
                   why="the aggregate metric is computed per item (one row per item)")
    df = scores.frame
    m_codes, m_names = _codes(df["metric"])
    metrics = [str(m) for m in m_names]
    _check_keys("higher_is_better", higher_is_better, metrics)
    w = _metric_weights(weights, metrics)
    sign = _directions(higher_is_better, [m for m in metrics if w[m] > 0])
    d_codes, d_names = _codes(df["dataset"])
    nd, nm = len(d_names), len(metrics)
    w_m = np.array([w[m] for m in metrics])
    if (w_m == 0).any():  # weight 0: the metric is left out
        keep = w_m[m_codes] > 0
        left = np.setdiff1d(np.arange(nd), d_codes[keep])
        if left.size:
            here = sorted({metrics[j] for j in m_codes[d_codes == left[0]]})
            raise AggregateError(
                f"dataset {str(d_names[left[0]])!r} has only metrics of weight 0 "
                f"({', '.join(map(repr, here))}): nothing to aggregate there"
            )
        rows_kept = np.flatnonzero(keep)
        df = df.iloc[rows_kept].reset_index(drop=True)
        m_codes, d_codes = m_codes[rows_kept], d_codes[rows_kept]
    s_codes, s_names = _codes(df["system"])
    has_seed = "seed" in df.columns
    x = df["value"].to_numpy(dtype=np.float64)

    # ---- pooled mean and SD of every (dataset, metric): compensated two-pass
    n_g = nd * nm
    g = d_codes * nm + m_codes
    cnt = np.bincount(g, minlength=n_g)
    safe = np.maximum(cnt, 1)
    mean = np.bincount(g, weights=x, minlength=n_g) / safe
    dev = x - mean[g]
    corr = np.bincount(g, weights=dev, minlength=n_g) / safe
    ss = np.bincount(g, weights=dev * dev, minlength=n_g) - cnt * corr * corr
    present = cnt > 0
    single = np.flatnonzero(present & (cnt < 2))
    if single.size:
        k = int(single[0])
        raise AggregateError(
            f"metric {metrics[k % nm]!r} has a single observation on dataset "
            f"{str(d_names[k // nm])!r}; its pooled standard deviation is undefined"
        )
    # a constant metric has ss ≈ 0 up to rounding; confirm exactly where the spread is tiny
    tiny = present & (ss <= (1e-20 * (mean + corr) ** 2 + 1e-300) * cnt)
    if tiny.any():
        first_g = _first_rows(g, n_g)
        rows_t = np.flatnonzero(tiny[g])
        varies = np.zeros(n_g, dtype=bool)
        varies[g[rows_t][x[rows_t] != x[first_g[g[rows_t]]]]] = True
        constant = np.flatnonzero(tiny & ~varies)
    else:
        constant = np.empty(0, dtype=np.int64)
    if constant.size:
        k = int(constant[0])
        raise AggregateError(
            f"metric {metrics[k % nm]!r} has the same value {_show(x[first_g[k]])} for every "
            f"system and item of dataset {str(d_names[k // nm])!r}: its pooled standard deviation "
            "is 0, so it cannot be standardised (it does not separate the systems); give it "
            "weight 0 or drop its rows for that dataset"
        )
    sd = np.sqrt(np.maximum(ss, 0.0) / np.maximum(cnt - 1, 1))

    # ---- weights normalised within each dataset over the metrics it has; signs
    present2 = present.reshape(nd, nm)
    w_dm = present2 * w_m
    w_dm = (w_dm / w_dm.sum(axis=1, keepdims=True)).ravel()
    i_m = np.array([1.0 if sign.get(m, True) else -1.0 for m in metrics])
    factor = np.where(present, w_dm * np.tile(i_m, nd) / np.where(present, sd, 1.0), 0.0)

    # ---- pairing: every (dataset, system[, seed], item) has every metric of its dataset
    n_metrics_d = present2.sum(axis=1)
    group, n_group = _combine(d_codes, nd, s_codes, len(s_names))
    if has_seed:
        e_codes, e_names = _codes(df["seed"])
        group, n_group = _combine(group, n_group, e_codes, len(e_names))
    blocks = _paired_blocks(group, m_codes, n_metrics_d[d_codes], df["item"])
    if blocks is not None:  # rows in blocks: sum each group's blocks into its first block
        starts, lengths, first = blocks
        acc = np.zeros(x.size)
        for b, (a, length) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
            f, k = int(starts[first[b]]), int(g[a])
            acc[f:f + length] += (dev[a:a + length] - corr[k]) * factor[k]
        is_first = first == np.arange(starts.size)
        rows = np.flatnonzero(np.repeat(is_first, lengths))
        values = acc[rows]
    else:
        contrib = (dev - corr[g]) * factor[g]
        i_codes, i_names = _codes(df["item"])
        key, n_key = _combine(group, n_group, i_codes, len(i_names))
        key_cnt = np.bincount(key, minlength=n_key)
        bad = key_cnt[key] != n_metrics_d[d_codes]
        if bad.any():
            _raise_unpaired(df, bad, d_codes, metrics, present2, has_seed)
        agg = np.bincount(key, weights=contrib, minlength=n_key)
        first = _first_rows(key, n_key)
        rows = np.sort(first[first >= 0])
        values = agg[key[rows]]
    # the item's cluster stays with it (the design's resampling unit, ranger_eval.design)
    cols = ["dataset", "system", "item"] + (["seed"] if has_seed else []) + \
        ([CLUSTER] if CLUSTER in df.columns else [])
    out = df.iloc[rows][cols].reset_index(drop=True)
    if CLUSTER in df.columns and scores.cluster_name is not None:
        out.attrs[CLUSTER_NAME] = scores.cluster_name
    out.insert(2, "metric", name)
    out["value"] = values
    return Scores(out)


def _raise_unpaired(
    df: pd.DataFrame,
    bad: np.ndarray,
    d_codes: np.ndarray,
    m_list: list[str],
    present2: np.ndarray,
    has_seed: bool,
) -> None:
    """Raise the pairing error for the first (dataset, system[, seed]) whose items differ."""
    sub = df.loc[bad, [c for c in ("dataset", "system", "seed", "item", "metric")
                       if c in df.columns]]
    row0 = sub.iloc[0]
    where = (sub["dataset"] == row0["dataset"]) & (sub["system"] == row0["system"])
    if has_seed:
        where &= sub["seed"] == row0["seed"]
    block = sub[where]
    d = int(d_codes[np.flatnonzero(bad)[0]])
    dataset_metrics = [m_list[j] for j in np.flatnonzero(present2[d])]
    seed = f" (seed {row0['seed']!r})" if has_seed else ""
    # a metric the system lacks entirely on this dataset
    sys_rows = (df["dataset"] == row0["dataset"]) & (df["system"] == row0["system"])
    sys_metrics = set(df.loc[sys_rows, "metric"])
    lacking = [m for m in dataset_metrics if m not in sys_metrics]
    if lacking:
        raise AggregateError(
            f"system {row0['system']!r} has no {', '.join(map(repr, lacking))} scores on dataset "
            f"{row0['dataset']!r}, which has metrics {', '.join(map(repr, dataset_metrics))}; "
            "every system needs every metric of its dataset to aggregate them item by item"
        )
    per_item = block.groupby("item", sort=False)["metric"].agg(frozenset)
    shown = [
        f"{item!r} (no {', '.join(repr(m) for m in dataset_metrics if m not in ms)})"
        for item, ms in per_item.head(_LIMIT).items()
    ]
    more = len(per_item) - len(shown)
    raise AggregateError(
        f"items of system {row0['system']!r}{seed} on dataset {row0['dataset']!r} are not the "
        f"same for every metric ({', '.join(map(repr, dataset_metrics))}): {len(per_item)} "
        f"item(s) lack a value for some metric: {', '.join(shown)}"
        + (f", … ({more} more)" if more > 0 else "")
        + "; §6.1 aggregates paired values, item by item"
    )


# ----------------------------------------------------------------------------- §6.3

SCALES = ("se", "sd")


def standardized_means(
    summary: pd.DataFrame,
    *,
    higher_is_better: Mapping[str, bool] | bool | None = None,
    scale: str = "se",
) -> pd.Series:
    """Standardised aggregate means of systems over unpaired datasets from summaries (IBM §6.3).

    ``summary`` has one row per (dataset[, metric], system) with columns ``dataset, system,
    mean, sd, n`` and optionally ``metric``, ``weight`` (weight of the dataset[ × metric] list,
    the same for all its systems; default equal) and ``higher_is_better`` (bool, the same for
    all systems of a list). Each (dataset, metric) is a score sample list j of the paper with
    systems b = 1..B, and (Ackerman et al. 2025, §6.3, steps 1-3):

    * pooled SD  ``S_j = sqrt( Σ_b (n_bj − 1)·sd_bj² / (Σ_b n_bj − B) )``
    * standardised mean  ``z_bj = (mean_bj − M_j) / (S_j · sqrt(Σ_b 1/n_bj))`` — the paper
      standardises by the denominator of the independent-samples t-test, ``S_j·sqrt(Σ_b 1/n_bj)``
      (``scale="se"``, the default). ``M_j = Σ_b n_bj·mean_bj / Σ_b n_bj`` is the mean of the
      pooled observations (the paper only says "standardize"; §6.1 centres at the pooled mean).
      ``scale="sd"`` divides by ``S_j`` alone (a Cohen's-d-like scale, comparable to §6.1).
    * aggregate  ``V_b = Σ_j w_j · I_j · z_bj`` with ``Σ_j w_j = 1`` and ``I_j = ±1`` so that
      higher is better.

    Every system must appear in every list, so the centring ``M_j`` shifts all ``V_b`` by the
    same amount and does not change the order. With two systems and one list, ``z_1j − z_2j`` is
    Student's two-sample t statistic.

    ``higher_is_better``: direction for lists without a ``higher_is_better`` column, as a bool or
    ``{metric: bool}``; else the direction comes from the metric name (:func:`metric_direction`).

    Parameters
    ----------
    summary : pandas.DataFrame
        One row per (dataset[, metric], system): ``dataset, system, mean, sd, n`` [, ``metric``,
        ``weight``, ``higher_is_better``].
    higher_is_better : mapping of str to bool or bool, optional
        Direction for lists without a ``higher_is_better`` column.
    scale : {"se", "sd"}, default "se"
        Standardise by the t-test denominator or by the pooled SD.

    Returns
    -------
    pandas.Series
        Indexed by system, sorted descending (ties keep the order of first appearance), named
        ``"standardized_mean"``.

    Raises
    ------
    AggregateError
        Missing columns, a system absent from a list, or no known direction.

    References
    ----------
    Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025), "Statistical multi-metric evaluation
    and visualization of LLM system predictive performance", IBM Research, §6.3.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> summary = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2"], "system": ["A", "B"] * 2,
    ...                         "mean": [.8, .7, .6, .65], "sd": [.1, .1, .2, .2],
    ...                         "n": [50, 50, 40, 40]})
    >>> rg.standardized_means(summary, higher_is_better=True).round(4).to_dict()
    {'A': 0.9705, 'B': -0.9705}
    """
    summary = as_frame(summary, what="standardized_means", error=AggregateError,
                       index_columns=("dataset", "metric", "system"))
    if scale not in SCALES:
        raise AggregateError(f"scale must be one of {', '.join(map(repr, SCALES))}; got {scale!r}")
    need = ["dataset", "system", "mean", "sd", "n"]
    missing = [c for c in need if c not in summary.columns]
    if missing:
        raise AggregateError(
            f"summary is missing column(s) {', '.join(missing)}; have: "
            f"{', '.join(map(str, summary.columns))}"
        )
    if summary.empty:
        raise AggregateError("summary is empty")
    df = summary.copy()
    has_metric = "metric" in df.columns
    for col in ("dataset", "system") + (("metric",) if has_metric else ()):
        if df[col].isna().any():
            r = int(np.flatnonzero(df[col].isna().to_numpy())[0])
            raise AggregateError(f"summary has an empty {col!r} at row {r}")
        df[col] = df[col].astype(str)
    if not has_metric:
        df["metric"] = ""
    lists = ["dataset", "metric"]

    def where(r: int) -> str:
        row = df.iloc[r]
        m = f", metric {row['metric']!r}" if has_metric else ""
        return f"(dataset {row['dataset']!r}{m}, system {row['system']!r}, row {r})"

    for col in ("mean", "sd", "n"):
        num = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(num)
        if col == "sd":
            bad |= num < 0
        if col == "n":
            bad |= (num < 2) | (num != np.round(num))
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            rule = {"mean": "a finite number", "sd": "a finite number >= 0",
                    "n": "an integer >= 2"}[col]
            raise AggregateError(
                f"summary column {col!r} must be {rule}; got {_show(df[col].iloc[r])} {where(r)}"
            )
        df[col] = num
    # every list (dataset × metric) and system as integer codes in order of first appearance:
    # one factorisation per column, the rest is array work (a million datasets)
    d_code, _ = pd.factorize(df["dataset"])
    m_code, m_ids = pd.factorize(df["metric"])
    s_code, s_ids = pd.factorize(df["system"])
    list_code, _ = pd.factorize(d_code.astype(np.int64) * len(m_ids) + m_code)
    n_lists = int(list_code.max()) + 1
    first = np.full(n_lists, len(df), dtype=np.int64)  # each list's first row
    np.minimum.at(first, list_code, np.arange(len(df)))
    key = np.sort(list_code.astype(np.int64) * len(s_ids) + s_code)  # sorted, not hashed
    if (key[1:] == key[:-1]).any():
        dup = df.duplicated(lists + ["system"], keep=False)
        r = int(np.flatnonzero(dup.to_numpy())[0])
        raise AggregateError(f"summary has {int(dup.sum())} duplicated rows, e.g. {where(r)}")

    systems = s_ids.tolist()
    # no repeated (list, system): a list lacks a system iff it has fewer rows than systems
    short = np.flatnonzero(np.bincount(list_code, minlength=n_lists) < len(systems))
    if short.size:
        rows = np.flatnonzero(list_code == short[0])
        dataset, metric = df["dataset"].iloc[rows[0]], df["metric"].iloc[rows[0]]
        have = set(df["system"].iloc[rows])
        lacking = [s for s in systems if s not in have]
        m = f", metric {metric!r}" if has_metric else ""
        raise AggregateError(
            f"system(s) {_preview(lacking)} have no summary on dataset {dataset!r}{m}; every "
            "system needs a summary in every dataset (§6.3 sums over all of them)"
        )

    def per_list(col: str, check: type) -> np.ndarray:
        """The value of ``col`` of each list (the same for all its systems), in list order."""
        values = df[col].to_numpy()
        kind = values.dtype.kind
        if (kind == "b") if check is bool else (kind in "iuf"):  # plain arrays: no Python per list
            own = values[first][list_code]
            same = (values == own) | (pd.isna(values) & pd.isna(own))
            uneven = np.zeros(n_lists, dtype=bool)
            uneven[list_code[~same]] = True
            invalid = np.zeros(n_lists, dtype=bool) if check is bool else \
                ~(np.isfinite(values[first]) & (values[first] >= 0))
            bad = np.flatnonzero(uneven | invalid)
            if not bad.size:
                return values[first]
            rows = np.flatnonzero(list_code == bad[0])
            checked = {(df["dataset"].iloc[rows[0]], df["metric"].iloc[rows[0]]):
                       list(pd.unique(values[rows]))}.items()
        else:
            checked = df.groupby(lists, sort=False)[col].agg(lambda v: list(pd.unique(v))).items()
        out = []
        for (dataset, metric), vals in checked:
            m = f", metric {metric!r}" if has_metric else ""
            if len(vals) != 1:
                raise AggregateError(
                    f"summary column {col!r} must be the same for every system of dataset "
                    f"{dataset!r}{m}; got [{', '.join(map(_show, vals))}]"
                )
            v = vals[0]
            ok = _is_bool(v) if check is bool else (
                not _is_bool(v) and isinstance(v, Real) and math.isfinite(float(v))
                and float(v) >= 0
            )
            if not ok:
                rule = "True or False" if check is bool else "a finite number >= 0"
                raise AggregateError(
                    f"summary column {col!r} must be {rule}; got {_show(v)} "
                    f"(dataset {dataset!r}{m})"
                )
            out.append(v)
        return np.asarray(out)

    if "weight" in df.columns:
        w = per_list("weight", float).astype(float)
        if not (w > 0).any():
            raise AggregateError("summary weights are all zero; at least one must be > 0")
    else:
        w = np.full(n_lists, 1.0)
    w = w / w.sum()

    if "higher_is_better" in df.columns:
        if higher_is_better is not None:
            raise AggregateError(
                "give the direction either as the 'higher_is_better' column of summary or as the "
                "higher_is_better argument, not both"
            )
        hib = per_list("higher_is_better", bool).astype(bool)
    else:
        if not has_metric and higher_is_better is None:
            hint = Hint("higher_is_better", True)
            raise AggregateError(
                "cannot tell whether higher is better: summary has neither a 'metric' nor a "
                f"'higher_is_better' column; {hint.text} (or False)", hints=[hint]
            )
        names = m_ids.tolist()
        if not has_metric:
            if not _is_bool(higher_is_better):
                raise AggregateError(
                    f"higher_is_better must be True or False without a 'metric' column; "
                    f"got {higher_is_better!r}"
                )
            direction = {"": bool(higher_is_better)}
        else:
            _check_keys("higher_is_better", higher_is_better, names)
            direction = _directions(higher_is_better, names)
        hib = np.array([direction[m] for m in names], dtype=bool)[m_code[first]]

    # pooled SD, centre and scale of every list: one grouped sum over the list codes (pandas'
    # compensated sum, rows in order), lists in order of first appearance
    n = df["n"]
    stats = pd.DataFrame({
        "ss": (n - 1) * df["sd"] ** 2, "df": n - 1, "nsum": n, "nmean": n * df["mean"],
        "inv_n": 1.0 / n,
    }).groupby(list_code, sort=False).sum()
    pooled = np.sqrt(stats["ss"].to_numpy() / stats["df"].to_numpy())
    zero = np.flatnonzero(~(pooled > 0))
    if zero.size:
        dataset, metric = df["dataset"].iloc[first[zero[0]]], df["metric"].iloc[first[zero[0]]]
        m = f", metric {metric!r}" if has_metric else ""
        raise AggregateError(
            f"pooled standard deviation is 0 on dataset {dataset!r}{m} (every sd is 0): the "
            "means cannot be standardised"
        )
    denom = pooled * (np.sqrt(stats["inv_n"].to_numpy()) if scale == "se" else 1.0)
    centre = stats["nmean"].to_numpy() / stats["nsum"].to_numpy()
    coef = w * np.where(hib, 1.0, -1.0) / denom
    z = (df["mean"].to_numpy() - centre[list_code]) * coef[list_code]
    sums = pd.Series(z).groupby(s_code, sort=False).sum()  # systems in order of first appearance
    total = pd.Series(sums.to_numpy(), index=pd.Index(systems))
    order = np.argsort(-total.to_numpy(), kind="stable")
    out = total.iloc[order]
    out.index.name = "system"
    out.name = "standardized_mean"
    return out
