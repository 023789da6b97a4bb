"""bayesian_pairwise (the kernel of rank_test(approach="bayesian")) against autorank's
Bayesian decisions and posteriors on its own examples (tests/oracles/autorank_bayes_oracle.py)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ranger_eval.stats.bayes import DECISIONS, bayesian_pairwise

ORACLE = json.loads((Path(__file__).parents[1] / "oracles" / "autorank_bayes_oracle.json")
                    .read_text())
#: autorank's word for row vs column → ours (its "smaller": the column has smaller values)
WORDS = {"smaller": "better", "larger": "worse", "equal": "equivalent",
         "inconclusive": "inconclusive", "": ""}


@pytest.mark.parametrize("case", ORACLE["cases"], ids=lambda c: c["name"])
def test_equals_autorank_bayesian(case):
    s = case["settings"]
    ascending = s.get("order") == "ascending"
    res = bayesian_pairwise(np.array(case["values"]), tuple(case["columns"]),
                            rope=s.get("rope", 0.1), rope_mode=s.get("rope_mode", "effsize"),
                            level=1 - s.get("alpha", 0.05), n_samples=ORACLE["nsamples"],
                            seed=ORACLE["seed"], higher_is_better=not ascending)
    assert list(res.systems) == case["order"]
    assert res.all_normal == case["all_normal"]
    k = len(res.systems)
    for i in range(k):
        for j in range(k):
            word = WORDS[case["decisions"][i][j]]
            if ascending:   # autorank's "smaller" is then the better one: swap
                word = {"better": "worse", "worse": "better"}.get(word, word)
            assert res.decisions[i, j] == word, (i, j)
            assert res.decisions[i, j] in DECISIONS + ("",)
            if j > i:
                pl, pe, pr = case["posterior"][i][j]
                if ascending:
                    pl, pr = pr, pl
                assert (res.p_better[i, j], res.p_rope[i, j], res.p_better[j, i]) == \
                    pytest.approx((pl, pe, pr), abs=1e-12)
