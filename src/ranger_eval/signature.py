"""The reproducibility signature every result carries (in the style of sacrebleu's).

One short line that says how a number was produced, printed under every table and in every figure
footer and stored in every JSON output, e.g.::

    ranger-eval:0.1.0|kind:compare|test:auto[paired-t]|alt:two-sided|pairs:all|corr:holm-sidak|family:dataset-metric|level:0.95|n_resamples:10000|seed:0

The first field is the tool and its version, the second the kind of analysis; the rest are the
settings of that analysis, in a fixed order, as ``key:value``. :data:`FIELDS` documents every key
(``ranger-eval signature`` prints it); :func:`parse_signature` reads a signature back and
:func:`signature_level` its confidence level (also from an older ``alpha:`` field).
"""
from __future__ import annotations

from collections.abc import Mapping

from ._version import __version__

__all__ = ["EXAMPLE", "FIELDS", "KINDS", "Signature", "make_signature", "parse_signature",
           "describe_fields", "signature_level"]

#: Fields a signature no longer gets (still documented and read back): old name → current.
RETIRED = {"alpha": "level"}

TOOL = "ranger-eval"

#: Kinds of analysis and what they are.
KINDS: dict[str, str] = {
    "meta": "meta-analysis of per-dataset effect sizes (ranger_eval.meta_analysis)",
    "effects": "per-dataset effect sizes (ranger_eval.effect_sizes)",
    "compare": "pairwise tests of many systems (ranger_eval.compare)",
    "test": "one hypothesis test (ranger_eval.stats)",
    "ir": "per-query IR measures (ranger_eval.ir.evaluate)",
    "rank": "rankings and multi-dataset rank tests (ranger_eval.aggregate)",
    "aggregate": "aggregation across metrics or datasets (ranger_eval.aggregate)",
    "ppi": "prediction-powered mean or paired difference of judge scores (ranger_eval.ppi_mean)",
    "plan": "power, sample size or minimum detectable effect of a planned comparison "
            "(ranger_eval.plan, ranger_eval.plan_from_pilot)",
    "arena": "Bradley–Terry ratings from pairwise battles (ranger_eval.bradley_terry)",
    "confseq": "an anytime-valid confidence sequence of a mean (ranger_eval.confidence_sequence)",
    "monitor": "anytime-valid monitoring of a paired comparison (ranger_eval.monitor)",
    "aso": "Almost Stochastic Order of score distributions (ranger_eval.aso, ranger_eval.multi_aso)",
    "win_rate": "HELM's mean win rate of systems over datasets (ranger_eval.win_rate)",
    "irt": "item response theory: Rasch (conditional ML) or 2PL (marginal ML) item and ability "
           "parameters (ranger_eval.irt)",
    "subset": "an estimate of a system's mean over a whole benchmark from a random subset of its "
              "items (ranger_eval.estimate_from_subset)",
    "subset_choice": "a subset of a benchmark's items chosen by a stated design "
                     "(ranger_eval.choose_subset)",
    "variance": "REML variance components across items, prompts and samples "
                "(ranger_eval.variance_components)",
    "bayes": "Bayesian comparison of two systems with a ROPE (ranger_eval.bayesian_correlated_"
             "ttest, bayesian_signed_rank, bayesian_sign_test)",
    "agreement": "agreement between raters: Krippendorff's alpha, Cohen's or Fleiss' kappa "
                 "(ranger_eval.agreement)",
    "alt_test": "the alternative annotator test of a judge against human annotators "
                "(ranger_eval.alt_test)",
}

