"""Trigger patterns a skill supplies run in linear time (RE2), whatever the pattern.

The catastrophic cases run in a child process with a wall-clock bound, so a
regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import skilldeck

# patterns that take exponential or polynomial time in a backtracking engine
EVIL = [
    r"^(a+)+$",
    r"(a|aa)+$",
    r"(a|a?)+$",
    r"^(\w+\s?)*$",
    r"(x+x+)+y",
    r"(.*a){12}",
    r"^(([a-z])+.)+[A-Z]([a-z])+$",
    r"(\d+)*[a-z]",
    r".*.*.*.*.*=.*",
]
TEXTS = ["a" * 40 + "!", "a" * 4000 + "!", "x" * 3000, "1" * 5000, "ab " * 2000 + "!"]


def write_skill(root: Path, name: str, patterns: list[str]) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    listed = "".join(f"    - {json.dumps(p)}\n" for p in patterns)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: A skill with patterns. Use when testing.\n"
        f"triggers:\n  patterns:\n{listed}---\n# {name}\n"
    )
    return folder


def test_backtracking_patterns_finish_in_linear_time(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "evil", EVIL)
    write_skill(root, "plain", [r"INV-\d+"])
    script = textwrap.dedent(
        f"""
        import json, time, skilldeck
        metas = skilldeck.Catalog.from_roots([{str(root)!r}], cache=False).list()
        out = []
        for text in {TEXTS!r}:
            started = time.perf_counter()
            hits = skilldeck.suggest(text, metas, search=False)
            out.append([time.perf_counter() - started, [h.name for h in hits]])
        hit = skilldeck.suggest("invoice INV-42 please", metas, search=False)
        out.append([0.0, [h.name for h in hit]])
        print(json.dumps(out))
        """
    )
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    # a backtracking engine needs minutes on the first text alone
    assert time.monotonic() - started < 30
    results = json.loads(proc.stdout)
    for seconds, _names in results[:-1]:
        assert seconds < 2.0
    # the patterns still work as patterns: '^(\\w+\\s?)*$' matches 'xxx…'
    assert results[2][1] == ["evil"]
    assert "plain" in results[-1][1]


def test_evil_pattern_matches_what_it_should(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "evil", [r"^(a+)+$"])
    write_skill(root, "pdf", ["PDF"])
    metas = skilldeck.Catalog.from_roots([root], cache=False).list()

    def suggested(text: str) -> list[str]:
        return [h.name for h in skilldeck.suggest(text, metas, search=False)]

    # patterns see the first 4,000 characters of a request
    assert suggested("a" * 3_000) == ["evil"]
    assert suggested("a" * 3_000 + "!") == []
    assert suggested("a pdf file") == ["pdf"]  # case-insensitive


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(a)\1", "escape"),  # backreference
        (r"foo(?=bar)", "perl operator"),  # look-ahead
        (r"(?<!x)foo", "perl operator"),  # look-behind
        ("(", "missing"),
        ("a{1001}", "repetition"),
        ("((a{1,999}){1,999}){1,999}", "repetition"),  # program too large for RE2's budget
        ("x" * 600, "limit is 512"),
    ],
)
def test_refused_patterns_are_diagnostics(tmp_path: Path, pattern: str, reason: str) -> None:
    folder = write_skill(tmp_path, "refused", [pattern, "ok-pattern"])
    parsed = skilldeck.read_skill_md(folder / "SKILL.md")
    assert parsed.manifest is not None
    assert parsed.manifest.triggers is not None
    assert parsed.manifest.triggers.patterns == ("ok-pattern",)
    (diag,) = [d for d in parsed.diagnostics if d.code == "SK217"]
    assert "cannot be used" in diag.message and reason in diag.message
    assert "RE2" in (diag.hint or "")
    assert diag.line is not None


def test_refused_patterns_never_match_even_if_given_directly(tmp_path: Path) -> None:
    """A pattern that reaches suggest without the format layer (a host-built metadata
    object) is still not run by a backtracking engine: RE2 refuses it, it never matches."""

    class Meta:
        name = "direct"
        description = "d"
        source = None

        class manifest:
            class triggers:
                keywords = ()
                verbs = ()
                patterns = (r"(a)\1", r"^(a+)+$")

    started = time.process_time()
    hits = skilldeck.suggest("a" * 3000 + "!", [Meta()], search=False)
    assert hits == []
    assert time.process_time() - started < 2.0
    assert skilldeck.suggest("aa", [Meta()], search=False)[0].reasons == ("pattern:^(a+)+$",)


def test_inline_skill_refuses_lookaround() -> None:
    with pytest.raises(skilldeck.SkillValidationError, match="RE2"):
        skilldeck.InlineSkill(
            name="x", description="d", title="t", template="b", triggers={"patterns": ["a(?=b)"]}
        )


def test_no_engine_noise_on_stderr(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "noisy", [r"(a)\1"])
    proc = subprocess.run(
        [sys.executable, "-c", f"import skilldeck; skilldeck.read_skill_md({str(folder)!r})"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stderr == ""
