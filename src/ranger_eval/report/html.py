"""The one-file HTML report of a ranger-eval output folder (``report.html``).

:func:`write_html_report` reads what ``ranger-eval meta``, ``compare``, ``rank`` or ``demo`` wrote
into a folder — ``manifest.json`` and the files it lists (``summary.json`` and ``effects.csv`` of
a meta-analysis, ``comparison.csv`` and ``leaderboard.md`` of a comparison, ``ranking.json``,
``ranking.csv`` and ``ranktest.csv`` of a ranking, the figures) — and writes one self-contained
``report.html`` beside them:

* the figures inline: SVG as markup (ids and ``<style>`` rules prefixed per figure, so two
  figures never clash), a figure that exists only as PNG as a ``data:`` URI;
* the tables as HTML tables, sortable by clicking a column header (a few lines of the report's
  own JavaScript; numeric-aware, ascending/descending, ``aria-sort``);
* the machine-readable results as JSON in ``<script type="application/json"
  id="ranger-results">``;
* the signature and the exact command of every analysis, and a short plain-language reading of
  each result, written from the numbers in the files.

Nothing is fetched: no CDN, no web font, no external reference (a Content-Security-Policy of
``default-src 'none'`` makes the browser refuse any). Nothing is computed either: every number
is read from the files, only counted and formatted (:mod:`ranger_eval.formatting`). Folders one
level down that hold their own ``manifest.json`` (``ranking/`` of ``ranger-eval demo``) become
further sections of the same report. Missing or malformed contents raise
:class:`~ranger_eval.errors.ReportError` naming the folder or file.
"""
from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import math
import re
import struct
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..atomic import write_text
from ..errors import ReportError
from ..formatting import format_level, format_percent, format_pvalue
from ..signature import parse_signature, signature_level
from .tables import jsonable

__all__ = ["REPORT_FILE", "render_html_report", "write_html_report"]

#: Name of the report written into the output folder.
REPORT_FILE = "report.html"
#: Most tests of a comparison shown in the report's table and embedded JSON (the rest are in
#: comparison.csv and comparison.json, and the caption says so): 17 systems × 54 datasets
#: (7,344 tests) would otherwise make a 10 MB page.
TABLE_MAX_ROWS = 1000
#: Most dataset × metric groups whose figures (``compare --per-dataset-figures``) the report
#: inlines; the note under them names where the others are.
FIGURE_MAX_GROUPS = 12

_MINUS = "\u2212"
_IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                ".gif": "image/gif", ".webp": "image/webp"}
_CORRECTIONS = {
    "holm-sidak": "Holm–Šídák", "holm": "Holm", "bonferroni": "Bonferroni", "sidak": "Šídák",
    "simes-hochberg": "Hochberg", "hommel": "Hommel", "fdr_bh": "Benjamini–Hochberg (FDR)",
    "fdr_by": "Benjamini–Yekutieli (FDR)", "fdr_tsbh": "two-stage Benjamini–Hochberg (FDR)",
    "fdr_tsbky": "two-stage Benjamini–Krieger–Yekutieli (FDR)",
}
_POSTHOC = {"nemenyi": "Nemenyi", "bonferroni-dunn": "Bonferroni–Dunn", "holm": "Holm",
            "wilcoxon": "Wilcoxon", "conover": "Conover"}
_KIND_TITLES = {"meta": "Meta-analysis", "compare": "Pairwise comparison", "rank": "Ranking",
                "aso": "Almost Stochastic Order", "bayes": "Bayesian comparison",
                "arena": "Arena leaderboard"}


# --------------------------------------------------------------------------- public API
def write_html_report(folder: str | Path, *, command: str | None = None,
                      subfolders: bool = True) -> Path:
    """Write ``report.html`` into the ranger-eval output ``folder`` (atomically); returns its path.

    ``command`` is the command that writes the report (e.g. ``ranger-eval report out/``); it is
    shown in the footer when it differs from the command recorded in ``manifest.json``. With
    ``subfolders``, folders one level down that hold a ``manifest.json`` are reported too.
    Raises :class:`ReportError` when the folder has no ``manifest.json`` or a file it lists is
    missing or malformed.
    """
    text = render_html_report(folder, command=command, subfolders=subfolders)
    return write_text(Path(folder) / REPORT_FILE, text)


def render_html_report(folder: str | Path, *, command: str | None = None,
                       subfolders: bool = True) -> str:
    """The text of the report :func:`write_html_report` writes (nothing is written)."""
    root = Path(folder)
    if not root.is_dir():
        raise ReportError(f"{root}: not a folder (give the --out folder of a ranger-eval run)")
    folders = [root]
    if subfolders:
        folders += sorted(p for p in root.iterdir()
                          if p.is_dir() and (p / "manifest.json").is_file())
    analyses = [_read_analysis(p, root, i) for i, p in enumerate(folders)]
    return _page(root, analyses, command)


# --------------------------------------------------------------------------- reading
@dataclass
class _Analysis:
    """One output folder: its manifest, kind, listed files and the parsed results."""

    folder: Path
    rel: str
    index: int
    manifest: dict[str, Any]
    kind: str
    files: dict[str, Path]
    data: dict[str, Any] = field(default_factory=dict)
    sentences: list[str] = field(default_factory=list)
    bullets: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)

    @property
    def signature(self) -> str:
        return str(self.manifest.get("signature") or "")

    @property
    def command(self) -> str | None:
        c = self.manifest.get("command")
        return None if c is None else str(c)

    def sig_fields(self) -> dict[str, str]:
        try:
            return parse_signature(self.signature)
        except ValueError:
            return {}


def _read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / "manifest.json"
    if not path.is_file():
        raise ReportError(
            f"{folder}: no manifest.json: not a ranger-eval output folder (write one with "
            f"`ranger-eval meta|compare|rank|demo … --out {folder}`)"
        )
    manifest = _read_json_object(path)
    files = manifest.get("files")
    if not isinstance(files, list):
        raise ReportError(f"{path}: no \"files\" list")
    if "signature" not in manifest:
        raise ReportError(f"{path}: no \"signature\"")
    return manifest


def _listed_files(folder: Path, manifest: dict[str, Any]) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for entry in manifest["files"]:
        name = entry.get("file") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name or "/" in name or "\\" in name \
                or name in (".", ".."):
            raise ReportError(f"{folder / 'manifest.json'}: bad entry in \"files\": {entry!r}")
        out[name] = folder / name
    return out


def _read_analysis(folder: Path, root: Path, index: int) -> _Analysis:
    manifest = _read_manifest(folder)
    files = _listed_files(folder, manifest)
    rel = "." if folder == root else folder.relative_to(root).as_posix()
    kind = ""
    try:
        kind = parse_signature(str(manifest["signature"])).get("kind", "")
    except ValueError:
        pass
    if kind not in _KIND_TITLES:
        kind = next((k for k, f in (("meta", "summary.json"), ("compare", "comparison.json"),
                                    ("rank", "ranking.json"), ("aso", "aso.json"),
                                    ("bayes", "bayes.json"), ("arena", "arena.json"))
                     if f in files), "")
    if not kind:
        raise ReportError(
            f"{folder / 'manifest.json'}: lists no result the report can show "
            "(summary.json, comparison.json or ranking.json)"
        )
    a = _Analysis(folder, rel, index, manifest, kind, files)
    {"meta": _meta, "compare": _compare, "rank": _rank, "aso": _aso, "bayes": _bayes,
     "arena": _arena}[kind](a)
    a.figures = _figures(a)
    return a


def _path(a: _Analysis, name: str, required: bool = True) -> Path | None:
    """The listed file ``name``: checked to exist and to match the manifest's SHA-256."""
    p = a.files.get(name)
    if p is None:
        if required:
            raise ReportError(f"{a.folder / 'manifest.json'}: does not list {name}")
        return None
    if not p.is_file():
        raise ReportError(f"{p}: listed in manifest.json but missing")
    for entry in a.manifest["files"]:
        if isinstance(entry, dict) and entry.get("file") == name and entry.get("sha256"):
            if hashlib.sha256(p.read_bytes()).hexdigest() != entry["sha256"]:
                warnings.warn(f"{p}: changed since the run that wrote it "
                              "(SHA-256 differs from manifest.json)", stacklevel=3)
    return p


def _read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; unreadable text, invalid JSON or another JSON value is a
    :class:`ReportError` naming the file."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from None
    except ValueError as exc:
        raise ReportError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ReportError(f"{path}: expected a JSON object, got {type(value).__name__}")
    return value


def _read_csv(path: Path, required: Sequence[str] = ()) -> pd.DataFrame:
    """A CSV written by ranger-eval: plain, or after a first ``# signature`` line (as written
    before CSV outputs became plain)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from None
    if text.startswith("#"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    try:
        frame = pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise ReportError(f"{path}: not a readable CSV table: {exc}") from None
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ReportError(f"{path}: missing column(s) {', '.join(missing)}")
    return frame


def _get(obj: Mapping[str, Any], key: str, path: Path, kind: type | tuple[type, ...] = object,
         where: str = "") -> Any:
    if not isinstance(obj, Mapping) or key not in obj:
        raise ReportError(f"{path}: missing key {where}{key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        raise ReportError(f"{path}: {where}{key!r} has the wrong type ({type(value).__name__})")
    return value


def _margin(text: object) -> float | None:
    """A signature's ``margin:`` field as a number (None when absent or not a number)."""
    try:
        value = float(str(text))
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def _float(obj: Mapping[str, Any], key: str, path: Path, where: str = "") -> float:
    value = _get(obj, key, path, (int, float, type(None)), where)
    return math.nan if value is None else float(value)


def _bools(series: pd.Series) -> list[bool]:
    if series.dtype == bool:
        return [bool(v) for v in series]
    return [str(v).strip().lower() in ("true", "1", "yes") for v in series]


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): jsonable(v) for k, v in row.items()}
            for row in frame.to_dict(orient="records")]


# --------------------------------------------------------------------------- formatting
def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _fixed(value: float, decimals: int) -> str:
    """Fixed-point with a real minus sign; ``–`` for a missing value, ``∞`` for infinity."""
    v = float(value)
    if math.isnan(v):
        return "–"
    if math.isinf(v):
        return ("−" if v < 0 else "") + "∞"
    text = f"{v:.{decimals}f}"
    if float(text) == 0.0:
        text = text.lstrip("-")
    return text.replace("-", _MINUS)


def _decimals(values: Iterable[float], least: int = 3, most: int = 6) -> int:
    """``least`` decimals, or more so that the smallest non-zero magnitude keeps 2 digits."""
    finite = [abs(float(v)) for v in values if math.isfinite(float(v)) and float(v) != 0.0]
    if not finite:
        return least
    return int(min(max(least, 1 - math.floor(math.log10(min(finite)))), most))


def _p(p: float, prefix: str = "p = ") -> str:
    return format_pvalue(p, 2, "unicode", prefix=prefix)


def _alpha(value: float) -> str:
    return f"{value:g}"


def _names(names: Sequence[str], limit: int = 10) -> str:
    names = list(names)
    if len(names) > limit:
        names = names[: limit - 2] + [f"{len(names) - limit + 2} more"]
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _correction(name: str) -> str:
    if name in ("none", ""):
        return "no multiplicity correction"
    return _CORRECTIONS.get(name, name)