#: Every key a signature may hold, with its meaning.
FIELDS: dict[str, str] = {
    "ranger-eval": "version of ranger-eval that produced the result",
    "kind": "kind of analysis: " + ", ".join(KINDS),
    "measure": "effect measure (MD, SMD, SMCC, SMCR, ZCOR) or IR measure",
    "method": "τ² estimator of the meta-analysis (FE, DL, HE, HS, SJ, ML, REML, EB, PM)",
    "test": "test of the summary effect (z, t, knha) or the pairwise test (auto[chosen tests], "
            "paired-t, welch, wilcoxon, sign, mannwhitney, mcnemar, proportions-z, permutation, "
            "bootstrap), or the rank test (friedman; skillings-mack when cells are missing)",
    "cells_missing": "cells of the rank test's datasets × systems table without a score "
                     "(Skillings–Mack test), and datasets dropped for fewer than two results",
    "level": "confidence level of every interval and test: a test is significant at "
             "alpha = 1 - level (a plan: the planned test's 1 - alpha)",
    "k": "number of datasets (studies) in the meta-analysis",
    "alt": "alternative hypothesis: two-sided, greater or less",
    "pairs": "pairs tested: all, baseline(NAME) or successive",
    "corr": "multiplicity correction (statsmodels multipletests name) or none",
    "family": "family within which p-values are adjusted: dataset-metric, dataset or all",
    "alpha": "significance level 1 - level, as signatures of ranger-eval before 0.2 wrote it "
             "(compare, rank, plan); read as level = 1 - alpha, no longer written",
    "n_resamples": "resamples of the data: permutations, bootstrap rounds, simulated samples "
                   "(a pilot plan), random splits (a predictive check)",
    "seed": "seed of the resampling",
    "ci": "confidence intervals that are not their test's own, as test=interval (the sign, "
          "Mann-Whitney and permutation tests carry the t interval of the difference; McNemar "
          "rows carry Tango's score interval, the score test McNemar's is at 0)",
    "mean_ci": "intervals of the systems' means (leaderboards) that are not mean ± t·se: "
               "wilson (Wilson score interval of 0/1 scores), korn-graubard (Korn-Graubard "
               "effective-n Clopper-Pearson interval: clustered 0/1 scores, or a metric with a "
               "known range, e.g. --bounds or an IR measure), comma-separated; each stays in the "
               "metric's range",
    "method_detail": "variant of the test (exact, asymptotic, pratt, ...)",
    "measures": "IR measures computed, comma-separated",
    "rel": "relevance level: minimum label counted as relevant by binary measures",
    "judged": "treatment of unjudged documents (nonrel: counted as non-relevant)",
    "missing": "topics in the qrels absent from a run: zero, drop or error",
    "precision": "precision of run scores when ranking: float64, or float32 as trec_eval 9",
    "ties": "tie-breaking of equal scores (docid-desc: docid descending, as trec_eval)",
    "max_docs": "documents kept per topic (all, or trec_eval's -M)",
    "posthoc": "post-hoc test of the rank test (nemenyi, bonferroni-dunn, holm, wilcoxon, conover)",
    "tie_correction": "whether the Friedman statistic is corrected for ties (yes/no)",
    "resample": "the resampling unit of a bootstrap over a scores table (rank intervals, "
                "boxplots, set-level effect sizes, ...; ranger_eval.design): cluster(NAME) (whole "
                "clusters of the field NAME drawn with replacement within each dataset, items and "
                "their samples inside them) or item; "
                "what the win rate's bootstrap resamples: datasets, or datasets+items (datasets, "
                "then the items of each drawn dataset), or datasets+cluster(NAME) (then whole "
                "clusters of each drawn dataset); of a Bradley–Terry fit: battles (the "
                "distinct battle rows, FastChat's bootstrap) or items (battles made from scores: "
                "every battle of an item together; its sandwich se sums within items) or "
                "cluster(NAME) (the same for every item of a cluster) or datasets (the "
                "same for a dataset-level table)",
    "weights": "weights of metrics or datasets (equal, or custom)",
    "bounds": "range lo..hi of the observations of a confidence sequence (differences: -w..w)",
    "t_opt": "observations at which a conjugate-mixture confidence sequence is tightest",
    "unit": "unit of a monitored stream: item, or the cluster field's name",
    "N": "population size of a confidence sequence sampled without replacement",
    "n": "observations (units) in a confidence sequence or monitored stream",
    "predictor": "predictor of every item's result in a subset estimate: rasch or 2pl (fitted on "
                 "the history) or the name of a Python function",
    "folds": "cross-fitting folds of a subset estimate (each fold predicted from the others)",
    "design": "design of a subset of items: random, stratified or anchor (not random)",
    "strata": "strata of a stratified subset (by the items' mean in the history)",
    "order": "comparisons of the ranking: successive, all or first-vs-rest",
    "ppi": "prediction-powered inference on judge scores with human scores for some items "
           "(the human_value column): ppi++ (power-tuned λ), ppi (λ = 1) or classical (human "
           "scores only); ppi-wilcoxon / ppi++-sign: compare's prediction-powered rank tests "
           "(Walsh-average signed rank with λ = 1, sign with power-tuned λ)",
    "passk": "per-item values estimated from K samples: pass@K (unbiased, Chen et al. 2021) or "
             "pass^K (Yao et al. 2024), the samples field giving the samples per item",
    "samples": "K generations per item (the sample column) averaged per item before testing "
               "(Miller 2024, §4), or the samples per item of the passk estimator; lo-hi when "
               "systems used different K",
    "cluster": "the column of the items' clusters: every test is its cluster-robust version "
               "(paired t: CR2 with Bell-McCaffrey df, or CR1 on C - 1 df as cse says; "
               "unpaired: CR1 regression t on C - 1 df; McNemar: Durkalski's below 50 clusters "
               "of unequal sizes, else Yang-Sun-Hardin's; Rosner-Glynn-Lee signed ranks; "
               "cluster bootstrap / sign flips) and effect variances are cluster-robust",
    "cse": "cluster-robust variance of a clustered paired t or prediction-powered t: CR2 "
           "(Bell-McCaffrey df) or CR1 "
           "(t on C - 1 df, as statsmodels and sandwich HC1)",
    "mods": "moderators of a meta-regression (column names), or subgroups(COLUMN) for a subgroup "
            "analysis",
    "solve": "the unknown a plan solved for: effect, n or power",
    "icc": "intra-cluster correlation assumed by a plan (design effect 1 + (m - 1)·ICC)",
    "cluster_size": "items per cluster assumed by a plan",
    "k_samples": "samples per item assumed by a plan (Miller's variance decomposition)",
    "n_simulations": "simulated experiments of a plan from a pilot",
    "hyp": "hypothesis shown: non-inferiority or equivalence (absent: superiority, a "
           "difference)",
    "margin": "margin of non-inferiority or equivalence, in the metric's units (compare) or the "
              "effect measure's (meta)",
    "battles": "where the battles of a Bradley–Terry fit came from: table (a battles table or "
               "file) or scores(items) / scores(datasets) (made from scores: every item, or "
               "every dataset of a dataset-level table, a battle between every pair of systems "
               "scored there, won by the better score, equal scores a tie)",
    "tie_model": "how ties enter a Bradley–Terry fit: half (half a win each, as FastChat) or "
                 "davidson (Davidson 1970 tie parameter)",
    "elo": "Elo scale of Bradley–Terry ratings: scale,base,initial rating "
           "(R = initial + scale·θ/ln(base))",
    "covariates": "battle-level covariates of a style-controlled arena (comma list)",
    "anchor": "model whose rating is fixed, as MODEL=RATING (absent: the mean rating is the "
              "initial rating)",
    "rope": "half-width of the region of practical equivalence of a Bayesian comparison, in the "
            "metric's units",
    "runs": "repetitions of cross-validation of the Bayesian correlated t-test (k = n / runs "
            "folds; Nadeau–Bengio ρ = 1/k)",
    "prior": "Dirichlet prior strength of a Bayesian signed-rank/sign test (@left/@right: where "
             "the sign test puts it; default: on the ROPE, and on the pseudo-observation 0 for "
             "the signed-rank test)",
    "n_samples": "posterior draws of a Bayesian signed-rank/sign test",
    "n_draws": "posterior draws of a Bayesian test (ranger-eval bayes: signed-rank/sign; the "
               "Bayesian rank test: per pair, autorank's Bayesian signed-rank test)",
    "approach": "how the rank test decides: bayesian (autorank's Bayesian signed-rank test of "
                "every pair with a ROPE; absent: frequentist, Friedman and a post-hoc test)",
    "rope_mode": "what the Bayesian rank test's rope multiplies: sd or mad (effect-size ROPE: "
                 "the pooled SD, or MAD·1.4826, of each pair; autorank) or absolute (metric units)",
    "n_scores": "scores (runs) in each distribution of an ASO test, as n_a,n_b",
    "model": "item response model: rasch (conditional ML) or 2pl (marginal ML)",
    "n_quadrature": "Gauss-Hermite points of the ability integral (2PL)",
    "factors": "random factors of a variance decomposition: item, or item,prompt (samples "
               "are the residual)",
    "interaction": "the item × prompt variance component: fitted (replicate samples in some "
                   "item × prompt cell) or in the residual (auto: where estimable; always; "
                   "never)",
    "prompts": "the prompt column: the paired difference per item × prompt modelled as "
               "mu + item + prompt + error (crossed random effects, REML, Satterthwaite df; "
               "crossed(P) with P prompts)",
    "threshold": "τ of an ASO verdict: A almost stochastically dominates B when ε_min < τ",
    "coef": "agreement coefficient: krippendorff (alpha), cohen or fleiss (kappa)",
    "scale": "Krippendorff's level of measurement: nominal, ordinal, interval or ratio",
    "kappa_weights": "weights of Cohen's kappa: linear or quadratic (absent: unweighted)",
    "n_items": "items rated (an agreement coefficient) or tested (an alt-test)",
    "n_raters": "raters (annotators, judges) of an agreement coefficient or an alt-test",
    "judge": "the rater an alt-test tests as the replacement of the human annotators",
    "epsilon": "ε of an alt-test: the judge's cost-benefit allowance (Calderon et al. 2025)",
    "alt_metric": "how an alt-test scores an annotation against the item's other annotators: "
                  "accuracy or neg_rmse",
    "fdr": "q of the Benjamini-Yekutieli procedure over an alt-test's annotators",
    "min_raters": "fewest human annotations an item needs in an alt-test",
    "min_items": "fewest items an annotator needs to be tested in an alt-test",
}


