"""``rg.win_rate`` at scale: the bootstrap by multinomial counts over distinct win-rate vectors
against the direct bootstrap it replaced (commit 4c79e22's ``_bootstrap``, kept
below verbatim as ``old_win_rate``: N datasets drawn per replicate, ``np.nonzero(draw == d)``
per dataset for the item resample, so quadratic in the datasets).

    python benchmarks/winrate_bench.py [--datasets 2000,100000,1000000] [--items 2]
                                       [--old-max 4000] [--n-bootstrap 1000] [--no-items]

Data: ``groups_scale_bench.make_table`` (G datasets × 2 systems × ``--items`` items, values A ~
N(0.5, 0.1), B = A + N(0.02, 0.05)), read once into ``rg.Scores`` (not timed). New: the whole
``rg.win_rate(scores)`` call (point estimate, item cells, bootstrap, quantiles), best of 2.
Old: its input step (per-dataset ``xs`` of the per-item grid) plus its bootstrap, once, for
G ≤ ``--old-max`` (and extrapolation beyond, as printed: time × (G / G_max)² for the
quadratic item bootstrap, × G / G_max for the dataset-level one).
``--no-items`` times the dataset-level path (a wide table of per-dataset means); there the old
bootstrap held an ``n_bootstrap × G`` count matrix (8 GB at a million datasets), so it too
stops at ``--old-max``. Both sides print the 95 % interval of system B: they agree within
Monte-Carlo error (different draws, same distribution; tests/aggregate/test_winrate.py proves
the distribution).
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from groups_scale_bench import make_table  # noqa: E402

import ranger_eval as rg  # noqa: E402
from ranger_eval.aggregate.winrate import dataset_win_rates  # noqa: E402

_BLOCK_CELLS = 4_000_000


def _column_means(x: np.ndarray) -> np.ndarray:
    ok = np.isfinite(x)
    cnt = ok.sum(axis=0)
    tot = np.where(ok, x, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan)


def _old_bootstrap(per: np.ndarray, items: dict[str, np.ndarray] | None, b: int,
                   seed: Any, hib: bool) -> np.ndarray:
    """win_rate's bootstrap before the mixture (4c79e22), verbatim."""
    rng = np.random.default_rng(seed)
    n, k = per.shape
    draw = rng.integers(0, n, size=(b, n))
    num = np.zeros((b, k))
    den = np.zeros((b, k))
    if items is None:
        ok = np.isfinite(per)
        filled = np.where(ok, per, 0.0)
        counts = np.zeros((b, n))
        np.add.at(counts, (np.repeat(np.arange(b), n), draw.ravel()), 1.0)
        num = counts @ filled
        den = counts @ ok.astype(float)
    else:
        for d, x in enumerate(items.values()):
            reps, _slot = np.nonzero(draw == d)  # one independent item resample per drawn copy
            if reps.size == 0:
                continue
            m = x.shape[0]
            ok = np.isfinite(x)
            filled = np.where(ok, x, 0.0)
            okf = ok.astype(float)
            block = max(1, _BLOCK_CELLS // max(m, 1))
            for start in range(0, reps.size, block):
                r = reps[start:start + block]
                c = rng.multinomial(m, np.full(m, 1.0 / m), size=r.size).astype(float)
                cnt = c @ okf
                with np.errstate(invalid="ignore", divide="ignore"):
                    means = np.where(cnt > 0, (c @ filled) / np.maximum(cnt, 1e-300), np.nan)
                w = dataset_win_rates(means, higher_is_better=hib)
                wok = np.isfinite(w)
                np.add.at(num, r, np.where(wok, w, 0.0))
                np.add.at(den, r, wok.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.maximum(den, 1e-300), np.nan)


def old_win_rate(tidy: pd.DataFrame | None, wide: pd.DataFrame | None, b: int,
                 seed: int = 0) -> tuple[float, float]:
    """The old input step (items: per-dataset ``xs`` of the per-item grid) and bootstrap; the
    95 % interval of system B."""
    items = None
    if tidy is not None:
        datasets = list(pd.unique(tidy["dataset"]))
        systems = list(pd.unique(tidy["system"]))
        per_item = tidy.groupby(["dataset", "item", "system"], sort=False)["value"].mean()
        grid = per_item.unstack("system").reindex(columns=systems)
        items = {d: grid.xs(d, level="dataset").to_numpy(dtype=float) for d in datasets}
        wide = pd.DataFrame([_column_means(items[d]) for d in datasets], index=datasets,
                            columns=systems)
    assert wide is not None
    per = dataset_win_rates(wide.to_numpy(dtype=float))
    reps = _old_bootstrap(per, items, b, seed, True)
    col = reps[:, list(wide.columns).index("B")]
    lo, hi = np.quantile(col[np.isfinite(col)], [0.025, 0.975])
    return float(lo), float(hi)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default="2000,100000,1000000")
    ap.add_argument("--items", type=int, default=2)
    ap.add_argument("--old-max", type=int, default=4000)
    ap.add_argument("--n-resamples", type=int, default=1000)
    ap.add_argument("--no-items", action="store_true")
    args = ap.parse_args()
    sizes = [int(g) for g in args.datasets.split(",")]
    print(f"ranger_eval {rg.__version__}, numpy {np.__version__}; 2 systems, "
          f"{'dataset-level table' if args.no_items else f'{args.items} items per dataset'}, "
          f"{args.n_resamples} resamples")
    rg.win_rate(pd.DataFrame({"A": [1.0, 2.0], "B": [2.0, 1.0]}))  # imports, not timed
    old_points: list[tuple[int, float]] = []
    for g in sizes:
        df = make_table(g, args.items, 0)
        scores = rg.Scores(df)
        wide = None
        data: Any = scores
        if args.no_items:
            wide = df.groupby(["dataset", "system"], sort=False)["value"].mean().unstack()
            data = wide
        best = np.inf
        for _ in range(2):
            with warnings.catch_warnings():  # the item bootstrap's bias warning (2 items)
                warnings.simplefilter("ignore", UserWarning)
                t0 = time.perf_counter()
                res = rg.win_rate(data, n_resamples=args.n_resamples, seed=0)
                best = min(best, time.perf_counter() - t0)
        line = (f"G={g:>9,}  new {best:8.3f} s ({best / g * 1e6:6.2f} µs/dataset)  "
                f"B: {res.win_rate['B']:.4f} [{res.ci_low['B']:.4f}, {res.ci_high['B']:.4f}]")
        if g <= args.old_max:
            t0 = time.perf_counter()
            lo, hi = old_win_rate(None if args.no_items else df, wide, args.n_resamples)
            old = time.perf_counter() - t0
            old_points.append((g, old))
            line += f"  | old {old:8.2f} s  B: [{lo:.4f}, {hi:.4f}]  ({old / best:,.0f}×)"
        elif old_points:
            # the old item bootstrap is quadratic in G; its dataset-level one linear in time
            # (and in memory: an n_bootstrap × G count matrix)
            g0, t_old = old_points[-1]
            power = 1 if args.no_items else 2
            est = t_old * (g / g0) ** power
            line += (f"  | old ~{est:,.0f} s extrapolated ({'linear' if power == 1 else 'quadratic'}"
                     f" from G={g0:,}; {est / best:,.0f}×)")
        print(line, flush=True)


if __name__ == "__main__":
    main()