# --------------------------------------------------------------------------- tables
@dataclass(frozen=True)
class _Cell:
    html: str
    sort: float | None = None  # numeric sort key (data-sort); None: sort by the text
    numeric: bool = False
    stack: bool = False  # a value and its interval that may stack in two lines (CSS td.stack)


def _text(value: object) -> _Cell:
    return _Cell(_e(value))


def _num(value: Any, decimals: int) -> _Cell:
    v = math.nan if value is None else float(value)
    return _Cell(_e(_fixed(v, decimals)), v, True)


def _pcell(value: Any) -> _Cell:
    v = math.nan if value is None else float(value)
    return _Cell(_e(_p(v, "") if math.isfinite(v) else "–"), v, True)


def _sort_attr(cell: _Cell) -> str:
    if cell.sort is None:
        return ""
    v = float(cell.sort)
    if math.isnan(v):
        return ' data-sort=""'
    if math.isinf(v):
        return f' data-sort="{"-" if v < 0 else ""}Infinity"'
    return f' data-sort="{v!r}"'


#: A table with this many columns or more is set a little smaller (CSS ``.many table``), so that
#: the comparison table's 13 columns fit a 1,400 px window.
_MANY_COLUMNS = 10


def _td_class(numeric: bool, stack: bool) -> str:
    names = " ".join(n for n, on in (("num", numeric), ("stack", stack)) if on)
    return f' class="{names}"' if names else ""


def _table(tid: str, title: str, caption: str, headers: Sequence[str],
           rows: Sequence[Sequence[_Cell]], foot: Sequence[Sequence[_Cell]] = ()) -> str:
    """A sortable table: one ``<th scope="col">`` with a sort button per column."""
    numeric = [bool(rows) and all(r[j].numeric for r in rows if r[j].html != "–")
               and any(r[j].numeric for r in rows) for j in range(len(headers))]
    described = f' aria-describedby="{tid}-note"' if caption else ""
    many = " many" if len(headers) >= _MANY_COLUMNS else ""
    out = [f'<h3 id="{tid}-title">{_e(title)}</h3>',
           # the scrolling box is a focusable region, so a keyboard can scroll a wide table
           f'<div class="table-wrap{many}" role="region" tabindex="0" '
           f'aria-labelledby="{tid}-title">'
           f'<table class="sortable" id="{tid}" '
           f'aria-labelledby="{tid}-title"{described}>']
    out.append("<thead><tr>")
    for j, h in enumerate(headers):
        cls = ' class="num"' if numeric[j] else ""
        out.append(f'<th scope="col"{cls}><button type="button">{_e(h)}</button></th>')
    out.append("</tr></thead>")
    for part, body in (("tbody", rows), ("tfoot", foot)):
        if not body and part == "tfoot":
            continue
        out.append(f"<{part}>")
        for row in body:
            cells = "".join(
                f"<td{_td_class(numeric[j], c.stack)}{_sort_attr(c)}>{c.html}</td>"
                for j, c in enumerate(row)
            )
            out.append(f"<tr>{cells}</tr>")
        out.append(f"</{part}>")
    out.append("</table></div>")
    if caption:  # below the scrolling box, so it wraps at the page's width on a phone too
        out.append(f'<p class="table-note" id="{tid}-note">{caption}</p>')
    return "\n".join(out)


# --------------------------------------------------------------------------- meta-analysis
def _labels(summary: Mapping[str, Any]) -> tuple[str, str]:
    """(treatment, control) as the run labelled them: summary.json's labels, else its ids."""
    control = str(summary.get("control_label") or summary.get("control") or "control")
    treatment = str(summary.get("treatment_label") or summary.get("treatment") or "treatment")
    return treatment, control


def _meta(a: _Analysis) -> None:
    path = _path(a, "summary.json")
    assert path is not None
    summary = _read_json_object(path)
    res = _get(summary, "result", path, dict)
    w = "result."
    est, lo, hi = (_float(res, k, path, w) for k in ("estimate", "ci_low", "ci_high"))
    pvalue = _float(res, "pvalue", path, w)
    pi_lo, pi_hi = _float(res, "pi_low", path, w), _float(res, "pi_high", path, w)
    level = _float(res, "level", path, w)
    method = str(_get(res, "method", path, str, w))
    test = str(res.get("test", "z"))
    measure = str(res.get("measure") or summary.get("measure") or "effect")
    names = [str(n) for n in _get(res, "names", path, list, w)]
    yi = [math.nan if v is None else float(v) for v in _get(res, "yi", path, list, w)]
    weights = [math.nan if v is None else float(v) for v in res.get("weights") or []]
    if len(yi) != len(names):
        raise ReportError(f"{path}: result.yi and result.names differ in length")
    I2, tau2 = _float(res, "I2", path, w), _float(res, "tau2", path, w)
    treatment, control = _labels(summary)
    alpha = round(1.0 - level, 12)
    pct = format_level(level)

    effects = None
    ep = _path(a, "effects.csv", required=False)
    if ep is not None:
        effects = _read_csv(ep, ["dataset", "yi"])
    a.data["summary"] = summary
    a.data["effects"] = None if effects is None else _records(effects)

    # the reading
    model = "fixed effect" if method in ("FE", "EE") else f"random effects {method}"
    model += {"knha": ", Knapp–Hartung", "t": ", t test"}.get(test, "")
    dec = _decimals([est, lo, hi])
    sig = pvalue < alpha
    k = len(yi)
    s = (f"{treatment} vs {control}: the summary effect ({measure}, {model}) is "
         f"{_fixed(est, dec)} [{_fixed(lo, dec)}, {_fixed(hi, dec)}], {_p(pvalue)}: "
         f"{'significant' if sig else 'not significant'} at α = {_alpha(alpha)}")
    lower = est < 0 if math.isfinite(est) else sum(v < 0 for v in yi) > k / 2
    same = [i for i, v in enumerate(yi) if (v < 0 if lower else v > 0)]
    s += (f"; {treatment} scores {'lower' if lower else 'higher'} than {control} on "
          f"{len(same)} of {_plural(k, 'dataset')}")
    if effects is not None and {"ci_low", "ci_high"} <= set(effects.columns):
        by_name = {str(d): (float(cl), float(ch)) for d, cl, ch in
                   zip(effects["dataset"], effects["ci_low"], effects["ci_high"], strict=True)}
        n_sig = sum(1 for i in same if names[i] in by_name
                    and (by_name[names[i]][1] < 0 if lower else by_name[names[i]][0] > 0))
        s += f" ({n_sig} of them with a {pct} CI that excludes 0)"
    if k > 1 and math.isfinite(I2):
        s += f"; heterogeneity I² = {format_percent(I2 / 100, 1)}"
    a.sentences.append(s + ".")
    if k == 1:
        a.sentences.append("Only one dataset: the summary is that dataset's effect.")
    elif isinstance(res.get("caution"), str):  # k = 2 (MetaResult.few_datasets_caution)
        a.sentences.append(res["caution"])
    elif method not in ("FE", "EE") and math.isfinite(pi_lo) and math.isfinite(pi_hi):
        pdec = _decimals([pi_lo, pi_hi])
        spans = pi_lo < 0 < pi_hi
        a.sentences.append(
            f"The {pct} prediction interval for the effect on a new dataset is "
            f"[{_fixed(pi_lo, pdec)}, {_fixed(pi_hi, pdec)}] (τ² = {tau2:.2g}): "
            + ("it includes 0, so a new dataset may show an effect of either sign."
               if spans else "it excludes 0, so a new dataset is expected to show the same sign.")
        )
    mde = res.get("mde")  # summary.json keeps it under "result", with the other numbers
    if isinstance(mde, (int, float)) and math.isfinite(mde):  # a non-significant summary
        a.sentences.append(
            f"Not significant is not no effect: the summary would have detected only a true "
            f"effect of {mde:.4g} or more ({measure}, either direction) with 80 % power at "
            f"α = {_alpha(alpha)}.")
    if res.get("verdict") and res.get("margin") is not None:  # meta --margin
        direction = " (lower is better)" if res.get("higher_is_better") is False else ""
        a.sentences.append(
            f"Against a margin of ±{res['margin']}{direction}: {res['verdict']} (the {pct} "
            f"confidence interval of the summary); {res.get('verdict_new_dataset')} (the "
            "prediction interval).")
        # where its test of no effect and the margin seem to disagree, why both hold (written by
        # the pipeline: ranger_eval.aggregate.agreement.margin_disagreements)
        a.sentences += [s for s in summary.get("disagreements") or [] if isinstance(s, str)]
    skipped = summary.get("skipped") or {}
    if isinstance(skipped, dict) and skipped:
        a.sentences.append("Not analysed: " + "; ".join(
            f"{k_} ({v})" for k_, v in skipped.items()) + ".")

    # the table: one row per dataset; the summary (and prediction interval) in the footer
    if effects is not None:
        fr = effects
        ydec = max(4, _decimals(fr["yi"].tolist(), 4, 8))
        known = {"task_id", "dataset", "yi", "vi", "se", "ci_low", "ci_high", "n",
                 "mean_control", "mean_treatment", "weight"}
        has_means = {"mean_control", "mean_treatment"} <= set(fr.columns)
        has_ci = {"ci_low", "ci_high"} <= set(fr.columns)
        columns = ["dataset"] + (["n"] if "n" in fr else [])
        columns += ["mean_control", "mean_treatment"] if has_means else []
        columns += [c for c in fr.columns if c not in known]
        columns += ["yi"] + (["ci"] if has_ci else []) + (["weight"] if "weight" in fr else [])
        titles = {"mean_control": f"mean {control}", "mean_treatment": f"mean {treatment}",
                  "yi": f"effect ({measure})", "ci": f"{pct} CI"}

        def ci(low: float, high: float) -> _Cell:
            return _Cell(_e(f"[{_fixed(low, ydec)}, {_fixed(high, ydec)}]"), float(low), True)

        rows = []
        for _, r in fr.iterrows():
            cells: dict[str, _Cell] = {"dataset": _text(r["dataset"]), "yi": _num(r["yi"], ydec)}
            for c in columns:
                if c in ("dataset", "yi"):
                    continue
                if c == "ci":
                    cells[c] = ci(r["ci_low"], r["ci_high"])
                elif c == "weight":
                    cells[c] = _Cell(_e(format_percent(float(r[c]), 2)), float(r[c]), True)
                elif c == "n":
                    cells[c] = _num(r[c], 0)
                elif isinstance(r[c], (int, float)):
                    cells[c] = _num(r[c], 4)
                else:
                    cells[c] = _text(r[c])
            rows.append([cells[c] for c in columns])
        foot_cells = {"dataset": _Cell(f"<strong>summary</strong> ({_e(model)})"),
                      "yi": _Cell(f"<strong>{_e(_fixed(est, ydec))}</strong>", est, True),
                      "ci": ci(lo, hi), "weight": _Cell("100%", 1.0, True)}
        foot = [[foot_cells.get(c, _Cell("")) for c in columns]]
        if method not in ("FE", "EE") and has_ci and k > 1:
            pi_cells = {"dataset": _Cell("prediction interval"), "ci": ci(pi_lo, pi_hi)}
            foot.append([pi_cells.get(c, _Cell("")) for c in columns])
        caption = (f"Effect of {_e(treatment)} over {_e(control)} on each dataset "
                   f"({_e(measure)}, {pct} confidence intervals) and model weights. "
                   f"Heterogeneity: τ² = {_e(f'{tau2:.4g}')}, I² = {_e(f'{I2:.1f}')}%, "
                   f"Q({_e(res.get('Q_df', ''))}) = {_e(_fixed(_float(res, 'Q', path, w), 2))}, "
                   f"{_e(_p(_float(res, 'Q_pvalue', path, w), 'p(Q) = '))}.")
        a.tables.append(_table(f"t{a.index}-effects", "Effects per dataset", caption,
                               [titles.get(c, c) for c in columns], rows, foot))
    elif weights:
        rows = [[_text(n), _num(v, 4), _Cell(_e(format_percent(wt, 2)), wt, True)]
                for n, v, wt in zip(names, yi, weights, strict=False)]
        a.tables.append(_table(f"t{a.index}-effects", "Effects per dataset", "",
                               ["dataset", f"effect ({measure})", "weight"], rows))


