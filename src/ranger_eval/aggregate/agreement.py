"""Where two procedures of one output folder answer differently, say why both can hold (issue 27 §4).

``ranger-eval rank`` (and ``demo``) write two verdicts on every pair of systems: the ranking's
pairwise tests (:func:`~ranger_eval.aggregate.rank_systems`; by default the harmonic-mean p of the
pair's tests on every dataset × metric, Wilson 2019) and the rank test's post-hoc test
(:func:`~ranger_eval.aggregate.rank_test`; Nemenyi's critical difference in the CD diagram, Demšar
2006). They ask different questions, so they can differ without either being wrong:

* the harmonic-mean p asks whether the two systems differ **on at least one** dataset × metric
  (it is dominated by the smallest p-values); with many items per dataset one clear win suffices;
* the rank test asks whether their **average ranks over the datasets** differ by more than the
  critical difference; with few datasets it needs a consistent order across nearly all of them.

:func:`rank_disagreements` compares the two verdicts pair by pair — a rule on the results, not
boilerplate: nothing is said when they agree — and returns one sentence per direction of
disagreement naming the pairs, what each procedure asks, and why both hold.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["rank_disagreements"]

_POSTHOC = {"nemenyi": "Nemenyi", "bonferroni-dunn": "Bonferroni–Dunn", "holm": "Holm",
            "wilcoxon": "Wilcoxon", "conover": "Conover"}


def _verdicts(rows: Iterable[Mapping[str, Any]]) -> dict[frozenset[str], bool]:
    return {frozenset((str(r["a"]), str(r["b"]))): bool(r["significant"]) for r in rows}


def _pairs(pairs: list[frozenset[str]], order: list[str]) -> str:
    def key(p: frozenset[str]) -> tuple[int, int]:
        i, j = sorted(order.index(s) if s in order else len(order) for s in p)
        return i, j

    said = []
    for p in sorted(pairs, key=key):
        a, b = sorted(p, key=lambda s: order.index(s) if s in order else len(order))
        said.append(f"{a} vs {b}")
    if len(said) > 6:
        said = [*said[:5], f"{len(said) - 5} more pairs"]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def rank_disagreements(ranking: Mapping[str, Any], rank_test: Mapping[str, Any]) -> list[str]:
    """Sentences explaining the pairs on which the ranking's pairwise tests and the rank test's
    post-hoc test disagree, from their JSON forms (``Ranking.to_dict()``,
    ``RankTest.to_dict()``: ``pairwise`` rows with ``a``, ``b``, ``significant``); empty when
    they agree on every pair both tested (or one of them tested no pairs)."""
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
