"""The suite's standard-library chi-square p-value (tests/stats.py) against reference values.

The references are scipy.stats.chi2.sf / chisquare at the listed points (scipy 1.17), kept here
as numbers so the suite no longer needs scipy; relative agreement to 1e-12."""

import math

import pytest

from tests.stats import chi2_sf, chisquare

REFERENCE = [
    (0.5, 1, 0.47950012218695337),
    (3.841458820694124, 1, 0.04999999999999989),
    (10, 1, 0.001565402258002549),
    (0.3, 2, 0.8607079764250578),
    (5.991464547107979, 2, 0.05000000000000007),
    (7.5, 3, 0.0575584519726364),
    (20, 5, 0.0012497305630313773),
    (40, 5, 1.493367900050393e-07),
    (2, 6, 0.9196986029286058),
    (55.0, 7, 1.4909069484204916e-09),
    (16.2, 10, 0.09404851721724622),
    (12.0, 19, 0.8856253321541485),
    (30.0, 19, 0.05179845889302389),
    (100, 20, 1.2596084591660847e-12),
    (0.001, 3, 0.9999915920809419),
]


@pytest.mark.parametrize("x,df,expected", REFERENCE)
def test_chi2_sf_matches_the_reference_to_1e_12(x, df, expected):
    assert math.isclose(chi2_sf(x, df), expected, rel_tol=1e-12)


def test_chisquare_uniform_and_given_expectations():
    # scipy.stats.chisquare([16, 18, 16, 14, 12, 12]) and ([30, 70], [40, 60]).
    fair = chisquare([16, 18, 16, 14, 12, 12])
    assert fair.statistic == pytest.approx(2.0, rel=1e-12)
    assert fair.pvalue == pytest.approx(0.8491450360846096, rel=1e-12)
    skewed = chisquare([30, 70], [40, 60])
    assert skewed.statistic == pytest.approx(25 / 6, rel=1e-12)
    assert skewed.pvalue == pytest.approx(0.041226833337163815, rel=1e-12)


@pytest.mark.parametrize("df", [0, -1, 1.5])
def test_chi2_sf_refuses_degrees_of_freedom_that_are_not_whole(df):
    with pytest.raises(ValueError):
        chi2_sf(1.0, df)


def test_chi2_sf_of_zero_is_one():
    assert chi2_sf(0.0, 4) == 1.0
