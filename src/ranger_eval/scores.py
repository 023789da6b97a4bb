"""Scores: the tidy per-item table every analysis starts from.

One row per (dataset, system, metric, item[, seed]) with a numeric ``value``. Items are matched **by
id**, never by position (DESIGN.md, "Data flow"). Construction validates the table and reports the
offending rows; nothing is dropped silently.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import ScoresError

__all__ = ["PairedScores", "Scores", "ScoresError"]

REQUIRED = ("dataset", "system", "item", "value")
OPTIONAL = ("metric", "seed")
DEFAULT_METRIC = "score"
MISSING_POLICIES = ("error", "intersect")


def _preview(values: Iterable[object], limit: int = 10) -> str:
    values = list(values)
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f", … ({len(values) - limit} more)" if len(values) > limit else "")


@dataclass(frozen=True)
class PairedScores:
    """Two systems' values on the same items of one dataset, aligned by item id.

    ``items`` is sorted, so the pairing does not depend on the order rows arrived in.
    ``n_dropped`` counts items present for only one of the systems that a ``missing="intersect"``
    policy removed (0 otherwise).
    """

    dataset: str
    metric: str
    items: np.ndarray
    treatment: np.ndarray
    control: np.ndarray
    n_dropped: int = 0

    @property
    def n(self) -> int:
        return int(self.items.size)


class Scores:
    """Validated tidy per-item scores.

    ``Scores(df)`` needs columns ``dataset, system, item, value`` and optionally ``metric`` (defaults
    to ``"score"``) and ``seed``. Other columns are kept as metadata. Identifier columns are stored
    as strings; ``value`` as float64. Order of first appearance of datasets, systems and metrics is
    remembered for display.

    Raises :class:`ScoresError` for missing columns, non-numeric or non-finite values and duplicate
    (dataset, system, metric, item[, seed]) keys, naming the offending rows.
    """

    def __init__(self, data: pd.DataFrame | Scores, *, source: str | None = None) -> None:
        if isinstance(data, Scores):
            self._df: pd.DataFrame = data._df
            return
        if not isinstance(data, pd.DataFrame):
            raise ScoresError(f"Scores expects a pandas DataFrame, got {type(data).__name__}")
        where = f" in {source}" if source else ""
        missing = [c for c in REQUIRED if c not in data.columns]
        if missing:
            raise ScoresError(
                f"missing column(s) {', '.join(missing)}{where}; have: {', '.join(map(str, data.columns))}"
            )
        df = data.copy()
        if "metric" not in df.columns:
            df["metric"] = DEFAULT_METRIC
        if df.empty:
            raise ScoresError(f"no scores{where}: the table is empty")
        for col in ("dataset", "system", "metric", "item"):
            if df[col].isna().any():
                row = int(np.flatnonzero(df[col].isna().to_numpy())[0])
                raise ScoresError(f"empty {col!r} at row {row}{where}")
            df[col] = df[col].astype(str)
        key = ["dataset", "system", "metric", "item"]
        if "seed" in df.columns:
            if df["seed"].isna().any():
                row = int(np.flatnonzero(df["seed"].isna().to_numpy())[0])
                raise ScoresError(f"empty 'seed' at row {row}{where}")
            df["seed"] = df["seed"].astype(str)
            key.append("seed")
        numeric = pd.to_numeric(df["value"], errors="coerce")
        bad = numeric.isna() & df["value"].notna() | df["value"].isna()
        if bad.any():
            rows = np.flatnonzero(bad.to_numpy())
            r = int(rows[0])
            raise ScoresError(
                f"non-numeric value {df['value'].iloc[r]!r} at row {r} (dataset {df['dataset'].iloc[r]!r}, "
                f"system {df['system'].iloc[r]!r}, item {df['item'].iloc[r]!r}){where}"
                + (f"; {rows.size} such rows" if rows.size > 1 else "")
            )
        values = numeric.to_numpy(dtype=np.float64)
        nonfinite = ~np.isfinite(values)
        if nonfinite.any():
            rows = np.flatnonzero(nonfinite)
            r = int(rows[0])
            raise ScoresError(
                f"non-finite value {values[r]!r} at row {r} (dataset {df['dataset'].iloc[r]!r}, "
                f"system {df['system'].iloc[r]!r}, item {df['item'].iloc[r]!r}){where}"
                + (f"; {rows.size} such rows" if rows.size > 1 else "")
            )
        df["value"] = values
        dup = df.duplicated(key, keep=False)
        if dup.any():
            first = df.loc[dup, key].head(10)
            listed = "; ".join("/".join(map(str, row)) for row in first.itertuples(index=False))
            raise ScoresError(
                f"{int(dup.sum())} rows share a key ({', '.join(key)}){where}: {listed}"
            )
        self._df = df.reset_index(drop=True)

    # ------------------------------------------------------------------ views
    @property
    def frame(self) -> pd.DataFrame:
        """A copy of the underlying tidy table."""
        return self._df.copy()

    @property
    def datasets(self) -> tuple[str, ...]:
        return tuple(pd.unique(self._df["dataset"]))

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(pd.unique(self._df["system"]))

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(pd.unique(self._df["metric"]))

    @property
    def has_seeds(self) -> bool:
        return "seed" in self._df.columns

    def __len__(self) -> int:
        return len(self._df)

    def __repr__(self) -> str:
        return (
            f"Scores({len(self._df)} rows: {len(self.datasets)} datasets, {len(self.systems)} systems, "
            f"{len(self.metrics)} metrics)"
        )

    # -------------------------------------------------------------- building
    @classmethod
    def from_arrays(
        cls,
        values: dict[str, dict[str, Sequence[float] | np.ndarray]],
        *,
        metric: str = DEFAULT_METRIC,
    ) -> Scores:
        """Build from ``{dataset: {system: values}}`` where position ``i`` is item ``i``.

        This is the Ranger one-value-per-line convention: the line (position) is the item id.
        """
        frames = []
        for dataset, systems in values.items():
            for system, vals in systems.items():
                arr = np.asarray(vals)
                frames.append(
                    pd.DataFrame(
                        {
                            "dataset": dataset,
                            "system": system,
                            "metric": metric,
                            "item": np.arange(1, arr.size + 1).astype(str),
                            "value": arr,
                        }
                    )
                )
        if not frames:
            raise ScoresError("no scores: no datasets given")
        return cls(pd.concat(frames, ignore_index=True))

    @classmethod
    def concat(cls, parts: Iterable[Scores]) -> Scores:
        """Stack several Scores (e.g. one per dataset); duplicate keys are an error."""
        frames = [Scores(p)._df for p in parts]
        if not frames:
            raise ScoresError("no scores to concatenate")
        return cls(pd.concat(frames, ignore_index=True))

    def filter(
        self,
        *,
        datasets: Iterable[str] | None = None,
        systems: Iterable[str] | None = None,
        metrics: Iterable[str] | None = None,
    ) -> Scores:
        """Rows of the given datasets/systems/metrics; an unknown name is an error."""
        df = self._df
        for col, wanted, known in (
            ("dataset", datasets, self.datasets),
            ("system", systems, self.systems),
            ("metric", metrics, self.metrics),
        ):
            if wanted is None:
                continue
            wanted = [str(w) for w in wanted]
            unknown = [w for w in wanted if w not in known]
            if unknown:
                raise ScoresError(f"unknown {col}(s) {_preview(unknown)}; known: {_preview(known)}")
            df = df[df[col].isin(wanted)]
        return Scores(df)

    # --------------------------------------------------------------- pairing
    def values(self, dataset: str, system: str, metric: str | None = None) -> pd.Series:
        """One system's values on one dataset and metric, indexed by item id (seeds averaged).

        With a ``seed`` column the per-item value is the mean over seeds (the usual way to
        compare neural models trained with several random seeds on the same items).
        """
        metric = self._resolve_metric(dataset, metric)
        df = self._df
        sel = df[(df["dataset"] == dataset) & (df["system"] == system) & (df["metric"] == metric)]
        if sel.empty:
            if dataset not in self.datasets:
                raise ScoresError(f"unknown dataset {dataset!r}; known: {_preview(self.datasets)}")
            raise ScoresError(
                f"system {system!r} has no scores on dataset {dataset!r} (metric {metric!r}); "
                f"systems there: {_preview(pd.unique(df.loc[df['dataset'] == dataset, 'system']))}"
            )
        if self.has_seeds:
            return sel.groupby("item", sort=True)["value"].mean()
        return sel.set_index("item")["value"].sort_index()

    def _resolve_metric(self, dataset: str, metric: str | None) -> str:
        if metric is not None:
            if metric not in self.metrics:
                raise ScoresError(f"unknown metric {metric!r}; known: {_preview(self.metrics)}")
            return metric
        here = pd.unique(self._df.loc[self._df["dataset"] == dataset, "metric"])
        if len(here) == 1:
            return str(here[0])
        if len(here) == 0:
            raise ScoresError(f"unknown dataset {dataset!r}; known: {_preview(self.datasets)}")
        raise ScoresError(
            f"dataset {dataset!r} has several metrics ({_preview(here)}); pass metric="
        )

    def pair(
        self,
        dataset: str,
        treatment: str,
        control: str,
        metric: str | None = None,
        missing: str = "error",
    ) -> PairedScores:
        """Align ``treatment`` and ``control`` on one dataset **by item id**.

        ``missing="error"`` (default) raises when the item sets differ, listing up to 10 ids per
        side; ``missing="intersect"`` keeps the common items, counts the dropped ones in
        ``n_dropped`` and warns.
        """
        if missing not in MISSING_POLICIES:
            raise ScoresError(f"unknown missing policy {missing!r}; use one of {MISSING_POLICIES}")
        metric = self._resolve_metric(dataset, metric)
        t = self.values(dataset, treatment, metric)
        c = self.values(dataset, control, metric)
        only_t = t.index.difference(c.index)
        only_c = c.index.difference(t.index)
        dropped = len(only_t) + len(only_c)
        if dropped:
            if missing == "error":
                parts = []
                if len(only_t):
                    parts.append(f"{len(only_t)} only in {treatment!r}: {_preview(only_t)}")
                if len(only_c):
                    parts.append(f"{len(only_c)} only in {control!r}: {_preview(only_c)}")
                raise ScoresError(
                    f"items of {treatment!r} and {control!r} differ on dataset {dataset!r}: "
                    + "; ".join(parts)
                    + " (pass missing='intersect' to use the common items)"
                )
            warnings.warn(
                f"dataset {dataset!r}: dropped {dropped} item(s) not scored for both "
                f"{treatment!r} and {control!r}",
                stacklevel=2,
            )
        common = t.index.intersection(c.index).sort_values()
        if common.empty:
            raise ScoresError(
                f"no common items between {treatment!r} and {control!r} on dataset {dataset!r}"
            )
        return PairedScores(
            dataset=dataset,
            metric=metric,
            items=common.to_numpy(dtype=object),
            treatment=t.loc[common].to_numpy(dtype=np.float64),
            control=c.loc[common].to_numpy(dtype=np.float64),
            n_dropped=dropped,
        )
