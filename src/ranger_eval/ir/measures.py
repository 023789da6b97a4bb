"""Measure names: a small ir_measures-style language, plus trec_eval's names.

``nDCG@10``, ``AP``, ``AP@100``, ``RR``, ``RR@10``, ``P@10``, ``R@100``, ``Rprec``, ``Success@5``,
``Judged@10``, ``NumRet``, ``NumRel``, ``NumRelRet``; binary measures take a relevance threshold,
``P(rel=2)@10``, ``AP(rel=2)``, ``RR(rel=2)`` (ir_measures syntax). trec_eval names are accepted too:
``ndcg_cut.10`` (or ``ndcg_cut_10``), ``ndcg``, ``map``, ``map_cut.10``, ``recip_rank``, ``P.10``,
``recall.100``, ``Rprec``, ``success.5``, ``num_ret``, ``num_rel``, ``num_rel_ret``; comma lists
(``P.5,10``) and bare cutoff measures (``P``, ``ndcg_cut``) expand as in trec_eval.

Every name parses into a frozen :class:`Measure`; ``str(measure)`` is its canonical ir_measures-style
name (``ndcg_cut.10`` → ``nDCG@10``), which is what evaluation tables show.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import MeasureError

__all__ = ["COUNT_MEASURES", "MEASURES", "Measure", "measure_bounds", "parse_measure",
           "parse_measures", "written_names"]

# family -> (cutoff: "required" | "optional" | "none", accepts rel=)
MEASURES: dict[str, tuple[str, bool]] = {
    "nDCG": ("optional", False),
    "AP": ("optional", True),
    "RR": ("optional", True),
    "P": ("required", True),
    "R": ("required", True),
    "Rprec": ("none", True),
    "Success": ("required", True),
    "Judged": ("optional", False),
    "NumRet": ("none", False),
    "NumRel": ("none", True),
    "NumRelRet": ("none", True),
}
#: Measures that trec_eval sums (not averages) in its ``all`` row.
COUNT_MEASURES = frozenset({"NumRet", "NumRel", "NumRelRet"})

_ALIASES = {k.lower(): k for k in MEASURES}
_ALIASES.update({"map": "AP", "mrr": "RR", "precision": "P", "recall": "R"})

# trec_eval name -> (family, takes cutoffs)
_TREC: dict[str, tuple[str, bool]] = {
    "map": ("AP", False), "map_cut": ("AP", True), "ndcg": ("nDCG", False),
    "ndcg_cut": ("nDCG", True), "recip_rank": ("RR", False), "P": ("P", True),
    "recall": ("R", True), "Rprec": ("Rprec", False), "success": ("Success", True),
    "num_ret": ("NumRet", False), "num_rel": ("NumRel", False), "num_rel_ret": ("NumRelRet", False),
}
# trec_eval's default cutoffs (m_P.c, m_recall.c, m_ndcg_cut.c, m_map_cut.c, m_success.c)
_TREC_DEFAULT_CUTOFFS = {
    "P": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "success": (1, 5, 10),
}
_IRM = re.compile(r"^(?P<name>[A-Za-z_]+)\s*(?:\((?P<params>[^()]*)\))?\s*"
                  r"(?:@\s*(?P<cutoff>[^()@]*?))?\s*(?:\((?P<params2>[^()]*)\))?$")
_TREC_RE = re.compile(r"^(?P<name>map_cut|ndcg_cut|P|recall|success)(?:[._](?P<cuts>[^._].*))?$")


@dataclass(frozen=True)
class Measure:
    """One measure: family ``name``, optional rank ``cutoff`` and relevance threshold ``rel``.

    ``rel=None`` means "the evaluation's relevance_level" (1 by default, trec_eval ``-l``).
    """

    name: str
    cutoff: int | None = None
    rel: int | None = None

    def __post_init__(self) -> None:
        if self.name not in MEASURES:
            raise MeasureError(f"unknown measure {self.name!r}; supported: {', '.join(MEASURES)}")
        cut_rule, takes_rel = MEASURES[self.name]
        if self.cutoff is not None:
            if cut_rule == "none":
                raise MeasureError(f"{self.name} takes no cutoff (got @{self.cutoff})")
            if isinstance(self.cutoff, bool) or not isinstance(self.cutoff, int) or self.cutoff < 1:
                raise MeasureError(f"bad cutoff for {self.name}: {self.cutoff!r} "
                                   "(must be a positive integer)")
        elif cut_rule == "required":
            raise MeasureError(f"{self.name} needs a cutoff, e.g. {self.name}@10")
        if self.rel is not None:
            if not takes_rel:
                raise MeasureError(f"{self.name} takes no rel= parameter")
            if isinstance(self.rel, bool) or not isinstance(self.rel, int) or self.rel < 0:
                raise MeasureError(f"bad rel= for {self.name}: {self.rel!r} "
                                   "(must be a non-negative integer)")

    def __str__(self) -> str:
        s = self.name
        if self.rel is not None:
            s += f"(rel={self.rel})"
        if self.cutoff is not None:
            s += f"@{self.cutoff}"
        return s

    @property
    def is_count(self) -> bool:
        """True for NumRet/NumRel/NumRelRet (summed, not averaged, in trec_eval's ``all``)."""
        return self.name in COUNT_MEASURES


def _int(text: str, what: str, spec: str) -> int:
    t = text.strip()
    if not re.fullmatch(r"[+]?\d+", t):
        raise MeasureError(f"bad {what} in measure {spec!r}: {text!r} (must be a positive integer)")
    return int(t)


def _parse_trec(spec: str) -> list[Measure] | None:
    if spec in _TREC:
        family, takes_cut = _TREC[spec]
        if takes_cut:
            return [Measure(family, c) for c in _TREC_DEFAULT_CUTOFFS[spec]]
        return [Measure(family)]
    m = _TREC_RE.match(spec)
    if m is None or m.group("cuts") is None:
        return None
    family = _TREC[m.group("name")][0]
    cuts = [_int(c, "cutoff", spec) for c in m.group("cuts").split(",")]
    return [Measure(family, c) for c in cuts]


def _parse_params(text: str, spec: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in part:
            raise MeasureError(f"bad parameter {part!r} in measure {spec!r} (expected name=value)")
        k, v = (x.strip() for x in part.split("=", 1))
        out[k] = v
    return out


def _parse_one(spec: str) -> list[Measure]:
    s = spec.strip()
    if not s:
        raise MeasureError("empty measure name")
    trec = _parse_trec(s)
    if trec is not None:
        return trec
    m = _IRM.match(s)
    if m is None:
        raise MeasureError(f"cannot parse measure {spec!r} (examples: nDCG@10, AP, "
                           "P(rel=2)@10, ndcg_cut.10)")
    family = _ALIASES.get(m.group("name").lower())
    if family is None:
        raise MeasureError(f"unknown measure {m.group('name')!r} in {spec!r}; supported: "
                           f"{', '.join(MEASURES)} (or trec_eval names: {', '.join(_TREC)})")
    params = _parse_params(m.group("params") or "", spec)
    params.update(_parse_params(m.group("params2") or "", spec))
    cutoff = None
    if m.group("cutoff") is not None:
        cutoff = _int(m.group("cutoff"), "cutoff", spec)
        if cutoff < 1:
            raise MeasureError(f"bad cutoff in measure {spec!r}: {cutoff} (must be >= 1)")
    if "cutoff" in params:
        cutoff = _int(params.pop("cutoff"), "cutoff", spec)
    rel = None
    if "rel" in params:
        rel = _int(params.pop("rel"), "rel", spec)
    if params:
        raise MeasureError(f"unsupported parameter(s) {', '.join(params)} in measure {spec!r}")
    return [Measure(family, cutoff, rel)]


def written_names(specs: str | Measure | Iterable[str | Measure], *,
                  verbatim: bool = False) -> dict[str, str]:
    """The canonical name of each measure (``AP``, ``nDCG@10``, as evaluations label their rows)
    → the trec_eval name the user wrote (``map``, ``ndcg_cut_10``, ``recip_rank``), so that
    tables, figures and JSON say what the user asked for; a trec_eval command-line name with a
    parameter is written as trec_eval prints it (``ndcg_cut.10`` → ``ndcg_cut_10``, ``P.5`` →
    ``P_5``). ir_measures names keep their canonical spelling (``ndcg@10`` → ``nDCG@10``, as
    ir_measures prints it), and so does a trec_eval list (``P``, ``ndcg_cut.5,10``) that names
    several measures; when two spellings name one measure, the first is kept. With
    ``verbatim``, every name that stands for one measure is kept exactly as written (``ndcg@10``,
    ``ndcg_cut.10``): an experiment's ``ir.measure`` then names its rows in every table."""
    if isinstance(specs, (str, Measure)):
        specs = [specs]
    out: dict[str, str] = {}
    for spec in specs:
        if not isinstance(spec, str):
            continue
        found = _parse_one(spec)
        if len(found) != 1:
            continue
        if verbatim:
            out.setdefault(str(found[0]), spec.strip())
        elif _parse_trec(spec.strip()) is not None:
            out.setdefault(str(found[0]), spec.strip().replace(".", "_", 1))
    return out


def parse_measure(spec: str | Measure) -> Measure:
    """Parse one measure name (ir_measures or trec_eval syntax) into a :class:`Measure`.

    Parameters
    ----------
    spec : str or Measure
        ``nDCG@10``, ``ndcg_cut.10``, ``P_5``, ``AP(rel=2)`` …; a ``Measure`` is returned as is.

    Returns
    -------
    Measure

    Raises
    ------
    MeasureError
        Not a string, an unknown name, or a trec_eval list naming several measures (use
        :func:`parse_measures`).

    References
    ----------
    MacAvaney, S., Macdonald, C. & Ounis, I. (2022), "Streamlining evaluation with ir-measures",
    ECIR (the names); NIST ``trec_eval`` 10 (its measure names and cutoffs).

    Examples
    --------
    >>> from ranger_eval.ir import parse_measure
    >>> parse_measure("nDCG@10")
    Measure(name='nDCG', cutoff=10, rel=None)
    >>> str(parse_measure("P_5"))
    'P@5'
    """
    if isinstance(spec, Measure):
        return spec
    if not isinstance(spec, str):
        raise MeasureError(f"a measure must be a string or Measure, got {type(spec).__name__}")
    out = _parse_one(spec)
    if len(out) != 1:
        raise MeasureError(f"{spec!r} names {len(out)} measures; use parse_measures")
    return out[0]


def parse_measures(specs: str | Measure | Iterable[str | Measure]) -> tuple[Measure, ...]:
    """Parse one or several measure names, expanding trec_eval lists; duplicates removed.

    Parameters
    ----------
    specs : str or Measure or iterable of them
        ir_measures-style (``nDCG@10``, ``P(rel=2)@10``) or trec_eval names (``ndcg_cut.10``,
        ``P_5,10``; ``ndcg_cut`` alone expands to trec_eval's cutoffs).

    Returns
    -------
    tuple of Measure
        In the order given, without duplicates.

    Raises
    ------
    MeasureError
        A name that is no measure, with the supported ones.

    Examples
    --------
    >>> from ranger_eval.ir.measures import parse_measures
    >>> [str(m) for m in parse_measures(["AP", "AP", "ndcg_cut.10", "P_5,10"])]
    ['AP', 'nDCG@10', 'P@5', 'P@10']
    >>> parse_measures("set_F")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.MeasureError: unknown measure 'set_F' in 'set_F'; supported: nDCG, AP, ...
    """
    if isinstance(specs, (str, Measure)):
        specs = [specs]
    out: list[Measure] = []
    for spec in specs:
        if isinstance(spec, Measure):
            found = [spec]
        elif isinstance(spec, str):
            found = _parse_one(spec)
        else:
            raise MeasureError(f"a measure must be a string or Measure, got {type(spec).__name__}")
        out.extend(m for m in found if m not in out)
    if not out:
        raise MeasureError("no measures given")
    return tuple(out)


def measure_bounds(names: Iterable[str]) -> dict[str, tuple[float, float]]:
    """The range of every name in ``names`` that is a per-query IR measure (ir_measures-style
    or trec_eval name, :func:`parse_measure`): [0, 1] for nDCG, AP, RR, P, R, Rprec, Success
    and Judged at any cutoff or relevance level; the counts (NumRet, NumRel, NumRelRet) and
    names that are no measure are left out. Intervals of their means stay in the range
    (:meth:`ranger_eval.Scores.with_bounds`: no interval leaves its metric's range).

    Parameters
    ----------
    names : iterable of str
        Metric names (of a scores table).

    Returns
    -------
    dict of {str: (float, float)}
        The bounded measures among ``names`` → (0.0, 1.0).

    Examples
    --------
    >>> from ranger_eval.ir.measures import measure_bounds
    >>> measure_bounds(["nDCG@10", "NumRet", "accuracy", "P_5"])
    {'nDCG@10': (0.0, 1.0), 'P_5': (0.0, 1.0)}
    """
    out: dict[str, tuple[float, float]] = {}
    for name in names:
        try:
            parsed = parse_measures(str(name))
        except MeasureError:
            continue
        if len(parsed) == 1 and not parsed[0].is_count:
            out[str(name)] = (0.0, 1.0)
    return out
