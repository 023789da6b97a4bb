"""Every public analysis that takes per-item scores, given scores with a ``prompt`` column,
either honours the prompts (listed in HONOURS with what it does with them) or raises a
RangerError naming the ``prompt`` column (REFUSES; :func:`ranger_eval.design.refuse_prompts`).
The walk fails when a new public function is in neither table (nor in NOT_SCORES)."""
from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.comparison.prompts import CROSSED
from ranger_eval.design import refuse_prompts
from ranger_eval.verdicts.aso import aso_groups
from ranger_eval.verdicts.bayes import correlated_ttests, dataset_tests


def _table(*, seeds: int = 1, datasets: int = 2, items: int = 8) -> pd.DataFrame:
    """Systems A > B > C on ``datasets`` datasets × ``items`` items × 3 prompts crossed."""
    rng = np.random.default_rng(3)
    rows = [{"dataset": f"d{d}", "system": s, "item": f"q{i}", "prompt": f"p{p}",
             "seed": e, "value": round(mu + 0.1 * p + 0.05 * i + rng.normal(0, 0.2), 4)}
            for d in range(datasets) for s, mu in (("A", 0.7), ("B", 0.5), ("C", 0.3))
            for i in range(items) for p in range(3) for e in range(seeds)]
    frame = pd.DataFrame(rows)
    return frame if seeds > 1 else frame.drop(columns="seed")


SCORES = rg.Scores(_table())
#: 0/1 scores with samples (pass@k, IRT) and with seeds (ASO)
BINARY = rg.Scores(_table().assign(value=lambda f: (f["value"] > 0.6).astype(float)))
SEEDED = rg.Scores(_table(seeds=5, datasets=1, items=4))
SAMPLED = rg.Scores(pd.concat([_table(datasets=1).assign(sample=e) for e in range(3)])
                    .assign(value=lambda f: (f["value"] + 0.1 * f["sample"] > 0.6).astype(float)))
JUDGED = rg.Scores(_table(datasets=1).assign(human_value=lambda f: f["value"] + 0.05))


def _crossed(comp: Any) -> None:
    assert (comp.to_frame()["ci_method"] == CROSSED).all()
    assert "prompts:crossed(3)" in str(comp.signature)


def _crossed_rows(table: pd.DataFrame) -> None:
    """The per-dataset rows an aggregate combines were the crossed model's."""
    assert (table.loc[table["dataset"] != "aggregate", "ci_method"] == CROSSED).all()


#: name → (call, check of how it honours the prompts)
HONOURS: dict[str, tuple[Callable[[], Any], Callable[[Any], None]]] = {
    # the crossed random-effects test of item × prompt differences (comparison.prompts)
    "compare": (lambda: rg.compare(SCORES), _crossed),
    # the crossed model's rows, combined over datasets by the harmonic mean p
    "aggregate_comparisons": (lambda: rg.aggregate_comparisons(rg.compare(SCORES)),
                              lambda r: _crossed_rows(r.to_frame())),
    # se_crossed beside se, and a note on the prompt (template) variance
    "describe": (lambda: rg.describe(SCORES),
                 lambda r: "se_crossed" in r.columns and "prompt" in r.attrs["note"]),
    # the per-dataset tests are compare's crossed model; its signature says so
    "rank_systems": (lambda: rg.rank_systems(SCORES, comparisons="all"),
                     lambda r: "prompts:crossed(3)" in str(r.signature)),
    # datasets are its unit: a system's dataset score is its mean over items and prompts
    "rank_test": (lambda: rg.rank_test(SCORES), lambda r: r.n_datasets == 2),
    # REML components per system × dataset with a prompt and an item:prompt term
    "variance_components": (lambda: rg.variance_components(SCORES),
                            lambda r: (r.to_frame()["n_prompts"] == 3).all()),
    # per item × prompt estimates: the prompt column stays in the key
    "pass_at_k": (lambda: rg.pass_at_k(SAMPLED, 2), lambda r: r.has_prompts),
    "pass_hat_k": (lambda: rg.pass_hat_k(SAMPLED, 2), lambda r: r.has_prompts),
    # the design says it has prompts (the analyses above ask it)
    "resolve_design": (lambda: rg.resolve_design(SCORES), lambda r: r.has_prompts),
    # ASO's unit is the run (seed): each run's score is its mean over the fixed benchmark's
    # items and prompts alike (items are not resampled either)
    "multi_aso": (lambda: rg.multi_aso(SEEDED, n_resamples=20, seed=0),
                  lambda r: r is not None),
    "aso_groups": (lambda: aso_groups(SEEDED, n_resamples=20, seed=0),
                   lambda r: r is not None),
    # Bayesian tests over datasets (one mean per dataset × system)
    "dataset_tests": (lambda: dataset_tests(_many_datasets(), test="signed-rank"),
                      lambda r: r is not None),
}


