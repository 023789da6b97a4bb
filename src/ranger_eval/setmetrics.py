"""Set-level metrics: metrics of a whole test set that are not means of per-item scores.

F1, MCC, correlations or corpus BLEU are computed from the vectors of gold ``label`` and system
``prediction`` of all items at once, so the effect of a treatment over a control on such a metric,
its variance and its significance come from resampling the items (:func:`bootstrap_values`,
:func:`permutation_statistics`; used by :func:`ranger_eval.effects.effect_sizes` and
:func:`ranger_eval.compare` with ``metric_fn=``).

Named metrics (:data:`NAMES`), each checked against scikit-learn, scipy or sacrebleu in the tests:

=============  ==================================================================  =========================
name           definition (n items, classes from the labels and predictions)       reference
=============  ==================================================================  =========================
``accuracy``   share of items with prediction == label                             ``sklearn.metrics.accuracy_score``
``f1``         binary F1 of the positive class (``pos_label``, default 1):         ``f1_score(average="binary")``
               2·TP / (2·TP + FP + FN); 0 when the class never occurs
``macro_f1``   unweighted mean of the per-class F1 over the classes that occur     ``f1_score(average="macro")``
               in the labels or the predictions
``mcc``        Matthews / Gorodkin R_K correlation (multiclass):                   ``matthews_corrcoef``
               (c·s − Σ t_k p_k) / sqrt((s² − Σ p_k²)(s² − Σ t_k²)); 0 when a
               denominator factor is 0
``pearson``    Pearson's r of label and prediction (numeric)                       ``scipy.stats.pearsonr``
``spearman``   Spearman's rho (Pearson's r of average ranks)                       ``scipy.stats.spearmanr``
``kendall``    Kendall's tau-b                                                     ``scipy.stats.kendalltau``
``mae``        mean |label − prediction| (lower is better)                         ``mean_absolute_error``
``rmse``       sqrt(mean (label − prediction)²) (lower is better)                  ``root_mean_squared_error``
``bleu``       corpus BLEU of the predictions against one reference (the label)    ``sacrebleu.corpus_bleu``
               per item, sacrebleu's defaults (13a tokens, exp smoothing); needs
               sacrebleu installed
``chrf``       corpus chrF (character 6-grams, β = 2) of the predictions against   ``sacrebleu.corpus_chrf``
               one reference (the label) per item, sacrebleu's defaults
``chrf++``     corpus chrF++: chrF with word 1- and 2-grams (``word_order=2``)     ``corpus_chrf(word_order=2)``
``ter``        corpus translation edit rate, 100·Σ edits / Σ reference words      ``sacrebleu.corpus_ter``
               (lower is better)
``perplexity`` exp(−mean of the per-item ``value``), the values being             lm-eval ``perplexity``
               log-likelihoods (lower is better)
``weighted_    exp(−Σ prediction / Σ label): prediction = an item's                lm-eval
perplexity``   log-likelihood, label = its number of words or bytes (a property    ``weighted_perplexity``
               of the document, so the same for every system; lower is better)
``bits_per_    −Σ prediction / (Σ label · ln 2), prediction and label as for       lm-eval ``bits_per_byte``
byte``         ``weighted_perplexity`` (label = bytes; lower is better)
``upper_       the ⌊n/2⌋-th smallest per-item ``value`` (0-based): the median for  lm-eval ``median``
median``       odd n, the upper of the two middle values for even n
=============  ==================================================================  =========================

The last four are lm-eval's aggregations (lm_eval/api/metrics.py, 0.4.13:
``perplexity`` = ``math.exp(-mean(items))``, ``weighted_perplexity`` =
``math.exp(-sum(ll) / sum(n))``, ``bits_per_byte`` = ``-sum(ll) / sum(n) / math.log(2)``,
``median`` = ``sorted(arr)[len(arr) // 2]``); lm-eval
computes ``chrf``, ``chrf++`` and ``ter`` with sacrebleu's ``corpus_chrf`` / ``corpus_ter`` on one
reference per item, as here.

A callable is accepted too: ``fn(labels, predictions) -> float`` (two required positional
parameters, e.g. ``sklearn.metrics.f1_score``) or ``fn(values) -> float`` (one, e.g.
``numpy.median``; it receives the per-item ``value`` column). :func:`custom` wraps a callable
with an explicit name, input kind and direction.

Resampling representation. The runs (system × seed) of one comparison are encoded together on
the same n items (:func:`encode`): labels once, the predictions of run r stacked at positions
r·n … r·n + n − 1. A resample is a pair of index matrices (L, P), rows = resamples: the items whose
labels are used and the stacked positions of the predictions. The bootstrap draws
L = :class:`~ranger_eval.stats.resampling.BootstrapIndices` rows and P = r·n + L; the paired
permutation test keeps L = 0 … n − 1 and swaps the two systems' predictions of item i where the
:class:`~ranger_eval.stats.resampling.SignFlips` bit is set. Every named metric is evaluated on
all rows of a batch at once (confusion counts by one ``bincount`` of row·K + class; correlations
by row-wise sums; Spearman by ranks from tie-group counts, no sorting; Kendall's tau by
pair-sign products up to 256 items); Kendall's tau of more items and callables loop over rows.

Undefined values (a correlation of a constant vector) are NaN here; the calling layer turns them
into an error naming the dataset, system and metric.

Extreme values: correlations are computed on each row of labels and of predictions times its own
power of two, MAE and RMSE on labels and predictions times a common one (exact,
:mod:`ranger_eval.stats._scale`), then scaled back, so the metrics of values × 1e-300 or near
1e308 are those of the unscaled values (× the factor for MAE/RMSE); an MAE or RMSE beyond float64
is ``inf``, which the calling layer reports as undefined by name.
"""
from __future__ import annotations

import importlib
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .errors import EffectSizeError, RangerError, suggest
from .stats._scale import row_exponents, scaled_rows
from .stats.many import ranks_from_codes
from .stats.resampling import BootstrapIndices, SignFlips

__all__ = [
    "NAMES",
    "EncodedRuns",
    "SetMetric",
    "bootstrap_values",
    "cluster_bootstrap_values",
    "compute",
    "undefined_resamples",
    "custom",
    "encode",
    "get_metric",
    "metric",
    "permutation_statistics",
]

