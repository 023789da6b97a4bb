"""Moderators → the design matrix of a meta-regression, as R's ``model.matrix`` with treatment
contrasts: numeric columns as given, strings, booleans and pandas Categoricals as 0/1 dummies of
every level but the first; one value per study, matched by study name when a pandas index names
them."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import MetaInputError, suggest

# --------------------------------------------------------------------------------------------
# moderators → design matrix (R's model.matrix with treatment contrasts)
# --------------------------------------------------------------------------------------------
#: columns of an ``EffectSizes`` besides its ``extra`` table that may serve as moderators
_EFFECT_COLUMNS = ("n", "mean_control", "mean_treatment")


def _is_default_index(index: Any) -> bool:
    import pandas as pd

    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1


def _align(values: Any, label: str, names: tuple[str, ...]) -> np.ndarray:
    """One value per study: a pandas Series indexed by study names is matched by name; anything
    else (arrays, lists, a Series with the default 0..k-1 index) is taken in study order."""
    import pandas as pd

    k = len(names)
    if isinstance(values, pd.Series) and not _is_default_index(values.index):
        index = [str(i) for i in values.index]
        index_set, name_set = set(index), set(names)
        missing = [n for n in names if n not in index_set]
        unknown = [i for i in index if i not in name_set]
        if missing or unknown or len(set(index)) != len(index):
            raise MetaInputError(
                f"{label}: its index must list every study name once (it is matched by name); "
                f"missing {missing[:10]}, unknown {unknown[:10]}"
            )
        pos = {n: i for i, n in enumerate(index)}
        return np.asarray(values.to_numpy(dtype=object)[[pos[n] for n in names]], dtype=object)
    if isinstance(values, pd.Series):
        values = values.to_numpy(dtype=object)
    if isinstance(values, (str, bytes)) or np.ndim(values) != 1:
        raise MetaInputError(f"{label}: expected one value per study ({k}), got {values!r:.80}")
    arr = np.empty(len(values), dtype=object)
    arr[:] = list(values)
    if arr.size != k:
        raise MetaInputError(f"{label}: {arr.size} values for {k} studies")
    return arr


def _effects_column(effects: Any, col: str, names: tuple[str, ...], label: str) -> np.ndarray:
    extra = getattr(effects, "extra", None)
    if extra is not None and col in extra.columns:
        return _align(extra[col], label, names)
    if col in _EFFECT_COLUMNS:
        return _align(np.asarray(getattr(effects, col)), label, names)
    known = (list(extra.columns) if extra is not None else []) + list(_EFFECT_COLUMNS)
    raise MetaInputError(
        f"{label}: no column {col!r} in the EffectSizes (its extra columns and "
        f"{', '.join(_EFFECT_COLUMNS)}); columns: {known}" + suggest(col, known)
    )


def _moderator_columns(
    moderators: Any, names: tuple[str, ...], effects: Any
) -> list[tuple[str, np.ndarray]]:
    """``[(column name, one value per study)]`` from a DataFrame, Series, mapping or column names."""
    import pandas as pd

    if isinstance(moderators, Sequence) and not isinstance(moderators, (str, bytes)) \
            and len(moderators) == 0:
        return []
    if isinstance(moderators, str) or (
        isinstance(moderators, Sequence) and not isinstance(moderators, (bytes, np.ndarray))
        and all(isinstance(c, str) for c in moderators)
    ):
        cols = [moderators] if isinstance(moderators, str) else list(moderators)
        if effects is None:
            raise MetaInputError(
                f"moderators={moderators!r} names columns, which needs an EffectSizes input (its "
                "extra columns); with arrays pass a DataFrame or a mapping column -> values"
            )
        return [(c, _effects_column(effects, c, names, f"moderator {c!r}")) for c in cols]
    if isinstance(moderators, pd.DataFrame):
        frame = moderators
        if not _is_default_index(frame.index):
            return [(str(c), _align(frame[c], f"moderators (DataFrame index), column {c!r}",
                                    names)) for c in frame.columns]
        return [(str(c), _align(frame[c].to_numpy(dtype=object), f"moderator {c!r}", names))
                for c in frame.columns]
    if isinstance(moderators, pd.Series):
        if moderators.name is None:
            raise MetaInputError("moderators: a pandas Series needs a name (the moderator's name)")
        name = str(moderators.name)
        return [(name, _align(moderators, f"moderator {name!r}", names))]
    if isinstance(moderators, Mapping):
        return [(str(c), _align(vals, f"moderator {c!r}", names)) for c, vals in moderators.items()]
    raise MetaInputError(
        "moderators must be a pandas DataFrame, a mapping column name -> one value per study, or "
        f"(with an EffectSizes) column names; got {type(moderators).__name__}"
    )


def _is_missing(x: Any) -> bool:
    """None, NaN, NaT or pd.NA."""
    import pandas as pd

    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):  # not a scalar
        return False


def _levels(values: np.ndarray, dtype_source: Any = None) -> list[Any]:
    """Levels of a categorical moderator: a pandas Categorical's categories (those observed), in
    order; otherwise the sorted distinct values (R's ``factor``)."""
    import pandas as pd

    if isinstance(dtype_source, pd.CategoricalDtype):
        observed = set(values.tolist())
        return [c for c in dtype_source.categories if c in observed]
    distinct = set(values.tolist())
    try:
        return sorted(distinct)
    except TypeError:
        return sorted(distinct, key=str)


def _encode(name: str, values: np.ndarray, names: tuple[str, ...], dtype_source: Any = None
            ) -> tuple[list[str], list[np.ndarray], str]:
    """Columns of X for one moderator: numeric → itself; categorical (strings, booleans, pandas
    categories) → one 0/1 dummy per level but the first (treatment coding), named
    ``name + level`` (booleans: ``nameTRUE``) like R's ``model.matrix``. Returns
    (column names, columns, kind)."""
    import pandas as pd

    for i, x in enumerate(values):
        if _is_missing(x):
            raise MetaInputError(
                f"moderator {name!r} is missing for study {names[i]!r} (position {i}); metafor "
                "would drop the study: remove it or fill in the value"
            )
    categorical = isinstance(dtype_source, pd.CategoricalDtype)
    is_bool = all(isinstance(x, (bool, np.bool_)) for x in values)
    is_num = not is_bool and all(
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))
        for x in values
    )
    if is_num and not categorical:
        col = np.array(values, dtype=float)
        bad = np.flatnonzero(~np.isfinite(col))
        if bad.size:
            i = int(bad[0])
            raise MetaInputError(
                f"moderator {name!r} must be finite: study {names[i]!r} has {col[i]!r}"
            )
        return [name], [col], "numeric"
    if is_bool:
        values = np.array([bool(x) for x in values], dtype=object)
        levels: list[Any] = [False, True]
        labels = {False: "FALSE", True: "TRUE"}
    else:
        if not categorical and not all(isinstance(x, str) for x in values):
            kinds = sorted({type(x).__name__ for x in values})
            raise MetaInputError(
                f"moderator {name!r} mixes value types ({', '.join(kinds)}): use numbers for a "
                "numeric moderator and strings (or a pandas Categorical) for a categorical one"
            )
        levels = _levels(values, dtype_source)
        labels = {lv: str(lv) for lv in levels}
    present = [lv for lv in levels if any(x == lv for x in values)]
    if len(present) < 2:
        raise MetaInputError(
            f"moderator {name!r} has a single level ({labels[present[0]]!r}) among the studies: "
            "it cannot explain differences between them"
        )
    cols = [np.array([1.0 if x == lv else 0.0 for x in values]) for lv in present[1:]]
    return [f"{name}{labels[lv]}" for lv in present[1:]], cols, "categorical"