def _many_datasets() -> rg.Scores:
    return rg.Scores(_table(datasets=5, items=3))


#: name → call that must raise a RangerError naming the prompt column
REFUSES: dict[str, Callable[[], Any]] = {
    "rank_intervals": lambda: rg.rank_intervals(SCORES, n_resamples=50),
    "effect_sizes": lambda: rg.effect_sizes(SCORES, treatment="A", control="B"),
    "plan_from_pilot": lambda: rg.plan_from_pilot(SCORES, treatment="A", control="B",
                                                  effect=0.1, power=0.8),
    "win_rate": lambda: rg.win_rate(SCORES),
    "win_rate (tidy frame)": lambda: rg.win_rate(_table()),
    "battles_from_scores": lambda: rg.battles_from_scores(SCORES),
    "battle_counts": lambda: rg.battle_counts(SCORES),
    "aggregate_metrics": lambda: rg.aggregate_metrics(SCORES, higher_is_better=True),
    "error_reduction": lambda: rg.error_reduction(SCORES, treatment="A", control="B"),
    "predictive_check": lambda: rg.predictive_check(SCORES, treatment="A", control="B"),
    "cross_dataset_estimates": lambda: rg.cross_dataset_estimates(
        rg.error_reduction(SCORES, treatment="A", control="B")),
    "condition_and_compare": lambda: rg.condition_and_compare(
        SCORES, pd.DataFrame({"system": ["A", "B", "C"], "t": [0, 1, 1]}), compare=["t"]),
    "correlated_ttests": lambda: correlated_ttests(SCORES),
    "ppi_mean": lambda: rg.ppi_mean(JUDGED, system="A"),
    "ppi_mean_difference": lambda: rg.ppi_mean_difference(JUDGED, treatment="A",
                                                          control="B"),
    "monitor": lambda: rg.monitor(SCORES, control="B", treatment="A", dataset="d0"),
    "irt": lambda: rg.irt(BINARY),
    "estimate_from_subset": lambda: rg.estimate_from_subset(BINARY, BINARY),
    "choose_subset": lambda: rg.choose_subset(BINARY, 3),
    "compare (rank test)": lambda: rg.compare(SCORES, test="wilcoxon"),
}

#: public functions that take no per-item scores (what they take instead)
NOT_SCORES = {
    "effect_size": "two arrays", "effect_size_bootstrap": "two arrays",
    "meta_analysis": "effects", "subgroup_analysis": "effects", "regtest": "a MetaResult",
    "funnel_plot": "a result", "multi_forest_plot": "results", "cd_diagram": "a rank test",
    "forest_plot": "a result", "save_figure": "a figure", "load_experiment": "a path",
    "read_values": "a path", "read_item_scores": "a path", "read_scores": "a path",
    "run_experiment": "an experiment", "harmonic_mean_p": "p-values",
    "standardized_means": "a dataset summary", "topsis": "a matrix",
    "parse_signature": "text", "agreement": "ratings", "alt_test": "ratings",
    "bradley_terry": "battles (battles_from_scores / battle_counts refuse prompts)",
    "bayesian_correlated_ttest": "two arrays", "bayesian_signed_rank": "two arrays",
    "bayesian_sign_test": "two arrays", "confidence_sequence": "an array",
    "aso": "two arrays of run scores", "plan": "numbers",
    "open_scores": "a path (the lazy engines refuse a prompt column)",
}


def test_every_public_function_is_classified() -> None:
    public = {name for name in rg._EXPORTS if inspect.isfunction(getattr(rg, name))}
    classified = set(HONOURS) | {n.split(" ")[0] for n in REFUSES} | set(NOT_SCORES)
    assert public - classified == set(), "classify these functions for prompts"


#: the model fits (~0.5 s each on the shared machine): CI's tier
_SLOW = {"compare", "aggregate_comparisons", "describe", "rank_systems", "variance_components"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in _SLOW else n
                                  for n in sorted(HONOURS)])
def test_honours_prompts(name: str) -> None:
    call, check = HONOURS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = call()
    assert check(result) is not False


@pytest.mark.parametrize("name", sorted(REFUSES))
def test_refuses_prompts(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(rg.RangerError, match="prompt"):
            REFUSES[name]()


def test_refusal_says_why_and_what_to_do() -> None:
    with pytest.raises(rg.RangerError) as caught:
        rg.win_rate(SCORES)
    text = str(caught.value)
    assert text.startswith("win_rate: the scores have a 'prompt' column; ")
    assert "compare" in text and "average the prompts away yourself" in text
    refuse_prompts(rg.Scores(_table().drop(columns="prompt").drop_duplicates(
        ["dataset", "system", "item"])), where="x", why="y")  # no prompts: nothing raised
