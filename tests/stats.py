"""Pearson's chi-square goodness-of-fit test in the standard library.

The suite's statistical tests need one p-value: the chance that a fair source gives a chi-square
statistic at least as large as the one observed. For whole degrees of freedom the chi-square
survival function has a closed form (Abramowitz & Stegun 26.4.4 and 26.4.5), so no numerical
library is needed:

- even k = 2m:   Q(x) = e^(-x/2) · Σ_{i<m} (x/2)^i / i!
- odd k = 2m+1:  Q(x) = erfc(√(x/2)) + √(2/π) · e^(-x/2) · Σ_{i=1..m} x^(i-½) / (1·3·…·(2i-1))

``tests/rules/test_stats.py`` checks both against reference values to 1e-12.
"""

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class ChiSquare:
    statistic: float
    pvalue: float


def chi2_sf(x: float, df: int) -> float:
    """P(X ≥ x) for X chi-square distributed with ``df`` (a whole number ≥ 1) degrees of freedom."""
    if df < 1 or int(df) != df:
        raise ValueError(f"degrees of freedom must be a whole number ≥ 1, not {df!r}")
    if x <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return math.exp(-half) * total
    total, term = 0.0, math.sqrt(x)  # x^(1/2) / 1
    for i in range(1, (df - 1) // 2 + 1):
        total += term
        term *= x / (2 * i + 1)
    return math.erfc(math.sqrt(half)) + math.sqrt(2 / math.pi) * math.exp(-half) * total


def chisquare(observed, expected=None) -> ChiSquare:
    """Like ``scipy.stats.chisquare``: expected counts default to uniform; df = categories − 1."""
    observed = [float(o) for o in observed]
    if len(observed) < 2:
        raise ValueError("a chi-square test needs at least two categories")
    if expected is None:
        expected = [sum(observed) / len(observed)] * len(observed)
    expected = [float(e) for e in expected]
    if len(expected) != len(observed):
        raise ValueError("observed and expected counts differ in length")
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    return ChiSquare(statistic, chi2_sf(statistic, len(observed) - 1))
