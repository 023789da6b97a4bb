"""Oracle for ``ranger_eval.win_rate``: HELM's ``compute_aggregate_row_win_rates``.

HELM (stanford-crfm/helm, Apache-2.0) is too heavy to install for a test (it pulls in its whole
benchmark stack), so this script re-implements that one function step by step as it is in
``src/helm/benchmark/presentation/summarize.py`` (commit 00abf6a630fd057f35539b906fd40ca9a951edb1):
for every column with a defined ``lower_is_better``, count the non-null values, walk the distinct
values from worst to best (``sorted(..., reverse=lower_is_better)``) giving each value
``systems already passed + (copies − 1) / 2`` wins, skip the column when fewer than two values are
non-null, append ``wins / (total − 1)`` to each non-null row; then each row's ``statistics.mean``
of its list, ``None`` for an empty list. Only HELM's Table/Cell containers are replaced by
minimal stand-ins (same attribute names).

Rows of HELM's table are systems, columns are datasets (Ranger's wide table transposed).
Writes ``win_rate_oracle.json``: fixtures (tables with ties, missing cells, skipped columns, a
system without any score, lower-is-better) and HELM's win rates. Run:
``python tests/oracles/win_rate_oracle.py``.
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from statistics import mean, median

import numpy as np


@dataclass(frozen=True)
class Cell:
    value: float | None


@dataclass(frozen=True)
class HeaderCell:
    value: str
    lower_is_better: bool | None


@dataclass(frozen=True)
class Table:
    header: list[HeaderCell]
    rows: list[list[Cell]]


def helm_aggregate_row_win_rates(table: Table, aggregation: str = "mean") -> list[float | None]:
    """HELM's ``compute_aggregate_row_win_rates`` (see the module docstring)."""
    assert aggregation in ["mean", "median"]
    per_row: list[list[float]] = [[] for _ in table.rows]
    for c, head in enumerate(table.header):
        lower_is_better = head.lower_is_better
        if lower_is_better is None:
            continue
        counts: dict[float, int] = defaultdict(int)
        for row in table.rows:
            if row[c].value is not None:
                counts[row[c].value] += 1
        wins: dict[float, float] = {}
        passed = 0
        for value, copies in sorted(counts.items(), reverse=lower_is_better):
            wins[value] = passed + ((copies - 1) / 2)
            passed += copies
        total = passed
        if total < 2:
            continue
        for r, row in enumerate(table.rows):
            if row[c].value is not None:
                per_row[r].append(wins[row[c].value] / (total - 1))
    out: list[float | None] = []
    for rates in per_row:
        if len(rates) == 0:
            out.append(None)
        else:
            out.append(mean(rates) if aggregation == "mean" else median(rates))
    return out


def _helm(wide: list[list[float | None]], higher_is_better: bool) -> list[float | None]:
    """Win rates of the systems (columns of ``wide``, rows = datasets) by HELM's function."""
    n, k = len(wide), len(wide[0])
    header = [HeaderCell(f"d{i}", not higher_is_better) for i in range(n)]
    rows = [[Cell(wide[i][j]) for i in range(n)] for j in range(k)]
    return helm_aggregate_row_win_rates(Table(header, rows))


def _fixtures() -> list[dict[str, object]]:
    rng = np.random.default_rng(20261126)
    out: list[dict[str, object]] = []
    shapes = [(5, 3), (12, 6), (30, 10), (54, 5), (8, 20), (3, 2), (100, 7)]
    for f, (n, k) in enumerate(shapes):
        for decimals in (None, 1, 2):  # None: continuous; 1/2: many ties
            for missing in (0.0, 0.2):
                x = rng.normal(size=(n, k)) + np.linspace(0, 1, k)
                if decimals is not None:
                    x = np.round(x, decimals)
                cells: list[list[float | None]] = [[float(v) for v in row] for row in x]
                if missing:
                    for i in range(n):
                        for j in range(k):
                            if rng.random() < missing:
                                cells[i][j] = None
                    cells[0] = [cells[0][0]] + [None] * (k - 1)  # a skipped dataset (< 2 values)
                for hib in (True, False):
                    out.append({
                        "name": f"shape{f}_{n}x{k}_dec{decimals}_miss{missing}_hib{hib}",
                        "higher_is_better": hib,
                        "table": cells,
                        "helm": _helm(cells, hib),
                    })
    # a system without any comparable score (HELM: None)
    cells = [[0.5, 0.4, None], [0.1, 0.1, None], [0.3, None, 0.9]]
    cells[2][1] = None
    cells[2][0] = None
    out.append({"name": "system_without_scores", "higher_is_better": True, "table": cells,
                "helm": _helm(cells, True)})
    return out


def main() -> None:
    fixtures = _fixtures()
    for fx in fixtures:
        fx["helm"] = [None if v is None or math.isnan(v) else v for v in fx["helm"]]  # type: ignore[union-attr]
    path = Path(__file__).with_name("win_rate_oracle.json")
    path.write_text(json.dumps({"source": "HELM compute_aggregate_row_win_rates (summarize.py @ "
                                          "00abf6a6), re-implemented step by step",
                                "fixtures": fixtures}) + "\n")
    print(f"wrote {len(fixtures)} fixtures to {path}")


if __name__ == "__main__":
    main()
