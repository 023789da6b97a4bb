"""Figures of the Bayesian comparisons: they draw the result's numbers."""
from __future__ import annotations

import numpy as np
import pytest

import ranger_eval as rg
from ranger_eval.errors import PlotError
from ranger_eval.plots.bayes import posterior_plot, simplex_plot

X = np.array([0.80, 0.81, 0.79, 0.80, 0.82, 0.80, 0.81, 0.79, 0.80, 0.81])
Y = X + 0.004 * np.array([1, -1, 1, 0.5, -1, 1, -1, 1, 1, -0.5])


def _texts(fig):
    return " ".join(t.get_text() for t in fig.findobj(lambda o: hasattr(o, "get_text")))


def test_posterior_plot_shades_the_rope_and_states_the_probabilities():
    res = rg.bayesian_correlated_ttest(X, Y, rope=0.005, names=("A", "B"))
    fig = posterior_plot(res)
    text = _texts(fig)
    assert f"P(rope ±0.005) = {res.p_rope:.3f}" in text
    assert f"P(A better) = {res.p_left:.3f}" in text
    assert "B − A" in text and str(res.signature) in text
    ax = fig.axes[0]
    shaded = ax.collections[0].get_paths()[0].vertices[:, 0]
    assert shaded.min() >= -0.005 - 1e-9 and shaded.max() <= 0.005 + 1e-9


def test_simplex_plot_of_the_signed_rank_test():
    res = rg.bayesian_signed_rank(X, Y, rope=0.002, n_draws=3000, names=("A", "B"))
    fig = simplex_plot(res)
    text = _texts(fig)
    assert f"= {res.p_right:.3f}" in text and "P(rope ±0.002)" in text
    offsets = fig.axes[0].collections[0].get_offsets()
    assert len(offsets) > 0
    assert posterior_plot(res).axes[0].patches   # the histogram of θ_right − θ_left


def test_simplex_plot_refuses_the_t_test_and_other_objects():
    with pytest.raises(PlotError, match="posterior_plot"):
        simplex_plot(rg.bayesian_correlated_ttest(X, Y, rope=0.005))
    with pytest.raises(PlotError, match="bayesian_correlated_ttest"):
        posterior_plot(object())


def test_posterior_plot_title_and_no_false_zero():
    x = np.linspace(0.80, 0.81, 30)
    res = rg.bayesian_correlated_ttest(x, x + 0.013 + 0.001 * np.sin(np.arange(30)), rope=0.01,
                                       runs=3, names=("logreg", "svm"))
    assert 0 < res.p_left < 0.0005
    fig = posterior_plot(res, title="spam · accuracy: logreg vs svm")
    texts = [t.get_text() for t in fig.texts]
    assert "spam · accuracy: logreg vs svm" in texts
    line = next(t for t in texts if t.startswith("P(logreg better)"))
    assert "P(logreg better) < 0.001" in line and "= 0.000" not in line
