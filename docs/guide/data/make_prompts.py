"""Write ``prompts.csv``, the input of the guide's prompts and D-study section (simulated).

    python docs/guide/data/make_prompts.py

Two models (``base``, ``tuned``) answer 80 questions, each under 6 prompt templates (``t1`` …
``t6``) with 3 sampled answers per question and template, scored 0/1 correct. A question's
difficulty varies (sd 1.2 on the logit scale), a template helps or hurts every question (sd 0.5;
for ``tuned`` partly the same templates, correlation 0.5), question × template has its own
effect (sd 0.4), and ``tuned`` is 0.25 logits better. Template ``t6`` was not run for ``base``
on the last 10 questions (missing cells are allowed). The file is committed; rerunning the
script rewrites it identically (fixed seed).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def main() -> None:
    rng = np.random.default_rng(30)
    n_q, n_t, n_s = 80, 6, 3
    difficulty = rng.normal(0.3, 1.2, n_q)
    shared = rng.normal(0, 0.5, n_t)
    rows = []
    for model, gain in (("base", 0.0), ("tuned", 0.25)):
        own = 0.5 * shared + np.sqrt(1 - 0.25) * rng.normal(0, 0.5, n_t)
        template = shared if model == "base" else own
        for q in range(n_q):
            for t in range(n_t):
                if model == "base" and t == n_t - 1 and q >= n_q - 10:
                    continue
                logit = difficulty[q] + template[t] + rng.normal(0, 0.4) + gain
                p = 1 / (1 + np.exp(-logit))
                for s in range(n_s):
                    rows.append({"dataset": "qa", "system": model, "item": f"q{q + 1:03d}",
                                 "prompt": f"t{t + 1}", "sample": s + 1,
                                 "value": int(rng.random() < p)})
    pd.DataFrame(rows).to_csv(HERE / "prompts.csv", index=False)


if __name__ == "__main__":
    main()
