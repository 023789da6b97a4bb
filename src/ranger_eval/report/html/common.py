"""What every section of the HTML report shares: the limits and names of the report, one output
folder read (:class:`_Analysis`: its manifest, its listed files checked against their SHA-256,
JSON and CSV readers that raise :class:`~ranger_eval.errors.ReportError` naming the file) and
the number and word formats of the page.
"""
from __future__ import annotations

import hashlib
import html
import io
import json
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import ReportError
from ...formatting import format_pvalue, preview
from ...signature import parse_signature
from ..tables import jsonable

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
                "arena": "Arena leaderboard", "agreement": "Judge and annotator agreement",
                "subset": "Whole-benchmark estimate from a subset"}


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
    """Names in a sentence: "a, b and c"; past ``limit``, "a, …, h and 4 more"."""
    return preview(names, limit, quote=False, tail=" and {more} more", shown=limit - 2,
                   last=" and ")


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _correction(name: str) -> str:
    if name in ("none", ""):
        return "no multiplicity correction"
    return _CORRECTIONS.get(name, name)
