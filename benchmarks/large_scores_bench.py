"""Scores larger than memory: 100M tidy rows through ``compare`` (classical tests) and ``meta``.

    python benchmarks/large_scores_bench.py [--systems 10] [--datasets 10] [--items 1000000]
                                            [--data /tmp/ranger_large] [--seed 0]
                                            [--mode all|engines|pipeline|dask] [--slice 200000]
                                            [--json results.json]

The benchmark writes its own data: a tidy Parquet file (dataset, system, metric, item, value;
item ids are strings, one metric) with ``--systems × --datasets × --items`` rows, generated with
``--seed`` into ``--data`` (reused when it exists with the same parameters; never in the repo).
Every measurement runs in its own subprocess; peak memory is that subprocess's ru_maxrss.

``--mode engines`` times the computation of per-(dataset, metric,
system-pair) paired sufficient statistics (n, Σd, centred Σ(d − mean)², min, max) with

* DuckDB + numpy (ours, ``LazyScores.sufficient_statistics``, opening and validation included):
  one filtered scan per dataset × system, items paired in numpy (``ranger_eval.lazy._numeric``);
* Polars (streaming) + numpy: the same design with Polars as the scanner;
* DuckDB, pivot: one GROUP BY (dataset, metric, item) with one FILTERed column per system, then
  one GROUP BY (dataset, metric) with the aggregates of every pair;
* DuckDB, self-join on (dataset, metric, item) with system_a < system_b, GROUP BY the pair;
* Polars (streaming engine), the same pivot as a lazy group_by;
* Polars (streaming engine), the same self-join.

``--mode dask`` times the same pipeline on the two engines of ``ranger_eval.lazy``:
DuckDB on this machine (``open_scores(path)``) and Dask on a ``distributed.LocalCluster`` of
``--dask-workers`` worker processes with one thread each (``open_scores(path, engine="dask",
client=client)``; cluster start-up is timed apart). Its CPU time adds the workers' (they are
children of the measuring process, reaped before it reads ``RUSAGE_CHILDREN``); its peak memory
is the client's and, apart, the largest worker's. Both engines' comparison tables are checked
to agree at 1e-9 relative.

``--mode pipeline`` (step 3) times ``open_scores(path).compare(test="auto")`` (paired t on all
45 pairs × 10 datasets, Holm–Šídák), ``effect_sizes`` + ``meta_analysis`` (REML) — each phase's
wall time, CPU time (all threads; judge a loaded machine by it) and peak RSS; scipy and
statsmodels are imported before the clock starts — and the peers (``--peers``):

* *pandas + in-memory*: ``pandas.read_parquet`` of the first ``--slice`` items of every
  (dataset, system) + ``ranger_eval.compare`` on them, extrapolated linearly to the full size
  (the in-memory path cannot hold the full table: 100M rows of Python string ids need ~15 GB);
* *naive SQL*: the sufficient statistics written directly as a DuckDB self-join (what a user
  would write by hand), on the full file.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path


# --------------------------------------------------------------------------- data
def data_path(folder: str, systems: int, datasets: int, items: int, seed: int) -> Path:
    return Path(folder) / f"scores_s{systems}_d{datasets}_i{items}_seed{seed}.parquet"


def generate(path: Path, systems: int, datasets: int, items: int, seed: int) -> None:
    """Tidy scores: value = clip(difficulty_item + quality_system + noise, 0, 1), rounded to 1e-4.

    One row group per (dataset, system), rows in that order; items ``q0000000`` … as strings.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    item_ids = pa.array([f"q{i:07d}" for i in range(items)], pa.string())
    schema = pa.schema([("dataset", pa.string()), ("system", pa.string()), ("metric", pa.string()),
                        ("item", pa.string()), ("value", pa.float64())])
    tmp = path.with_suffix(".tmp")
    quality = rng.uniform(-0.02, 0.02, systems)
    with pq.ParquetWriter(tmp, schema, compression="snappy") as writer:
        for d in range(datasets):
            difficulty = rng.beta(2, 2, items)
            for s in range(systems):
                value = np.round(np.clip(difficulty + quality[s] + rng.normal(0, 0.15, items), 0, 1), 4)
                table = pa.table({
                    "dataset": pa.array(np.full(items, f"d{d:02d}", dtype=object), pa.string()),
                    "system": pa.array(np.full(items, f"s{s:02d}", dtype=object), pa.string()),
                    "metric": pa.array(np.full(items, "score", dtype=object), pa.string()),
                    "item": item_ids,
                    "value": pa.array(value),
                }, schema=schema)
                writer.write_table(table, row_group_size=items)
    os.replace(tmp, path)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


