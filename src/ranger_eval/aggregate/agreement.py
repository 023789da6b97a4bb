"""Where two procedures of one output folder answer differently, say why both can hold.

Each function compares two verdicts written to one output folder, item by item (a pair of
systems, a summary effect), and returns one sentence per kind of disagreement: what each
procedure asks, which pairs (or which effect) they disagree on, and why both hold. It is a rule
on the results, not boilerplate: nothing is said when they agree. The pipeline writes the
sentences to the command's JSON (``disagreements``), Markdown ("**Why both hold.**") and the
HTML reading.

* :func:`rank_disagreements` — ``ranger-eval rank`` (and ``demo``): the ranking's pairwise tests
  (:func:`~ranger_eval.aggregate.rank_systems`; by default the harmonic-mean p of the pair's tests
  on every dataset × metric, Wilson 2019) against the rank test's post-hoc test
  (:func:`~ranger_eval.aggregate.rank_test`; Nemenyi's critical difference in the CD diagram,
  Demšar 2006). The harmonic-mean p asks whether two systems differ **on at least one** dataset ×
  metric (it is dominated by the smallest p-values; with many items per dataset one clear win
  suffices); the rank test asks whether their **average ranks over the datasets** differ by more
  than the critical difference (with few datasets it needs a consistent order across nearly all).
* :func:`bayesian_disagreements` — ``rank --approach bayesian``: the same pairwise tests against
  the Bayesian signed-rank test's ROPE decisions (Benavoli et al. 2017). A p-value asks whether
  the difference is zero; the ROPE asks whether it is larger than what matters. A difference can
  be detectably non-zero and practically equivalent (many items), or decided by the posterior
  over the datasets and not by the per-dataset tests (few items, a consistent sign).
* :func:`margin_disagreements` — ``meta --margin``: the summary effect's test of no effect against
  its equivalence / non-inferiority verdict (:mod:`ranger_eval.meta.verdict`): a significant
  summary within ±margin (real but negligible), or neither significant nor equivalent (too
  little data to tell).
* :func:`equivalence_disagreements` — ``compare --hypothesis equivalence``: a pair shown
  equivalent whose interval also excludes 0 (different and equivalent at once), or not shown
  equivalent whose interval contains 0 (not different, yet not equivalent). Its interval is the
  1 − 2α interval the two one-sided tests invert (Schuirmann 1987): excluding 0, the difference
  is significant one-sided at α in its direction; containing 0, it is not significant at α
  either way (nor two-sided at α).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..formatting import format_level, format_probability, format_pvalue

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..meta.results import MetaResult

__all__ = ["bayesian_disagreements", "equivalence_disagreements", "margin_disagreements",
           "rank_disagreements"]

_POSTHOC = {"nemenyi": "Nemenyi", "bonferroni-dunn": "Bonferroni–Dunn", "holm": "Holm",
            "wilcoxon": "Wilcoxon", "conover": "Conover"}


def _verdicts(rows: Iterable[Mapping[str, Any]]) -> dict[frozenset[str], bool]:
    return {frozenset((str(r["a"]), str(r["b"]))): bool(r["significant"]) for r in rows}


def _pairs(pairs: list[frozenset[str]], order: list[str]) -> str:
    """The pairs in words, by ``order`` (average ranks), then by name: a pair is a frozenset, whose
    iteration order follows string hashing, so a tie (or a system absent from ``order``) must be
    broken by name for the sentence to be the same in every run."""
    def place(s: str) -> tuple[int, str]:
        return (order.index(s) if s in order else len(order)), s

    def key(p: frozenset[str]) -> tuple[tuple[int, str], ...]:
        return tuple(sorted(map(place, p)))

    said = []
    for p in sorted(pairs, key=key):
        a, b = sorted(p, key=place)
        said.append(f"{a} vs {b}")
    if len(said) > 6:
        said = [*said[:5], f"{len(said) - 5} more pairs"]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def rank_disagreements(ranking: Mapping[str, Any], rank_test: Mapping[str, Any]) -> list[str]:
    """Sentences explaining the pairs on which the ranking's pairwise tests and the rank test's
    post-hoc test disagree, from their JSON forms (``Ranking.to_dict()``,
    ``RankTest.to_dict()``: ``pairwise`` rows with ``a``, ``b``, ``significant``); empty when
    they agree on every pair both tested (or one of them tested no pairs).

    Parameters
    ----------
    ranking : mapping
        ``Ranking.to_dict()``: ``pairwise`` rows with ``a``, ``b``, ``test``, ``significant``.
    rank_test : mapping
        ``RankTest.to_dict()``: ``pairwise`` rows, ``posthoc``, ``n_datasets`` and, for
        Nemenyi, ``critical_difference`` and ``average_ranks``.

    Returns
    -------
    list of str
        One sentence per kind of disagreement, naming its pairs.

    References
    ----------
    Demšar (2006), "Statistical comparisons of classifiers over multiple data sets", JMLR 7:1–30.

    Examples
    --------
    >>> from ranger_eval.aggregate.agreement import rank_disagreements
    >>> ranking = {"pairwise": [
    ...     {"a": "A", "b": "B", "test": "paired t-test", "significant": True},
    ...     {"a": "A", "b": "C", "test": "paired t-test", "significant": False}]}
    >>> rank_test = {"posthoc": "nemenyi", "n_datasets": 5, "pairwise": [
    ...     {"a": "A", "b": "B", "significant": False}, {"a": "A", "b": "C", "significant": False}]}
    >>> print(rank_disagreements(ranking, rank_test)[0])
    The ranking's pairwise tests (paired t-test) ask ... Both hold for A vs B, significant by the first and not by the second: ...
    >>> rank_disagreements(ranking, ranking)
    []
    """
    mine = _verdicts(r for r in ranking.get("pairwise") or [] if isinstance(r, Mapping))
    theirs = _verdicts(r for r in rank_test.get("pairwise") or [] if isinstance(r, Mapping))
    shared = [p for p in mine if p in theirs]
    only_pair = [p for p in shared if mine[p] and not theirs[p]]
    only_rank = [p for p in shared if theirs[p] and not mine[p]]
    if not only_pair and not only_rank:
        return []
    avg = rank_test.get("average_ranks") or {}
    order = sorted(map(str, avg), key=lambda s: float(avg[s])) if isinstance(avg, Mapping) \
        else []
    tests = {str(r.get("test")) for r in ranking.get("pairwise") or [] if isinstance(r, Mapping)}
    hmp = tests == {"hmp"}
    n_data = int(rank_test.get("n_datasets") or 0)
    posthoc = _POSTHOC.get(str(rank_test.get("posthoc")), str(rank_test.get("posthoc")))
    cd = rank_test.get("critical_difference")
    cd_text = f" (CD = {float(cd):.2f})" if isinstance(cd, (int, float)) else ""
    pair_q = ("The harmonic-mean p asks whether two systems differ on at least one dataset × "
              "metric" if hmp else
              f"The ranking's pairwise tests ({', '.join(sorted(tests))}) ask whether two "
              "systems differ on the pooled datasets × metrics")
    rank_q = (f"the {posthoc} test asks whether their average ranks over the {n_data} datasets "
              f"differ by more than the critical difference{cd_text}" if posthoc == "Nemenyi"
              else f"the {posthoc} post-hoc test asks whether their ranks over the {n_data} "
              "datasets differ")
    out = []
    if only_pair:
        what = _pairs(only_pair, order)
        many = len(only_pair) > 1
        out.append(
            f"{pair_q}; {rank_q}. Both hold for {what}, significant by the first and not by "
            f"the second: {'each pair' if many else 'the pair'} differs clearly on some "
            f"datasets (many items each), but {n_data} datasets are too few for "
            f"{'their' if many else 'its'} average ranks to differ by that much.")
    if only_rank:
        what = _pairs(only_rank, order)
        out.append(
            f"{pair_q}; {rank_q}. Both hold for {what}, separated by the rank test but not by "
            "the pairwise tests: one system ranks above the other on nearly every dataset, by "
            "differences too small for the per-dataset tests.")
    return out


def _pair_question(ranking: Mapping[str, Any]) -> str:
    tests = {str(r.get("test")) for r in ranking.get("pairwise") or [] if isinstance(r, Mapping)}
    if tests == {"hmp"}:
        return ("The harmonic-mean p asks whether two systems differ at all (a difference other "
                "than zero on at least one dataset × metric)")
    return (f"The ranking's pairwise tests ({', '.join(sorted(tests))}) ask whether two systems "
            "differ at all (a difference other than zero)")


def _rope_text(bayes: Mapping[str, Any], rows: list[Mapping[str, Any]]) -> str:
    widths = sorted({float(r["rope"]) for r in rows if isinstance(r.get("rope"), (int, float))})
    one = f"±{widths[0]:.3g}" if len(widths) == 1 else (
        f"±{widths[0]:.3g} to ±{widths[-1]:.3g}" if widths else "")
    if bayes.get("rope_mode") == "absolute":
        return f"{one} in the metric's units" if one else "in the metric's units"
    scale = f"{float(bayes.get('rope', 0.1)):g} × the pair's pooled spread over the datasets"
    return f"{one}: {scale}" if one else scale


def bayesian_disagreements(ranking: Mapping[str, Any], bayes: Mapping[str, Any]) -> list[str]:
    """Sentences explaining the pairs on which the ranking's pairwise tests (frequentist: a
    p-value of no difference) and the Bayesian rank test's ROPE decisions disagree, from their
    JSON forms (``Ranking.to_dict()`` and ``BayesianRankTest.to_dict()``: ``pairwise`` rows with
    ``a``, ``b`` and ``significant``, resp. ``decision`` in better / equivalent / worse /
    inconclusive, ``p_rope``, ``rope``). Three kinds, each said once naming its pairs:
    significant yet practically equivalent; significant yet undecided; decided better or worse
    yet not significant. Empty when they agree (significant and decided a difference, or not
    significant and equivalent or undecided) on every pair both judged.

    Parameters
    ----------
    ranking : mapping
        ``Ranking.to_dict()``: ``pairwise`` rows with ``a``, ``b``, ``test``, ``significant``.
    bayes : mapping
        ``BayesianRankTest.to_dict()``: ``pairwise`` rows with ``a``, ``b``, ``decision``,
        ``p_rope``, ``rope``, and ``rope_mode``, ``level``, ``n_datasets``.

    Returns
    -------
    list of str
        One sentence per kind of disagreement, naming its pairs.

    References
    ----------
    Benavoli, Corani, Demšar & Zaffalon (2017), "Time for a change: a tutorial for comparing
    multiple classifiers through Bayesian analysis", JMLR 18.

    Examples
    --------
    >>> from ranger_eval.aggregate.agreement import bayesian_disagreements
    >>> ranking = {"pairwise": [
    ...     {"a": "A", "b": "B", "test": "paired t-test", "significant": True},
    ...     {"a": "A", "b": "C", "test": "paired t-test", "significant": False}]}
    >>> bayes = {"rope_mode": "absolute", "n_datasets": 8, "average_ranks": {"A": 1.4, "B": 1.6, "C": 3.0},
    ...          "pairwise": [
    ...     {"a": "A", "b": "B", "decision": "equivalent", "p_rope": 0.97, "rope": 0.01},
    ...     {"a": "A", "b": "C", "decision": "inconclusive", "p_rope": 0.3, "rope": 0.01}]}
    >>> print(bayesian_disagreements(ranking, bayes)[0])
    The ranking's pairwise tests ... Both hold for A vs B, significant by the first and practically equivalent by the second (P = 0.97): ...
    """
    mine = _verdicts(r for r in ranking.get("pairwise") or [] if isinstance(r, Mapping))
    rows = {frozenset((str(r["a"]), str(r["b"]))): r for r in bayes.get("pairwise") or []
            if isinstance(r, Mapping)}
    shared = [p for p in mine if p in rows]
    equivalent = [p for p in shared if mine[p] and rows[p].get("decision") == "equivalent"]
    undecided = [p for p in shared if mine[p] and rows[p].get("decision") == "inconclusive"]
    decided = [p for p in shared if not mine[p]
               and rows[p].get("decision") in ("better", "worse")]
    if not (equivalent or undecided or decided):
        return []
    avg = bayes.get("average_ranks") or {}
    order = (sorted(map(str, avg), key=lambda s: float(avg[s])) if isinstance(avg, Mapping)
             else [])
    n_data = int(bayes.get("n_datasets") or 0)
    level = float(bayes.get("level") or 0.95)

    def asks(pairs: list[frozenset[str]]) -> str:
        rope = _rope_text(bayes, [rows[p] for p in pairs])
        return (f"{_pair_question(ranking)}; the Bayesian signed-rank test asks whether, over "
                f"the {n_data} datasets, their difference is larger than the region of practical "
                f"equivalence (ROPE {rope}), the smallest difference that matters, deciding at "
                f"posterior probability {level:g}.")

    def prob(pairs: list[frozenset[str]], key: str) -> str:
        if len(pairs) != 1:
            return ""
        value = rows[pairs[0]].get(key)
        return (f" (P {format_probability(float(value))})"
                if isinstance(value, (int, float)) else "")

    out = []
    if equivalent:
        many = len(equivalent) > 1
        out.append(
            f"{asks(equivalent)} Both hold for {_pairs(equivalent, order)}, significant by the "
            f"first and practically equivalent by the second{prob(equivalent, 'p_rope')}: "
            f"with many items a difference too small to matter is still detectably not zero "
            f"({'each' if many else 'the'} difference is real, and negligible).")
    if undecided:
        out.append(
            f"{asks(undecided)} Both hold for {_pairs(undecided, order)}, significant by the "
            "first and undecided by the second: the per-item tests see a difference, but "
            f"{n_data} dataset scores are too few to place it inside or outside the ROPE with "
            "that probability.")
    if decided:
        def said(p: frozenset[str]) -> str:
            r = rows[p]
            a, b = (str(r["a"]), str(r["b"])) if r.get("decision") == "better" \
                else (str(r["b"]), str(r["a"]))
            return f"{a} ahead of {b}"

        ahead = "; ".join(said(p) for p in decided[:5])
        key = "p_a_better" if rows[decided[0]].get("decision") == "better" else "p_b_better"
        out.append(
            f"{asks(decided)} Both hold for {_pairs(decided, order)}, decided by the second "
            f"({ahead}{prob(decided, key)}) and not significant by the first: one system is "
            "ahead by more than the ROPE on nearly every dataset, but the per-dataset tests "
            "do not show it.")
    return out


def margin_disagreements(result: MetaResult) -> list[str]:
    """Sentences explaining where a meta-analysis's test of no effect (its p-value) and its
    margin verdict (``meta_analysis(margin=)``; :mod:`ranger_eval.meta.verdict`) seem to
    disagree; empty without a margin or when they agree. At α = 1 − level, with the
    confidence interval at ``level`` that both read (Wellek 2010, §1.6):

    * significant, and equivalent within ±margin (a gain or a loss): a real effect too small
      to matter (a significant loss inside the margin is "equivalent", the verdict checked
      first, so it is said here);
    * not significant, and inconclusive: the interval holds 0 and reaches past the margin (on
      the worse side), so the data cannot tell no effect from one that matters — not
      significant is not equivalent.

    A significant gain that is non-inferior or inconclusive, and a non-significant summary that
    is equivalent or non-inferior, agree: nothing is said.
    """
    verdict = result.verdict
    if verdict is None:
        return []
    est, lo, hi = float(result.estimate), float(result.ci_low), float(result.ci_high)
    if not all(math.isfinite(v) for v in (est, lo, hi, float(result.pvalue))):
        return []
    alpha = round(1.0 - float(result.level), 12)
    significant = float(result.pvalue) < alpha
    m = verdict.margin
    interval = f"{format_level(result.level)} CI [{lo:.4g}, {hi:.4g}]"
    asks = (f"The p-value asks whether the summary effect is zero; the margin asks whether it "
            f"is smaller than ±{m:g}, the difference that matters ({verdict.summary} by the "
            f"{interval}).")
    p = format_pvalue(float(result.pvalue), prefix="p = ")
    if significant and verdict.summary.startswith("equivalent"):
        return [f"{asks} Both hold: the summary effect {est:.4g} is not zero ({p}) and lies "
                f"within ±{m:g} — a real difference too small to matter."]
    if not significant and verdict.summary == "inconclusive":
        return [f"{asks} Both hold: the summary effect is not significant ({p}), yet not "
                f"equivalent either: the interval holds 0 and reaches past ±{m:g}, so the data "
                "cannot tell no effect from one that matters — not significant is not "
                "equivalent."]
    return []


def equivalence_disagreements(table: pd.DataFrame, *, margin: float | None, level: float,
                               hypothesis: str = "equivalence") -> list[str]:
    """Sentences explaining the pairs of an equivalence comparison (``compare(hypothesis=
    "equivalence", margin=)``; ``table`` its rows, :attr:`Comparison.table` or comparison.csv:
    ``system_a``, ``system_b``, ``dataset``, ``metric``, ``diff``, ``ci_low``, ``ci_high``,
    ``significant``) whose verdict seems to contradict a test of no difference, read from the
    interval each row's two one-sided tests invert (the 1 − 2α interval, module docstring):
    shown equivalent while the interval excludes 0 (different and equivalent at once), or not
    shown equivalent while it contains 0 (neither different nor equivalent). Empty for other
    hypotheses or when no row is of either kind.

    Parameters
    ----------
    table : DataFrame
        The comparison's rows (columns as above).
    margin : float or None
        The equivalence margin (None: nothing to say).
    level : float
        The comparison's level (α = 1 − level).
    hypothesis : str, default "equivalence"
        The comparison's hypothesis; any other gives ``[]``.

    Returns
    -------
    list of str
        One sentence per row of either kind.

    References
    ----------
    Wellek (2010), *Testing Statistical Hypotheses of Equivalence and Noninferiority*, 2nd ed.,
    Chapman & Hall/CRC, §1.6.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.aggregate.agreement import equivalence_disagreements
    >>> rows = pd.DataFrame({"system_a": ["A", "A"], "system_b": ["B", "C"], "dataset": "d",
    ...                      "metric": "acc", "diff": [0.01, 0.001], "ci_low": [0.005, -0.02],
    ...                      "ci_high": [0.015, 0.03], "significant": [True, False]})
    >>> for sentence in equivalence_disagreements(rows, margin=0.02, level=0.95):
    ...     print(sentence)
    A test of no difference asks ... Both hold for A vs B (d, acc; diff 0.01): shown equivalent, and the interval excludes 0, ...
    A test of no difference asks ... Both hold for A vs C (d, acc; diff 0.001): not shown equivalent, and the interval contains 0, ...
    """
    if hypothesis != "equivalence" or margin is None or table.empty:
        return []
    t = table
    shown_col = t["significant"]
    if shown_col.dtype.kind != "b":  # read back from a CSV as text (or 0/1)
        shown_col = shown_col.astype(str).str.strip().str.lower().isin(("true", "1", "1.0", "yes"))
    m = float(margin)
    alpha = round(1.0 - float(level), 12)
    pct = format_level(round(2.0 * float(level) - 1.0, 12))
    both, neither = [], []
    cols = zip(t["system_a"].astype(str), t["system_b"].astype(str), t["dataset"].astype(str),
               t["metric"].astype(str), t["diff"].to_numpy(float), t["ci_low"].to_numpy(float),
               t["ci_high"].to_numpy(float), shown_col.astype(bool), strict=True)
    for a, b, dataset, metric, diff, lo, hi, shown in cols:
        if not (math.isfinite(lo) and math.isfinite(hi)):
            continue
        what = f"{a} vs {b} ({dataset}, {metric}; diff {diff:.4g})"
        if shown and (lo > 0 or hi < 0):
            both.append(what)
        elif not shown and lo <= 0 <= hi:
            neither.append(what)

    def listed(rows: list[str]) -> str:
        said = rows if len(rows) <= 5 else [*rows[:5], f"{len(rows) - 5} more pairs"]
        return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]

    asks = (f"A test of no difference asks whether the difference is zero; the equivalence test "
            f"asks whether it is smaller than ±{m:g}, the difference that matters (each row's "
            f"{pct} interval, which both read).")
    out = []
    if both:
        out.append(f"{asks} Both hold for {listed(both)}: shown equivalent, and the interval "
                   f"excludes 0, so the difference is also significant (one-sided at α = "
                   f"{alpha:g}): real, but smaller than the margin — with many items a "
                   "negligible difference is still detectable.")
    if neither:
        out.append(f"{asks} Both hold for {listed(neither)}: not shown equivalent, and the "
                   "interval contains 0, so the difference is not significant either: the data "
                   "cannot tell no difference from one that matters — not significant is not "
                   "equivalent.")
    return out
