"""Meta-analysis at scale: k datasets × 2 systems × n items through Scores → effect_sizes →
meta_analysis, against metafor's ``rma()`` (Rscript) and statsmodels' ``combine_effects`` on the
same yi/vi.

    python benchmarks/meta_scale_bench.py [--k 1000,10000,100000,1000000] [--items 20,50]
                                          [--methods REML,DL,FE] [--peer-max-k 10000]
                                          [--cli-max-k 0] [--seed 0]

Every k runs in a fresh subprocess (so ``peak MB`` is that run's own peak RSS). The table is
generated in memory (not timed): k datasets with n ~ U{items} items each, two systems "A" and
"B" with correlated per-item scores and a heterogeneous true effect. Timed: ``Scores(df)``, then
``effect_sizes(..., measure="SMD")``, then ``meta_analysis`` with each method. The peers get the
same yi/vi (written to a binary file, not timed): metafor ``rma(yi, vi, method=...)`` timed
inside R with ``system.time`` (skipped above ``--peer-max-k``: rma.uni forms k × k matrices), and
statsmodels ``combine_effects(yi, vi, method_re="iterated"|"chi2")`` (Paule–Mandel and DL; it has
no REML). ``--cli-max-k`` > 0 also times ``ranger-eval meta table.parquet --figures none``.
The script prints the timings, the ratios peer / ranger_eval and the largest difference of the
estimates. The machine's load makes timings noisy: run it twice.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def make_table(k: int, n_lo: int = 20, n_hi: int = 50, seed: int = 0):  # noqa: ANN201
    """Tidy scores: k datasets × systems A, B × n ~ U{n_lo..n_hi} items (ids "q0".."q{n-1}")."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    n = rng.integers(n_lo, n_hi + 1, size=k)
    total = int(n.sum())
    ds = np.repeat(np.arange(k), n)
    item = np.arange(total) - np.repeat(np.cumsum(n) - n, n)
    base = np.repeat(rng.normal(0.5, 0.1, size=k), n) + rng.normal(0, 0.1, size=total)
    a = base + rng.normal(0, 0.05, size=total)
    b = base + np.repeat(rng.normal(0.02, 0.03, size=k), n) + rng.normal(0, 0.05, size=total)
    dlab = pd.array([f"d{i}" for i in range(k)], dtype="str")
    ilab = pd.array([f"q{i}" for i in range(n_hi)], dtype="str")
    return pd.DataFrame({
        "dataset": dlab.take(np.concatenate([ds, ds])),
        "system": pd.array(["A", "B"], dtype="str").take(np.repeat([0, 1], total)),
        "item": ilab.take(np.concatenate([item, item])),
        "value": np.concatenate([a, b]),
    })


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def worker(k: int, items: tuple[int, int], methods: list[str], seed: int, out: str) -> None:
    import ranger_eval as rg

    df = make_table(k, *items, seed=seed)
    rows = len(df)
    res: dict[str, object] = {"k": k, "rows": rows, "gen_mb": _peak_mb()}
    t0 = time.perf_counter()
    scores = rg.Scores(df)
    res["scores_s"] = time.perf_counter() - t0
    del df
    t0 = time.perf_counter()
    eff = rg.effect_sizes(scores, treatment="B", control="A", measure="SMD")
    res["effects_s"] = time.perf_counter() - t0
    np.save(out + ".yi.npy", eff.yi)
    np.save(out + ".vi.npy", eff.vi)
    for m in methods:
        t0 = time.perf_counter()
        r = rg.meta_analysis(eff, method=m)
        res[f"meta_{m}_s"] = time.perf_counter() - t0
        res[f"est_{m}"] = r.estimate
        res[f"tau2_{m}"] = r.tau2
    res["peak_mb"] = _peak_mb()
    Path(out).write_text(json.dumps(res))


def metafor(yi_path: str, vi_path: str, methods: list[str]) -> dict[str, float] | str:
    if shutil.which("Rscript") is None:
        return "Rscript not found"
    code = f"""
suppressMessages(library(metafor))
rd <- function(p) {{ con <- file(p, "rb"); on.exit(close(con)); readBin(con, "double", n = 1e8) }}
yi <- rd("{yi_path}"); vi <- rd("{vi_path}")
for (m in c({", ".join(repr(m) for m in methods)})) {{
  tm <- system.time(r <- rma(yi, vi, method = m))[["elapsed"]]
  cat(m, tm, format(coef(r), digits = 17), format(r$tau2, digits = 17), "\\n")
}}
cat("version", as.character(packageVersion("metafor")), "\\n")
"""
    p = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=1800)
    if p.returncode:
        return "failed: " + p.stderr.strip()[-200:]
    out: dict[str, float] = {}
    for line in p.stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == "version":
            out["version"] = parts[1]  # type: ignore[assignment]
        elif len(parts) == 4:
            out[f"{parts[0]}_s"] = float(parts[1])
            out[f"est_{parts[0]}"] = float(parts[2])
    return out


