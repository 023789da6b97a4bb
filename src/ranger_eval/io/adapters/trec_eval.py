"""``trec_eval -q`` output → per-query scores.

``trec_eval -q qrels run`` prints ``measure <tab> query <tab> value`` for every query, then the
same measures for query ``all`` (the summary, with the ``runid`` line giving the run's name).
Several outputs concatenated into one file are read as several systems (a new block starts
when per-query lines follow an ``all`` block).

Names: system = the value of the ``runid all <name>`` line (else the file name without
suffix), item = the query id, metric = trec_eval's measure name (``map``, ``P_10``,
``ndcg_cut_10``), dataset = the ``dataset=`` argument, else the file name without suffix.
Non-numeric per-query measures (``relstring``) are skipped and counted. The ``all`` lines are
kept as the reported aggregates (trec_eval prints 4 decimals).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import InputError
from ..files import check_input_file, open_text
from ._common import IR_UNIT_MEASURE, AdapterResult, Builder
from ._json import snippet

__all__ = ["FORMAT", "NOT_MEANS", "read"]

FORMAT = "trec-eval-q"
EXPECTED = "trec_eval -q output ('measure <tab> query <tab> value' lines)"
#: Summary lines that are not the mean of the per-query values (sums, counts, geometric means).
NOT_MEANS = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret",
                       "runid", "relstring"})


@dataclass
class _Block:
    first_line: int
    rows: list[tuple[str, str, float]] = field(default_factory=list)
    summary: list[tuple[str, str]] = field(default_factory=list)
    runid: str | None = None


def _blocks(path: Path, skipped: dict[str, int]) -> list[_Block]:
    blocks: list[_Block] = []
    cur: _Block | None = None
    in_summary = False
    seen: dict[tuple[str, str], int] = {}
    with open_text(path, what="trec_eval -q output") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            fields = line.split()
            where = f"{path}:{number}"
            if len(fields) != 3:
                raise InputError(f"{where}: {snippet(line)} has {len(fields)} fields; expected "
                                 f"{EXPECTED}")
            measure, qid, text = fields
            if cur is None or (in_summary and qid != "all"):
                cur = _Block(number)
                blocks.append(cur)
                in_summary = False
                seen = {}
            if qid == "all":
                in_summary = True
                if measure == "runid":
                    cur.runid = text
                else:
                    cur.summary.append((measure, text))
                continue
            if (measure, qid) in seen:
                raise InputError(f"{where}: measure {measure!r} of query {qid!r} repeats line "
                                 f"{seen[measure, qid]}")
            seen[measure, qid] = number
            try:
                value = float(text)
            except ValueError:
                if measure.startswith("relstring"):  # relstring[_N]: a string per query
                    skipped[measure] = skipped.get(measure, 0) + 1
                    continue
                raise InputError(f"{where}: value {text!r} of {measure!r} is not a number; "
                                 f"expected {EXPECTED}") from None
            if not math.isfinite(value):
                raise InputError(f"{where}: value {text!r} of {measure!r} is not finite")
            cur.rows.append((measure, qid, value))
    return blocks


def read(path: str | Path, *, dataset: str | None = None) -> AdapterResult:
    """Read ``trec_eval -q`` output; ``dataset`` names the test collection."""
    path = check_input_file(path, what="trec_eval -q output")
    skipped: dict[str, int] = {}
    blocks = _blocks(path, skipped)
    if not any(b.rows for b in blocks):
        raise InputError(f"{path}: no per-query lines (only 'all' summaries); run trec_eval "
                         f"with -q to get one value per query")
    name = dataset if dataset is not None else path.stem
    b = Builder(FORMAT, path)
    systems: dict[str, int] = {}
    for block in blocks:
        system = block.runid or path.stem
        if system in systems:
            raise InputError(f"{path}:{block.first_line}: run {system!r} appears twice (also from "
                             f"line {systems[system]})")
        systems[system] = block.first_line
        for measure, qid, value in block.rows:
            b.rows.add(dataset=name, system=system, metric=measure, item=qid, value=value,
                       higher_is_better=None)
        for measure in {m for m, _, _ in block.rows if IR_UNIT_MEASURE.match(m)}:
            b.bound(measure)  # nDCG, AP, P@k ... lie in [0, 1]
        for measure, text in block.summary:
            try:
                v = float(text)
            except ValueError:
                continue
            b.report(name, system, measure, "all", v,
                     measure not in NOT_MEANS and not measure.startswith(("gm_", "relstring")))
    for measure, n in skipped.items():
        b.note(f"{n} per-query {measure!r} line(s) skipped (not numbers)")
    return b.result()
