"""Redaction of secrets inside strings, wherever events are written: per shape,
through sinks and the audit log, linear on hostile text, and quiet on real skills."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from skilldeck.events import (
    REDACTED,
    EventBus,
    JsonlAuditSink,
    ListSink,
    ScriptRun,
    ToolCalled,
    redact_text,
)

# (text, the secret that must disappear); built by concatenation so that no
# scanner mistakes this file for a leak
SHAPES = [
    ("aws_secret_access_key=" + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY", "wJalrXUtnFEMI"),
    ("OPENAI_API_KEY=" + "abcdefghijklmnop1234 python run.py", "abcdefghijklmnop1234"),
    ("mysql -u root password=" + "hunter22; ls", "hunter22"),
    ("deploy --password " + "correct-horse", "correct-horse"),
    ("deploy --api-key=" + "k3y-v4lue", "k3y-v4lue"),
    ('{"client_secret": "' + "s3cr3t-value" + '"}', "s3cr3t-value"),
    ("GITHUB_TOKEN = '" + "plainvalue99'", "plainvalue99"),
    ("sk-" + "proj-" + "A" * 24, "A" * 24),
    ("sk-" + "ant-" + "api03-" + "b" * 30, "b" * 30),
    ("ghp_" + "c" * 36, "c" * 36),
    ("github_pat_" + "11AAAA" + "d" * 30, "d" * 30),
    ("xoxb-" + "1234567890-" + "e" * 20, "e" * 20),
    ("hf_" + "f" * 34, "f" * 34),
    ("AKIA" + "IOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"),
    ("eyJ" + "hbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxIn0." + "g" * 20, "g" * 20),
    (
        "-----BEGIN " + "OPENSSH PRIVATE KEY-----\nAAAA" + "h" * 40 + "\n-----END OPENSSH "
        "PRIVATE KEY-----",
        "h" * 40,
    ),
    ("Authorization: Bearer " + "i" * 30, "i" * 30),
    ("https://user:" + "p4ssw0rd@example.com/repo.git", "p4ssw0rd"),
    ("glpat-" + "j" * 20, "j" * 20),
]


@pytest.mark.parametrize(("text", "secret"), SHAPES, ids=[s[1][:12] for s in SHAPES])
def test_each_shape_is_redacted(text: str, secret: str) -> None:
    out = redact_text(f"run this: {text} now")
    assert secret not in out
    assert REDACTED in out
    assert out.startswith("run this: ") and out.endswith(" now")


ORDINARY = [
    "max_tokens=100 token_count=5 temperature=0.2",
    "the password is required and must be strong",
    "Password: required field",
    "a tokenizer splits words; passwords must be long",
    "export OPENAI_API_KEY=$OPENAI_API_KEY",
    "use ${GITHUB_TOKEN} from the environment",
    "git commit -m 'fix secret scanning docs'",
    "see https://example.com/path?page=2&sort=asc",
    "key: value, pass: through",
    "ask for the api key in the settings page",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_not_mangled(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "hostile",
    [
        "a" * 300_000,
        "password" * 40_000,
        "--pass" * 50_000,
        "x=" * 150_000,
        "password=" * 40_000,
        "-----BEGIN RSA PRIVATE KEY-----" * 10_000,
        "eyJ" + "a." * 150_000,
        "https://" + "a:" * 150_000,
        "Bearer " * 50_000,
    ],
    ids=lambda s: s[:10],
)
def test_redaction_is_linear_on_hostile_text(hostile: str) -> None:
    start = time.perf_counter()
    redact_text(hostile)
    # about 1 µs a character on this machine; quadratic behaviour would take minutes
    assert time.perf_counter() - start < 10


def test_sinks_receive_redacted_events(tmp_path: Path) -> None:
    memory = ListSink()
    audit = JsonlAuditSink(tmp_path / "audit.jsonl", fsync=False)
    bus = EventBus([memory, audit])
    secret = "ghp_" + "z" * 36
    bus.emit(
        ToolCalled(
            tool="run_command",
            ok=True,
            arguments={"command": f"GH_TOKEN={secret} gh pr list", "note": "plain"},
        )
    )
    bus.emit(ScriptRun(skill="x", target="s.sh", success=False, error=f"bad token {secret}"))
    seen = repr(memory.events) + (tmp_path / "audit.jsonl").read_text()
    assert secret not in seen
    called = memory.events[0]
    assert isinstance(called, ToolCalled)
    assert called.arguments["note"] == "plain"
    assert called.arguments["command"] == f"GH_TOKEN={REDACTED} gh pr list"
    run = memory.events[1]
    assert isinstance(run, ScriptRun) and run.error == f"bad token {REDACTED}"

    raw = ListSink()
    EventBus([raw], redact=False).emit(ToolCalled(tool="t", ok=True, arguments={"q": secret}))
    assert raw.events[0].arguments["q"] == secret


def test_real_skills_are_barely_touched(corpus: Path) -> None:
    """Over-redaction check: every line of every corpus SKILL.md as if it were a tool
    argument. Lines that change must be rare, and each must hold a credential-like
    assignment or token, not ordinary prose."""
    lines = changed = 0
    samples: list[str] = []
    for skill_md in sorted(corpus.rglob("SKILL.md")):
        try:
            text = skill_md.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            lines += 1
            if redact_text(line) != line:
                changed += 1
                samples.append(line.strip()[:160])
    print(f"\nredaction over the corpus: {changed} of {lines} lines changed")
    for s in samples[:40]:
        print("  ", s)
    assert lines > 50_000
    assert changed / lines < 0.002, samples[:40]
