"""Every skill of the real-world corpus validates in lenient and strict mode with a
result each and no crash; counts are checked against what the corpus is known to hold."""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path

import pytest

import skilldeck


@pytest.fixture(scope="module")
def corpus_skills(corpus: Path) -> list[Path]:
    return skilldeck.find_skill_dirs(corpus)


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
def test_every_corpus_skill_gets_a_result(corpus_skills: list[Path], strict: bool) -> None:
    assert len(corpus_skills) > 1900  # agents' hidden copies (.gemini/, .codex/) left out
    valid = 0
    by_code: collections.Counter[str] = collections.Counter()
    for folder in corpus_skills:
        report = skilldeck.validate_skill(folder, strict=strict)
        assert report.path == folder
        for diag in report.diagnostics:
            assert diag.code in skilldeck.CODES
            assert diag.message and diag.hint, diag
        valid += report.valid
        by_code.update({d.code for d in report.diagnostics if d.is_error})
    share = valid / len(corpus_skills)
    if strict:
        # Most real skills carry fields outside the spec or non-string metadata.
        assert 0.1 < share < 0.9, share
        assert by_code["SK213"] > 0
    else:
        # Lenient mode loads what real skills do; only broken files fail.
        assert share > 0.8, share
        assert by_code["SK101"] > 0  # files without frontmatter exist in the corpus


def test_lint_over_the_corpus_via_the_cli(corpus: Path, corpus_skills: list[Path]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "skilldeck", "lint", "--format", "json", str(corpus)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in result.stderr
    assert result.returncode == 1  # some corpus skills have errors
    data = json.loads(result.stdout)["data"]
    assert data["summary"]["skills"] == len(corpus_skills)
    codes = collections.Counter(d["code"] for s in data["skills"] for d in s["diagnostics"])
    assert codes["SK304"] > 0 and codes["SK309"] > 0 and codes["SK306"] > 0
