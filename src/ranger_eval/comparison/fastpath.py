"""The fast path of :func:`~ranger_eval.comparison.compare` for the commonest case: paired t tests
on a table where every system scores every item (one pass over the whole table).
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..pairing import factorize, scores_table
from ..scores import Scores
from ..stats import EFFECT_THRESHOLDS, many
from .choices import COLUMNS, TESTS
from .dispatch import cohens_h_of_means, tango_rows

# --------------------------------------------------------------------------- many groups at once
#: rows per dataset × metric group from which the grouped engine (one vectorised call per
#: group, ~0.5 ms of Python each) beats the uniform path (a lexsort of every row of the table):
#: measured crossover ~2,000 rows per group on 1M-row tables (2,000 groups × 5 systems × 100
#: items: uniform 0.30 s, grouped 0.96 s; 500 × 5 × 400: 0.25 s vs 0.24 s; 15 × 20 × 10,000,
#: the 2,850-test workload of benchmarks/compare_bench.py: 1.1–3.3 s vs 0.29–0.49 s).
GROUPED_ROWS_PER_GROUP = 2048


def prefer_grouped(layout: tuple[Any, ...] | None, size: int) -> bool:
    """Whether the group-by-group engine is faster than :func:`_uniform_paired_t` for a table of
    ``size`` rows with this :func:`~ranger_eval.pairing.block_layout`: the rows are in blocks
    and the dataset × metric groups are large (at least :data:`GROUPED_ROWS_PER_GROUP` rows
    each on average), so a few large groups are tested one vectorised call each instead of
    sorting the whole table. Both paths give the same numbers bit for bit; this picks the
    faster one only.
    """
    if layout is None:  # not in blocks (many tiny groups, or shuffled rows): the uniform path
        return False
    ds_codes, met_codes = layout[2], layout[3]
    n_groups = np.unique(ds_codes * (int(met_codes.max()) + 1) + met_codes).size
    return size >= GROUPED_ROWS_PER_GROUP * n_groups


def _uniform_paired_t(
    scores: Scores, systems: Sequence[str] | None, pairs: str | Sequence[tuple[str, str]],
    baseline: str | None, alternative: str, level: float, test: str = "auto",
) -> tuple[pd.DataFrame, pd.DataFrame, tuple[str, ...]] | None:
    """The comparison rows and mean rows of every dataset × metric at once, with array
    operations across groups instead of one :class:`_GroupWork` per group, in the common case
    of many small uniform groups: no seeds, every group scored by every system on the same items
    (at least 2, ``complete``), and ``test`` "auto" (McNemar for a pair of 0/1 systems, the
    paired t test otherwise), "paired-t" or "mcnemar" (every pair 0/1); ``pairs`` "all", "baseline", "successive" or a
    list of pairs of known systems, as ``rank`` passes. ``None`` when any of that does not
    hold, or a
    value is extreme (|x| > 2^1000), non-finite, or any pair's result would be refused by
    :func:`_check_outcome`: the caller then takes the group-by-group path, which gives the same
    numbers and names the offending group.

    Groups with the same number of items n form one groups × systems × items array; the
    statistics are the one-pair engine's own (:func:`~ranger_eval.stats.many.paired_moments`,
    :meth:`~ranger_eval.stats.many.PairedMoments.ttest` and ``cohens_dz``, system means as
    ``ndarray.mean`` of each row; McNemar from each pair's discordant counts,
    :func:`~ranger_eval.stats.many.mcnemar_counts_many`, with Tango's interval once per distinct
    counts, :func:`~ranger_eval.comparison.dispatch.tango_rows`; Cohen's h of binary pairs by
    :func:`~ranger_eval.comparison.dispatch.cohens_h_of_means`), so every number equals the
    group-by-group result bit for bit (tests/comparison/test_compare_groups.py and
    test_vectorised_paths.py check it). Group order: datasets in order, then metrics in
    order of first appearance within the dataset, as :func:`align_groups`.
    """
    df = scores_table(scores)
    if df.empty or scores.has_seeds:
        return None
    values = df["value"].to_numpy(np.float64)
    with np.errstate(invalid="ignore"):
        if not (np.abs(values) <= 2.0 ** 1000).all():  # NaN, inf or extreme: the exact path
            return None
    ds_codes, ds_names = factorize(df["dataset"])
    met_codes, met_names = factorize(df["metric"])
    sys_codes, sys_names = factorize(df["system"])
    item_codes, _ = factorize(df["item"], sort=True)
    sys_list = [str(s) for s in sys_names]
    names = list(systems) if systems is not None else sys_list
    if sorted(names) != sorted(sys_list):
        return None
    k = len(names)
    to_row = np.array([names.index(s) for s in sys_list], dtype=np.int64)
    if not isinstance(pairs, str):  # explicit pairs: the same in every group
        if not all(len(ab) == 2 and str(ab[0]) in names and str(ab[1]) in names
                   and str(ab[0]) != str(ab[1]) for ab in pairs):
            return None  # the group-by-group path names the bad pair
        pair_ab = [(names.index(str(a)), names.index(str(b))) for a, b in pairs]
        if not pair_ab:
            return None
    elif pairs == "all":
        pair_ab = list(itertools.combinations(range(k), 2))
    elif pairs == "baseline":
        assert baseline is not None
        kb = names.index(baseline)
        pair_ab = [(i, kb) for i in range(k) if i != kb]
    else:  # successive: neighbours by mean, per group (below)
        pair_ab = list(itertools.pairwise(range(k)))
    n_pairs = len(pair_ab)
    n_met = len(met_names)
    key = ds_codes * n_met + met_codes
    srow = to_row[sys_codes]
    order = np.lexsort((item_codes, srow, key))
    skey, ssys, sitem = key[order], srow[order], item_codes[order]
    starts = np.flatnonzero(np.r_[True, skey[1:] != skey[:-1]])
    ends = np.r_[starts[1:], skey.size]
    n_groups = starts.size
    count = ends - starts
    if (count % k).any():
        return None
    n_items = count // k
    gid = np.repeat(np.arange(n_groups), count)
    per_sys = np.bincount(gid * k + ssys, minlength=n_groups * k).reshape(n_groups, k)
    if (per_sys != n_items[:, None]).any() or (n_items < 2).any():
        return None
    # within a group, rows are system-major and item-sorted: item ids strictly increase per
    # system (no repeats) and every system lists the items of the first
    pos = np.arange(skey.size) - np.repeat(starts, count)
    col = pos % np.repeat(n_items, count)
    inc = np.r_[True, sitem[1:] > sitem[:-1]]
    if not (inc | (col == 0)).all():
        return None
    first_sys = np.repeat(starts, count) + col
    if not (sitem == sitem[first_sys]).all():
        return None
    sval = values[order]
    group_ds = skey[starts] // n_met
    first_row = np.minimum.reduceat(order, starts)
    sequence = np.lexsort((first_row, group_ds))  # dataset order, then first appearance
    rank = np.empty(n_groups, dtype=np.int64)
    rank[sequence] = np.arange(n_groups)
    means = np.empty((n_groups, k))
    binary = np.empty((n_groups, k), dtype=bool)
    buckets = []
    for n in np.unique(n_items).tolist():
        g = np.flatnonzero(n_items == n)
        idx = (starts[g][:, None] + np.arange(k * n)).reshape(-1)
        v2 = sval[idx].reshape(g.size * k, n)
        means[g] = v2.mean(axis=1).reshape(g.size, k)
        binary[g] = ((v2 == 0.0) | (v2 == 1.0)).all(axis=1).reshape(g.size, k)
        buckets.append((g, v2))
    # system indices (rows of ``means``) of each group's pairs, groups × pairs
    if pairs == "successive":  # by mean, highest first; ties keep the given order
        ranked = np.argsort(-means, axis=1, kind="stable")
        pa_g, pb_g = ranked[:, :-1], ranked[:, 1:]
    else:
        pa_g = np.broadcast_to(np.array([a for a, _ in pair_ab], dtype=np.int64),
                               (n_groups, n_pairs))
        pb_g = np.broadcast_to(np.array([b for _, b in pair_ab], dtype=np.int64),
                               (n_groups, n_pairs))
    # pairs of two 0/1 systems: McNemar (test "auto") with Tango's interval, and Cohen's h
    pair_bin = (np.take_along_axis(binary, pa_g, axis=1)
                & np.take_along_axis(binary, pb_g, axis=1))  # groups × pairs
    if test == "mcnemar" and not pair_bin.all():
        return None  # the group-by-group path names the non-binary value
    mcnemar = pair_bin if test in ("auto", "mcnemar") else np.zeros_like(pair_bin)
    parts, rows_of, mc_parts = [], [], []
    for g, v2 in buckets:
        base = (np.arange(g.size) * k)[:, None]
        ia_all, ib_all = (base + pa_g[g]).reshape(-1), (base + pb_g[g]).reshape(-1)
        rows = (rank[g][:, None] * n_pairs + np.arange(n_pairs)).reshape(-1)
        by_t = ~mcnemar[g].reshape(-1)  # paired t rows (their moments also give d_z)
        if by_t.any():
            parts.append(many.paired_moments(v2, ia_all[by_t], ib_all[by_t]))
            rows_of.append(rows[by_t])
        if not by_t.all():  # McNemar rows: discordant counts b, c of each pair
            x, y = v2[ia_all[~by_t]], v2[ib_all[~by_t]]
            b = np.count_nonzero((x == 1.0) & (y == 0.0), axis=1)
            c = np.count_nonzero((x == 0.0) & (y == 1.0), axis=1)
            r = many.mcnemar_counts_many(b, c, v2.shape[1], alternative=alternative)
            mc_parts.append((rows[~by_t], r.statistic, r.pvalue, b, c,
                             np.full(b.size, v2.shape[1])))
    total = n_groups * n_pairs
    stat, pval = np.empty(total), np.empty(total)
    lo, hi, es = np.empty(total), np.empty(total), np.empty(total)
    m = many.PairedMoments.concat(parts)
    if parts:
        t = m.ttest(alternative, level, warn=False, overflow="inf")
        assert t.ci_low is not None and t.ci_high is not None
        at = np.concatenate(rows_of)
        stat[at], pval[at] = t.statistic, t.pvalue
        lo[at], hi[at], es[at] = t.ci_low, t.ci_high, m.cohens_dz()
    if mc_parts:
        at = np.concatenate([p[0] for p in mc_parts])
        stat[at] = np.concatenate([p[1] for p in mc_parts])
        pval[at] = np.concatenate([p[2] for p in mc_parts])
        lo[at], hi[at] = tango_rows(*(np.concatenate([p[j] for p in mc_parts])
                                      for j in (3, 4, 5)), level=level, alternative=alternative)
    gseq = np.repeat(sequence, n_pairs)
    sys_a, sys_b = pa_g[sequence].reshape(-1), pb_g[sequence].reshape(-1)
    mean_a = means[gseq, sys_a]
    mean_b = means[gseq, sys_b]
    h_rows = pair_bin[sequence].reshape(-1)
    mc_rows = mcnemar[sequence].reshape(-1)
    if h_rows.any():
        es[h_rows] = cohens_h_of_means(mean_a[h_rows], mean_b[h_rows])
    with np.errstate(over="ignore", invalid="ignore"):
        diff = mean_a - mean_b
    ok = (np.isfinite(diff) & ~np.isnan(stat) & (pval >= 0.0) & (pval <= 1.0) & ~np.isnan(lo)
          & ~np.isnan(hi) & ~np.isnan(es))
    if alternative != "less":
        ok &= ~np.isinf(lo)
    if alternative != "greater":
        ok &= ~np.isinf(hi)
    if not ok.all():
        return None  # the group-by-group path names the group and the value
    m.warn_cancellation()
    # text columns as the distinct strings taken by code (Arrow's take: no Python string per
    # row to convert, 2 of compare's 5 s at 300,000 datasets), the dtype pandas gives text
    ds_text, met_text = _text(ds_names), _text(met_names)
    met_of_group = skey[starts] % n_met
    name_text = _text(names)
    labels = np.zeros(total, dtype=np.int64)  # codes into "negligible", *EFFECT_THRESHOLDS
    mag = np.abs(es)
    for code, bound in enumerate(EFFECT_THRESHOLDS.values(), start=1):
        labels[mag >= bound] = code
    n_rep = n_items[gseq]
    table = pd.DataFrame({
        "dataset": ds_text.take(group_ds[gseq]), "metric": met_text.take(met_of_group[gseq]),
        "system_a": name_text.take(sys_a), "system_b": name_text.take(sys_b),
        "mean_a": mean_a, "mean_b": mean_b, "diff": diff, "ci_low": lo, "ci_high": hi,
        "test": _text(["paired-t", "mcnemar"]).take(mc_rows.astype(np.int64)),
        "statistic": stat, "pvalue": pval,
        "pvalue_adjusted": np.full(total, math.nan), "effect_size": es,
        "effect_size_name": _text(["cohens_dz", "cohens_h"]).take(h_rows.astype(np.int64)),
        "effect_label": _text(["negligible", *EFFECT_THRESHOLDS]).take(labels),
        "significant": np.zeros(total, dtype=bool), "paired": np.ones(total, dtype=bool),
        "n_a": n_rep, "n_b": n_rep,
        "ci_method": _text(["paired t", "Tango score"]).take(mc_rows.astype(np.int64)),
        "seed_sd_a": np.full(total, math.nan), "seed_sd_b": np.full(total, math.nan),
    }, columns=list(COLUMNS))
    gm = np.repeat(sequence, k)
    mean_table = pd.DataFrame({
        "dataset": ds_text.take(group_ds[gm]), "metric": met_text.take(met_of_group[gm]),
        "system": name_text.take(np.tile(np.arange(k), n_groups)),
        "mean": means[sequence].reshape(-1),
        "n": n_items[gm], "seed_sd": np.full(gm.size, math.nan),
        "n_seeds": np.ones(gm.size, dtype=np.int64),
    })
    used = {"mcnemar"} if mc_rows.all() else {"paired-t", "mcnemar"} if mc_rows.any() else {
        "paired-t"}
    return table, mean_table, tuple(t for t in TESTS if t in used)


def _text(values: Sequence[object] | np.ndarray) -> pd.api.extensions.ExtensionArray:
    """Distinct strings as the text array pandas makes of Python strings (``"str"`` dtype), to
    ``take`` a column from by code."""
    return pd.array(np.asarray(values, dtype=object), dtype="str")