# --------------------------------------------------------------------------- comparison
_COMPARISON_COLUMNS = ("dataset", "metric", "system_a", "system_b", "mean_a", "mean_b", "diff",
                       "pvalue_adjusted", "significant")


def _read_comparisons(path: Path) -> pd.DataFrame:
    """The ``comparisons`` table of comparison.json (an object of columns; ±∞ written as the
    strings ``"inf"``/``"-inf"``, NaN as null)."""
    table = _get(_read_json_object(path), "comparisons", path, dict)
    try:
        comp = pd.DataFrame(table)
    except ValueError as exc:
        raise ReportError(f"{path}: \"comparisons\" is not a table of columns: {exc}") from None
    missing = [c for c in _COMPARISON_COLUMNS if c not in comp.columns]
    if missing:
        raise ReportError(f"{path}: \"comparisons\" lacks column(s) {', '.join(missing)}")
    for name in comp.columns:
        col = comp[name]
        if col.dtype == object and col.map(lambda v: v is None or v in ("inf", "-inf")
                                           or (isinstance(v, (int, float))
                                               and not isinstance(v, bool))).all() \
                and col.map(lambda v: isinstance(v, (int, float))).any():
            comp[name] = pd.to_numeric(col.replace({"inf": math.inf, "-inf": -math.inf}))
    return comp


def _compare(a: _Analysis) -> None:
    path = _path(a, "comparison.json")
    assert path is not None
    comp = _read_comparisons(path)
    # a report of a large run stays a few MB: the table and the embedded JSON hold the first
    # TABLE_MAX_ROWS tests (about 1.3 kB each), the sentences count them all
    shown_tests = comp.iloc[:TABLE_MAX_ROWS]
    a.data["comparison"] = _records(shown_tests)
    if len(comp) > TABLE_MAX_ROWS:
        a.data["comparison_rows"] = len(comp)
    fields = a.sig_fields()
    corr = _correction(fields.get("corr", ""))
    level = signature_level(fields)  # level:, or alpha: of an older folder
    alpha = 0.05 if level is None else round(1.0 - level, 12)
    sig = _bools(comp["significant"])
    # which mean is better: the higher one, unless the CSV's higher_is_better column says lower
    higher = (_bools(comp["higher_is_better"]) if "higher_is_better" in comp.columns
              else [True] * len(comp))
    better = ("a significantly higher mean" if all(higher) else
              "a significantly better mean (lower where lower is better: "
              + ", ".join(dict.fromkeys(str(m) for m, h in zip(comp["metric"], higher, strict=True)
                                        if not h)) + ")")
    groups = list(dict.fromkeys(zip(comp["dataset"].astype(str), comp["metric"].astype(str),
                                    strict=True)))
    systems = list(dict.fromkeys([*comp["system_a"].astype(str), *comp["system_b"].astype(str)]))
    test = fields.get("test", "")
    m = re.fullmatch(r"auto\[(.*)\]", test)
    test_text = f"tests chosen by the data: {m.group(1)}" if m else (f"test: {test}" if test else "")
    a.sentences.append(
        f"{_plural(len(systems), 'system')} compared pairwise on "
        f"{_plural(len(groups), 'dataset × metric', 'datasets × metrics')} "
        f"({_plural(len(comp), 'test')}; {test_text}): {sum(sig)} significant after {corr} "
        f"(α = {_alpha(alpha)}). “Beats” below means {better}."
        if test_text else
        f"{_plural(len(systems), 'system')} compared pairwise on "
        f"{_plural(len(groups), 'dataset × metric', 'datasets × metrics')} "
        f"({_plural(len(comp), 'test')}): {sum(sig)} significant after {corr} "
        f"(α = {_alpha(alpha)}). “Beats” below means {better}."
    )
    if "mde" in comp.columns:  # what the non-significant pairs could have detected
        from .tables import mde_sentence

        detectable = mde_sentence(comp.assign(mde=pd.to_numeric(comp["mde"], errors="coerce")),
                                  1.0 - alpha)
        if detectable:
            a.sentences.append(detectable)
    hyp = fields.get("hyp")  # non-inferiority / equivalence: "significant" = shown, no "beats"
    if hyp:
        word = "equivalent" if hyp == "equivalence" else "non-inferior"
        a.sentences.append(
            f"Hypothesis: {hyp} within a margin of {fields.get('margin', '?')} (in the metric's "
            f"units): “significant” below means shown {word}; each interval is the one its test "
            "inverts, so a pair is shown exactly when it lies within the margin.")
        if hyp == "equivalence" and level is not None:  # different and equivalent at once
            from ..aggregate.agreement import equivalence_disagreements

            a.sentences += equivalence_disagreements(
                comp.assign(significant=sig), margin=_margin(fields.get("margin")),
                level=level)
        shown_pairs: dict[tuple[str, str], list[int]] = {}
        for a_, b_, s in zip(comp["system_a"].astype(str), comp["system_b"].astype(str), sig,
                             strict=True):
            shown_pairs.setdefault((a_, b_), [0, 0])[0 if s else 1] += 1
        for (x, y), (yes, no) in list(shown_pairs.items())[:20]:
            a.bullets.append(f"{x} {'and' if hyp == 'equivalence' else 'vs'} {y}: shown {word} "
                             f"on {yes} of {_plural(yes + no, 'dataset × metric', 'datasets × metrics')} "
                             f"(after {corr}).")
    # one sentence per pair of systems
    pairs: dict[tuple[str, str], list[int]] = {}
    for a_, b_, d, s, h in zip(comp["system_a"].astype(str), comp["system_b"].astype(str),
                               comp["diff"].astype(float), sig, higher, strict=True):
        counts = pairs.setdefault((a_, b_), [0, 0, 0])
        d = d if h else -d  # > 0: system a has the better mean
        counts[0 if s and d > 0 else 1 if s and d < 0 else 2] += 1
    after = "without multiplicity correction" if corr.startswith("no ") else f"after {corr}"
    limit = 20
    for (x, y), (x_wins, y_wins, ties) in ([] if hyp else list(pairs.items())[:limit]):
        n = x_wins + y_wins + ties
        if y_wins > x_wins:
            x, y, x_wins, y_wins = y, x, y_wins, x_wins
        if x_wins == 0:
            a.bullets.append(f"{x} and {y}: no significant difference on "
                             f"{'the' if n == 1 else 'any of the'} "
                             f"{_plural(n, 'dataset × metric', 'datasets × metrics')} ({after}).")
            continue
        text = f"{x} beats {y} on {x_wins} of {_plural(n, 'dataset × metric', 'datasets × metrics')}"
        if y_wins:
            text += f", {y} beats {x} on {y_wins}"
        text += f" (significant {after})"
        if ties:
            text += f"; no significant difference on {ties}"
        a.bullets.append(text + ".")
    if len(pairs) > limit:
        a.bullets.append(f"… and {len(pairs) - limit} more pairs: see the table.")

    # tables: the leaderboard first, then every test
    lp = _path(a, "leaderboard.json", required=False)
    if lp is not None:
        board = _leaderboard(lp)
        a.data["leaderboard"] = board["json"]
        a.tables.append(_table(f"t{a.index}-leaderboard", "Leaderboard", _e(board["note"]),
                               board["headers"], board["rows"]))
    dec = max(4, _decimals([*comp["mean_a"], *comp["mean_b"], *comp["diff"]], 4, 8))
    level = None
    if "level" in fields:
        try:
            level = float(fields["level"])
        except ValueError:
            level = None
    level = level if level is not None else round(1 - alpha, 12)
    # the deciding columns (p adj., significant) before the details (effect size, test, raw p)
    has_ci = {"ci_low", "ci_high"} <= set(comp.columns)
    headers = ["dataset", "metric", "system A", "system B", "mean A", "mean B", "diff (A−B)"]
    headers += [f"{format_level(level)} CI"] if has_ci else []
    headers += ["p adj.", "significant"]
    headers += ["effect size"] if "effect_size" in comp else []
    headers += ["test"] if "test" in comp else []
    headers += ["p"] if "pvalue" in comp else []
    rows = []
    for (_, r), s in zip(shown_tests.iterrows(), sig, strict=False):
        row = [_text(r["dataset"]), _text(r["metric"]), _text(r["system_a"]),
               _text(r["system_b"]), _num(r["mean_a"], dec), _num(r["mean_b"], dec),
               _num(r["diff"], dec)]
        if has_ci:
            # the two bounds may stack (after the comma) when the table is tight
            row.append(_Cell(_e(f"[{_fixed(r['ci_low'], dec)}, {_fixed(r['ci_high'], dec)}]"),
                             float(r["ci_low"]), True, stack=True))
        row += [_pcell(r["pvalue_adjusted"]), _Cell("<strong>yes</strong>" if s else "no")]
        if "effect_size" in comp:
            note = ", ".join(str(r[c]).replace("_", " ") for c in
                             ("effect_size_name", "effect_label") if c in r and pd.notna(r[c]))
            shown = _e(_fixed(r["effect_size"], 2))
            shown += f'<span class="note">{_e(note)}</span>' if note else ""
            row.append(_Cell(shown, float(r["effect_size"]), True))
        if "test" in comp:
            from .tables import test_label  # "paired-t (30 clusters)" for clustered rows

            row.append(_text(test_label(r["test"], r.get("n_clusters"))))
        if "pvalue" in comp:
            row.append(_pcell(r["pvalue"]))
        rows.append(row)
    caption = (f"Every test: diff = mean A − mean B with its {format_level(level)} confidence "
               f"interval (unadjusted); p adj. after {_e(corr)}; significant at "
               f"α = {_alpha(alpha)}.")
    if len(comp) > TABLE_MAX_ROWS:
        caption += (f" Showing the first {TABLE_MAX_ROWS:,} of {len(comp):,} tests (here and "
                    "in the embedded JSON); every test is in comparison.csv and "
                    "comparison.json.")
    a.tables.append(_table(f"t{a.index}-comparison", "All pairwise tests", caption,
                           headers, rows))
    a.data["slugs"] = {_slug(d) + "-" + _slug(m_): f"{d} · {m_}" for d, m_ in groups}


def _slug(text: str) -> str:
    """The file-name form of a dataset or metric name (as the figures' names use it)."""
    return re.sub(r"[^A-Za-z0-9@.+=-]+", "_", text).strip("_") or "x"


