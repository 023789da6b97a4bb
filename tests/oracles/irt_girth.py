"""Oracle of ranger_eval.irt(model="2pl"): girth's ``twopl_mml`` (marginal ML, EM) on simulated
0/1 responses. Run: python tests/oracles/irt_girth.py (pip install girth; test-only peer)."""
import json
from pathlib import Path

import numpy as np
from girth import twopl_mml

rng = np.random.default_rng(20250131)
cases = []
for n, k in ((500, 15), (800, 10)):
    theta = rng.normal(size=n)
    a = rng.uniform(0.7, 2.0, size=k)
    b = rng.normal(size=k)
    x = (rng.random((n, k)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(int)
    fit = twopl_mml(x.T)
    cases.append({"responses": x.tolist(),
                  "discrimination": np.asarray(fit["Discrimination"]).tolist(),
                  "difficulty": np.asarray(fit["Difficulty"]).tolist()})
Path(__file__).with_name("irt_girth.json").write_text(json.dumps(cases))