#: The named metrics.
NAMES: tuple[str, ...] = (
    "accuracy", "f1", "macro_f1", "mcc", "pearson", "spearman", "kendall", "mae", "rmse", "bleu",
    "chrf", "chrf++", "ter", "perplexity", "weighted_perplexity", "bits_per_byte",
    "upper_median",
)
_KIND = {
    "accuracy": "classification", "f1": "classification", "macro_f1": "classification",
    "mcc": "classification", "pearson": "regression", "spearman": "regression",
    "kendall": "regression", "mae": "regression", "rmse": "regression", "bleu": "text",
    "chrf": "text", "chrf++": "text", "ter": "text", "perplexity": "likelihood",
    "weighted_perplexity": "likelihood", "bits_per_byte": "likelihood",
    "upper_median": "likelihood",
}
_LOWER_IS_BETTER = frozenset({
    "mae", "rmse", "ter", "perplexity", "weighted_perplexity", "bits_per_byte",
})
#: Named metrics computed from the per-item ``value`` column alone (no labels/predictions).
_VALUE_METRICS = frozenset({"perplexity", "upper_median"})
INPUTS: tuple[str, ...] = ("label-prediction", "values")
_BATCH_BYTES = 64 * 2**20
_EPS = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class SetMetric:
    """A set-level metric: a named one (:data:`NAMES`) or a user callable.

    ``inputs`` is ``"label-prediction"`` (computed from the items' labels and predictions) or
    ``"values"`` (from the per-item ``value`` column); ``higher_is_better`` is informative only
    (effects are always treatment − control). ``pos_label`` is the positive class of ``"f1"``.
    Calling the metric computes it on one system: ``m(labels, predictions)`` or ``m(values)``.
    """

    name: str
    inputs: str = "label-prediction"
    kind: str = "custom"
    higher_is_better: bool = True
    fn: Callable[..., Any] | None = field(default=None, compare=False)
    pos_label: Any = 1

    def __call__(self, *args: object) -> float:
        if self.inputs == "values":
            if len(args) != 1:
                raise EffectSizeError(f"metric {self.name!r} takes one argument (the values)")
            return compute(self, None, args[0])
        if len(args) != 2:
            raise EffectSizeError(f"metric {self.name!r} takes two arguments (labels, predictions)")
        return compute(self, args[0], args[1])

    @property
    def needs_labels(self) -> bool:
        return self.inputs == "label-prediction"


def metric(name: str, *, pos_label: Any = 1, error: type[RangerError] = EffectSizeError) -> SetMetric:
    """The named metric ``name`` (one of :data:`NAMES`); ``pos_label`` sets the positive class of
    ``"f1"`` (e.g. ``metric("f1", pos_label="spam")``).

    Parameters
    ----------
    name : str
        One of :data:`NAMES`; ``"bleu"``, ``"chrf"``, ``"chrf++"`` and ``"ter"`` need sacrebleu.
    pos_label : object, default 1
        The positive class of ``"f1"``.
    error : type of RangerError, default EffectSizeError
        The error class raised (the calling entry point's).

    Returns
    -------
    SetMetric
        The metric, with its ``inputs``, ``kind`` and ``higher_is_better``.

    Raises
    ------
    RangerError
        ``error`` for an unknown name (with the closest known one) or a missing sacrebleu.

    Examples
    --------
    >>> from ranger_eval.setmetrics import metric
    >>> f1 = metric("f1", pos_label="spam")
    >>> f1.name, f1.inputs, f1.kind, f1.pos_label
    ('f1', 'label-prediction', 'classification', 'spam')
    >>> metric("rmse").higher_is_better
    False
    >>> metric("acuracy")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.EffectSizeError: unknown metric_fn 'acuracy'; named metrics: ... (did you mean 'accuracy'?)
    """
    if not isinstance(name, str) or name not in NAMES:
        raise error(
            f"unknown metric_fn {name!r}; named metrics: {', '.join(NAMES)} (or pass a callable "
            "fn(labels, predictions) or fn(values))" + suggest(name, NAMES)
        )
    if _KIND[name] == "text":
        _sacrebleu(error, name)
    return SetMetric(
        name=name, inputs="values" if name in _VALUE_METRICS else "label-prediction",
        kind=_KIND[name],
        higher_is_better=name not in _LOWER_IS_BETTER, pos_label=pos_label,
    )