def _leaderboard(path: Path) -> dict[str, Any]:
    """leaderboard.json (:func:`ranger_eval.report.tables.leaderboard_dict`) as table cells
    (bold best, superscript letters, the interval under the mean where the column is narrow)
    and the JSON the page embeds."""
    board = _read_json_object(path)
    headers = ["letter", "system", *map(str, _get(board, "headers", path, list))]
    extras = [str(h) for h in board.get("extras") or []]
    caption = str(board.get("caption") or "")
    note = " ".join(t for t in (caption, str(board.get("note") or "")) if t)
    rows, js = [], []
    for r in _get(board, "rows", path, list):
        cells = _get(r, "cells", path, list, "rows[].")
        row = [_text(r.get("letter", "")), _text(r.get("system", ""))]
        values: list[dict[str, Any]] = []
        for c in cells:
            v = math.nan if c.get("mean") is None else float(c["mean"])
            num, beats = str(c.get("text", "–")), str(c.get("beats") or "")
            shown = f"<strong>{_e(num)}</strong>" if c.get("best") else _e(num)
            if beats:
                shown += f"<sup>{_e(beats)}</sup>"
            shown = f'<span class="mean">{shown}</span>'
            entry: dict[str, Any] = {"mean": jsonable(v), "best": bool(c.get("best")),
                                     "beats": beats}
            if c.get("ci"):  # the mean's confidence interval, "lo, hi"
                shown += f' <span class="ci">[{_e(c["ci"])}]</span>'
                entry["ci"] = str(c["ci"])
            row.append(_Cell(shown, v, True, stack=True))
            for h in extras:  # the mean's se, n or clusters column
                key = _BOARD_EXTRAS[h]
                x = c.get(key)
                text = str(c.get("se_text", "–")) if key == "se" else (
                    "–" if x is None else str(x))
                entry[key] = jsonable(math.nan if x is None else x) if key == "se" else x
                row.append(_Cell(_e(text), math.nan if x is None else float(x), True))
            values.append(entry)
        rows.append(row)
        js.append({"letter": str(r.get("letter", "")), "system": str(r.get("system", "")),
                   "cells": values})
    return {"headers": headers, "rows": rows, "note": note,
            "json": {"columns": [h for h in headers[2:] if h not in _BOARD_EXTRAS],
                     "rows": js, "note": note}}


#: the leaderboard's columns after each mean (report.tables) and their JSON keys
_BOARD_EXTRAS = {"se": "se", "n": "n", "clusters": "n_clusters"}


# --------------------------------------------------------------------------- ranking
def _rank(a: _Analysis) -> None:
    path = _path(a, "ranking.json")
    assert path is not None
    payload = _read_json_object(path)
    rt = _get(payload, "rank_test", path, dict)
    ranking = payload.get("ranking")
    if ranking is not None and not isinstance(ranking, dict):
        raise ReportError(f"{path}: \"ranking\" must be an object or null")
    a.data["ranking"] = payload
    w = "rank_test."
    avg = _get(rt, "average_ranks", path, dict, w)
    if not avg:
        raise ReportError(f"{path}: rank_test.average_ranks is empty")
    avg = {str(k): float(v) for k, v in avg.items()}
    alpha = round(1.0 - _float(rt, "level", path, w), 12)
    posthoc = _POSTHOC.get(str(rt.get("posthoc")), str(rt.get("posthoc")))
    cd = rt.get("critical_difference")
    pairwise = rt.get("pairwise") or []
    cliques = [list(map(str, c)) for c in rt.get("cliques") or []]
    n_data = int(_float(rt, "n_datasets", path, w))

    if ranking is not None:
        _ranking_sentences(a, ranking, path)
    bradley_terry = payload.get("bradley_terry")
    # Demšar's rank test
    best = min(avg.values())
    top = [s for s, v in avg.items() if v == best]
    order = sorted(avg, key=lambda s: avg[s])
    bayes = rt.get("approach") == "bayesian"  # rank_test(approach="bayesian"): its verdicts
    if bayes:
        _bayes_rank_sentences(a, rt)
    elif len(avg) == 2 and rt.get("wilcoxon"):
        wx, sg = rt["wilcoxon"], rt.get("sign_test") or {}
        x, y = order
        text = (f"{x} ranks ahead of {y} on average over {_plural(n_data, 'dataset')} "
                f"(average ranks {avg[x]:.2f} and {avg[y]:.2f}); Wilcoxon signed-rank "
                f"{_p(float(wx.get('pvalue') or math.nan))}")
        if sg:
            text += (f", sign test {sg.get('a')} {sg.get('wins')} wins, {sg.get('losses')} "
                     f"losses, {sg.get('ties')} ties, {_p(float(sg.get('pvalue') or math.nan))}")
        a.sentences.append(text + f" (α = {_alpha(alpha)}).")
    else:
        same: set[str] = set()
        tested = False
        for pw in pairwise:
            if not isinstance(pw, dict):
                continue
            x, y = str(pw.get("a")), str(pw.get("b"))
            if top[0] in (x, y):
                tested = True
                if not pw.get("significant"):
                    same.add(y if x == top[0] else x)
        if not tested:
            same = {s for c in cliques if top[0] in c for s in c}
        same -= set(top)
        how = posthoc + (f", CD = {float(cd):.2f}" if isinstance(cd, (int, float)) else "")
        lead = "By average rank over the datasets (Demšar), " if ranking is not None else ""
        lead += (f"{top[0]} ranks first" if len(top) == 1
                 else f"{_names(top)} share the first place")
        lead += f" (average rank {best:.2f})"
        others = [s for s in order if s not in top]
        if same:
            lead += (f" but {'is' if len(top) == 1 else 'are'} not significantly different "
                     f"from {_names([s for s in order if s in same])} ({how}).")
        elif others and (tested or cliques):
            lead += (f" and {'is' if len(top) == 1 else 'are'} significantly better than "
                     f"{'the other system' if len(others) == 1 else f'all {len(others)} others'}"
                     f" ({how}).")
        else:
            lead += "."
        a.sentences.append(lead)
    stat, p = rt.get("statistic"), rt.get("pvalue")
    if isinstance(stat, (int, float)) and isinstance(p, (int, float)) and len(avg) > 2:
        text = (f"Friedman test over {_plural(n_data, 'dataset')} and {len(avg)} systems: "
                f"χ²_F{_ties(rt)} = {float(stat):.2f}, {_p(float(p))}")
        if rt.get("test") == "skillings-mack":  # missing cells (issue 21 §4)
            text = (f"{_skillings_mack(rt)} over {_plural(n_data, 'dataset')} and {len(avg)} "
                    f"systems: T = {float(stat):.2f}, {_p(float(p))}")
        decide = float(p)
        f_, fp, df = rt.get("iman_davenport"), rt.get("iman_davenport_pvalue"), \
            rt.get("iman_davenport_df")
        if isinstance(fp, (int, float)):
            dfs = f"({df[0]:g}, {df[1]:g})" if isinstance(df, list) and len(df) == 2 else ""
            ftext = _fixed(float(f_), 2) if isinstance(f_, (int, float)) else "∞"
            text += f"; Iman–Davenport F_F{dfs} = {ftext}, {_p(float(fp))}"
            decide = float(fp)
        text += (": the average ranks differ significantly" if decide < alpha
                 else ": no significant difference between the average ranks")
        a.sentences.append(text + f" (α = {_alpha(alpha)}).")
    # where the ranking's pairwise tests and the rank test differ, why both hold (written by
    # the pipeline from both results: ranger_eval.aggregate.agreement)
    a.sentences += [str(s) for s in payload.get("disagreements") or [] if isinstance(s, str)]
    naive = payload.get("naive_means")
    if ranking is None and isinstance(naive, dict) and naive:
        hib = rt.get("higher_is_better", True) is not False
        pick = (max if hib else min)(naive, key=lambda s: float(naive[s]))
        a.sentences.append(
            f"The plain mean over datasets would rank {pick} first"
            + (" too." if pick == order[0] else
               " instead (the mean of values on different datasets has no statistical "
               "meaning; the average rank does not depend on their scales).")
        )

    # tables
    if ranking is not None:
        rp = _path(a, "ranking.csv", required=False)
        if rp is not None:
            a.tables.append(_ranking_table(a, rp, str(ranking.get("mean_kind", "mean"))))
        pw = ranking.get("pairwise") or []
        if pw:
            rows = [[_text(r.get("a")), _text(r.get("b")), _num(r.get("diff"), 4),
                     _num(r.get("effect_size"), 3), _pcell(r.get("pvalue_adjusted")),
                     _Cell("<strong>yes</strong>" if r.get("significant") else "no"),
                     _text(r.get("test", ""))] for r in pw if isinstance(r, dict)]
            r_alpha = round(1.0 - float(ranking.get("level", 1.0 - alpha)), 12)
            caption = (f"Pairwise comparisons of the ranking ({_e(ranking.get('comparisons'))}"
                       f"; {_e(_correction(str(ranking.get('correction', ''))))}, "
                       f"α = {_alpha(r_alpha)}).")
            a.tables.append(_table(f"t{a.index}-ranking-pairs", "Ranking: pairwise comparisons",
                                   caption, ["system A", "system B", "diff", "effect size",
                                             "p adj.", "significant", "test"], rows))
    if bayes:
        a.tables.extend(_bayes_rank_tables(a, rt, avg))
    else:
        a.tables.append(_rank_test_table(a, avg, order, cliques, rt, naive if ranking is None
                                         else None, posthoc, cd))
    if pairwise and not bayes:
        rows = [[_text(r.get("a")), _text(r.get("b")), _num(r.get("statistic"), 3),
                 _pcell(r.get("pvalue")), _pcell(r.get("pvalue_adjusted")),
                 _Cell("<strong>yes</strong>" if r.get("significant") else "no")]
                for r in pairwise if isinstance(r, dict)]
        a.tables.append(_table(f"t{a.index}-ranktest-pairs", "Rank test: pairwise post-hoc tests",
                               f"{_e(posthoc)} post-hoc tests of the average ranks "
                               f"(α = {_alpha(alpha)}).",
                               ["system A", "system B", "statistic", "p", "p adj.",
                                "significant"], rows))
    if isinstance(bradley_terry, dict) and "skipped" in bradley_terry:
        a.sentences.append(f"No Bradley–Terry leaderboard: {bradley_terry['skipped']}")
    elif isinstance(bradley_terry, dict):
        _bradley_terry_reading(a, bradley_terry, path, "ranking.json: bradley_terry.",
                               "Bradley–Terry leaderboard")
    win = payload.get("win_rate")
    if isinstance(win, dict):
        _win_rate_reading(a, win, path)


