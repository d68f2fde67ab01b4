"""bench/train_detector.py: the shipped prose model is one linear model equal to the logit blend."""

from __future__ import annotations

import numpy as np
import pytest

from bench.train_detector import blend_model, blend_probs, predict


@pytest.mark.parametrize("w", [0.0, 0.25, 0.5, 1.0])
def test_blend_model_equals_blended_probabilities(w):
    rng = np.random.default_rng(0)
    n = 6
    hand = {"mean": np.zeros(n), "scale": np.ones(n), "coef": rng.normal(size=n), "intercept": -1.0}
    fitted = {"mean": rng.normal(size=n), "scale": rng.uniform(0.5, 2.0, size=n),
              "coef": rng.normal(size=n), "intercept": 0.3}
    X = rng.normal(size=(20, n))
    blended = blend_probs({"f": [predict(hand, X)]}, {"f": [predict(fitted, X)]}, w)["f"][0]
    one = blend_model(hand, fitted, w)
    assert np.allclose(predict(one, X), blended, atol=1e-9)
    assert np.allclose(one["mean"], 0.0) and np.allclose(one["scale"], 1.0)
    if w == 0.0:
        assert np.allclose(predict(one, X), predict(hand, X))
