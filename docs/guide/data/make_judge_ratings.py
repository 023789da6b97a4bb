"""Write the inputs of the guide page "Validate a judge" (simulated, not real results).

    python docs/guide/data/make_judge_ratings.py

* ``judge-ratings.csv``: a long ratings table (``item, rater, value``) of 120 chatbot answers
  rated for helpfulness on a 1-5 scale by four people (``ann-1`` … ``ann-4``, each a noisy
  reading of the answer's true quality, ``ann-4`` the noisiest, and ``ann-3`` skipping 15 % of
  the answers) and by an LLM judge (``llm-judge``, as noisy as the careful annotators but
  half a point lenient on the weaker answers);
* ``judge-scores.csv``: the judge's 0/1 verdict ("helpful") on the answers of two chatbots
  (``bot-a``, ``bot-b``) to 300 questions, with a person's verdict (``human_value``) on the first
  90; the judge agrees with the person on about 85 % of answers and passes some of ``bot-b``'s
  unhelpful ones.

Rerunning the script rewrites both files identically (fixed seed).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def ratings(rng: np.random.Generator, n: int = 120) -> pd.DataFrame:
    truth = rng.uniform(1, 5, n)
    rows = []
    for rater, noise, lenient, skip in (("ann-1", 0.55, 0.0, 0.0), ("ann-2", 0.65, 0.0, 0.0),
                                        ("ann-3", 0.6, 0.0, 0.15), ("ann-4", 1.1, 0.0, 0.0),
                                        ("llm-judge", 0.55, 0.5, 0.0)):
        value = truth + rng.normal(0, noise, n) + lenient * (truth < 3)
        value = np.clip(np.round(value), 1, 5)
        shown = rng.random(n) >= skip
        rows += [{"item": f"a{i:03d}", "rater": rater, "value": int(value[i])}
                 for i in range(n) if shown[i]]
    return pd.DataFrame(rows)


def scores(rng: np.random.Generator, n: int = 300, n_human: int = 90) -> pd.DataFrame:
    rows = []
    for system, skill, lenient in (("bot-a", 0.62, 0.05), ("bot-b", 0.58, 0.35)):
        human = (rng.random(n) < skill).astype(int)
        judge = np.where(rng.random(n) < 0.88, human, 1 - human)
        judge = np.where((human == 0) & (rng.random(n) < lenient), 1, judge)
        rows += [{"dataset": "helpfulness", "system": system, "item": f"q{i:03d}",
                  "value": int(judge[i]), "human_value": int(human[i]) if i < n_human else None}
                 for i in range(n)]
    frame = pd.DataFrame(rows)
    frame["human_value"] = frame["human_value"].astype("Int64")
    return frame


def main() -> None:
    rng = np.random.default_rng(20260401)
    ratings(rng).to_csv(HERE / "judge-ratings.csv", index=False)
    scores(rng).to_csv(HERE / "judge-scores.csv", index=False)


if __name__ == "__main__":
    main()