class Signature(str):
    """A signature string; ``.fields`` gives its ``key: value`` pairs."""

    __slots__ = ()

    @property
    def fields(self) -> dict[str, str]:
        return parse_signature(self)


def _value(value: object) -> str:
    if isinstance(value, float):
        text = f"{value:.6g}"
    elif isinstance(value, (list, tuple)):
        text = ",".join(_value(v) for v in value)
    else:
        text = str(value)
    return text.replace("|", "/")


def make_signature(kind: str, fields: Mapping[str, object]) -> Signature:
    """The reproducibility signature ``ranger-eval:VERSION|kind:KIND|key:value|…`` of a result.

    ``None`` values are left out. Keys must be documented in :data:`FIELDS` (so ``ranger-eval
    signature`` explains them all); retired keys are refused with their replacement.

    Parameters
    ----------
    kind : str
        The kind of analysis, a key of :data:`KINDS`.
    fields : mapping of str to object
        The settings that decide the result, in the order they are written.

    Returns
    -------
    Signature
        A ``str`` subclass.

    Raises
    ------
    ValueError
        An unknown kind, or an undocumented or retired field.

    References
    ----------
    Post, M. (2018), "A call for clarity in reporting BLEU scores", WMT (sacrebleu's signature,
    the model of this one).

    Examples
    --------
    >>> from ranger_eval.signature import make_signature
    >>> make_signature("test", {"level": 0.95, "seed": 0, "n_resamples": None})
    'ranger-eval:...|kind:test|level:0.95|seed:0'
    """
    if kind not in KINDS:
        raise ValueError(f"unknown signature kind {kind!r}")
    unknown = [k for k in fields if k not in FIELDS]
    retired = [f"{k} (write {RETIRED[k]})" for k in fields if k in RETIRED]
    if retired:
        raise ValueError(f"retired signature field(s): {', '.join(retired)}")
    if unknown:
        raise ValueError(f"undocumented signature field(s): {', '.join(unknown)}")
    parts = [f"{TOOL}:{__version__}", f"kind:{kind}"]
    parts += [f"{k}:{_value(v)}" for k, v in fields.items() if v is not None]
    return Signature("|".join(parts))


