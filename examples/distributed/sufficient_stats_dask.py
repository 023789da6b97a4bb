"""Per-pair sufficient statistics of tidy Parquet scores with Dask (docs/large.md).

    python examples/distributed/sufficient_stats_dask.py SCORES_FOLDER_OR_FILE [OUT.csv]

The same numbers as ``ranger_eval.lazy.open_scores(path).sufficient_statistics()`` (columns
``ranger_eval.lazy.PAIR_COLUMNS``), computed by ``dask.dataframe`` over the same Parquet files,
so it runs unchanged on a cluster (``dask.distributed.Client``). The statistics are plain sums
(n, Σd, Σd², Σ|d|, Σa, Σb, Σa², Σb², Σab, min, max and the count of non-binary values) that
every partition computes on its own and Dask adds up; the centred moments are formed at the
end: M2 = Σx² − (Σx)²/n, C = Σab − Σa·Σb/n. Pairing joins system a's and system b's rows on
(dataset, metric, item). Tables computed on disjoint item sets (e.g. one per cluster job) merge
with ``ranger_eval.lazy.merge_statistics``.
"""
from __future__ import annotations

import sys

import pandas as pd

KEY = ["dataset", "metric", "item"]


def sufficient_statistics_dask(path: str) -> pd.DataFrame:
    import dask.dataframe as dd

    df = dd.read_parquet(path)
    if "metric" not in df.columns:
        df = df.assign(metric="score")
    df = df[["dataset", "system", "metric", "item", "value"]].astype(
        {"dataset": str, "system": str, "metric": str, "item": str, "value": "float64"})
    # per system: n, Σx, Σx², min, max, #values other than 0/1
    nonbinary = ((df["value"] != 0) & (df["value"] != 1)).astype("int64")
    sys_ = df.assign(x2=df["value"] ** 2, nonbinary=nonbinary)
    per = sys_.groupby(["dataset", "metric", "system"]).agg(
        n=("value", "count"), sum=("value", "sum"), sum2=("x2", "sum"), min=("value", "min"),
        max=("value", "max"), nonbinary=("nonbinary", "sum")).compute()
    per["m2"] = per["sum2"] - per["sum"] ** 2 / per["n"]
    per = per.drop(columns="sum2").reset_index()
    # per pair: join a's and b's rows on the item, keep a before b in order of first appearance
    order = {s: i for i, s in enumerate(pd.unique(df["system"].compute()))}
    a = df.rename(columns={"system": "system_a", "value": "a"})
    b = df.rename(columns={"system": "system_b", "value": "b"})
    j = a.merge(b, on=KEY)
    j = j[j["system_a"].map(order, meta=("system_a", "int64"))
          < j["system_b"].map(order, meta=("system_b", "int64"))]
    j = j.assign(d=j["a"] - j["b"])
    j = j.assign(d2=j["d"] ** 2, abs_d=j["d"].abs(), a2=j["a"] ** 2, b2=j["b"] ** 2, ab=j["a"] * j["b"])
    pair = j.groupby(["dataset", "metric", "system_a", "system_b"]).agg(
        n=("d", "count"), sum_d=("d", "sum"), sum_d2=("d2", "sum"), min_d=("d", "min"),
        max_d=("d", "max"), sum_abs_d=("abs_d", "sum"), sum_pa=("a", "sum"), sum_pb=("b", "sum"),
        sum_pa2=("a2", "sum"), sum_pb2=("b2", "sum"), sum_ab=("ab", "sum")).compute().reset_index()
    pair["m2_d"] = pair["sum_d2"] - pair["sum_d"] ** 2 / pair["n"]
    pair["m2_pa"] = pair["sum_pa2"] - pair["sum_pa"] ** 2 / pair["n"]
    pair["m2_pb"] = pair["sum_pb2"] - pair["sum_pb"] ** 2 / pair["n"]
    pair["m2_ab"] = pair["sum_ab"] - pair["sum_pa"] * pair["sum_pb"] / pair["n"]
    for side in ("a", "b"):
        sides = per.rename(columns={c: f"{c}_{side}" for c in ("n", "sum", "m2", "min", "max",
                                                               "nonbinary")})
        pair = pair.merge(sides.rename(columns={"system": f"system_{side}"}),
                          on=["dataset", "metric", f"system_{side}"])
    columns = ["dataset", "metric", "system_a", "system_b", "n", "sum_d", "m2_d", "min_d",
               "max_d", "sum_abs_d", "sum_pa", "sum_pb", "m2_pa", "m2_pb", "m2_ab",
               *(f"{f}_{s}" for s in ("a", "b") for f in ("n", "sum", "m2", "min", "max",
                                                          "nonbinary"))]
    return pair[columns].sort_values(["dataset", "metric", "system_a", "system_b"]).reset_index(
        drop=True)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    out = sufficient_statistics_dask(sys.argv[1])
    if len(sys.argv) > 2:
        out.to_csv(sys.argv[2], index=False)
    else:
        print(out.to_string())