def _win_rate_reading(a: _Analysis, result: Mapping[str, Any], path: Path) -> None:
    """HELM's mean win rates in words and as a table (``WinRate.to_dict`` as ranking.json's
    ``win_rate``): the leader as "A beats 83 % of the other systems on average over 12 datasets
    (95 % interval 71–92 %)", the bootstrap, the systems whose win rate lies outside its
    interval; every number read, none computed."""
    from .ranking import win_rate_sentence

    where = "ranking.json: win_rate."
    rows = _get(result, "systems", path, list, where)
    if not rows or not all(isinstance(r, dict) for r in rows):
        raise ReportError(f"{path}: {where}systems is empty or not a list of rows")
    level = _float(result, "level", path, where)

    def share(r: Mapping[str, Any], key: str) -> float:
        v = r.get(key)
        return float(v) if isinstance(v, (int, float)) else math.nan

    best = share(rows[0], "win_rate")
    tops = [str(r.get("system")) for r in rows if share(r, "win_rate") == best]
    a.sentences.append(
        "By HELM's mean win rate (on each dataset the share of the other systems beaten, a tie "
        "counting half), " + win_rate_sentence(_names(tops), best, share(rows[0], "ci_low"),
                                             share(rows[0], "ci_high"), level,
                                             int(rows[0].get("n_datasets") or 0),
                                             share=len(tops) > 1) + ".")
    n_boot = int(_float(result, "n_bootstrap", path, where))
    if n_boot:
        resample = str(result.get("resample") or "datasets")
        unit = resample.partition("+")[2]
        units = f"whole clusters ({unit[len('cluster('):-1]})" if unit.startswith("cluster(") \
            else unit
        what = f"datasets and the {units} within them" if unit else "datasets"
        a.sentences.append(f"Win-rate intervals: percentile bootstrap over {what} "
                           f"({n_boot:,} resamples, seed {result.get('seed')}).")
    outside = [str(s) for s in result.get("outside") or []]
    if outside and str(result.get("resample") or "").startswith("datasets+"):
        drawn = str(result.get("resample")).partition("+")[2]
        drawn = "clusters" if drawn.startswith("cluster(") else drawn
        a.sentences.append(
            f"The win rate of {_names(outside)} lies outside its interval: resampling the "
            f"{drawn} moves each dataset's win toward a tie (few {drawn} per dataset), so the "
            f"interval is the win rate expected when the {drawn} are drawn again.")
    table = []
    for r in rows:
        lo, hi = share(r, "ci_low"), share(r, "ci_high")
        ci = f"{_fixed(lo, 3)}–{_fixed(hi, 3)}" if lo == lo and hi == hi else "–"
        table.append([_text(r.get("system")), _num(r.get("win_rate"), 3),
                      _Cell(_e(ci), r.get("ci_low"), True), _num(r.get("n_datasets"), 0)])
    skipped = int(result.get("n_skipped") or 0)
    caption = (f"Mean win rate (HELM), best first, with its {format_level(level)} percentile "
               "bootstrap interval and the datasets where the system has a score"
               + (f"; {skipped} dataset(s) with fewer than two scores skipped" if skipped
                  else "") + ".")
    a.tables.append(_table(f"t{a.index}-win-rate", "Mean win rates (HELM)", _e(caption),
                           ["system", "win rate", "interval", "datasets"], table))


def _bayes_rank_sentences(a: _Analysis, rt: Mapping[str, Any]) -> None:
    """The Bayesian rank test in words: what was done, then every pair's verdict (the
    sentences the result wrote into ranking.json)."""
    n_data = int(rt.get("n_datasets") or 0)
    rope = float(rt.get("rope") or 0.0)
    scale = {"sd": " × the pooled SD of each pair", "mad": " × the pooled MAD·1.4826 of each "
             "pair"}.get(str(rt.get("rope_scale")), " in the metric's units")
    a.sentences.append(
        f"Bayesian signed-rank test of every pair over {_plural(n_data, 'dataset')} "
        f"(autorank's decisions at probability {float(rt.get('level') or 0.95):g}; ROPE "
        f"±{rope:g}{scale}; {int(rt.get('n_samples') or 0):,} posterior draws, seed "
        f"{rt.get('seed')}):")
    for pw in rt.get("pairwise") or []:
        if isinstance(pw, dict) and pw.get("verdict"):
            a.sentences.append(str(pw["verdict"]) + ".")


def _bayes_rank_tables(a: _Analysis, rt: Mapping[str, Any],
                       avg: Mapping[str, float]) -> list[str]:
    """The systems (central tendency, spread, average rank) and the pairs (posterior
    probabilities, ROPE, decision) of a Bayesian rank test."""
    kind = str(rt.get("central_kind", "mean"))
    central, spread = rt.get("central") or {}, rt.get("spread") or {}
    rows = [[_num(i + 1, 0), _text(s), _num(central.get(s), 4), _num(spread.get(s), 4),
             _num(avg.get(s), 3)] for i, s in enumerate(rt.get("systems") or [])]
    systems = _table(f"t{a.index}-ranktest", "Bayesian rank test (autorank)",
                     _e(f"Systems ordered by their {kind}; average ranks over "
                        f"{int(rt.get('n_datasets') or 0)} datasets (1 = best)."),
                     ["position", "system", kind, "SD" if kind == "mean" else "MAD",
                      "average rank"], rows)
    pairs = [[_text(r.get("a")), _text(r.get("b")), _num(r.get("rope"), 4),
              _num(r.get("p_a_better"), 3), _num(r.get("p_rope"), 3),
              _num(r.get("p_b_better"), 3), _text(r.get("decision"))]
             for r in rt.get("pairwise") or [] if isinstance(r, dict)]
    table = _table(f"t{a.index}-ranktest-pairs", "Bayesian rank test: every pair",
                   _e("Posterior probabilities of the Bayesian signed-rank test: A better by "
                      "more than the ROPE, practically equivalent, B better; the decision of A "
                      "against B."),
                   ["system A", "system B", "ROPE ±", "P(A better)", "P(rope)", "P(B better)",
                    "decision"], pairs)
    return [systems, table]


def _ranking_sentences(a: _Analysis, ranking: Mapping[str, Any], path: Path) -> None:
    order = [str(s) for s in _get(ranking, "order", path, list, "ranking.")]
    if not order:
        raise ReportError(f"{path}: ranking.order is empty")
    means = ranking.get("means") or {}
    kind = str(ranking.get("mean_kind", "mean"))
    top = order[0]
    pw = [r for r in ranking.get("pairwise") or [] if isinstance(r, dict)]
    n_sig = sum(1 for r in pw if r.get("significant"))
    datasets, metrics = ranking.get("datasets") or [], ranking.get("metrics") or []
    corr = _correction(str(ranking.get("correction", "")))
    alpha = round(1.0 - float(ranking.get("level", 0.95)), 12)
    value = f" ({_fixed(float(means[top]), 3)})" if top in means else ""
    text = (f"{top} ranks first by {kind}{value} over "
            f"{_plural(len(datasets), 'dataset')} × {_plural(len(metrics), 'metric')}; "
            f"{n_sig} of {_plural(len(pw), 'pairwise comparison')} "
            f"(comparisons: {ranking.get('comparisons', '')}; {corr}, α = {_alpha(float(alpha))}) "
            f"{'is' if n_sig == 1 and len(pw) == 1 else 'are'} significant.")
    a.sentences.append(text)
    ahead = [str(r["b"] if r.get("a") == top else r["a"]) for r in pw
             if top in (r.get("a"), r.get("b")) and r.get("significant")]
    level_with = [str(r["b"] if r.get("a") == top else r["a"]) for r in pw
                  if top in (r.get("a"), r.get("b")) and not r.get("significant")]
    rank_of = {s: i for i, s in enumerate(order)}
    parts = []
    if ahead:
        parts.append(f"significantly ahead of {_names(sorted(ahead, key=lambda s: rank_of.get(s, len(order))))}")
    if level_with:
        parts.append(f"not significantly different from "
                     f"{_names(sorted(level_with, key=lambda s: rank_of.get(s, len(order))))}")
    if parts:
        a.sentences.append(f"{top} is " + "; ".join(parts) + ".")
    rp = a.files.get("ranking.csv")
    if rp is not None and rp.is_file():
        frame = _read_csv(rp)
        if {"system", "naive_rank"} <= set(frame.columns):
            first = [str(s) for s, r in zip(frame["system"], frame["naive_rank"], strict=True)
                     if r == 1]
            if first and first[0] != top:
                a.sentences.append(
                    f"Averaging the raw metric means (the naive mean) would rank {first[0]} first "
                    "instead: a number that mixes the scales of different metrics and datasets.")
            elif first:
                a.sentences.append("The naive mean of the raw metric means agrees on the first "
                                   "place.")
    tau = ranking.get("topsis_kendall_tau")
    if isinstance(tau, (int, float)) and math.isfinite(tau):
        a.sentences.append(f"TOPSIS over the dataset × metric means agrees with the ranking with "
                           f"Kendall's τ = {_fixed(float(tau), 2)}.")


def _ranking_table(a: _Analysis, path: Path, kind: str) -> str:
    frame = _read_csv(path, ["rank", "system"])
    names = {"rank": "rank", "system": "system", "aggregate_mean": kind, "groups": "groups",
             "naive_mean": "naive mean", "naive_rank": "naive rank", "topsis": "TOPSIS"}
    cols = [c for c in frame.columns if c in names] + [c for c in frame.columns
                                                       if c not in names]
    rows = []
    for _, r in frame.iterrows():
        row = []
        for c in cols:
            v = r[c]
            if c in ("rank", "naive_rank"):
                row.append(_num(v, 0))
            elif c == "groups":
                row.append(_text("–" if pd.isna(v) or v == "" else v))
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                row.append(_num(v, 3 if c == "topsis" else 4))
            else:
                row.append(_text(v))
        rows.append(row)
    caption = ("Systems ranked by their aggregate over datasets and metrics. Groups: systems "
               "sharing a number are not significantly different. Naive: mean of the per-dataset "
               "metric means (for comparison only). TOPSIS: closeness over the dataset × metric "
               "means.")
    return _table(f"t{a.index}-ranking", "Ranking", caption,
                  [names.get(c, c) for c in cols], rows)


def _skillings_mack(rt: Mapping[str, Any]) -> str:
    """"Skillings–Mack test (3 of 60 cells missing, …)" from the rank JSON (missing cells)."""
    dropped = rt.get("dropped_datasets") or []
    extra = (f"; {_plural(len(dropped), 'dataset')} with fewer than two results dropped"
             if dropped else "")
    return (f"Skillings–Mack test{_ties(rt)} ({rt.get('n_missing')} of {rt.get('n_cells')} "
            f"cells missing{extra}; no single critical difference)")


def _ties(rt: Mapping[str, Any]) -> str:
    """Which Friedman statistic the rank test reports (its JSON's ``tie_correction``)."""
    flag = rt.get("tie_correction")
    if flag is None:
        return ""
    return " (tie-corrected)" if flag else " (Demšar, no tie correction)"


def _rank_test_table(a: _Analysis, avg: Mapping[str, float], order: Sequence[str],
                     cliques: Sequence[Sequence[str]], rt: Mapping[str, Any],
                     naive: Mapping[str, Any] | None, posthoc: str, cd: Any) -> str:
    positions: dict[str, float] = {}
    for name in ("ranktest.csv", "ranking.csv"):
        p = a.files.get(name)
        if p is not None and p.is_file():
            frame = _read_csv(p)
            if {"system", "rank", "average_rank"} <= set(frame.columns):
                positions = {str(s): float(r) for s, r in
                             zip(frame["system"], frame["rank"], strict=True)}
                break
    headers = ["rank", "system", "average rank", "groups"]
    headers += ["naive mean"] if naive else []
    rows = []
    for i, s in enumerate(order):
        groups = ",".join(str(j + 1) for j, c in enumerate(cliques) if s in c) or "–"
        row = [_num(positions.get(s, i + 1), 0), _text(s), _num(avg[s], 3), _text(groups)]
        if naive:
            row.append(_num(naive.get(s), 4))
        rows.append(row)
    stat, p = rt.get("statistic"), rt.get("pvalue")
    caption = (f"Average ranks over {int(rt.get('n_datasets', 0))} datasets (1 = best)")
    if isinstance(stat, (int, float)) and isinstance(p, (int, float)):
        caption += (f"; {_skillings_mack(rt)}: T = {float(stat):.3f}, {_p(float(p))}"
                    if rt.get("test") == "skillings-mack" else
                    f"; Friedman χ²_F{_ties(rt)} = {float(stat):.3f}, {_p(float(p))}")
    if isinstance(cd, (int, float)):
        caption += f"; CD = {float(cd):.3f} ({posthoc})"
    caption += ". Groups: systems sharing a number are not significantly different."
    return _table(f"t{a.index}-ranktest", "Rank test (Friedman, Demšar)", _e(caption),
                  headers, rows)