#: What a signature looks like (quoted by the errors of :func:`parse_signature`).
EXAMPLE = f"{TOOL}:{__version__}|kind:compare|test:paired-t|alt:two-sided|corr:holm|seed:0"


def parse_signature(text: str) -> dict[str, str]:
    """The ``key: value`` pairs of a signature, in order (the tool's version under ``ranger-eval``).

    Parameters
    ----------
    text : str
        A signature, as a result, a manifest or a figure footer writes it.

    Returns
    -------
    dict of str to str

    Raises
    ------
    ValueError
        Text that is not a signature: the message names the offending field and shows what a
        signature looks like (``ranger-eval signature`` reports it as an ``InputError``).

    Examples
    --------
    >>> from ranger_eval import parse_signature
    >>> parse_signature("ranger-eval:0.9.0|kind:compare|test:paired-t|corr:holm|seed:0")
    {'ranger-eval': '0.9.0', 'kind': 'compare', 'test': 'paired-t', 'corr': 'holm', 'seed': '0'}
    """
    out: dict[str, str] = {}
    shape = f"a signature is key:value fields separated by |, e.g. {EXAMPLE}"
    for part in str(text).strip().split("|"):
        key, sep, value = part.partition(":")
        if not sep or not key:
            raise ValueError(f"not a ranger-eval signature: {text!r}: field {part!r} is not "
                             f"key:value; {shape}")
        out[key] = value
    if TOOL not in out:
        raise ValueError(f"not a ranger-eval signature: {text!r} has no {TOOL}:VERSION field; "
                         f"{shape}")
    return out