# --------------------------------------------------------------------------- engines (step 1)
def _systems(path: str) -> list[str]:
    import duckdb

    con = duckdb.connect()
    return [r[0] for r in con.execute(
        f"SELECT DISTINCT system FROM read_parquet('{path}') ORDER BY 1").fetchall()]


def engine_duckdb_pivot(path: str) -> int:
    import duckdb

    systems = _systems(path)
    cols = ", ".join(f"max(value) FILTER (WHERE system = '{s}') AS v{i}" for i, s in enumerate(systems))
    aggs = []
    for i in range(len(systems)):
        for j in range(i + 1, len(systems)):
            d = f"(v{i} - v{j})"
            aggs += [f"count({d})", f"sum({d})", f"var_samp({d})", f"min({d})", f"max({d})"]
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    q = (f"WITH w AS (SELECT dataset, metric, item, {cols} FROM read_parquet('{path}') "
         f"GROUP BY dataset, metric, item) SELECT dataset, metric, {', '.join(aggs)} FROM w "
         "GROUP BY dataset, metric")
    return len(con.execute(q).fetchall())


def engine_duckdb_join(path: str) -> int:
    import duckdb

    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    q = (f"SELECT a.dataset, a.metric, a.system, b.system, count(*), sum(a.value - b.value), "
         "var_samp(a.value - b.value), min(a.value - b.value), max(a.value - b.value) "
         f"FROM read_parquet('{path}') a JOIN read_parquet('{path}') b "
         "ON a.dataset = b.dataset AND a.metric = b.metric AND a.item = b.item "
         "AND a.system < b.system GROUP BY ALL")
    return len(con.execute(q).fetchall())


def engine_polars_pivot(path: str) -> int:
    import polars as pl

    systems = _systems(path)
    lf = pl.scan_parquet(path)
    wide = lf.group_by("dataset", "metric", "item").agg(
        [pl.col("value").filter(pl.col("system") == s).max().alias(f"v{i}")
         for i, s in enumerate(systems)]
    )
    aggs = []
    for i in range(len(systems)):
        for j in range(i + 1, len(systems)):
            d = pl.col(f"v{i}") - pl.col(f"v{j}")
            aggs += [d.count().alias(f"n{i}_{j}"), d.sum().alias(f"s{i}_{j}"),
                     d.var().alias(f"v{i}_{j}"), d.min().alias(f"lo{i}_{j}"),
                     d.max().alias(f"hi{i}_{j}")]
    out = wide.group_by("dataset", "metric").agg(aggs).collect(engine="streaming")
    return out.height


def engine_polars_join(path: str) -> int:
    import polars as pl

    lf = pl.scan_parquet(path)
    j = lf.join(lf, on=["dataset", "metric", "item"], suffix="_b").filter(
        pl.col("system") < pl.col("system_b"))
    d = pl.col("value") - pl.col("value_b")
    out = j.group_by("dataset", "metric", "system", "system_b").agg(
        d.count(), d.sum().alias("s"), d.var().alias("v"), d.min().alias("lo"),
        d.max().alias("hi")).collect(engine="streaming")
    return out.height


def engine_duckdb_numpy(path: str) -> int:
    """Ours: one DuckDB scan per dataset × system (filter + projection pushdown), paired in
    numpy (``LazyScores.sufficient_statistics``; includes opening and validating)."""
    from ranger_eval.lazy import open_scores

    return len(open_scores(path).sufficient_statistics())