# --------------------------------------------------------------------------- verdicts
def _result_json(a: _Analysis, name: str) -> dict[str, Any]:
    path = _path(a, name)
    assert path is not None
    result = _get(_read_json_object(path), "result", path, dict)
    if not _get(result, "groups", path, list, "result."):
        raise ReportError(f"{path}: result.groups is empty")
    a.data[name.removesuffix(".json")] = result
    from .verdicts import figure_names

    a.data["slugs"] = figure_names(result, a.kind)  # figure headings (not in the JSON)
    return result


def _aso(a: _Analysis) -> None:
    """``ranger-eval aso``: every verdict in words and each ε_min matrix (from aso.json)."""
    from ..verdicts.aso import format_epsilon
    from .verdicts import aso_group_lines

    result = _result_json(a, "aso.json")
    path = a.files["aso.json"]
    level = _float(result, "level", path, "result.")
    threshold = _float(result, "threshold", path, "result.")
    correction = str(result.get("correction", ""))
    several = len(result["groups"]) > 1
    for i, g in enumerate(result["groups"]):
        where = f"result.groups[{i}]."
        names = [str(n) for n in _get(g, "systems", path, list, where)]
        eps = _get(g, "epsilon_min", path, list, where)
        n_scores = _get(g, "n_scores", path, dict, where)
        how, verdicts = aso_group_lines(g, base_level=level, correction=correction,
                                        threshold=threshold)
        head = f"{g.get('dataset')} · {g.get('metric')}: " if several else ""
        a.sentences.append(f"{head}ε_min of each system over each other, {how}; a system "
                           f"almost stochastically dominates another when ε_min < τ = "
                           f"{threshold:g}.")
        a.bullets += [f"{head}{v}" for v in verdicts]
        rows = [[_text(f"{n} ({n_scores.get(n, '?')} runs)"),
                 *(_text("–") if i2 == j else _Cell(_e(format_epsilon(eps[i2][j], threshold, 3)),
                                                    float(eps[i2][j]), True)
                   for j in range(len(names)))]
                for i2, n in enumerate(names)]
        a.tables.append(_table(
            f"t{a.index}-aso-{i}", f"ε_min: {g.get('dataset')} · {g.get('metric')}",
            _e(f"ε_min of the row over the column; {how}."), ["system", *names], rows))
    skipped = result.get("skipped") or []
    if skipped:
        a.sentences.append(f"Left out (fewer than two systems): {'; '.join(map(str, skipped))}.")


def _bayes(a: _Analysis) -> None:
    """``ranger-eval bayes``: every verdict in words and the posterior probabilities."""
    from .verdicts import BAYES_TITLES, bayes_group_lines, bayes_headers

    result = _result_json(a, "bayes.json")
    path = a.files["bayes.json"]
    rope = _float(result, "rope", path, "result.")
    level = _float(result, "level", path, "result.")
    test = str(result.get("test", "correlated-t"))
    if test not in BAYES_TITLES:
        raise ReportError(f"{path}: unknown test {test!r}")
    what = ("of the cross-validation folds (Corani & Benavoli 2015)" if test == "correlated-t"
            else f"across datasets ({_fixed(float(result.get('n_samples') or 0), 0)} posterior "
                 f"draws, seed {result.get('seed')}, prior {result.get('prior')})")
    a.sentences.append(f"{BAYES_TITLES[test]} {what}, "
                       + (f"ROPE ±{rope:g}" if rope > 0 else "no ROPE")
                       + f"; a verdict needs a posterior probability of at least {level:g}.")
    several = len(result["groups"]) > 1
    rows = []
    for i, g in enumerate(result["groups"]):
        head = f"{g.get('dataset')} · {g.get('metric')}: " if several else ""
        a.bullets += [f"{head}{v}" for v in bayes_group_lines(g)]
        for p in _get(g, "pairs", path, list, f"result.groups[{i}]."):
            probs = [_num(p.get("p_left"), 3), _num(p.get("p_rope"), 3), _num(p.get("p_right"), 3)]
            if test == "correlated-t":
                runs = max(int(p.get("runs") or 1), 1)
                cells = [_num(p.get("mean"), 4), _num(p.get("scale"), 4), _num(p.get("df"), 0),
                         *probs, _text(f"{int(p.get('n', 0)) // runs} × {runs}")]
            else:
                mc = p.get("mc_se") or [math.nan]
                cells = [_num(p.get("n"), 0), *probs, _num(max(mc), 5)]
            rows.append([_text(g.get("dataset")), _text(g.get("metric")), _text(p.get("a")),
                         _text(p.get("b")), *cells])
    a.tables.append(_table(f"t{a.index}-bayes", "Posterior probabilities",
                           _e("The posterior probabilities that A is better, that the "
                              "difference is within the ROPE, that B is better."),
                           ["dataset", "metric", "A", "B", *bayes_headers(test)], rows))


# --------------------------------------------------------------------------- arena
def _arena(a: _Analysis) -> None:
    """``ranger-eval arena``: the leaderboard with its intervals and the verdicts in words
    (from arena.json)."""
    path = _path(a, "arena.json")
    assert path is not None
    result = _get(_read_json_object(path), "result", path, dict)
    a.data["arena"] = result
    _bradley_terry_reading(a, result, path, "result.", "Leaderboard")


def _bradley_terry_reading(a: _Analysis, result: Mapping[str, Any], path: Path, where: str,
                           title: str) -> None:
    """Sentences and the leaderboard table of a Bradley–Terry result (``Ratings.to_dict`` as
    JSON: arena.json's result, ranking.json's bradley_terry); every number read, none
    computed."""
    from .arena import leaderboard_sentences

    board = _get(result, "leaderboard", path, list, where)
    if not board or not all(isinstance(r, dict) for r in board):
        raise ReportError(f"{path}: {where}leaderboard is empty or not a list of rows")
    level = _float(result, "level", path, where)
    n_boot = int(_float(result, "n_bootstrap", path, where))
    source = str(result.get("source", "table"))
    made = {"scores(items)": " made from per-item scores (every item a battle between every "
                             "pair of systems, won by the better score, equal scores a tie)",
            "scores(datasets)": " made from a dataset-level table (every dataset a battle "
                                "between every pair of systems)"}.get(source, "")
    ties = ("ties count half a win for each model" if result.get("ties") == "half"
            else "ties by Davidson's model")
    a.sentences.append(
        f"Bradley–Terry maximum-likelihood ratings of {_plural(len(board), 'model')} from "
        f"{int(_float(result, 'n_battles', path, where)):,} battles{made}; {ties}; "
        + (f"{format_level(level)} percentile intervals from {n_boot:,} bootstrap rounds"
           + ({"items": " over items (every battle of an item drawn together)",
               "datasets": " over datasets (every battle of a dataset drawn together)"}
              .get(str(result.get("resample")), ""))
           + f" (seed {result.get('seed')})." if n_boot else "no bootstrap (no intervals).")
        + f" Ratings and their intervals are {_reference(result)}; the rank intervals and win "
        "probabilities do not depend on that choice.")
    failed = result.get("n_bootstrap_failed")
    if isinstance(failed, int) and failed:
        a.sentences.append(f"{failed} bootstrap rounds had no finite ratings and were left "
                           "out.")
    a.sentences += leaderboard_sentences(board, level)
    rows = []
    for r in board:
        lo, hi = r.get("ci_low"), r.get("ci_high")
        ci = (f"[{_fixed(float(lo), 1)}, {_fixed(float(hi), 1)}]"
              if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) else "–")
        rl, rh = r.get("rank_low"), r.get("rank_high")
        ranks = ("–" if not isinstance(rl, (int, float)) or not isinstance(rh, (int, float))
                 else f"{int(rl)}" if rl == rh else f"{int(rl)}–{int(rh)}")
        rows.append([_text(r.get("model")), _num(r.get("rating"), 1), _Cell(_e(ci), lo, True),
                     _num(r.get("se"), 1), _Cell(_e(ranks), rl, True),
                     _num(r.get("n_battles"), 0)])
    reference = _reference(result)
    caption = (f"Ratings on the Elo scale (scale {_float(result, 'scale', path, where):g}, "
               f"base {_float(result, 'base', path, where):g}), best first; ratings, se and CI "
               f"{reference}; CI: {format_level(level)} bootstrap percentile interval; se: "
               f"sandwich standard error; rank: {format_level(level)} rank interval, "
               "simultaneous, from the models' ranks in every bootstrap round (Mandel & "
               "Betensky's percentile bootstrap), which like the win probabilities does not "
               "depend on the anchor or the mean rating.")
    anchor = result.get("anchor")
    ci_head = (f"CI (vs {anchor[0]})" if isinstance(anchor, list) and anchor
               else "CI (vs mean)")
    a.tables.append(_table(f"t{a.index}-bradley-terry", title, _e(caption),
                           ["model", "rating", ci_head, "se", "rank", "battles"], rows))


def _reference(result: Mapping[str, Any]) -> str:
    """What a Bradley–Terry result's ratings and intervals are relative to: the JSON's
    ``reference_text`` (results written before it existed: from ``anchor``/``init_rating``)."""
    text = result.get("reference_text")
    if isinstance(text, str) and text:
        return text
    anchor = result.get("anchor")
    if isinstance(anchor, list) and len(anchor) == 2:
        return f"relative to the anchor {anchor[0]} (fixed at {float(anchor[1]):g})"
    init = result.get("init_rating")
    rated = f" (rated {float(init):g})" if isinstance(init, (int, float)) else ""
    return f"relative to the mean of all models{rated}"


# --------------------------------------------------------------------------- figures
_FIGURE_ORDER = ("forest", "cd", "heatmap", "graph", "pvalues", "boxplots",
                 "bradley_terry_ratings", "arena_ratings", "arena_win_probability")
