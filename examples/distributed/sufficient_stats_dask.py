"""ranger_eval.lazy on a Dask cluster: the usage example of docs/large.md.

    python examples/distributed/sufficient_stats_dask.py SCORES_FOLDER_OR_FILE [OUT.csv]
                                                          [--scheduler tcp://HOST:8786]

Opens tidy Parquet scores with the Dask engine (``open_scores(path, engine="dask",
client=client)``; an existing ``dask.dataframe`` works too: ``open_scores(ddf, client=client)``),
prints the comparison of every pair of systems and writes the per-pair sufficient statistics
(columns ``ranger_eval.lazy.PAIR_COLUMNS``) to OUT.csv. Without ``--scheduler`` it starts a
``LocalCluster`` of two worker processes. Needs ``pip install "ranger-eval[large,dask]"``.
"""
from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

import ranger_eval as rg
from ranger_eval.lazy import open_scores


def sufficient_statistics_dask(path: str, client: Any = None) -> pd.DataFrame:
    """Per dataset × metric × pair of systems, the statistics the Dask engine computes (the
    numbers of the DuckDB engine's ``open_scores(path).sufficient_statistics()``)."""
    return open_scores(path, engine="dask", client=client).sufficient_statistics()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scores")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--scheduler", default=None, help="address of a running dask scheduler")
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    cluster = None if args.scheduler else LocalCluster(n_workers=2, threads_per_worker=1)
    with Client(args.scheduler or cluster) as client:
        lazy = open_scores(args.scores, engine="dask", client=client)
        print(lazy)
        print(rg.compare(lazy).table.to_string())
        if args.out:
            lazy.sufficient_statistics().to_csv(args.out, index=False)
    if cluster is not None:
        cluster.close()


if __name__ == "__main__":
    main()
