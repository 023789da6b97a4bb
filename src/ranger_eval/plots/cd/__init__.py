"""Critical-difference (CD) diagram of a multi-dataset rank test (Demšar 2006, Figs. 1–2).

Draws a :class:`~ranger_eval.aggregate.ranktests.RankTest` as the machine-learning and
time-series communities know it (Demšar 2006; Orange's ``graph_ranks``; aeon's
``plot_critical_difference``):

* a horizontal axis of average ranks from 1 to k at the top, ticks at the integers (and halves),
  rank 1 (best) at the left unless ``reverse=True``;
* every system hangs from its average rank on the axis by an elbow line: the better half of the
  axis to the left, labelled ``name  2.14``, the other half to the right, labelled
  ``2.86  name`` (average rank to two decimals, next to its line); the system nearest an edge
  of the axis hangs highest, so no two lines cross;
* thick black bars under the axis join the systems of each clique (the result's ``cliques``:
  maximal groups of systems not significantly different), packed into as few rows as possible;
* a scale bar "CD = 1.25" above the axis when the test has a critical difference (Nemenyi,
  Bonferroni–Dunn); with Bonferroni–Dunn, the interval control ± CD is also drawn under the axis
  (Demšar Fig. 2). Holm and Wilcoxon post-hoc tests have no CD: cliques only.
* a footer saying what the bars mean, the Friedman test, and the result's signature (small).
* for ``rank_test(approach="bayesian")`` (a ``BayesianRankTest``): its decisions on the same
  axis of average ranks — black bars join practically equivalent systems (every pair
  P(rope) ≥ level), grey bars systems with no decided difference; no CD, and the footer
  names the ROPE instead of the Friedman test.

Nothing is computed here: every number comes from the result. Lengths are laid out in inches
from the measured width of every text, so labels never overlap; font sizes are fixed (9 pt
labels, 8.5 pt ticks, 7 pt signature) and the figure grows with the number of systems, up to
one page (its default width is at most 8.5 in: 50 systems fit). Names are
drawn literally (no mathtext: ``$`` and ``_`` stay as written). The figure is a plain
:class:`matplotlib.figure.Figure` (no pyplot state); rcParams are only used inside
``rc_context``. Save it with :func:`~ranger_eval.plots.save_figure` (PDF with TrueType fonts,
SVG with editable text, PNG at 300 dpi).

The parts: ``options.py`` (:class:`CDOptions`, the keywords that are not the data),
``check.py`` (the rank test's numbers checked into a frozen :class:`CDData`), ``layout.py``
(every length in inches, a frozen :class:`CDLayout`), ``draw.py`` (the figure from the layout)
and ``plot.py`` (:func:`cd_diagram`).
"""
from .check import CDData
from .layout import CDLayout
from .options import CDOptions
from .plot import cd_diagram

__all__ = ["CDData", "CDLayout", "CDOptions", "cd_diagram"]