def engine_polars_numpy(path: str) -> int:
    """The same design with Polars as the scanner: one filtered lazy scan per dataset × system
    (streaming engine), the same numpy kernel (no validation)."""
    import numpy as np
    import polars as pl

    from ranger_eval.lazy._numeric import encode_items, group_statistics

    lf = pl.scan_parquet(path)
    keys = lf.select("dataset", "system").unique(maintain_order=True).collect(engine="streaming")
    systems = list(dict.fromkeys(keys["system"].to_list()))
    rows = 0
    for d in dict.fromkeys(keys["dataset"].to_list()):
        per = [lf.filter((pl.col("dataset") == d) & (pl.col("system") == s))
               .select("item", "value").collect(engine="streaming") for s in systems]
        first = per[0]["item"].to_arrow()
        _, n_items = encode_items(first)
        if n_items < len(first) or not all(p["item"].to_arrow().equals(first) for p in per[1:]):
            raise SystemExit("polars-numpy: this benchmark engine handles aligned items only")
        x = np.vstack([p["value"].to_numpy() for p in per])
        g = group_statistics(tuple(systems), x, None)
        rows += len(systems) * (len(systems) - 1) // 2 if g.own["n"].all() else 0
    return rows


ENGINES = {
    "duckdb-numpy": engine_duckdb_numpy,
    "polars-numpy": engine_polars_numpy,
    "duckdb-pivot": engine_duckdb_pivot,
    "duckdb-join": engine_duckdb_join,
    "polars-pivot": engine_polars_pivot,
    "polars-join": engine_polars_join,
}