def signature_level(fields: Mapping[str, str]) -> float | None:
    """The confidence level a parsed signature records.

    Its ``level`` field, or ``1 − alpha`` from the ``alpha`` field older signatures wrote
    (``alpha:0.05`` → 0.95, rounded to 12 digits).

    Parameters
    ----------
    fields : mapping of str to str
        A parsed signature (:func:`parse_signature`).

    Returns
    -------
    float or None
        ``None`` when it records neither or the value is not a number.

    Examples
    --------
    >>> from ranger_eval.signature import signature_level
    >>> signature_level({"level": "0.9"}), signature_level({"alpha": "0.05"}), signature_level({})
    (0.9, 0.95, None)
    """
    try:
        if "level" in fields:
            return float(fields["level"])
        if "alpha" in fields:
            return round(1.0 - float(fields["alpha"]), 12)
    except ValueError:
        return None
    return None


def describe_fields() -> str:
    """A plain-text table of every signature field and kind (what ``ranger-eval signature`` prints).

    Returns
    -------
    str

    Examples
    --------
    >>> from ranger_eval.signature import describe_fields
    >>> print(describe_fields().splitlines()[0])
    Fields of a ranger-eval reproducibility signature (key:value, separated by |):
    """
    width = max(map(len, FIELDS))
    lines = ["Fields of a ranger-eval reproducibility signature (key:value, separated by |):", ""]
    lines += [f"  {k:<{width}}  {v}" for k, v in FIELDS.items()]
    lines += ["", "Kinds:", ""]
    lines += [f"  {k:<{width}}  {v}" for k, v in KINDS.items()]
    return "\n".join(lines)