def _design(
    moderators: Any, names: tuple[str, ...], effects: Any
) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...]]:
    """``(X, coefficient names, moderator names)`` with the intercept ``intrcpt`` first."""
    import pandas as pd

    columns = _moderator_columns(moderators, names, effects)
    if not columns:
        raise MetaInputError("moderators has no columns")
    dtypes: dict[str, Any] = {}
    if isinstance(moderators, pd.DataFrame):
        dtypes = {str(c): moderators[c].dtype for c in moderators.columns}
    elif isinstance(moderators, pd.Series):
        dtypes = {str(moderators.name): moderators.dtype}
    elif isinstance(moderators, Mapping):
        dtypes = {str(c): getattr(v, "dtype", None) for c, v in moderators.items()}
    elif effects is not None and getattr(effects, "extra", None) is not None:
        extra = effects.extra
        dtypes = {c: extra[c].dtype for c, _ in columns if c in extra.columns}
    mod_names = tuple(c for c, _ in columns)
    dups = sorted({c for c in mod_names if mod_names.count(c) > 1})
    if dups:
        raise MetaInputError(f"moderators: repeated column name(s) {dups}")
    k = len(names)
    coef_names = ["intrcpt"]
    cols = [np.ones(k)]
    for name, values in columns:
        cn, cv, _ = _encode(name, values, names, dtypes.get(name))
        coef_names += cn
        cols += cv
    dups = sorted({c for c in coef_names if coef_names.count(c) > 1})
    if dups:
        raise MetaInputError(f"moderators: coefficient name(s) {dups} occur twice; rename a column")
    X = np.column_stack(cols)
    p = X.shape[1]
    if k <= p:
        raise MetaInputError(
            f"a meta-regression with {p} coefficients ({', '.join(coef_names)}) needs more than "
            f"{p} studies; there are {k}"
        )
    # full column rank, checked column by column on unit-length columns (scale-free)
    unit = X / np.linalg.norm(X, axis=0)
    for j in range(1, p):
        if np.linalg.matrix_rank(unit[:, : j + 1], tol=1e-9) <= j:
            raise MetaInputError(
                f"moderator column {coef_names[j]!r} is constant or a linear combination of the "
                f"intercept and the columns before it ({', '.join(coef_names[:j])}); metafor "
                "drops such redundant predictors: remove it"
            )
    return X, tuple(coef_names), mod_names