def custom(
    fn: Callable[..., Any],
    *,
    inputs: str | None = None,
    name: str | None = None,
    higher_is_better: bool = True,
    error: type[RangerError] = EffectSizeError,
) -> SetMetric:
    """Wrap a callable as a :class:`SetMetric`.

    ``inputs=None`` reads it from the signature: one required positional parameter → ``"values"``,
    two → ``"label-prediction"``. ``name`` defaults to the function's ``__name__``.

    Parameters
    ----------
    fn : callable
        ``fn(labels, predictions)`` or ``fn(values)`` → float, on one system's items.
    inputs : {"label-prediction", "values"}, optional
        What ``fn`` takes; read from its signature when omitted.
    name : str, optional
        The metric's name in results; ``fn.__name__`` by default.
    higher_is_better : bool, default True
        Informative only (effects are always treatment − control).
    error : type of RangerError, default EffectSizeError
        The error class raised (the calling entry point's).

    Returns
    -------
    SetMetric
        ``kind="custom"``; calling it calls ``fn``.

    Raises
    ------
    RangerError
        ``error`` when ``fn`` is not callable, its signature cannot be read or has neither one
        nor two required positional parameters, or ``inputs`` is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.setmetrics import custom
    >>> def top(values):
    ...     return float(np.max(values))
    >>> m = custom(top)
    >>> m.name, m.inputs, m.kind
    ('top', 'values', 'custom')
    >>> custom(lambda labels, predictions: 0.0, name="zero").inputs
    'label-prediction'
    """
    if not callable(fn):
        raise error(f"metric_fn must be a metric name or a callable, got {type(fn).__name__}")
    label = name or getattr(fn, "__name__", None) or type(fn).__name__
    if inputs is None:
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            raise error(
                f"cannot read the signature of metric_fn {label!r}; wrap it as "
                "setmetrics.custom(fn, inputs='label-prediction' or 'values')"
            ) from None
        required = [
            p for p in params
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
        if len(required) == 1:
            inputs = "values"
        elif len(required) == 2:
            inputs = "label-prediction"
        else:
            raise error(
                f"metric_fn {label!r} must take fn(labels, predictions) or fn(values); it has "
                f"{len(required)} required positional parameter(s); wrap it as "
                "setmetrics.custom(fn, inputs='label-prediction' or 'values')"
            )
    if inputs not in INPUTS:
        raise error(f"inputs must be one of {', '.join(map(repr, INPUTS))}, got {inputs!r}")
    return SetMetric(name=str(label), inputs=inputs, kind="custom",
                     higher_is_better=bool(higher_is_better), fn=fn)


def get_metric(spec: object, *, error: type[RangerError] = EffectSizeError) -> SetMetric:
    """A :class:`SetMetric` from a name, a :class:`SetMetric` or a callable.

    Parameters
    ----------
    spec : str or SetMetric or callable
        A name of :data:`NAMES` (:func:`metric`), a metric (returned as is) or a callable
        (:func:`custom`).
    error : type of RangerError, default EffectSizeError
        The error class raised (the calling entry point's).

    Returns
    -------
    SetMetric
        The metric.

    Raises
    ------
    RangerError
        ``error`` for anything else, an unknown name or an unusable callable.

    Examples
    --------
    >>> from ranger_eval.setmetrics import get_metric
    >>> get_metric("mcc").name, get_metric(lambda values: 0.0).inputs
    ('mcc', 'values')
    >>> get_metric(3)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.EffectSizeError: metric_fn must be a metric name (accuracy, ...) or a callable, got 3
    """
    if isinstance(spec, SetMetric):
        return spec
    if isinstance(spec, str):
        return metric(spec, error=error)
    if callable(spec):
        return custom(spec, error=error)
    raise error(
        f"metric_fn must be a metric name ({', '.join(NAMES)}) or a callable, got {spec!r}"
    )


def _sacrebleu(error: type[RangerError], name: str = "bleu") -> Any:
    try:
        sacrebleu = importlib.import_module("sacrebleu")
    except ImportError:
        raise error(
            f"metric {name!r} needs the sacrebleu package, which is not installed "
            "(pip install sacrebleu)"
        ) from None
    return sacrebleu


# --------------------------------------------------------------------------- encoding
@dataclass(frozen=True)
class EncodedRuns:
    """Labels and the predictions of R runs on the same n items, encoded for one metric.

    ``label`` has n entries (None for ``"values"`` metrics); ``pred`` has R·n, run r at
    r·n … r·n + n − 1. ``classes`` are the class values of classification metrics (codes index
    them). Use :meth:`evaluate` on resample index matrices and :meth:`value` on the full data.
    """

    metric: SetMetric
    n: int
    n_runs: int
    label: np.ndarray | None
    pred: np.ndarray
    classes: np.ndarray | None = None
    pos: int | None = None  # code of the positive class ("f1")
    runs: tuple[str, ...] = ()
    table: np.ndarray | None = None  # "bleu": per-item sufficient statistics, R·n rows
    groups: tuple[np.ndarray, int, np.ndarray, int] | None = None  # "spearman": tie groups

    def value(self, run: int) -> float:
        """The metric of run ``run`` on all n items."""
        ar = np.arange(self.n)
        return float(self.evaluate(ar[None, :], (ar + run * self.n)[None, :])[0])

    def values(self) -> np.ndarray:
        """The metric of every run on all n items."""
        return np.array([self.value(r) for r in range(self.n_runs)])

    def row_bytes(self) -> int:
        """Approximate work space per resample row (for batching)."""
        per_item = 64 + 8 * self.table.shape[1] if self.table is not None else 64
        extra = 8 * (self.groups[1] + self.groups[3]) if self.groups is not None else 0
        return per_item * self.n + extra

    def evaluate(self, rows_l: np.ndarray, rows_p: np.ndarray) -> np.ndarray:
        """The metric on every row: labels ``label[rows_l]``, predictions ``pred[rows_p]``."""
        m = self.metric
        if m.fn is not None:
            return self._loop(rows_l, rows_p)
        name = m.name
        if m.kind == "likelihood":
            return _likelihood(name, self.label, self.pred, rows_l, rows_p)
        if m.kind == "classification":
            assert self.label is not None and self.classes is not None
            lab = self.label[rows_l]
            pre = self.pred[rows_p]
            eq = lab == pre
            if name == "accuracy":
                return eq.mean(axis=1)
            if name == "f1":
                assert self.pos is not None
                if self.pos < 0:  # the positive class occurs nowhere
                    return np.zeros(lab.shape[0])
                tp = (eq & (lab == self.pos)).sum(axis=1).astype(np.float64)
                den = (lab == self.pos).sum(axis=1) + (pre == self.pos).sum(axis=1)
                return _safe_ratio(2.0 * tp, den.astype(np.float64))
            t, p, tp = _confusion(lab, pre, eq, self.classes.size)
            if name == "macro_f1":
                den = t + p
                present = den > 0
                f1 = np.divide(2.0 * tp, den, out=np.zeros_like(den), where=present)
                return f1.sum(axis=1) / present.sum(axis=1)
            # mcc (sklearn.metrics.matthews_corrcoef)
            s = float(lab.shape[1])
            c = eq.sum(axis=1).astype(np.float64)
            cov_ytyp = c * s - (t * p).sum(axis=1)
            cov_ypyp = s * s - (p * p).sum(axis=1)
            cov_ytyt = s * s - (t * t).sum(axis=1)
            prod = cov_ypyp * cov_ytyt
            ok = prod != 0
            out = np.zeros(lab.shape[0])
            out[ok] = cov_ytyp[ok] / np.sqrt(prod[ok])
            return out
        if m.kind == "regression":
            assert self.label is not None
            x = self.label[rows_l]
            y = self.pred[rows_p]
            if name in ("mae", "rmse"):  # on x, y · 2^-e (exact), the result · 2^e
                e = row_exponents(x, y)
                xs, ys = scaled_rows(e, x, y)
                d = xs - ys
                out = np.abs(d).mean(axis=1) if name == "mae" else np.sqrt((d * d).mean(axis=1))
                with np.errstate(over="ignore"):
                    return np.ldexp(out, e)
            if name == "pearson":
                return _rowwise_pearson(x, y)
            if name == "spearman":
                assert self.groups is not None
                gx, kx, gy, ky = self.groups
                return _rowwise_pearson(ranks_from_codes(gx[rows_l], kx),
                                        ranks_from_codes(gy[rows_p], ky))
            if x.shape[1] <= _KENDALL_VECTOR_MAX:
                return _rowwise_kendall(x, y)
            from scipy.stats import kendalltau

            out = np.empty(x.shape[0])
            for r in range(x.shape[0]):
                if np.ptp(x[r]) == 0 or np.ptp(y[r]) == 0:
                    out[r] = math.nan
                else:
                    out[r] = float(kendalltau(x[r], y[r]).statistic)
            return out
        # text: pred holds row numbers of the per-item sufficient-statistics table (R·n rows)
        assert self.table is not None
        summed = self.table[self.pred[rows_p]].sum(axis=1)
        if name == "bleu":  # 2 + 2·4 columns
            return _bleu_from_stats(summed)
        if name == "ter":  # edits, reference words
            return _ter_from_stats(summed)
        return _chrf_from_stats(summed)  # 3 per character / word order

    def _loop(self, rows_l: np.ndarray, rows_p: np.ndarray) -> np.ndarray:
        fn = self.metric.fn
        assert fn is not None
        out = np.empty(rows_p.shape[0])
        for r in range(rows_p.shape[0]):
            if self.metric.inputs == "values":
                v = fn(self.pred[rows_p[r]])
            else:
                assert self.label is not None
                v = fn(self.label[rows_l[r]], self.pred[rows_p[r]])
            try:
                out[r] = float(v)
            except (TypeError, ValueError):
                raise EffectSizeError(
                    f"metric_fn {self.metric.name!r} returned {v!r}, not a number"
                ) from None
        return out


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def _confusion(
    lab: np.ndarray, pre: np.ndarray, eq: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row and class: true counts t, predicted counts p and true positives tp (float64)."""
    b = lab.shape[0]
    off = (np.arange(b, dtype=np.int64) * k)[:, None]
    lk = (lab + off).ravel()
    t = np.bincount(lk, minlength=b * k).reshape(b, k).astype(np.float64)
    p = np.bincount((pre + off).ravel(), minlength=b * k).reshape(b, k).astype(np.float64)
    tp = np.bincount(lk, weights=eq.ravel().astype(np.float64), minlength=b * k).reshape(b, k)
    return t, p, tp


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of every row pair; NaN where a row is constant. r does not change when a row
    of x or of y is multiplied by a positive constant, so rows of extreme values are first
    multiplied by a power of two (exact; their squares neither overflow nor underflow)."""
    x = scaled_rows(row_exponents(x), x)[0]
    y = scaled_rows(row_exponents(y), y)[0]
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    sxx = (xc * xc).sum(axis=1)
    syy = (yc * yc).sum(axis=1)
    sxy = (xc * yc).sum(axis=1)
    const = (np.ptp(x, axis=1) == 0) | (np.ptp(y, axis=1) == 0)
    den = np.sqrt(np.where(const, 1.0, sxx * syy))
    r = np.clip(sxy / den, -1.0, 1.0)
    return np.where(const, np.nan, r)


def _tie_groups(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense codes of the distinct values in increasing order, and their number."""
    uniq, codes = np.unique(values, return_inverse=True)
    return codes.astype(np.int64).reshape(values.shape), int(uniq.size)


_KENDALL_VECTOR_MAX = 256  # items; above this the rows loop over scipy.stats.kendalltau


def _rowwise_kendall(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of every row pair: Σ s_x s_y / sqrt(Σ s_x² Σ s_y²) over item pairs, with
    s = sign of the pair's difference (ties, including an item drawn twice, give 0). NaN where a
    row is constant. Rows are processed in chunks of at most ~16 MB of pair signs."""
    b, n = x.shape
    out = np.empty(b)
    step = max(1, (16 * 2**20) // max(n * n, 1))
    for a in range(0, b, step):
        xa, ya = x[a:a + step], y[a:a + step]
        sx = np.sign(xa[:, :, None] - xa[:, None, :]).astype(np.int8)
        sy = np.sign(ya[:, :, None] - ya[:, None, :]).astype(np.int8)
        num = np.einsum("rij,rij->r", sx, sy, dtype=np.float64)
        den = np.einsum("rij,rij->r", sx, sx, dtype=np.float64) * np.einsum(
            "rij,rij->r", sy, sy, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[a:a + step] = np.where(den > 0, num / np.sqrt(np.where(den > 0, den, 1.0)), np.nan)
    return np.clip(out, -1.0, 1.0)


_LN2 = math.log(2.0)


def _likelihood(name: str, label: np.ndarray | None, pred: np.ndarray, rows_l: np.ndarray,
                rows_p: np.ndarray) -> np.ndarray:
    """lm-eval's likelihood aggregations (and its ``median``) on every row
    (lm_eval/api/metrics.py, 0.4.13).

    ``perplexity``: exp(−Σ ll / n) of the per-item log-likelihoods ll (``pred``);
    ``weighted_perplexity``: exp(−Σ ll / Σ c), ``bits_per_byte``: −Σ ll / (Σ c · ln 2), with
    c = the item's number of words or bytes (``label``). A row whose Σ c is 0 is NaN
    (undefined), one beyond float64 ``inf``; the calling layer names both.
    """
    ll = pred[rows_p]
    if name == "upper_median":  # lm-eval's median: sorted(values)[n // 2]
        return np.sort(ll, axis=1)[:, ll.shape[1] // 2]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if name == "perplexity":
            return np.exp(-ll.mean(axis=1))
        assert label is not None
        count = label[rows_l].sum(axis=1)
        ratio = np.where(count > 0, -ll.sum(axis=1) / np.where(count > 0, count, 1.0), np.nan)
        return np.exp(ratio) if name == "weighted_perplexity" else ratio / _LN2


def _ter_from_stats(s: np.ndarray) -> np.ndarray:
    """sacrebleu's ``TER._compute_score_from_stats``, vectorised: 100 · edits / reference
    words; 100 when the references are empty and the hypotheses not, 0 when both are."""
    edits, ref = s[:, 0], s[:, 1]
    ratio = np.divide(edits, ref, out=np.zeros_like(edits), where=ref > 0)
    return 100.0 * np.where(ref > 0, ratio, np.where(edits > 0, 1.0, 0.0))


_CHRF_BETA = 2.0


def _chrf_from_stats(s: np.ndarray) -> np.ndarray:
    """sacrebleu's ``CHRF._compute_f_score`` (β = 2, no eps smoothing), vectorised.

    ``s`` rows: [hyp, ref, match] n-gram counts per order (character orders, then word
    orders), summed over the items of a resample. Precision and recall are averaged over the
    orders where both the hypotheses and the references have n-grams (sacrebleu's effective
    order); the score is 100 · (1 + β²) P R / (β² P + R), 0 when P + R = 0.
    """
    b = s.shape[0]
    st = s.reshape(b, -1, 3)
    hyp, ref, match = st[:, :, 0], st[:, :, 1], st[:, :, 2]
    valid = (hyp > 0) & (ref > 0)
    prec = np.divide(match, hyp, out=np.zeros_like(match), where=valid)
    rec = np.divide(match, ref, out=np.zeros_like(match), where=valid)
    eff = valid.sum(axis=1).astype(np.float64)
    avg_p = np.divide(prec.sum(axis=1), eff, out=np.zeros(b), where=eff > 0)
    avg_r = np.divide(rec.sum(axis=1), eff, out=np.zeros(b), where=eff > 0)
    f = _CHRF_BETA ** 2
    den = f * avg_p + avg_r
    num = (1.0 + f) * avg_p * avg_r
    return np.where(avg_p + avg_r > 0, 100.0 * np.divide(num, den, out=np.zeros(b),
                                                          where=den > 0), 0.0)


_BLEU_ORDER = 4


def _bleu_from_stats(s: np.ndarray) -> np.ndarray:
    """sacrebleu's ``BLEU.compute_bleu`` (smooth_method "exp", no effective order), vectorised.

    ``s`` rows: sys_len, ref_len, correct_1..4, total_1..4 (summed over the items of a resample).
    """
    sys_len, ref_len = s[:, 0], s[:, 1]
    correct = s[:, 2: 2 + _BLEU_ORDER]
    total = s[:, 2 + _BLEU_ORDER: 2 + 2 * _BLEU_ORDER]
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(
            sys_len < ref_len,
            np.where(sys_len > 0, np.exp(1.0 - ref_len / np.where(sys_len > 0, sys_len, 1.0)), 0.0),
            1.0,
        )
        zero = correct == 0
        smooth = np.cumsum(zero, axis=1)  # the k-th zero order gets 100 / (2^k · total)
        prec = np.where(
            zero, 100.0 / (2.0 ** smooth * np.where(total > 0, total, 1.0)),
            100.0 * correct / np.where(total > 0, total, 1.0),
        )
        log_mean = np.log(np.where(prec > 0, prec, 1.0)).mean(axis=1)
        score = bp * np.exp(log_mean)
    dead = (~zero).sum(axis=1) == 0  # no matches at all
    dead |= (total == 0).any(axis=1)  # an order without n-grams: sacrebleu's log(0) → score 0
    return np.where(dead, 0.0, score)


def _as_1d(x: object, role: str, where: str, error: type[RangerError]) -> np.ndarray:
    arr = np.asarray(x.to_numpy() if isinstance(x, (pd.Series, pd.Index)) else x)
    if arr.dtype == object and arr.size and all(
        isinstance(v, (int, float, np.integer, np.floating))
        and not isinstance(v, (bool, np.bool_)) for v in arr
    ):
        floats = any(isinstance(v, (float, np.floating)) for v in arr)
        arr = arr.astype(np.float64 if floats else np.int64)
    if arr.ndim != 1:
        raise error(f"{where}: {role} must be 1-D (one entry per item), got shape {arr.shape}")
    missing = pd.isna(arr) if arr.dtype.kind in "fcOUSMm" else np.zeros(arr.shape, dtype=bool)
    if np.any(missing):
        i = int(np.flatnonzero(missing)[0])
        raise error(f"{where}: {role} at item position {i} is missing ({arr[i]!r})")
    return arr


def _numeric(arr: np.ndarray, role: str, where: str, error: type[RangerError]) -> np.ndarray:
    try:
        out = np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        bad = _plain(next((v for v in arr if not _is_number(v)), arr[0]))
        raise error(f"{where}: needs numeric {role}, got {bad!r}") from None
    bad_i = np.flatnonzero(~np.isfinite(out))
    if bad_i.size:
        raise error(f"{where}: {role} at item position {int(bad_i[0])} is {out[bad_i[0]]!r}; "
                    "values must be finite")
    return out


def _is_number(v: object) -> bool:
    try:
        float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return True


def encode(
    metric: SetMetric,
    labels: object | None,
    predictions: Sequence[object],
    *,
    runs: Sequence[str] | None = None,
    where: str = "",
    error: type[RangerError] = EffectSizeError,
) -> EncodedRuns:
    """Encode ``labels`` (n) and the ``predictions`` of R runs (each n, aligned by item) for
    ``metric``. For ``"values"`` metrics ``predictions`` are the runs' per-item values and
    ``labels`` is ignored. ``runs`` names the runs in messages. Raises ``error``.

    Parameters
    ----------
    metric : SetMetric
        The metric (:func:`get_metric`).
    labels : array_like or None
        The n items' gold labels; None for ``"values"`` metrics.
    predictions : sequence of array_like
        R runs, each n predictions (or per-item values) aligned with ``labels``.
    runs : sequence of str, optional
        The runs' names, for the messages.
    where : str, default ""
        The data, for the messages; ``"metric 'NAME'"`` when empty.
    error : type of RangerError, default EffectSizeError
        The error class raised (the calling entry point's).

    Returns
    -------
    EncodedRuns
        The encoded labels and the R·n predictions; :meth:`EncodedRuns.value` evaluates a run
        on all items, :meth:`EncodedRuns.evaluate` on resamples.

    Raises
    ------
    RangerError
        ``error`` for no runs, runs of different lengths, missing labels, labels of another
        length, or values the metric cannot read.

    Examples
    --------
    >>> from ranger_eval.setmetrics import encode, metric
    >>> labels = [1, 0, 1, 1, 0, 1]
    >>> enc = encode(metric("accuracy"), labels, [[1, 0, 1, 0, 0, 1], [1, 1, 0, 0, 0, 1]],
    ...              runs=["a", "b"])
    >>> enc.n, enc.n_runs, round(enc.value(0), 4), enc.value(1)
    (6, 2, 0.8333, 0.5)
    """
    where = where or f"metric {metric.name!r}"
    preds = [_as_1d(p, "predictions", where, error) for p in predictions]
    if not preds:
        raise error(f"{where}: no runs to evaluate")
    n = preds[0].size
    for p in preds:
        if p.size != n:
            raise error(f"{where}: runs have different numbers of items ({p.size} vs {n})")
    names = tuple(runs) if runs is not None else ("",) * len(preds)
    if n < 1:
        raise error(f"{where}: no items")
    r = len(preds)
    if metric.inputs == "values":
        vals = np.concatenate([_numeric(p, "values", where, error) for p in preds])
        return EncodedRuns(metric, n, r, None, vals, runs=names)
    if metric.kind == "likelihood":  # label = words/bytes of the item, prediction = loglik
        counts = _numeric(_as_1d(labels, "labels", where, error), "labels (word or byte "
                          "counts)", where, error) if labels is not None else None
        if counts is None:
            raise error(f"{where}: metric {metric.name!r} needs the items' word or byte counts "
                        "as labels")
        if counts.size != n:
            raise error(f"{where}: {counts.size} labels for {n} predictions")
        neg = np.flatnonzero(counts < 0)
        if neg.size:
            raise error(f"{where}: label (word or byte count) at item position {int(neg[0])} is "
                        f"{float(counts[neg[0]])!r}; counts must be >= 0")
        ll = np.concatenate([_numeric(p, "predictions (log-likelihoods)", where, error)
                             for p in preds])
        return EncodedRuns(metric, n, r, counts, ll, runs=names)
    if labels is None:
        raise error(f"{where}: metric {metric.name!r} needs the items' labels")
    lab = _as_1d(labels, "labels", where, error)
    if lab.size != n:
        raise error(f"{where}: {lab.size} labels for {n} predictions")
    if metric.fn is not None:
        return EncodedRuns(metric, n, r, lab, _stack(preds), runs=names)
    if metric.kind == "regression":
        lab_f = _numeric(lab, "labels", where, error)
        pred_f = np.concatenate([_numeric(p, "predictions", where, error) for p in preds])
        groups = None
        if metric.name == "spearman":
            groups = (*_tie_groups(lab_f), *_tie_groups(pred_f))
        return EncodedRuns(metric, n, r, lab_f, pred_f, runs=names, groups=groups)
    if metric.kind == "text":
        return _encode_text(metric, lab, preds, names, where, error)
    # classification: one code per class over the labels and every run's predictions
    stacked = _stack([lab, *preds])
    try:
        codes, classes = pd.factorize(stacked, sort=True)
    except TypeError:  # mixed types cannot be sorted
        codes, classes = pd.factorize(stacked, sort=False)
    codes = np.asarray(codes, dtype=np.int64)
    classes = np.asarray(classes)
    pos: int | None = None
    if metric.name == "f1":
        pos = _positive_code(metric.pos_label, classes)
        for i in range(r):
            used = np.unique(np.concatenate([codes[:n], codes[(i + 1) * n:(i + 2) * n]]))
            if used.size > 2:
                shown = ", ".join(repr(_plain(classes[c])) for c in used[:10])
                raise error(
                    f"{where}{_run(names, i)}: metric 'f1' is binary but labels and predictions "
                    f"hold {used.size} classes ({shown}); use 'macro_f1' or 'mcc'"
                )
            if used.size == 2 and (pos < 0 or pos not in used):
                shown = ", ".join(repr(_plain(classes[c])) for c in used)
                raise error(
                    f"{where}{_run(names, i)}: the positive class {metric.pos_label!r} of metric "
                    f"'f1' is not among the classes ({shown}); pass "
                    "metric_fn=setmetrics.metric('f1', pos_label=...)"
                )
    return EncodedRuns(metric, n, r, codes[:n], codes[n:], classes=classes, pos=pos, runs=names)


def _run(names: tuple[str, ...], i: int) -> str:
    return f", {names[i]}" if names and names[i] else ""


def _plain(v: object) -> object:
    return v.item() if isinstance(v, np.generic) else v


def _stack(arrays: Sequence[np.ndarray]) -> np.ndarray:
    if all(a.dtype.kind in "iufb" for a in arrays):
        return np.concatenate(arrays)
    return np.concatenate([a.astype(object) for a in arrays])


def _positive_code(pos_label: object, classes: np.ndarray) -> int:
    for i, c in enumerate(classes):
        if c == pos_label:
            return i
    for i, c in enumerate(classes):  # "1" read as text matches pos_label 1
        if str(c) == str(pos_label):
            return i
    return -1


def _encode_text(
    metric: SetMetric,
    lab: np.ndarray,
    preds: list[np.ndarray],
    names: tuple[str, ...],
    where: str,
    error: type[RangerError],
) -> EncodedRuns:
    """Per-item sufficient statistics of sacrebleu's corpus metric (one reference per item),
    as sacrebleu's own ``corpus_score`` sums them: BLEU lengths and n-gram counts, chrF
    [hyp, ref, match] counts per order, TER [edits, reference words]."""
    sacrebleu = _sacrebleu(error, metric.name)
    for role, arr in (("labels (references)", lab), *(("predictions", p) for p in preds)):
        bad = [v for v in arr if not isinstance(v, str)]
        if bad:
            raise error(f"{where}: metric {metric.name!r} needs text {role}, got {bad[0]!r}")
    scorer = {
        "bleu": lambda: sacrebleu.metrics.BLEU(), "chrf": lambda: sacrebleu.metrics.CHRF(),
        "chrf++": lambda: sacrebleu.metrics.CHRF(word_order=2),
        "ter": lambda: sacrebleu.metrics.TER(),
    }[metric.name]()
    refs = [[str(x) for x in lab]]
    tables = [np.asarray(scorer._extract_corpus_statistics([str(x) for x in p], refs),
                         dtype=np.float64).reshape(len(p), -1)
              for p in preds]
    stats = np.vstack(tables)
    n = lab.size
    return EncodedRuns(metric, n, len(preds), np.arange(n), np.arange(len(preds) * n),
                       runs=names, table=stats)


# --------------------------------------------------------------------------- one system
def compute(spec: object, labels: object | None, predictions: object) -> float:
    """The metric ``spec`` (a name, :class:`SetMetric` or callable) of one system on all items:
    ``compute("mcc", labels, predictions)``; for ``"values"`` metrics pass ``labels=None`` and
    the values as ``predictions``. NaN when undefined (e.g. a correlation of constant data).

    Parameters
    ----------
    spec : str or SetMetric or callable
        The metric (:func:`get_metric`).
    labels : array_like or None
        The items' gold labels; None for ``"values"`` metrics.
    predictions : array_like
        The system's prediction (or value) per item, aligned with ``labels``.

    Returns
    -------
    float
        The metric on all items; NaN when undefined.

    Raises
    ------
    EffectSizeError
        An unknown metric, missing labels, or inputs of different lengths.

    Examples
    --------
    >>> from ranger_eval.setmetrics import compute
    >>> labels, predictions = [1, 0, 1, 1, 0, 1], [1, 0, 1, 0, 0, 1]
    >>> round(compute("accuracy", labels, predictions), 4), round(compute("mcc", labels, predictions), 4)
    (0.8333, 0.7071)
    >>> compute(lambda values: max(values), None, [3.0, 1.0, 2.0])
    3.0
    >>> compute("pearson", [1.0, 2.0, 3.0], [2.0, 2.0, 2.0])
    nan
    """
    m = get_metric(spec)
    return encode(m, labels, [predictions]).value(0)


# --------------------------------------------------------------------------- resampling
def _rows(enc: EncodedRuns, batch: int | None) -> int:
    if batch is not None:
        return max(1, int(batch))
    return max(1, _BATCH_BYTES // max(enc.row_bytes(), 1))


def undefined_resamples(values: np.ndarray, columns: Sequence[str]) -> tuple[int, str] | None:
    """For a resamples × columns matrix of metric values (:func:`bootstrap_values`,
    :func:`permutation_statistics`): the number of resamples on which the metric is undefined
    (a non-finite value; e.g. a correlation of a resample with constant values) and the column
    of the first such value, or None when every value is finite.

    Parameters
    ----------
    values : numpy.ndarray
        Resamples × columns metric values (or statistics).
    columns : sequence of str
        The columns' names (runs or contrasts).

    Returns
    -------
    tuple of (int, str) or None
        (resamples with a non-finite value, the column of the first one); None when all are
        finite.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.setmetrics import undefined_resamples
    >>> values = np.array([[0.5, 1.0], [np.nan, 0.2], [0.1, np.inf]])
    >>> undefined_resamples(values, ["a", "b"]), undefined_resamples(np.ones((2, 2)), ["a", "b"])
    ((2, 'a'), None)
    """
    bad_rows = ~np.isfinite(values).all(axis=1)
    if not bad_rows.any():
        return None
    first = values[bad_rows][0]
    return int(bad_rows.sum()), str(columns[int(np.flatnonzero(~np.isfinite(first))[0])])


def bootstrap_values(
    enc: EncodedRuns,
    n_resamples: int = 1000,
    seed: int | None = 0,
    *,
    batch: int | None = None,
) -> tuple[np.ndarray, int]:
    """The metric of every run on ``n_resamples`` paired bootstrap resamples of the items.

    All runs see the same resampled items (row b of
    ``BootstrapIndices(n, n_resamples, seed)``), so differences between runs are paired.
    Returns the (n_resamples × R) matrix and the seed actually used (``None`` draws one).

    Parameters
    ----------
    enc : EncodedRuns
        The encoded runs (:func:`encode`).
    n_resamples : int, default 1000
        Bootstrap resamples.
    seed : int or None, default 0
        Seed of the resample indices; None draws one (returned).
    batch : int, optional
        Resamples evaluated at once; by default as many as fit in 64 MiB.

    Returns
    -------
    values : numpy.ndarray
        n_resamples × R: the metric of each run on each resample.
    seed : int
        The seed used.

    References
    ----------
    Efron, B. and Tibshirani, R. J. (1993), An Introduction to the Bootstrap, Chapman & Hall.

    Examples
    --------
    >>> from ranger_eval.setmetrics import bootstrap_values, encode, metric
    >>> labels = [1, 0, 1, 1, 0, 1]
    >>> enc = encode(metric("accuracy"), labels, [[1, 0, 1, 0, 0, 1], [1, 1, 0, 0, 0, 1]])
    >>> values, seed = bootstrap_values(enc, n_resamples=200, seed=1)
    >>> values.shape, seed
    ((200, 2), 1)
    >>> round(float((values[:, 0] - values[:, 1]).mean()), 4)  # paired: same items per row
    0.3442
    """
    idx = BootstrapIndices(enc.n, n_resamples, seed)
    out = np.empty((idx.n_resamples, enc.n_runs))
    rows = _rows(enc, batch)
    for a in range(0, idx.n_resamples, rows):
        b = min(a + rows, idx.n_resamples)
        ind = idx.indices(a, b)
        for r in range(enc.n_runs):
            out[a:b, r] = enc.evaluate(ind, ind + r * enc.n)
    assert idx.seed is not None
    return out, int(idx.seed)


def cluster_bootstrap_values(
    enc: EncodedRuns,
    codes: np.ndarray,
    n_resamples: int = 1000,
    seed: int | None = 0,
) -> tuple[np.ndarray, int]:
    """The metric of every run on ``n_resamples`` cluster bootstrap resamples: ``codes`` (one
    int per item, 0 … C − 1) gives each item's cluster; resample b draws C clusters with
    replacement (row b of ``BootstrapIndices(C, n_resamples, seed)``) and takes every item of
    every drawn cluster (Field & Welsh 2007; Cameron & Miller 2015, sec. VI.A), the same items
    for every run (paired). A resample holds sum of its clusters' sizes items; resamples of
    equal size are evaluated together. With one item per cluster in item order this is
    :func:`bootstrap_values`. Returns the (n_resamples × R) matrix and the seed used.

    Parameters
    ----------
    enc : EncodedRuns
        The encoded runs (:func:`encode`).
    codes : numpy.ndarray
        Each item's cluster, an int in 0 … C − 1.
    n_resamples : int, default 1000
        Bootstrap resamples.
    seed : int or None, default 0
        Seed of the cluster draws; None draws one (returned).

    Returns
    -------
    values : numpy.ndarray
        n_resamples × R: the metric of each run on each resample.
    seed : int
        The seed used.

    Raises
    ------
    ValueError
        ``codes`` of another length than the items.

    References
    ----------
    Field, C. A. and Welsh, A. H. (2007), "Bootstrapping clustered data", Journal of the Royal
    Statistical Society B 69(3). Cameron, A. C. and Miller, D. L. (2015), "A practitioner's
    guide to cluster-robust inference", Journal of Human Resources 50(2).

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.setmetrics import cluster_bootstrap_values, encode, metric
    >>> labels = [1, 0, 1, 1, 0, 1]
    >>> enc = encode(metric("accuracy"), labels, [[1, 0, 1, 0, 0, 1], [1, 1, 0, 0, 0, 1]])
    >>> values, seed = cluster_bootstrap_values(enc, np.array([0, 0, 1, 1, 2, 2]),
    ...                                         n_resamples=200, seed=1)
    >>> values.shape, seed, round(float(values[:, 0].mean()), 4)
    ((200, 2), 1, 0.8308)
    """
    codes = np.asarray(codes, dtype=np.int64).reshape(-1)
    if codes.size != enc.n:
        raise ValueError(f"codes: {codes.size} cluster codes for {enc.n} items")
    c = int(codes.max()) + 1
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=c)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    idx = BootstrapIndices(c, n_resamples, seed)
    out = np.empty((idx.n_resamples, enc.n_runs))
    rows = max(1, _rows(enc, None) // 2)  # a resample may hold more than n items
    for a in range(0, idx.n_resamples, rows):
        b = min(a + rows, idx.n_resamples)
        drawn = idx.indices(a, b)  # (rows, C) cluster draws
        length = sizes[drawn].sum(axis=1)
        for size in np.unique(length).tolist():
            sel = np.flatnonzero(length == size)
            ind = np.empty((sel.size, size), dtype=np.int64)
            for i, r in enumerate(sel.tolist()):  # the items of the drawn clusters, in order
                sz = sizes[drawn[r]]
                first = starts[drawn[r]] - (np.cumsum(sz) - sz)
                ind[i] = order[np.repeat(first, sz) + np.arange(size)]
            for run in range(enc.n_runs):
                out[a + sel, run] = enc.evaluate(ind, ind + run * enc.n)
    assert idx.seed is not None
    return out, int(idx.seed)


def permutation_statistics(
    enc: EncodedRuns,
    contrasts: Sequence[Sequence[tuple[int, int]]],
    n_resamples: int = 10_000,
    seed: int | None = 0,
    *,
    batch: int | None = None,
) -> tuple[np.ndarray, bool, int | None]:
    """Paired permutation (approximate randomisation) distribution of metric differences.

    A contrast is a list of run pairs (a, b) (one per seed); its statistic is the mean over the
    pairs of metric(a) − metric(b). Under H0 the two systems are exchangeable on every item, so a
    resample swaps the predictions of a and b on the items whose
    ``SignFlips(n, n_resamples, seed)`` bit is set (the same items for every seed pair).
    All 2^n swaps are enumerated when 2^n <= n_resamples (row 0 is the observed data).
    Returns the (resamples × contrasts) statistics, whether they are exact, and the seed (None
    when exact).

    Parameters
    ----------
    enc : EncodedRuns
        The encoded runs (:func:`encode`).
    contrasts : sequence of sequence of (int, int)
        Per contrast, the (a, b) run indices of its pairs (one pair per seed).
    n_resamples : int, default 10000
        Random swaps when enumerating all 2^n is more.
    seed : int or None, default 0
        Seed of the random swaps; None draws one.
    batch : int, optional
        Resamples evaluated at once; by default as many as fit in 64 MiB.

    Returns
    -------
    statistics : numpy.ndarray
        Resamples × contrasts; row 0 is the observed statistic when exact.
    exact : bool
        All 2^n swaps were enumerated.
    seed : int or None
        The seed used; None when exact.

    References
    ----------
    Noreen, E. W. (1989), Computer-Intensive Methods for Testing Hypotheses, Wiley (approximate
    randomisation).

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.setmetrics import encode, metric, permutation_statistics
    >>> labels = [1, 0, 1, 1, 0, 1]
    >>> enc = encode(metric("accuracy"), labels, [[1, 0, 1, 0, 0, 1], [1, 1, 0, 0, 0, 1]])
    >>> stats, exact, seed = permutation_statistics(enc, [[(0, 1)]])
    >>> stats.shape, exact, seed, round(float(stats[0, 0]), 4)  # 2^6 swaps: exact
    ((64, 1), True, None, 0.3333)
    >>> float(np.mean(np.abs(stats[:, 0]) >= abs(stats[0, 0]) - 1e-12))  # two-sided p-value
    0.5
    """
    flips = SignFlips(enc.n, n_resamples, seed)
    n = enc.n
    ar = np.arange(n, dtype=np.int64)
    out = np.zeros((flips.size, len(contrasts)))
    rows = _rows(enc, batch)
    for a in range(0, flips.size, rows):
        b = min(a + rows, flips.size)
        swap = flips.bits(a, b).astype(bool)
        lab = np.broadcast_to(ar, swap.shape)
        for j, pairs in enumerate(contrasts):
            acc = np.zeros(b - a)
            for ra, rb in pairs:
                pa = np.where(swap, rb * n, ra * n) + ar
                pb = np.where(swap, ra * n, rb * n) + ar
                acc += enc.evaluate(lab, pa) - enc.evaluate(lab, pb)
            out[a:b, j] = acc / len(pairs)
    return out, flips.exact, None if flips.exact else flips.seed


def tolerance(n: int, scale: float) -> float:
    """"At least as extreme" slack for resampled metric statistics: max(100, 4n)·eps·|scale|
    (the convention of :mod:`ranger_eval.stats.resampling`, on the metric's scale: relative, so
    the p-value of an MAE of scores × 1e-300 is that of the unscaled scores)."""
    return max(100.0, 4.0 * n) * _EPS * abs(scale)