_CAPTIONS = {
    "forest": "Forest plot: the effect on each dataset with its confidence interval (square "
              "area ∝ weight), the summary effect (diamond) and the prediction interval.",
    "cd": "Critical-difference diagram: average ranks (1 = best); systems joined by a thick "
          "bar are not significantly different.",
    "heatmap": "Significance heatmap: one row per pair A vs B, one column per dataset × metric; "
               "blue: A significantly higher, red: B significantly higher, grey: not "
               "significant. Cells show A − B and the adjusted p-value.",
    "graph": "Connected graph: each system at the height of its mean; an edge joins two systems "
             "whose difference is not significant after correction (thicker: larger adjusted p).",
    "pvalues": "Pairwise p-value plot: the adjusted p-value of every pair on each system's row "
               "(systems sorted by mean, best at the top); the dashed line marks α.",
    "boxplots": "Per-item values, bootstrap means and bootstrap ranks with simultaneous rank "
                "intervals (systems sorted by mean, best at the top).",
    "bradley_terry_ratings": "Bradley–Terry ratings with their bootstrap percentile intervals "
                             "(relative to the mean of all systems), best first; the rank "
                             "interval of each system at the right, from the bootstrap rounds' "
                             "ranks.",
    "arena_ratings": "Ratings with their bootstrap percentile intervals (relative to the mean of "
                     "all models, or to the anchor: the axis says which), best first; the rank "
                     "interval of each model at the right, from the bootstrap rounds' ranks "
                     "(independent of the anchor).",
    "arena_win_probability": "Fitted probability that the row model beats the column model "
                             "(blue above ½, red below), models ordered by rating.",
    "aso": "ε_min of the row system over the column system; blue: the row almost "
           "stochastically dominates the column (ε_min below the threshold τ).",
    "posterior": "Posterior of the mean difference (Student t, Nadeau–Bengio correction) with "
                 "the region of practical equivalence shaded.",
    "simplex": "baycomp's simplex: each posterior draw (θ of A better, of the ROPE, of B better) "
               "as a point of the triangle; a region holds the draws in which its outcome is "
               "the most probable.",
}
_RANK_GRAPH = ("Ranking graph: the systems split into groups that are pairwise not "
               "significantly different, each system at the height of its mean.")


@dataclass(frozen=True)
class _Fig:
    stem: str
    base: str
    suffix: str
    path: Path


_BAYES_CD = ("Decision diagram of the Bayesian rank test: average ranks (1 = best); black bars "
             "join practically equivalent systems, grey bars systems with no decided "
             "difference; systems not joined differ.")


def _is_bayes(a: _Analysis) -> bool:
    """Whether the rank folder's rank test is Bayesian (``rank --approach bayesian``)."""
    payload = a.data.get("ranking")
    rt = payload.get("rank_test") if isinstance(payload, dict) else None
    return isinstance(rt, dict) and rt.get("approach") == "bayesian"


def _figures(a: _Analysis) -> list[str]:
    """Inline figures: SVG when the stem has one, else PNG (or another image) as a data URI;
    PDFs are left out, and a figure identical to an earlier one (by SHA-256) is shown once."""
    by_stem: dict[str, Path] = {}
    for name, p in a.files.items():
        stem, dot, ext = name.rpartition(".")
        ext = "." + ext.lower()
        if not dot or (ext != ".svg" and ext not in _IMAGE_TYPES):
            continue
        if stem not in by_stem or ext == ".svg":
            by_stem[stem] = p
    slugs: Mapping[str, str] = a.data.get("slugs", {})
    seen: set[str] = set()
    figs: list[_Fig] = []
    for stem, p in by_stem.items():
        checked = _path(a, p.name)
        assert checked is not None
        digest = hashlib.sha256(checked.read_bytes()).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        base, _, suffix = stem.partition("-")
        figs.append(_Fig(stem, base, suffix, p))
    suffixes = list(dict.fromkeys(f.suffix for f in figs))
    figs.sort(key=lambda f: (suffixes.index(f.suffix) if f.suffix else -1,
                             _FIGURE_ORDER.index(f.base) if f.base in _FIGURE_ORDER else 99))
    named = [x for x in suffixes if x]
    left_out = len(named) - FIGURE_MAX_GROUPS
    if left_out > 0:  # a few MB: the first groups' figures, the others stay in the folder
        keep = set(named[:FIGURE_MAX_GROUPS])
        figs = [f for f in figs if not f.suffix or f.suffix in keep]
    out: list[str] = []
    current = None
    for i, f in enumerate(figs):
        if f.suffix and f.suffix != current:
            current = f.suffix
            out.append(f"<h3>{_e(slugs.get(f.suffix, f.suffix))}</h3>")
        caption = _RANK_GRAPH if (a.kind == "rank" and f.base == "graph") \
            else _BAYES_CD if (a.kind == "rank" and f.base == "cd" and _is_bayes(a)) \
            else _CAPTIONS.get(f.base, f.stem)
        scope = f"fig{a.index}-{i}"
        if f.path.suffix.lower() == ".svg":
            body = _inline_svg(f.path, scope, caption)
        else:
            body = _data_image(f.path, caption)
        out.append(f'<figure id="{scope}-figure">{body}<figcaption>{_e(caption)}'
                   "</figcaption></figure>")
    if left_out > 0:
        out.append(f'<p class="note">Showing the figures of the first {FIGURE_MAX_GROUPS} of '
                   f"{len(named)} dataset × metric groups; the other {left_out} are in the "
                   "folder (graph-, pvalues- and boxplots-DATASET-METRIC files).</p>")
    return out


_LENGTH = re.compile(r"^\s*([0-9.]+)\s*(px|pt|in|cm|mm)?\s*$")
_PX = {"px": 1.0, "pt": 4 / 3, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4}


def _attr(tag: str, name: str) -> str | None:
    m = re.search(rf'\s{re.escape(name)}\s*=\s*"([^"]*)"', tag)
    return m.group(1) if m else None