# --------------------------------------------------------------------------- pipeline (step 3)
def _cpu_s() -> float:
    """User + system CPU seconds of this process, all threads (DuckDB's included)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run_ours(path: str, engine: str = "duckdb", client: object = None) -> dict:
    import scipy.stats  # noqa: F401  (imports are not part of the scan)
    import statsmodels.stats.multitest  # noqa: F401

    import ranger_eval as rg
    from ranger_eval.lazy import open_scores

    out: dict = {}
    t, c = time.perf_counter(), _cpu_s()
    lazy = open_scores(path, engine=engine, client=client)
    out.update(open_s=time.perf_counter() - t, open_cpu_s=_cpu_s() - c, open_peak_mb=_peak_mb())
    t, c = time.perf_counter(), _cpu_s()
    comp = rg.compare(lazy, test="auto")
    out.update(compare_s=time.perf_counter() - t, compare_cpu_s=_cpu_s() - c,
               compare_peak_mb=_peak_mb())
    systems = lazy.systems
    t, c = time.perf_counter(), _cpu_s()
    eff = lazy.effect_sizes(treatment=systems[1], control=systems[0], measure="SMD")
    res = rg.meta_analysis(eff, method="REML")
    out.update(meta_s=time.perf_counter() - t, meta_cpu_s=_cpu_s() - c, meta_peak_mb=_peak_mb())
    out.update(total_s=out["open_s"] + out["compare_s"] + out["meta_s"],
               total_cpu_s=out["open_cpu_s"] + out["compare_cpu_s"] + out["meta_cpu_s"],
               rows=len(comp.table), tests=list(comp.tests_used),
               meta_estimate=float(res.estimate),
               significant=int(comp.table["significant"].sum()),
               pvalues=comp.table["pvalue"].tolist())
    return out


def run_ours_dask(path: str, workers: int) -> dict:
    """The pipeline on the Dask engine, on a LocalCluster of ``workers`` processes."""
    import warnings

    import dask.dataframe  # noqa: F401  (imports are not part of the scan, as for DuckDB)
    import distributed

    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=workers, processes=True,
                                           threads_per_worker=1, dashboard_address=None)
        client = distributed.Client(cluster)
    startup = time.perf_counter() - t
    try:
        out = run_ours(path, engine="dask", client=client)
        worker_peak = max(client.run(_peak_mb).values())
    finally:
        client.close()
        cluster.close()
    out.update(cluster_start_s=startup, worker_peak_mb=worker_peak)
    return out


def run_pandas_slice(path: str, n_slice: int, items: int) -> dict:
    import pandas as pd

    import ranger_eval as rg

    keep = [f"q{i:07d}" for i in range(n_slice)]
    t = time.perf_counter()
    df = pd.read_parquet(path, filters=[("item", "in", keep)])
    comp = rg.compare(rg.Scores(df), test="auto")
    systems = list(dict.fromkeys(df["system"]))
    eff = rg.effect_sizes(rg.Scores(df), treatment=systems[1], control=systems[0], measure="SMD")
    rg.meta_analysis(eff, method="REML")
    sec = time.perf_counter() - t
    return {"slice_items": n_slice, "slice_s": sec, "extrapolated_s": sec * items / n_slice,
            "rows": len(comp.table)}


def run_naive_sql(path: str) -> dict:
    t = time.perf_counter()
    n = engine_duckdb_join(path)
    return {"total_s": time.perf_counter() - t, "rows": n}


# --------------------------------------------------------------------------- driver
def worker(args: argparse.Namespace) -> None:
    path = str(data_path(args.data, args.systems, args.datasets, args.items, args.seed))
    t, c = time.perf_counter(), _cpu_s()
    if args.worker in ENGINES:
        out: dict = {"rows": ENGINES[args.worker](path), "seconds": time.perf_counter() - t}
    elif args.worker == "ours":
        out = run_ours(path)
        out["seconds"] = out["total_s"]
    elif args.worker == "ours-dask":
        out = run_ours_dask(path, args.dask_workers)
        out["seconds"] = out["total_s"]
    elif args.worker == "pandas-slice":
        out = run_pandas_slice(path, args.slice, args.items)
        out["seconds"] = out["extrapolated_s"]
    elif args.worker == "naive-sql":
        out = run_naive_sql(path)
        out["seconds"] = out["total_s"]
    else:
        raise SystemExit(f"unknown worker {args.worker!r}")
    out["peak_mb"] = _peak_mb()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    out["cpu_s"] = _cpu_s() - c + children.ru_utime + children.ru_stime  # + reaped workers
    out["load_avg"] = os.getloadavg()[0]
    print(json.dumps(out))


def _spawn(args: argparse.Namespace, name: str, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--worker", name, "--systems", str(args.systems),
           "--datasets", str(args.datasets), "--items", str(args.items), "--data", args.data,
           "--seed", str(args.seed), "--slice", str(args.slice),
           "--dask-workers", str(args.dask_workers)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for p in ("ranger-eval", "duckdb", "polars", "pandas", "pyarrow", "dask", "distributed"):
        try:
            out[p] = version(p)
        except PackageNotFoundError:
            out[p] = "not installed"
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", type=int, default=10)
    ap.add_argument("--datasets", type=int, default=10)
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--data", default="/tmp/ranger_large")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", choices=("all", "engines", "pipeline", "dask"), default="all")
    ap.add_argument("--dask-workers", type=int, default=2)
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--peers", default="naive-sql,pandas-slice",
                    help="comma-separated peers of --mode pipeline (naive-sql needs ~11 GB)")
    ap.add_argument("--slice", type=int, default=100_000)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--json", default=None)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args)
        return
    path = data_path(args.data, args.systems, args.datasets, args.items, args.seed)
    t = time.perf_counter()
    generate(path, args.systems, args.datasets, args.items, args.seed)
    rows = args.systems * args.datasets * args.items
    print(f"data: {path} ({rows:,} rows, {path.stat().st_size / 1e6:.0f} MB; "
          f"ready in {time.perf_counter() - t:.1f} s)")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in _versions().items()))
    results: dict[str, dict] = {}
    if args.mode in ("all", "engines"):
        print("\nstep 1: per-pair paired sufficient statistics")
        print(f"{'engine':<16}{'seconds':>10}{'CPU s':>10}{'peak MB':>10}{'load':>7}")
        for name in args.engines.split(","):
            r = results[name] = _spawn(args, name, args.timeout)
            if "error" in r:
                print(f"{name:<16}  {r['error']}")
            else:
                print(f"{name:<16}{r['seconds']:>10.1f}{r['cpu_s']:>10.1f}{r['peak_mb']:>10.0f}"
                      f"{r['load_avg']:>7.1f}")
    if args.mode in ("all", "pipeline"):
        print("\nstep 3: compare (classical tests, all pairs) + effect sizes + meta-analysis")
        print(f"{'tool':<16}{'seconds':>10}{'CPU s':>10}{'peak MB':>10}{'load':>7}  notes")
        for name in ("ours", *[p for p in args.peers.split(",") if p]):
            r = results[name] = _spawn(args, name, args.timeout)
            if "error" in r:
                print(f"{name:<16}  {r['error']}")
                continue
            note = ""
            if name == "ours":
                note = (f"open {r['open_s']:.1f} s ({r['open_cpu_s']:.1f} CPU, "
                        f"{r['open_peak_mb']:.0f} MB), compare {r['compare_s']:.1f} s "
                        f"({r['compare_cpu_s']:.1f} CPU, {r['compare_peak_mb']:.0f} MB), meta "
                        f"{r['meta_s']:.2f} s ({r['meta_cpu_s']:.2f} CPU, "
                        f"{r['meta_peak_mb']:.0f} MB); {r['rows']} comparisons "
                        f"({', '.join(r['tests'])})")
            elif name == "pandas-slice":
                note = (f"measured {r['slice_s']:.1f} s on {r['slice_items']:,} items/group, "
                        "extrapolated linearly")
            elif name == "naive-sql":
                note = "statistics only (no tests, no validation)"
            print(f"{name:<16}{r['seconds']:>10.1f}{r['cpu_s']:>10.1f}{r['peak_mb']:>10.0f}"
                  f"{r['load_avg']:>7.1f}  {note}")
        ours = results["ours"].get("seconds")
        for peer in [p for p in args.peers.split(",") if p]:
            other = results[peer].get("seconds")
            if ours and other:
                print(f"ratio {peer} / ours: {other / ours:.2f}× wall"
                      + (f", {results[peer]['cpu_s'] / results['ours']['total_cpu_s']:.2f}× CPU"
                         if peer != "pandas-slice" else ""))
    if args.mode == "dask":
        print(f"\nranger_eval.lazy engines: open + compare (all pairs) + effect sizes + meta; "
              f"Dask on a LocalCluster of {args.dask_workers} worker processes")
        print(f"{'engine':<16}{'seconds':>10}{'CPU s':>10}{'peak MB':>10}{'load':>7}  notes")
        for name in ("ours", "ours-dask"):
            r = results[name] = _spawn(args, name, args.timeout)
            if "error" in r:
                print(f"{name:<16}  {r['error']}")
                continue
            note = (f"open {r['open_s']:.1f} s, compare {r['compare_s']:.1f} s, effect sizes + "
                    f"meta {r['meta_s']:.2f} s")
            if name == "ours-dask":
                note += (f"; cluster start {r['cluster_start_s']:.1f} s (not counted), largest "
                         f"worker {r['worker_peak_mb']:.0f} MB")
            print(f"{'duckdb' if name == 'ours' else 'dask':<16}{r['seconds']:>10.1f}"
                  f"{r['cpu_s']:>10.1f}{r['peak_mb']:>10.0f}{r['load_avg']:>7.1f}  {note}")
        a, b = results["ours"].get("pvalues"), results["ours-dask"].get("pvalues")
        if a and b:
            import numpy as np

            np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-300)
            print(f"the {len(a)} p-values of both engines agree at 1e-9 relative")
    if args.json:
        Path(args.json).write_text(json.dumps({"versions": _versions(), "results": results}, indent=2))


if __name__ == "__main__":
    main()
