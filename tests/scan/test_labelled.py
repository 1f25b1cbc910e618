"""The scan on a labelled set: inert malicious skills (every technique, plain, lightly
obfuscated and split across files) and benign skills that look alarming."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.scan.labelled import BENIGN, MALICIOUS, Sample, write_set
from tests.scan.tuning import TUNING_BENIGN, TUNING_MALICIOUS

import skilldeck


def _flagged(folder: Path) -> list[skilldeck.Diagnostic]:
    return [d for d in skilldeck.scan_skill(folder) if d.severity is not skilldeck.Severity.INFO]


@pytest.fixture(scope="module")
def results(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[Sample, list[skilldeck.Diagnostic]]]:
    root = tmp_path_factory.mktemp("labelled")
    out = {}
    for folder, sample in write_set(root, [*MALICIOUS, *BENIGN, *TUNING_MALICIOUS, *TUNING_BENIGN]):
        out[sample.name] = (sample, _flagged(folder))
    return out


def test_the_set_covers_every_variant() -> None:
    variants = {s.variant for s in MALICIOUS}
    assert variants == {"plain", "obfuscated", "split"}
    assert len({s.technique for s in MALICIOUS}) >= 24
    assert len(BENIGN) >= 20


def test_recall_on_malicious_skills(results: dict) -> None:
    missed = [name for name, (s, found) in results.items() if s.malicious and not found]
    recall = 1 - len(missed) / (len(MALICIOUS) + len(TUNING_MALICIOUS))
    assert recall >= 0.95, f"recall {recall:.0%}; missed {missed}"


def test_consequences_are_errors_on_the_tuning_sets(results: dict) -> None:
    """Fetch-and-run, credential theft, persistence and destruction: errors wherever
    they are written (the held-out set's figures are reported by bench/scan.py, not
    asserted, so no rule is nudged towards its spellings)."""
    soft = [
        name
        for name, (s, found) in results.items()
        if s.malicious and not any(d.is_error for d in found)
    ]
    share = 1 - len(soft) / (len(MALICIOUS) + len(TUNING_MALICIOUS))
    assert share >= 0.90, f"at error {share:.0%}; below error: {soft}"


def test_no_error_on_benign_skills(results: dict) -> None:
    errors = {
        name: [d.format() for d in found if d.is_error]
        for name, (s, found) in results.items()
        if not s.malicious and any(d.is_error for d in found)
    }
    assert errors == {}


def test_few_benign_skills_warned(results: dict) -> None:
    warned = [name for name, (s, found) in results.items() if not s.malicious and found]
    assert len(warned) / (len(BENIGN) + len(TUNING_BENIGN)) <= 0.15, warned


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("env-dump-plain", "SK615"),
        ("env-dump-split", "SK615"),
        ("revshell-py-plain", "SK616"),
        ("fetch-exec-py-obfuscated", "SK601"),
        ("fetch-exec-sh-split", "SK601"),
        ("exfil-image-plain", "SK613"),
        ("conceal-obfuscated", "SK609"),
        ("persist-cron-plain", "SK617"),
        ("model-comment-obfuscated", "SK612"),
        ("rot13-obfuscated", "SK602"),
        ("supply-npm-plain", "SK618"),
        ("dns-exfil-obfuscated", "SK615"),
        ("destroy-obfuscated", "SK619"),
    ],
)
def test_techniques_get_their_code(results: dict, name: str, code: str) -> None:
    _, found = results[name]
    assert code in {d.code for d in found}, [d.format() for d in found]
    assert all(d.line and d.hint for d in found if d.code == code)


def test_persisted_download_is_an_error(results: dict) -> None:
    _, found = results["persist-rc-plain"]
    assert any(d.code == "SK617" and d.is_error for d in found)
    _, benign = results["installer-docs"]
    assert not any(d.code == "SK617" for d in benign)
