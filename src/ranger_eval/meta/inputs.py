"""Validation of the inputs of :func:`~ranger_eval.meta.meta_analysis` and
:func:`~ranger_eval.meta.subgroup_analysis`: effects and variances (arrays or an
``EffectSizes``), the τ² estimator, the test, the level and the study names; each problem a
:class:`~ranger_eval.errors.MetaInputError` naming the study and the value."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import MetaInputError, check_level, suggest
from ..settings import META_METHODS, META_TESTS
from .fit import _standardise

METHODS = META_METHODS
TESTS = META_TESTS
#: largest accepted ratio max(vi)/min(vi): beyond it the weights 1/vi (and the products of four
#: weights in tr(P²), used by REML) cannot be held together in float64.
VI_RATIO_MAX = 1e120


# --------------------------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------------------------
def _make_unique(names: tuple[str, ...]) -> tuple[str, ...]:
    """Number repeated labels "a", "a" → "a.1", "a.2" (metafor's ``.make.unique`` for ``slab``)."""
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    if all(c == 1 for c in counts.values()):
        return names
    seen: dict[str, int] = {}
    out = []
    for n in names:
        if counts[n] > 1:
            seen[n] = seen.get(n, 0) + 1
            out.append(f"{n}.{seen[n]}")
        else:
            out.append(n)
    if len(set(out)) != len(out):
        raise MetaInputError(f"study names cannot be made unique by numbering repeats: {names[:10]}")
    return tuple(out)


def _validate(
    yi: Any, vi: Any, method: str, test: str, level: float, names: Sequence[Any] | None
) -> tuple[np.ndarray, np.ndarray, str, str, float, tuple[str, ...], str | None, Any]:
    if not isinstance(method, str) or method.upper() not in METHODS:
        raise MetaInputError(
            f"unknown method {method!r}; valid methods: {', '.join(METHODS)}"
            + suggest(method, METHODS)
        )
    method_c = method.upper()
    if not isinstance(test, str) or test.lower() not in TESTS:
        raise MetaInputError(
            f"unknown test {test!r}; valid tests: {', '.join(TESTS)}" + suggest(test, TESTS)
        )
    test_c = test.lower()
    level_f = check_level(level, error=MetaInputError)

    effects = None
    measure = None
    if hasattr(yi, "yi") and hasattr(yi, "vi"):  # an EffectSizes (duck-typed)
        if vi is not None:
            raise MetaInputError("vi must be None when yi is an EffectSizes (it carries its own vi)")
        effects = yi
        measure = getattr(yi, "measure", None)
        if names is None:
            names = getattr(yi, "names", None)
        y_raw, v_raw = yi.yi, yi.vi
    else:
        if vi is None:
            raise MetaInputError("vi is required when yi is an array of effects")
        y_raw, v_raw = yi, vi

    try:
        y = np.array(y_raw, dtype=float).reshape(-1) if np.ndim(y_raw) <= 1 else None
        v = np.array(v_raw, dtype=float).reshape(-1) if np.ndim(v_raw) <= 1 else None
    except (TypeError, ValueError) as exc:
        raise MetaInputError(f"yi and vi must be numeric: {exc}") from None
    if y is None or v is None:
        raise MetaInputError("yi and vi must be one-dimensional")
    k = y.size
    if k == 0:
        raise MetaInputError("no studies: yi is empty")
    if v.size != k:
        raise MetaInputError(f"yi and vi have different lengths ({k} vs {v.size})")

    if names is None:
        names_t = tuple(map(str, range(1, k + 1)))
    else:
        names_t = tuple(str(n) for n in names)
        if len(names_t) != k:
            raise MetaInputError(f"names has {len(names_t)} entries but there are {k} studies")
        names_t = _make_unique(names_t)

    for arr, label in ((y, "yi"), (v, "vi")):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            i = int(bad[0])
            raise MetaInputError(
                f"{label} must be finite: study {names_t[i]!r} (position {i}) has {label}={float(arr[i])!r}"
                + (f" ({bad.size} non-finite values)" if bad.size > 1 else "")
            )
    bad = np.flatnonzero(v <= 0.0)
    if bad.size:
        raise MetaInputError(_nonpositive_vi(v, bad, names_t, method_c))
    lo, hi = int(np.argmin(v)), int(np.argmax(v))
    if float(v[hi]) > VI_RATIO_MAX * float(v[lo]):  # no division: v[lo] may be subnormal
        raise MetaInputError(
            f"vi out of range: study {names_t[lo]!r} (position {lo}) has vi={float(v[lo])!r} and "
            f"study {names_t[hi]!r} (position {hi}) vi={float(v[hi])!r}; the weights 1/vi cannot be combined "
            f"in float64 when max(vi)/min(vi) > {VI_RATIO_MAX:g}: drop or rescale the outlying "
            "study"
        )
    _standardise(y, v, names_t)  # raises for effects too far apart
    if method_c == "EE":
        method_c = "FE"
    return y, v, method_c, test_c, level_f, names_t, measure, effects


def _nonpositive_vi(v: np.ndarray, bad: np.ndarray, names: tuple[str, ...], method: str) -> str:
    """The error text for studies with ``vi <= 0``: every such study (up to 20, then the count),
    and what of the requested ``method`` is undefined: Q, I² and H² weight every study by 1/vi,
    and so do the FE (EE), DL, HS and PM estimators themselves (at τ² = 0)."""
    listed = ", ".join(f"study {names[i]!r} (position {i}) has vi={float(v[i])!r}"
                       for i in bad[:20].tolist())
    more = f", … ({bad.size} studies in all)" if bad.size > 20 else ""
    count = f"{bad.size} of {v.size} studies: " if bad.size > 1 else ""
    own = (f" and the {method} estimator" if method in ("FE", "EE", "DL", "HS", "PM") else "")
    return (f"vi must be > 0: {count}{listed}{more}; Q, I², "
            f"H²{own} weight each study by 1/vi, which is undefined for them (method {method}); "
            "zero variances come from identical systems or a constant difference: leave them "
            "out (effect_sizes(..., degenerate='drop'))")