def _scope_css(css: str, scope: str) -> str:
    """Prefix every selector of ``css`` with ``#scope`` so the rules stay inside the figure."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    if re.search(r"@import|url\(\s*['\"]?(?!#)", css, flags=re.I):
        raise ReportError("an SVG <style> refers to an external resource")
    rules = []
    for m in re.finditer(r"([^{}@]+)\{([^{}]*)\}", css):
        selectors = [s.strip() for s in m.group(1).split(",") if s.strip()]
        scoped = ", ".join(f"#{scope}" if s in ("svg", ":root") else f"#{scope} {s}"
                           for s in selectors)
        rules.append(f"{scoped} {{{m.group(2).strip()}}}")
    return "\n".join(rules)


def _inline_svg(path: Path, scope: str, label: str) -> str:
    """The ``<svg>`` element of ``path``, ready to sit in an HTML page next to other figures.

    The XML prolog, DOCTYPE, comments, ``<metadata>`` and scripts go; every ``id`` gets the
    ``scope`` prefix (and so do the ``#id`` references); ``<style>`` rules are scoped to the
    figure; the size becomes responsive (``max-width`` = the figure's own width).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from None
    start, end = text.find("<svg"), text.rfind("</svg>")
    if start < 0 or end < start:
        raise ReportError(f"{path}: not an SVG file (no <svg>…</svg> element)")
    svg = text[start:end + len("</svg>")]
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    svg = re.sub(r"<metadata\b.*?</metadata>|<script\b.*?</script>", "", svg,
                 flags=re.S | re.I)
    ids = set(re.findall(r'\sid="([^"]+)"', svg))
    seen: dict[str, int] = {}

    def new_id(m: re.Match[str]) -> str:
        # an id that the file repeats (matplotlib gids used as labels) is numbered: ids stay
        # unique in the page; #references go to the first, as a browser resolves them
        n = seen[m.group(2)] = seen.get(m.group(2), 0) + 1
        return f'{m.group(1)}{scope}-{m.group(2)}{"" if n == 1 else f"-{n}"}{m.group(3)}'

    svg = re.sub(r'(\sid=")([^"]+)(")', new_id, svg)

    def ref(m: re.Match[str]) -> str:
        target = m.group(2)
        if target.startswith("#") and target[1:] in ids:
            return f'{m.group(1)}"#{scope}-{target[1:]}"'
        if target.startswith(("#", "data:")):
            return m.group(0)
        raise ReportError(f"{path}: refers to an external resource {target!r}")

    svg = re.sub(r'(\s(?:xlink:)?href=)"([^"]*)"', ref, svg)
    svg = re.sub(r"url\(\s*#([^)\s]+)\s*\)",
                 lambda m: f"url(#{scope}-{m.group(1)})" if m.group(1) in ids else m.group(0),
                 svg)
    if re.search(r"url\(\s*['\"]?(?!#)", svg):
        raise ReportError(f"{path}: refers to an external resource (url(…))")
    try:
        svg = re.sub(r"(<style\b[^>]*>)(.*?)(</style>)",
                     lambda m: m.group(1) + html.escape(_scope_css(html.unescape(m.group(2)),
                                                                   scope), quote=False)
                     + m.group(3), svg, flags=re.S)
    except ReportError as exc:
        raise ReportError(f"{path}: {exc}") from None
    open_tag = re.match(r"<svg\b[^>]*>", svg)
    assert open_tag is not None
    tag = open_tag.group(0)
    width, height, box = _attr(tag, "width"), _attr(tag, "height"), _attr(tag, "viewBox")
    style = "max-width:100%;height:auto"
    size = ""
    wm, hm = _LENGTH.match(width or ""), _LENGTH.match(height or "")
    if wm and hm:
        w_px = float(wm.group(1)) * _PX[wm.group(2) or "px"]
        h_px = float(hm.group(1)) * _PX[hm.group(2) or "px"]
        size = f' width="{w_px:.0f}" height="{h_px:.0f}"'
        style += f";aspect-ratio:{w_px:.2f}/{h_px:.2f}"
        if box is None:
            box = f"0 0 {float(wm.group(1)):g} {float(hm.group(1)):g}"
    else:
        style = "width:100%;height:auto"
    attrs = re.sub(r'\s(?:width|height|viewBox|id|class|role|style|xmlns(?::\w+)?)="[^"]*"',
                   "", tag[4:-1].rstrip("/"))
    new = (f'<svg id="{scope}" class="figure-svg" role="img" aria-label="{_e(label)}"'
           f'{" viewBox=" + chr(34) + box + chr(34) if box else ""}{size} style="{style}"'
           f"{attrs}>")
    return new + svg[len(tag):]


def _png_size(data: bytes) -> tuple[int, int, float] | None:
    """(width, height, dots per inch) of a PNG; dpi 96 when it does not say."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    w, h = struct.unpack(">II", data[16:24])
    dpi = 96.0
    i = data.find(b"pHYs", 0, 4096)
    if i > 0:
        x, _, unit = struct.unpack(">IIB", data[i + 4:i + 13])
        if unit == 1 and x > 0:
            dpi = x * 0.0254
    return w, h, dpi


def _data_image(path: Path, alt: str) -> str:
    data = path.read_bytes()
    mime = _IMAGE_TYPES[path.suffix.lower()]
    size = _png_size(data) if mime == "image/png" else None
    if mime == "image/png" and size is None:
        raise ReportError(f"{path}: not a PNG image")
    dims = ""
    if size is not None:
        w, h, dpi = size
        css_w, css_h = w * 96 / dpi, h * 96 / dpi
        dims = f' width="{css_w:.0f}" height="{css_h:.0f}"'
    b64 = base64.b64encode(data).decode("ascii")
    return f'<img src="data:{mime};base64,{b64}" alt="{_e(alt)}"{dims}>'


# --------------------------------------------------------------------------- the page
_CSS = """
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --rule: #d0d7de;
  --accent: #1f5fa8; --band: #f4f7fa; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; background: #fff; color: var(--ink);
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  "Noto Sans", "Liberation Sans", "DejaVu Sans", sans-serif; }
.page { max-width: 80rem; margin: 0 auto; padding: 2rem 1.5rem 3rem; }
header.report { border-bottom: 2px solid var(--ink); padding-bottom: 1rem; margin-bottom: 1.5rem; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: 0 0 .35rem; }
h2 { font-size: 1.4rem; line-height: 1.3; margin: 2.5rem 0 .5rem; padding-top: 1rem;
  border-top: 1px solid var(--rule); }
h3 { font-size: 1.05rem; margin: 1.75rem 0 .5rem; }
main > section:first-child > h2 { border-top: 0; padding-top: 0; }
p, li, figcaption { max-width: 75ch; }
.sub { color: var(--muted); margin: 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono",
  "DejaVu Sans Mono", monospace; font-size: .85em; overflow-wrap: anywhere; }
dl.provenance { display: grid; grid-template-columns: max-content minmax(0, 1fr);
  gap: .2rem 1rem; margin: .75rem 0 0; font-size: .875rem; }
dl.provenance dt { color: var(--muted); }
dl.provenance dd { margin: 0; }
nav.toc ol { margin: .5rem 0 0; padding-left: 1.25rem; }
nav.toc a, footer a { color: var(--accent); }
.reading { background: var(--band); border-left: 4px solid var(--accent); padding: .75rem 1.1rem;
  margin: 1.25rem 0 1.5rem; }
.reading h3 { margin: 0 0 .35rem; font-size: 1rem; }
.reading p { margin: .4rem 0; }
.reading ul { margin: .4rem 0; padding-left: 1.25rem; }
figure { width: fit-content; max-width: 100%; margin: 1.5rem auto 2rem; }
figure svg, figure img { display: block; max-width: 100%; height: auto; }
figcaption { width: 0; min-width: 100%; font-size: .875rem; color: var(--muted);
  margin-top: .5rem; }
/* Tables fit the page where wrapping a header or a note is enough; a table wider than that
   scrolls inside its own box (at most 85 % of the window high, so its scroll bar is on screen),
   with the header row and the first column sticky, and says so above it. */
.table-wrap { overflow: auto; max-width: 100%; max-height: 85vh; margin: .5rem 0 0; }
.table-wrap:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.table-wrap.wide::before { content: "Wider than the page: scroll sideways for more columns \\2192";
  display: block; position: sticky; left: 0; font-size: .8125rem; color: var(--muted);
  padding: 0 0 .25rem; }
.table-note { font-size: .8125rem; color: var(--muted); margin: .5rem 0 1.75rem; }
table { border-collapse: separate; border-spacing: 0; font-size: .875rem;
  font-variant-numeric: tabular-nums; }
.many table { font-size: .8125rem; }
th, td { padding: .3rem .45rem; text-align: left; vertical-align: top; white-space: nowrap;
  border-bottom: 1px solid var(--rule); background: #fff; }
th { white-space: normal; min-width: 3.5em; }
thead th { vertical-align: bottom; border-bottom: 2px solid var(--ink); position: sticky;
  top: 0; z-index: 2; }
td .note { display: block; font-size: .8em; color: var(--muted); white-space: normal;
  min-width: 7em; }
td.stack { white-space: normal; }
td.stack .mean, td.stack .ci { white-space: nowrap; }
td.stack sup { white-space: normal; overflow-wrap: anywhere; }
th.num, td.num { text-align: right; }
tbody tr:nth-child(even) > * { background: #f8fafb; }
tbody tr:hover > * { background: #eef3f8; }
th:first-child, td:first-child { position: sticky; left: 0; z-index: 1;
  box-shadow: inset -1px 0 0 var(--rule); }
thead th:first-child { z-index: 3; }
tfoot td { border-bottom: 0; }
tfoot tr:first-child td { border-top: 2px solid var(--ink); }
th button { font: inherit; font-weight: 600; color: inherit; background: none; border: 0;
  padding: 0; margin: 0; cursor: pointer; text-align: inherit; }
th button::after { content: "\\2195"; margin-left: .3em; color: #9aa3ad; font-size: .8em; }
th[aria-sort="ascending"] button::after { content: "\\25B2"; color: var(--accent); }
th[aria-sort="descending"] button::after { content: "\\25BC"; color: var(--accent); }
th button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
sup { font-size: .75em; line-height: 0; }
footer.report { margin-top: 3rem; padding-top: 1rem; border-top: 2px solid var(--ink);
  font-size: .8125rem; color: var(--muted); }
@media (max-width: 40rem) {
  .page { padding: 1rem .75rem 2rem; }
  h1 { font-size: 1.4rem; }
  dl.provenance { grid-template-columns: minmax(0, 1fr); }
}
@page { margin: 14mm 12mm; }
@media print {
  body { font-size: 10pt; line-height: 1.4; }
  .page { max-width: none; padding: 0; }
  nav.toc { display: none; }
  th button { cursor: auto; }
  figure { width: auto; }
  figure img { max-height: 23cm; width: auto; margin: 0 auto; }
  figcaption { width: auto; }
  th button::after { content: none !important; }
  tbody tr:hover { background: none; }
  .table-wrap { overflow: visible; max-height: none; }
  .table-wrap.wide::before { content: none; }
  th, td, thead th { position: static; box-shadow: none; }
  table { font-size: 8pt; }
  th, td { white-space: normal; padding: .15rem .4rem; }
  td.num { white-space: nowrap; }
  .table-wrap { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  tfoot { display: table-row-group; }
  tr, figure, .reading, dl.provenance { break-inside: avoid; page-break-inside: avoid; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  .table-note { break-before: avoid; page-break-before: avoid; }
  h2 { border-top: 0; }
  .reading { background: none; border-left-color: #000; }
  figure svg, figure img { max-height: 23cm; width: auto; }
  a { color: inherit; text-decoration: none; }
}
"""

_JS = """
(function () {
  "use strict";
  function key(cell) {
    var v = cell.getAttribute("data-sort");
    if (v === null) { v = cell.textContent.trim(); }
    if (v === "" || v === "\\u2013") { return null; }
    var n = Number(v);
    return isNaN(n) ? v : n;
  }
  function compare(a, b) {
    if (typeof a === "number" && typeof b === "number") { return a - b; }
    if (typeof a === "number") { return -1; }
    if (typeof b === "number") { return 1; }
    return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      var button = th.querySelector("button");
      if (!button) { return; }
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.map.call(body.rows, function (row, i) {
          return { row: row, key: key(row.cells[col]), i: i };
        });
        rows.sort(function (a, b) {
          if (a.key === null || b.key === null) {
            return (a.key === null) - (b.key === null) || a.i - b.i;
          }
          return (ascending ? 1 : -1) * compare(a.key, b.key) || a.i - b.i;
        });
        rows.forEach(function (r) { body.appendChild(r.row); });
      });
    });
  });
  // a table wider than its box says so (CSS .wide); again when the window is resized
  function wide() {
    Array.prototype.forEach.call(document.querySelectorAll(".table-wrap"), function (w) {
      w.classList.toggle("wide", w.scrollWidth > w.clientWidth + 1);
    });
  }
  wide();
  window.addEventListener("resize", wide);
})();
"""

_CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")


def _script_json(obj: Any) -> str:
    """JSON safe inside ``<script>``: ``<``, ``>`` and ``&`` as ``\\u`` escapes."""
    text = json.dumps(jsonable(obj), indent=1, ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _provenance(a: _Analysis) -> str:
    command = a.command
    rows = [("Signature", f"<code>{_e(a.signature)}</code>"),
            ("Command", f"<code>{_e(command)}</code>" if command
             else "not recorded (run from Python)")]
    if a.rel != ".":
        rows.append(("Folder", f"<code>{_e(a.rel)}/</code>"))
    tool = a.manifest.get("tool")
    if tool:
        rows.append(("Written by", _e(tool)))
    return ('<dl class="provenance">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows)
            + "</dl>")


def _rich(text: str) -> str:
    """Escaped ``text`` with the statistics' subscripts typeset (χ²_F, F_F)."""
    out = _e(text)
    return out.replace("χ²_F", "χ<sup>2</sup><sub>F</sub>").replace("F_F", "F<sub>F</sub>")


def _section(a: _Analysis) -> str:
    title = _KIND_TITLES[a.kind] + ("" if a.rel == "." else f" — {a.rel}/")
    out = [f'<section class="analysis" id="analysis-{a.index}" '
           f'aria-labelledby="analysis-{a.index}-title">',
           f'<h2 id="analysis-{a.index}-title">{_e(title)}</h2>',
           _provenance(a) if a.rel != "." else "",  # the root's is in the page header
           '<div class="reading"><h3>Reading</h3>']
    out += [f"<p>{_rich(s)}</p>" for s in a.sentences]
    if a.bullets:
        out.append("<ul>" + "".join(f"<li>{_rich(b)}</li>" for b in a.bullets) + "</ul>")
    out.append("</div>")
    if a.kind in ("compare", "arena"):  # the leaderboard before the figures, the rest after
        out += a.tables[:1] + a.figures + a.tables[1:]
    else:
        out += a.figures + a.tables
    out.append("</section>")
    return "\n".join(out)


def _page(root: Path, analyses: list[_Analysis], command: str | None) -> str:
    main = analyses[0]
    summary = main.data.get("summary")
    title = (summary.get("title") if isinstance(summary, dict) else None) \
        or f"{_KIND_TITLES[main.kind]}: {root.resolve().name}"
    payload = {
        "format": "ranger-eval-report/1",
        "folder": root.resolve().name,
        "signature": main.signature,
        "command": main.command,
        "analyses": [{"folder": a.rel, "kind": a.kind, "signature": a.signature,
                      "command": a.command, "tool": a.manifest.get("tool"),
                      "files": list(a.files),
                      **{k: v for k, v in a.data.items() if k != "slugs"}}
                     for a in analyses],
    }
    tool = main.manifest.get("tool") or "ranger-eval"
    head = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="{_e(tool)}">',
        f"<title>{_e(title)}</title>", f"<style>{_CSS}</style>", "</head>",
    ]
    kinds = ", ".join(_KIND_TITLES[a.kind].lower() + ("" if a.rel == "." else f" ({a.rel}/)")
                      for a in analyses)
    body = ['<body><div class="page">', '<header class="report">', f"<h1>{_e(title)}</h1>",
            f'<p class="sub">Report of the ranger-eval output folder '
            f"<code>{_e(root.resolve().name)}/</code>: {_e(kinds)}.</p>",
            _provenance(main).replace("<dl", '<dl id="header-provenance"', 1), "</header>"]
    if len(analyses) > 1:
        body.append('<nav class="toc" aria-label="Contents"><ol>' + "".join(
            f'<li><a href="#analysis-{a.index}">{_e(_KIND_TITLES[a.kind])}'
            f'{"" if a.rel == "." else " — " + _e(a.rel) + "/"}</a></li>' for a in analyses)
            + "</ol></nav>")
    body += ["<main>"] + [_section(a) for a in analyses] + ["</main>"]
    foot = [f"<p>Signature: <code>{_e(main.signature)}</code><br>"
            f"Command: <code>{_e(main.command or 'not recorded')}</code>"]
    if command and command != main.command:
        foot[0] += f"<br>Report written by: <code>{_e(command)}</code>"
    foot[0] += "</p>"
    foot.append(f"<p>Written by {_e(tool)} from the files listed in manifest.json. "
                "Self-contained: nothing is loaded from the network. The results are embedded "
                "as JSON in <code>script#ranger-results</code>.</p>")
    body += ['<footer class="report">', *foot, "</footer>", "</div>",
             f'<script type="application/json" id="ranger-results">{_script_json(payload)}'
             "</script>", f"<script>{_JS}</script>", "</body>", "</html>"]
    return "\n".join(head + body) + "\n"