def best_of(fn, n: int = 5) -> tuple[float, object]:  # noqa: ANN001
    """The fastest of ``n`` calls after one warm-up call (imports and caches paid once, for
    both tools alike), and the last result."""
    result = fn()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def statsmodels_peer(yi: np.ndarray, vi: np.ndarray) -> dict[str, float] | str:
    try:
        import statsmodels
        from statsmodels.stats.meta_analysis import combine_effects
    except ImportError:
        return "not installed"
    out: dict[str, float] = {"version": statsmodels.__version__}  # type: ignore[dict-item]
    for name, re in (("PM", "iterated"), ("DL", "chi2")):
        seconds, r = best_of(lambda re=re: combine_effects(yi, vi, method_re=re))
        out[f"{name}_s"] = seconds
        out[f"est_{name}"] = float(r.mean_effect_re)  # type: ignore[attr-defined]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--k", default="1000,10000,100000,1000000")
    ap.add_argument("--items", default="20,50", help="min,max items per dataset")
    ap.add_argument("--methods", default="REML,DL,FE")
    ap.add_argument("--peer-max-k", type=int, default=10000)
    ap.add_argument("--cli-max-k", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    items = tuple(int(x) for x in a.items.split(","))
    methods = a.methods.split(",")
    if a.worker is not None:
        worker(a.worker, items, methods, a.seed, a.out)  # type: ignore[arg-type]
        return
    import ranger_eval

    print(f"ranger_eval {ranger_eval.__version__}, numpy {np.__version__}, python "
          f"{sys.version.split()[0]}, {os.cpu_count()} cores")
    tmp = Path(tempfile.mkdtemp(prefix="meta_scale_"))
    for k in (int(x) for x in a.k.split(",")):
        out = str(tmp / f"k{k}.json")
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, __file__, "--worker", str(k), "--out", out,
                            "--items", a.items, "--methods", a.methods, "--seed", str(a.seed)],
                           capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if p.returncode:
            print(f"k={k}: worker failed:\n{p.stderr[-2000:]}")
            continue
        r = json.loads(Path(out).read_text())
        api = r["scores_s"] + r["effects_s"] + sum(r[f"meta_{m}_s"] for m in methods)
        meta_t = "  ".join(f"{m} {r[f'meta_{m}_s']:.3f}s" for m in methods)
        print(f"\nk={k:,} ({r['rows']:,} rows): Scores {r['scores_s']:.2f}s  effect_sizes "
              f"{r['effects_s']:.2f}s  meta {meta_t}  | API total {api:.2f}s "
              f"(process {wall:.1f}s incl. data generation)  peak {r['peak_mb']:.0f} MB "
              f"(table alone {r['gen_mb']:.0f} MB)")
        yi = np.load(out + ".yi.npy")
        vi = np.load(out + ".vi.npy")
        yi.astype("<f8").tofile(str(tmp / "yi.bin"))
        vi.astype("<f8").tofile(str(tmp / "vi.bin"))
        if k <= a.peer_max_k:
            mf = metafor(str(tmp / "yi.bin"), str(tmp / "vi.bin"), methods)
            if isinstance(mf, str):
                print(f"  metafor: {mf}")
            else:
                for m in methods:
                    if f"{m}_s" in mf:
                        print(f"  metafor {mf.get('version')} rma({m}): {mf[f'{m}_s']:.3f}s, "
                              f"ratio metafor/ranger {mf[f'{m}_s'] / r[f'meta_{m}_s']:.1f}x, "
                              f"|Δ estimate| {abs(mf[f'est_{m}'] - r[f'est_{m}']):.2e}")
        else:
            print(f"  metafor: skipped (k > --peer-max-k {a.peer_max_k})")
        sm = statsmodels_peer(yi, vi)
        if isinstance(sm, str):
            print(f"  statsmodels: {sm}")
        else:
            import ranger_eval as rg

            for m in ("PM", "DL"):  # best of 5 warm calls each (the one-call times were noise)
                ours_t, ours = best_of(lambda m=m, yi=yi, vi=vi: rg.meta_analysis(yi, vi, method=m))
                print(f"  statsmodels {sm['version']} combine_effects({m}): {sm[f'{m}_s']:.6f}s vs "
                      f"ranger_eval {ours_t:.6f}s, ratio {sm[f'{m}_s'] / ours_t:.1f}x, "
                      f"|Δ estimate| {abs(sm[f'est_{m}'] - ours.estimate):.2e}")
        if k <= a.cli_max_k:
            import pandas as pd

            table = tmp / "table.parquet"
            make_table(k, *items, seed=a.seed).to_parquet(table)
            t0 = time.perf_counter()
            p = subprocess.run(["ranger-eval", "meta", str(table), "--treatment", "B",
                                "--control", "A", "--out", str(tmp / f"out{k}"),
                                "--figures", "none"], capture_output=True, text=True)
            cli = time.perf_counter() - t0
            status = "ok" if p.returncode == 0 else f"failed: {p.stderr.strip()[-300:]}"
            print(f"  CLI ranger-eval meta table.parquet --figures none: {cli:.1f}s ({status})")
            del pd
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
