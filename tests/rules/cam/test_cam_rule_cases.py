"""The CAM campaign layer, rule by rule, as data: every case in tests/rules/cam/cases/*.json (format:
tests/rules/cam/cases/README.md) runs its steps through the CAM entry points with fixed dice and is
checked against its ``expect`` blocks. Every die face given must be used."""

from __future__ import annotations

import pytest

from tests.rules.cam.case_loader import load_cases, run_case

CASES = load_cases()


def _param(case: dict):
    marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if case.get("xfail") else []
    return pytest.param(case, id=case["name"], marks=marks)


def test_cases_exist():
    assert len(CASES) >= 12


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_cam_rule_case(case: dict) -> None:
    errors = run_case(case)
    if errors:
        pytest.fail(f"{case['_file']}: {case['name']} ({case['rule']}):\n  " + "\n  ".join(errors), pytrace=False)


def test_runner_reports_wrong_expectations_and_unused_dice():  # the harness itself can fail
    import copy

    case = copy.deepcopy(next(c for c in CASES if c["name"] == "planetary_dispute_8_is_gas_giant"))
    case["steps"][-1]["expect"]["scenario.tables.0.moons"] = 6
    assert any("moons = 7, expected 6" in e for e in run_case(case))
    case = copy.deepcopy(next(c for c in CASES if c["name"] == "planetary_dispute_8_is_gas_giant"))
    case["steps"][-1]["dice"].append(4)
    assert any("dice not used: [4]" in e for e in run_case(case))
    case["steps"][-1]["dice"] = case["steps"][-1]["dice"][:-1]
    case["steps"][-1]["expect"]["scenario.no_such_thing"] = 1
    assert any("no such value" in e for e in run_case(case))
