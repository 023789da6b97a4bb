"""The one way numbers are written for people: p-values, percentages and confidence levels.

Tables, figures and the command line all format through these functions, so a p-value reads the
same everywhere. Each takes a ``style``: ``"text"`` (plain ASCII, e.g. Markdown and CSV-side
text), ``"unicode"`` (figures and terminal: ``3.2×10⁻⁶``, ``−``), ``"latex"`` and ``"html"``.
The rule for the digits is the same in every style; only the markup of exponents differs.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable

__all__ = ["format_correction", "format_level", "format_percent", "format_probability",
           "format_pvalue", "format_sci", "comma_list",
           "preview", "show", "slug", "STYLES"]

STYLES: tuple[str, ...] = ("text", "unicode", "latex", "html")
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
#: p-values below this are printed as an upper bound (doubles lose meaning far earlier).
P_FLOOR = 1e-300


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)}; got {style!r}")


def _sci(mantissa: str, exp: int, style: str) -> str:
    if style == "text":
        return f"{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if style == "latex":
        return f"${mantissa}\\times10^{{{exp}}}$"
    if style == "html":
        return f"{mantissa}&times;10<sup>{exp}</sup>"
    return f"{mantissa}×10{str(exp).translate(_SUPERSCRIPT)}"


def format_sci(value: float, digits: int = 2, style: str = "unicode") -> str:
    """A number in scientific notation with up to ``digits`` significant digits.

    Trailing zeros of the mantissa are dropped, as Python's ``g`` format does (``5e-05``).

    Parameters
    ----------
    value : float
        The number.
    digits : int, default 2
        Significant digits of the mantissa (at least 1).
    style : {"text", "unicode", "latex", "html"}, default "unicode"
        Markup of the exponent.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        An unknown ``style``.

    Examples
    --------
    >>> from ranger_eval.formatting import format_sci
    >>> format_sci(3.2e-6)
    '3.2×10⁻⁶'
    >>> format_sci(5e-5, style="text")
    '5e-05'
    >>> format_sci(12345, 3, style="html")
    '1.23&times;10<sup>4</sup>'
    """
    _check_style(style)
    mantissa, exponent = f"{float(value):.{max(digits, 1) - 1}e}".split("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return _sci(mantissa, int(exponent), style)


def format_pvalue(p: float, digits: int = 4, style: str = "text", *, prefix: str = "") -> str:
    """A p-value with ``digits`` significant digits, the one way every output writes p-values.

    In ``"text"`` style exactly Python's ``f"{p:.{digits}g}"`` (``0.008676``, ``7.943e-21``); the
    other styles only change the markup of the exponent (``7.943×10⁻²¹`` in ``"unicode"``). The one
    rule for values too small to print: ``p < 1e-300`` (:data:`P_FLOOR`), including a p-value of
    exactly 0 (a survival function that underflowed the double range, or the limit of an infinite
    statistic), is written as the bound ``< 1e-300`` (``< 10⁻³⁰⁰`` in ``"unicode"``), never as
    ``0``; NaN as ``NA``. Every table, figure, report and terminal line writes p-values through this
    function.

    Parameters
    ----------
    p : float
        The p-value.
    digits : int, default 4
        Significant digits.
    style : {"text", "unicode", "latex", "html"}, default "text"
        Markup of the exponent.
    prefix : str, default ""
        Put in front (e.g. ``"p = "``); ``"p = "`` becomes ``"p < "`` for the bound.

    Returns
    -------
    str

    Examples
    --------
    >>> from ranger_eval.formatting import format_pvalue
    >>> format_pvalue(0.0086759), format_pvalue(7.9431e-21)
    ('0.008676', '7.943e-21')
    >>> format_pvalue(7.9431e-21, style="unicode")
    '7.943×10⁻²¹'
    >>> format_pvalue(0.0, prefix="p = "), format_pvalue(float("nan"))
    ('p < 1e-300', 'NA')
    """
    _check_style(style)
    p = float(p)
    if math.isnan(p):
        return f"{prefix}NA"
    if 0 <= p < P_FLOOR:
        bound = {"text": "1e-300", "unicode": "10⁻³⁰⁰", "latex": "$10^{-300}$",
                 "html": "10<sup>-300</sup>"}[style]
        return (prefix.replace("=", "<") if "=" in prefix else f"{prefix}< ") + bound
    text = f"{p:.{digits}g}"
    if "e" not in text or style == "text":
        return prefix + text
    mantissa, exponent = text.split("e")
    return prefix + _sci(mantissa, int(exponent), style)


def format_probability(p: float, decimals: int = 2) -> str:
    """A posterior probability after ``= `` or as a bound, never rounded to a false 0 or 1.

    ``"= 0.93"``; ``"< 0.01"`` for 0 < p below half the last digit; ``"> 0.99"`` below 1 but
    rounding to it; an exact 0 or 1 (a share of Monte-Carlo draws) stays ``"= 0.00"`` /
    ``"= 1.00"``; NaN is ``"= n/a"``.

    Parameters
    ----------
    p : float
        The probability.
    decimals : int, default 2
        Decimals shown.

    Returns
    -------
    str

    Examples
    --------
    >>> from ranger_eval.formatting import format_probability
    >>> format_probability(0.93), format_probability(0.001), format_probability(0.999)
    ('= 0.93', '< 0.01', '> 0.99')
    >>> format_probability(1.0)
    '= 1.00'
    """
    if not math.isfinite(p):
        return "= n/a"
    unit = 10.0 ** -decimals
    if 0 < p < unit / 2:
        return f"< {unit:.{decimals}f}"
    if 1 - unit / 2 <= p < 1:
        return f"> {1 - unit:.{decimals}f}"
    return f"= {p:.{decimals}f}"


def format_percent(fraction: float, decimals: int = 1, *, floor: bool = True) -> str:
    """A fraction as a percentage with ``decimals`` decimals (``0.1614 → "16.14%"``).

    Parameters
    ----------
    fraction : float
        The fraction (1 is 100%); NaN gives ``"NA"``.
    decimals : int, default 1
        Decimals of the percentage.
    floor : bool, default True
        Write a positive value that would round to zero as ``<0.1%`` (at the given decimals), so
        a small weight never reads as nothing.

    Returns
    -------
    str

    Examples
    --------
    >>> from ranger_eval.formatting import format_percent
    >>> format_percent(0.1614, 2)
    '16.14%'
    >>> format_percent(0.0004), format_percent(0.0004, floor=False)
    ('<0.1%', '0.0%')
    """
    pct = 100.0 * float(fraction)
    if math.isnan(pct):
        return "NA"
    smallest = 10.0 ** (-decimals)
    if floor and 0 < pct < smallest / 2:
        return f"<{smallest:.{decimals}f}%"
    return f"{pct:.{decimals}f}%"


def format_level(level: float) -> str:
    """A confidence level as a percentage with as many decimals as it has.

    0.95 → ``"95%"``, 0.9999 → ``"99.99%"``, 0.999 → ``"99.9%"`` (never rounded up to ``"100%"``).

    Parameters
    ----------
    level : float
        The level, in (0, 1).

    Returns
    -------
    str

    Examples
    --------
    >>> from ranger_eval.formatting import format_level
    >>> format_level(0.95), format_level(0.9999)
    ('95%', '99.99%')
    """
    pct = round(100.0 * float(level), 10)
    text = f"{pct:.10f}".rstrip("0").rstrip(".")
    return f"{text}%"


#: How people write the names of the multiplicity corrections (Ranger's option name → display).
CORRECTION_NAMES: dict[str, str] = {
    "holm-sidak": "Holm–Šídák", "holm": "Holm", "bonferroni": "Bonferroni", "sidak": "Šídák",
    "simes-hochberg": "Hochberg", "hommel": "Hommel", "fdr_bh": "Benjamini–Hochberg (FDR)",
    "fdr_by": "Benjamini–Yekutieli (FDR)", "fdr_tsbh": "two-stage Benjamini–Hochberg (FDR)",
    "fdr_tsbky": "two-stage Benjamini–Krieger–Yekutieli (FDR)",
    "westfall-young": "Westfall–Young max-T", "none": "no correction",
}


def format_correction(name: str) -> str:
    """Display name of a multiplicity correction; an unknown name is returned unchanged.

    Parameters
    ----------
    name : str
        Ranger's option name (a key of :data:`CORRECTION_NAMES`).

    Returns
    -------
    str

    Examples
    --------
    >>> from ranger_eval.formatting import format_correction
    >>> format_correction("holm-sidak"), format_correction("fdr_bh")
    ('Holm–Šídák', 'Benjamini–Hochberg (FDR)')
    """
    return CORRECTION_NAMES.get(str(name), str(name))


def show(value: object) -> str:
    """``repr`` of a value as the user wrote it (``1.0``, not ``np.float64(1.0)``).

    Parameters
    ----------
    value : object
        Any value; numpy scalars are shown as the Python scalar they hold.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.formatting import show
    >>> show(np.float64(1.0)), show("q1")
    ('1.0', "'q1'")
    """
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        value = value.item()
    return repr(value)


def preview(values: Iterable[object], limit: int = 10, *, quote: bool = True,
            tail: str = ", … ({more} more)", shown: int | None = None,
            last: str = ", ") -> str:
    """The first ``limit`` values (each as :func:`show`), then ``… (N more)``: how errors list
    ids; the options give the other lists of names the messages and reports write.

    Parameters
    ----------
    values : iterable
        The values to list.
    limit : int, default 10
        How many are written out; with more values, the first ``shown`` and the ``tail``.
    quote : bool, default True
        Each value as :func:`show` (strings quoted); False: as ``str`` (names in sentences).
    tail : str, default ``", … ({more} more)"``
        Written after the values shown when some are not: ``{more}`` is the count left out,
        ``{total}`` the count of all (``", … ({total} in all)"``, ``" and {more} more"``).
    shown : int, optional
        How many are written out when there are more than ``limit`` (default ``limit``).
    last : str, default ``", "``
        Between the last two values when all are written (``" and "``: "a, b and c").

    Returns
    -------
    str

    Examples
    --------
    >>> from ranger_eval.formatting import preview
    >>> preview(["q1", "q2"])
    "'q1', 'q2'"
    >>> preview(range(12), limit=3)
    '0, 1, 2, … (9 more)'
    >>> preview(["a", "b", "c"], quote=False, last=" and ")
    'a, b and c'
    >>> preview("abcdef", 4, quote=False, tail=" and {more} more", shown=2, last=" and ")
    'a, b and 4 more'
    >>> preview("abcdef", 4, quote=False, tail=", … ({total} in all)")
    'a, b, c, d, … (6 in all)'
    """
    items = [show(v) if quote else str(v) for v in values]
    if len(items) > limit:
        n = limit if shown is None else shown
        return ", ".join(items[:n]) + tail.format(more=len(items) - n, total=len(items))
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + last + items[-1]


def comma_list(option: str | None) -> list[str] | None:
    """A comma-separated command-line value as a list of its non-empty, stripped parts.

    Parameters
    ----------
    option : str or None
        The option's text, e.g. ``--systems "a, b"``; None when the option was not given.

    Returns
    -------
    list of str or None
        The parts in order; None when the option was not given or holds no name.

    Examples
    --------
    >>> comma_list(" a, b ,,c")
    ['a', 'b', 'c']
    >>> comma_list(" , "), comma_list(None)
    (None, None)
    """
    if option is None:
        return None
    parts = [p.strip() for p in option.split(",") if p.strip()]
    return parts or None


def slug(text: str) -> str:
    """The file-name form of a dataset or metric name: every run of characters other than
    letters, digits and ``@.+=-`` becomes one ``_`` (``"nDCG@10 (dev)"`` → ``"nDCG@10_dev"``),
    ``"x"`` when nothing is left. ``compare`` names its per-group figures with it
    (``graph-DATASET-METRIC.png``) and the HTML report finds them by it.

    Parameters
    ----------
    text : str
        A dataset, metric or system name.

    Returns
    -------
    str
        The name with unsafe runs replaced by ``_`` and leading/trailing ``_`` stripped; never empty.

    Examples
    --------
    >>> from ranger_eval.formatting import slug
    >>> slug("nDCG@10 (dev)")
    'nDCG@10_dev'
    >>> slug("MS MARCO / passage"), slug("!!!")
    ('MS_MARCO_passage', 'x')
    """
    return re.sub(r"[^A-Za-z0-9@.+=-]+", "_", text).strip("_") or "x"
