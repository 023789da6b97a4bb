"""The column names of a Scores table and their roles: required and optional columns, the
cluster, sample, prompt and human-value columns, bounds, the default metric and missing-value policies.
"""
from __future__ import annotations

REQUIRED = ("dataset", "system", "item", "value")
OPTIONAL = ("metric", "seed", "sample", "prompt", "cluster", "human_value", "label", "prediction")
LABEL = "label"
PREDICTION = "prediction"
#: optional column: the cluster (passage, document, conversation, template …) of an item
CLUSTER = "cluster"
#: key of a frame's ``attrs`` holding the user's name of the cluster field (module docstring)
CLUSTER_NAME = "ranger_eval.cluster_name"
#: key of a frame's ``attrs`` holding the declared range of each metric, ``{metric: (lo, hi)}``
#: (:meth:`Scores.with_bounds`; YAML ``bounds:``)
BOUNDS = "ranger_eval.bounds"
#: key of a frame's ``attrs`` recording how per-item values were estimated from samples,
#: ``{"estimator": "pass@3", "samples": "5"}`` (:func:`ranger_eval.pass_at_k` /
#: :func:`ranger_eval.pass_hat_k`; the signatures' ``passk:`` and ``samples:`` fields)
PASSK = "ranger_eval.passk"


def passk_fields(scores: object) -> tuple[str | None, str | None]:
    """``(estimator, samples)`` recorded in the table's ``attrs[PASSK]`` by
    :func:`~ranger_eval.pass_at_k` / :func:`~ranger_eval.pass_hat_k` (e.g. ``("pass@3", "5")``,
    ``"4-5"`` when items had different K): the signatures' ``passk:`` and ``samples:`` fields
    of per-item estimates; ``(None, None)`` for any other scores.

    Parameters
    ----------
    scores : Scores
        Any scores (an object without a ``table`` gives ``(None, None)``).

    Returns
    -------
    tuple of (str or None, str or None)
        The estimator and the samples per item.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.scores import passk_fields
    >>> df = pd.DataFrame({"dataset": "code", "system": "a", "item": ["1"] * 3 + ["2"] * 3,
    ...                    "sample": [1, 2, 3] * 2, "value": [1, 0, 0, 1, 1, 0]})
    >>> passk_fields(rg.pass_at_k(df, 2)), passk_fields(rg.Scores(df))
    (('pass@2', '3'), (None, None))
    """
    made = getattr(getattr(scores, "table", None), "attrs", {}).get(PASSK)
    if not isinstance(made, dict):
        return None, None
    return made.get("estimator"), made.get("samples")
#: optional column: which of K generations of one system on one item a row is
SAMPLE = "sample"
#: optional column: which prompt template or paraphrase of an item a row answers (crossed with
#: the items; unbalanced and missing item × prompt cells allowed)
PROMPT = "prompt"
#: optional column: a human score of the row's output where one exists (NaN elsewhere)
HUMAN_VALUE = "human_value"
DEFAULT_METRIC = "score"
MISSING_POLICIES = ("error", "intersect")
#: identifier columns; index levels with these names become columns (``df.reset_index()``)
KEY_COLUMNS = ("dataset", "system", "metric", "item", "seed", "prompt", "sample")
