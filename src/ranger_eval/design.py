"""The design of a Scores table, resolved once (:func:`resolve_design` → :class:`Design`).

Every bootstrap, permutation and interval of ranger-eval asks the design which unit it
resamples, never the columns of the table:

* **resampling unit**: the *cluster* when the scores have a ``cluster`` column (questions about
  one passage, turns of one conversation …), else the *item*. Clusters are nested within
  datasets (:mod:`ranger_eval.scores`): the unit of dataset d is the pair (d, cluster id), so
  the same id in two datasets names two units. A cluster bootstrap draws whole clusters with
  replacement (Field & Welsh 2007, JRSS B 69:369; Cameron & Miller 2015, J. Human Resources
  50:317, sec. VI.A); the resampled mean is the ratio sum_k w_k S_k / sum_k w_k m_k (w_k the
  draws of cluster k, S_k its sum, m_k its items), the estimator of
  :func:`ranger_eval.stats.clustered.cluster_bootstrap_means`.
* **samples** (the ``sample`` column: K generations per item) are averaged per item by
  :class:`~ranger_eval.scores.Scores` before any test: they stay within their item, which is
  resampled (or its cluster) as one unit.
* **prompts** (the ``prompt`` column: prompt templates or paraphrases crossed with the items)
  are averaged per item like samples for the per-item analyses; :attr:`Design.has_prompts`
  tells the analyses that model them (``compare``'s crossed random-effects test of the paired
  difference per item × prompt, :func:`ranger_eval.variance_components`) to read the rows per
  prompt (:attr:`~ranger_eval.scores.Scores.raw_frame`). An analysis that would read one
  value per item (the mean over its prompts) as independent — an item bootstrap, a battle per
  item, a per-item aggregate, a sequential or prediction-powered test — calls
  :func:`refuse_prompts`: an error naming the ``prompt`` column and what to use instead
  (tests/test_design_prompts.py lists what every public analysis does with prompts). Analyses
  whose unit is the dataset (``rank_test``) or the run (ASO) read a mean over items and
  prompts alike and honour them.
* **seeds** (the ``seed`` column) are combined as today: averaged per item for the paired
  resampling of rank intervals and tests, crossed with the items for effect sizes.

What it says in outputs: :attr:`Design.label` (``cluster(passage)`` / ``item``) is the value
of the signature field ``resample:`` (:attr:`Design.signature_fields`); :meth:`Design.caption`
is the phrase of captions and figure footers ("resampling clusters (passage), n_clusters = 40"
or "resampling items, n = 200").
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from .errors import RangerError, ScoresError
from .scores import Scores

__all__ = ["Design", "PROMPT_ALTERNATIVES", "RESAMPLE_FIELD", "UNITS", "refuse_prompts", "resolve_design"]

#: The signature field naming the resampling unit.
RESAMPLE_FIELD = "resample"
#: The resampling units, most coarse first (cluster > item).
UNITS: tuple[str, ...] = ("cluster", "item")


@dataclass(frozen=True)
class Design:
    """The resolved design of one :class:`~ranger_eval.scores.Scores` table.

    ``unit`` is ``"cluster"`` (the table has a ``cluster`` column) or ``"item"``;
    ``cluster_name`` the user's name of the cluster field (``"passage"`` when read with
    ``--cluster passage`` / ``cluster="passage"``, ``"cluster"`` for a column named so; None
    without clusters); ``has_samples`` / ``samples_label`` and ``has_seeds`` say whether
    generations per item (averaged within their item) and training seeds are present.
    Build it with :func:`resolve_design`.

    Parameters
    ----------
    unit : {"cluster", "item"}
        The resampling unit.
    cluster_name : str or None
        The user's name of the cluster field (None without clusters).
    has_samples : bool
        The table had a ``sample`` column (K generations per item, averaged per item).
    has_seeds : bool
        The table has a ``seed`` column.
    samples_label : str, optional
        K (``"5"``) or the range of K (``"3-5"``); None without samples.
    has_prompts : bool
        The table had a ``prompt`` column (crossed with items; averaged per item for per-item
        analyses, modelled by the crossed random-effects test).
    scores : Scores, optional
        The table itself, needed by :meth:`units`, :meth:`n_units` and :meth:`row_units`.

    References
    ----------
    Field, C. A. & Welsh, A. H. (2007), "Bootstrapping clustered data", JRSS B 69:369–390;
    Cameron, A. C. & Miller, D. L. (2015), "A practitioner's guide to cluster-robust inference",
    Journal of Human Resources 50:317–372, sec. VI.A.

    Examples
    --------
    >>> from ranger_eval import Scores, resolve_design
    >>> design = resolve_design(Scores.from_arrays({"qa": {"a": [1, 0, 1], "b": [0, 0, 1]}}))
    >>> design.unit, design.label, design.caption(3)
    ('item', 'item', 'resampling items, n = 3')
    """

    unit: Literal["cluster", "item"]
    cluster_name: str | None
    has_samples: bool
    has_seeds: bool
    samples_label: str | None = None
    has_prompts: bool = False
    scores: Scores | None = field(default=None, repr=False, compare=False)

    @property
    def clustered(self) -> bool:
        """True when whole clusters are the resampling unit."""
        return self.unit == "cluster"

    @property
    def label(self) -> str:
        """``cluster(NAME)`` or ``item``: the value of the signature field ``resample:``."""
        return f"cluster({self.cluster_name})" if self.clustered else "item"

    @property
    def signature_fields(self) -> dict[str, str]:
        """The fields a resampling result adds to its signature: ``{"resample": label}``."""
        return {RESAMPLE_FIELD: self.label}

    @property
    def unit_name(self) -> str:
        """The plural noun of the unit: ``clusters (passage)`` or ``items``."""
        return f"clusters ({self.cluster_name})" if self.clustered else "items"

    @property
    def count_name(self) -> str:
        """The name of the unit count in captions and tables: ``n_clusters`` or ``n``."""
        return "n_clusters" if self.clustered else "n"

    def caption(self, n_units: int | None = None) -> str:
        """The plain phrase of captions and footers: ``resampling clusters (passage),
        n_clusters = 40`` or ``resampling items, n = 200`` (without the count when
        ``n_units`` is None).

        Parameters
        ----------
        n_units : int, optional
            The number of resampling units to state (clusters or items).

        Returns
        -------
        str
            The phrase, without a final full stop.

        Examples
        --------
        >>> import pandas as pd
        >>> import ranger_eval as rg
        >>> table = pd.DataFrame({"dataset": "qa", "system": ["A"] * 4 + ["B"] * 4,
        ...                       "item": ["q1", "q2", "q3", "q4"] * 2,
        ...                       "cluster": ["p1", "p1", "p2", "p2"] * 2,
        ...                       "value": [1, 0, 1, 1, 0, 0, 1, 0]})
        >>> design = rg.resolve_design(table)
        >>> design.caption(2)
        'resampling clusters (cluster), n_clusters = 2'
        >>> design.caption()
        'resampling clusters (cluster)'
        """
        text = f"resampling {self.unit_name}"
        return text if n_units is None else f"{text}, {self.count_name} = {int(n_units)}"

    def _need_scores(self) -> Scores:
        if self.scores is None:
            raise ScoresError("this Design was built without its scores; use "
                              "resolve_design(scores)")
        return self.scores

    def units(self, dataset: str, items: Sequence[str] | np.ndarray) -> np.ndarray:
        """The resampling unit of each of ``items`` of ``dataset``, as int64 codes 0 … U − 1
        aligned with ``items`` (e.g. a pairing group's items): the cluster codes in sorted
        cluster-id order (:meth:`Scores.cluster_codes`), or ``0 … n − 1`` (one unit per item,
        in the given order) without clusters. An item unknown in the dataset is a
        :class:`~ranger_eval.errors.ScoresError` when clustered.

        Parameters
        ----------
        dataset : str
            Which dataset.
        items : sequence of str or numpy.ndarray
            Item ids of that dataset.

        Returns
        -------
        numpy.ndarray
            int64 unit codes aligned with ``items``.

        Raises
        ------
        ScoresError
            Clustered and an item is unknown, or the design was built without its scores.

        Examples
        --------
        >>> import pandas as pd
        >>> import ranger_eval as rg
        >>> table = pd.DataFrame({"dataset": "qa", "system": ["A"] * 4 + ["B"] * 4,
        ...                       "item": ["q1", "q2", "q3", "q4"] * 2,
        ...                       "cluster": ["p1", "p1", "p2", "p2"] * 2,
        ...                       "value": [1, 0, 1, 1, 0, 0, 1, 0]})
        >>> design = rg.resolve_design(table)
        >>> design.units("qa", ["q4", "q1", "q2"]).tolist()
        [1, 0, 0]
        """
        arr = np.asarray(items, dtype=object)
        if not self.clustered:
            return np.arange(arr.size, dtype=np.int64)
        return self._need_scores().cluster_codes(dataset, arr)

    def n_units(self, dataset: str, items: Sequence[str] | np.ndarray) -> int:
        """The number of resampling units among ``items`` of ``dataset`` (clusters, or items).

        Parameters
        ----------
        dataset : str
            Which dataset.
        items : sequence of str or numpy.ndarray
            Item ids of that dataset.

        Returns
        -------
        int
            U, the number of distinct units (0 for no items).

        Examples
        --------
        >>> import pandas as pd
        >>> import ranger_eval as rg
        >>> table = pd.DataFrame({"dataset": "qa", "system": ["A"] * 4 + ["B"] * 4,
        ...                       "item": ["q1", "q2", "q3", "q4"] * 2,
        ...                       "cluster": ["p1", "p1", "p2", "p2"] * 2,
        ...                       "value": [1, 0, 1, 1, 0, 0, 1, 0]})
        >>> design = rg.resolve_design(table)
        >>> design.n_units("qa", ["q1", "q2", "q3"])
        2
        """
        codes = self.units(dataset, items)
        return int(codes.max()) + 1 if codes.size else 0

    def row_units(self) -> np.ndarray:
        """The resampling unit of every row of the scores' :attr:`~Scores.table`, as int64
        codes unique across datasets (units are nested within datasets): (dataset, cluster id)
        with clusters, (dataset, item) without; for columnar engines that resample rows.

        Returns
        -------
        numpy.ndarray
            int64 codes, one per row, 0 … U − 1 in order of first appearance.

        Raises
        ------
        ScoresError
            The design was built without its scores.

        Examples
        --------
        >>> import pandas as pd
        >>> import ranger_eval as rg
        >>> table = pd.DataFrame({"dataset": "qa", "system": ["A"] * 4 + ["B"] * 4,
        ...                       "item": ["q1", "q2", "q3", "q4"] * 2,
        ...                       "cluster": ["p1", "p1", "p2", "p2"] * 2,
        ...                       "value": [1, 0, 1, 1, 0, 0, 1, 0]})
        >>> design = rg.resolve_design(table)
        >>> design.row_units().tolist()
        [0, 0, 1, 1, 0, 0, 1, 1]
        """
        scores = self._need_scores()
        if self.clustered:
            return scores._row_cluster_codes()[0].copy()
        dcodes, _ = scores.codes("dataset")
        icodes, iuniq = scores.codes("item")
        joint = dcodes.astype(np.int64) * max(len(iuniq), 1) + icodes.astype(np.int64)
        codes, _ = pd.factorize(joint, sort=False)
        return codes.astype(np.int64, copy=False)


def resolve_design(scores: Scores | pd.DataFrame) -> Design:
    """The design of ``scores``, resolved once for every bootstrap, permutation and interval.

    The resampling unit is the cluster if the table has a ``cluster`` column, else the item;
    also the cluster field's name, and whether there are samples and seeds (module docstring).

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        The scores (a frame is validated into :class:`~ranger_eval.Scores` first).

    Returns
    -------
    Design
        ``unit``, ``cluster_name``, ``has_samples``, ``has_seeds``; its ``label`` is the
        signature's ``resample:`` field and ``caption()`` the phrase of captions.

    Raises
    ------
    ScoresError
        A table that is not valid scores.

    References
    ----------
    Field, C. A. & Welsh, A. H. (2007), "Bootstrapping clustered data", JRSS B 69:369–390;
    Cameron, A. C. & Miller, D. L. (2015), "A practitioner's guide to cluster-robust inference",
    Journal of Human Resources 50:317–372, sec. VI.A.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> table = pd.DataFrame({"dataset": "qa", "system": ["A"] * 4 + ["B"] * 4,
    ...                       "item": ["q1", "q2", "q3", "q4"] * 2,
    ...                       "cluster": ["p1", "p1", "p2", "p2"] * 2,
    ...                       "value": [1, 0, 1, 1, 0, 0, 1, 0]})
    >>> design = rg.resolve_design(table)
    >>> design.unit, design.label, design.has_seeds
    ('cluster', 'cluster(cluster)', False)
    """
    if not isinstance(scores, Scores):
        scores = Scores(scores)
    clustered = scores.has_cluster
    return Design(
        unit="cluster" if clustered else "item",
        cluster_name=scores.cluster_name if clustered else None,
        has_samples=scores.has_samples,
        has_seeds=scores.has_seeds,
        samples_label=scores.samples_label,
        has_prompts=scores.has_prompts,
        scores=scores,
    )


#: What to do instead of an analysis refused with prompts (:func:`refuse_prompts`).
PROMPT_ALTERNATIVES = (
    "compare the systems with `compare` or `ranger-eval compare` (its paired t becomes the "
    "crossed random-effects test of the item × prompt differences), rank them with "
    "`rank_systems`, `rank_test` or `ranger-eval rank` (datasets are their unit), or average the prompts away yourself (one row per item) if the prompts "
    "are the fixed population of interest")


def refuse_prompts(scores: Scores, *, where: str, why: str,
                   error: type[RangerError] = ScoresError,
                   instead: str = PROMPT_ALTERNATIVES) -> None:
    """Raise ``error`` when ``scores`` have a ``prompt`` column and the analysis ``where``
    would average the prompts away (module docstring).

    Such an analysis reads one value per item (the mean over its prompts, samples and seeds)
    and treats the items as independent: every item shares the same prompts, so the prompt
    variance σ²_prompt/n_prompts is left out of its standard errors, intervals or resamples
    (too small; Madaan et al. 2024, "Quantifying Variance in Evaluation Benchmarks"). The
    error says ``why`` and what to do instead; nothing happens without prompts.

    Parameters
    ----------
    scores : Scores
        The scores of the analysis.
    where : str
        The analysis, as the error names it (``win_rate``).
    why : str
        How the analysis would read the rows (what averages the prompts away).
    error : type of RangerError, default ScoresError
        The error class of the analysis' layer.
    instead : str, default PROMPT_ALTERNATIVES
        What to do instead.

    Returns
    -------
    None
        Without a ``prompt`` column.

    Raises
    ------
    RangerError
        ``error``, when the scores have a ``prompt`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.design import refuse_prompts
    >>> table = pd.DataFrame({"dataset": "qa", "system": "A", "item": ["q1", "q1"],
    ...                       "prompt": ["p1", "p2"], "value": [1.0, 0.0]})
    >>> try:
    ...     refuse_prompts(rg.Scores(table), where="f", why="its bootstrap draws items")
    ... except rg.RangerError as exc:
    ...     print(str(exc)[:60])
    f: the scores have a 'prompt' column; its bootstrap draws it
    """
    if scores.has_prompts:
        raise error(f"{where}: the scores have a 'prompt' column; {why}, which would average "
                    "the prompts away and leave the prompt variance every item shares out "
                    f"(too small); {instead}")
