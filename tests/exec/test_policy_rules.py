"""Unit tests of two pure rules of execution: the environment a program gets (an
allowlist; secrets never pass) and the approval decision table (trust x read-only x
always-ask x stored digest). Each row would otherwise need a real run to reach."""

from __future__ import annotations

import fnmatch
import itertools
import os

import pytest

import skilldeck
from skilldeck.execution._env import ALLOW, DENY, allowed_env, build_env, is_denied
from skilldeck.execution._trust import decide_approval


def env_of(parent: dict[str, str], **kw: object) -> dict[str, str]:
    return build_env(
        parent,
        skill_name="s",
        skill_dir="/skills/s",
        work_dir="/w",
        scratch_dir="/tmp/x",
        **kw,  # type: ignore[arg-type]
    )


def test_environment_is_an_allowlist_and_secrets_never_pass() -> None:
    parent = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "GITHUB_TOKEN": "t",
        "MY_SERVICE_TOKEN": "t",
        "AWS_ACCESS_KEY_ID": "a",
        "OPENAI_API_KEY": "k",
        "ANTHROPIC_API_KEY": "k",
        "DB_PASSWORD": "p",
        "LD_PRELOAD": "/evil.so",
        "PYTHONPATH": "/evil",
        "RANDOM_VAR": "r",
        "SKILLDECK_HOME": "/x",
    }
    env = env_of(parent, mode="Dev", extra_allow=("MY_*", "DB_*", "RANDOM_VAR", "LD_PRELOAD"))
    assert env["PATH"] == "/usr/bin" and env["LC_ALL"] == "C" and env["RANDOM_VAR"] == "r"
    for secret in (
        "GITHUB_TOKEN",
        "MY_SERVICE_TOKEN",
        "AWS_ACCESS_KEY_ID",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "DB_PASSWORD",
        "LD_PRELOAD",
        "PYTHONPATH",
    ):
        assert secret not in env
    assert env["SKILLDECK_SKILL_NAME"] == "s"
    assert env["SKILLDECK_SKILL_DIR"] == "/skills/s"
    assert env["SKILLDECK_MODE"] == "Dev"
    assert env["TMPDIR"] == "/tmp/x"
    assert "RANDOM_VAR" not in env_of(parent)
    assert env_of(parent, home="/private")["HOME"] == "/private"
    assert is_denied("aws_session_token") and not is_denied("TERM")


_NAMES = [
    *ALLOW,
    *DENY,
    "", "*", "A", "ab", "A_TOKEN", "TOKEN", "MYTOKENS", "X_KEY_Y", "KEY", "_KEY", "a_keys",
    "MY_API_KEY_2", "PASSWORDLESS", "aws", "AWS_", "lc_all", "LC_", "LC", "LD_PRELOAD",
    "ldap", "ENV", "ENVX", "XENV", "path", "PATHS", "A?B", "A[B", "A*B", "A\\B", "Z.Y",
    "DB_1", "DB1", "MY_X_Y", "MYXY", "MY_XY_", "É_TOKEN", "a\nb_TOKEN", "ß",
]  # fmt: skip
_PATTERNS = [
    ALLOW,
    DENY,
    ("*",),
    ("**",),
    ("",),
    ("MY_*", "*_Y", "*X*", "DB_?", "[A-C]*", "A*B", "MY*Y*", "*A*B*", "A\\B", "Z.Y"),
    ("*?", "AB"),
    ("ß", "*SS"),
]


@pytest.mark.parametrize("patterns", _PATTERNS)
def test_the_environment_patterns_match_as_fnmatch_does(patterns: tuple[str, ...]) -> None:
    """Shell patterns of any case, as ``fnmatch`` reads them upper-cased, whether they
    are tested with string methods or by a regular expression."""
    for name in {*_NAMES, *("".join(p) for p in itertools.product("AB_*", repeat=3))}:
        want = any(fnmatch.fnmatchcase(name.upper(), p.upper()) for p in patterns)
        assert bool(allowed_env({name: "v"}, patterns, deny=())) is want, (name, patterns)
        assert bool(allowed_env({name: "v"}, ("*",), deny=patterns)) is not want, name
        # asked again: the remembered answer of this pair of lists, not another pair's
        assert bool(allowed_env({name: "v"}, patterns, deny=())) is want, (name, patterns)


def test_remembered_environment_answers_belong_to_their_lists() -> None:
    env = {"MY_TOKEN": "t", "TERM": "x"}
    assert allowed_env(env, ("*",)) == {"TERM": "x"}
    assert allowed_env(env, ("*",), deny=()) == env
    assert allowed_env(env, ("MY_*",), deny=()) == {"MY_TOKEN": "t"}
    assert allowed_env(env, ("*",)) == {"TERM": "x"}


T = skilldeck.Trust


@pytest.mark.parametrize(
    ("trust", "read_only", "always_ask", "stored", "action", "reason", "persist"),
    [
        (T.BUNDLED, True, False, None, "run", "auto_read_only", False),
        (T.BUNDLED, False, False, None, "ask", "first_run", True),
        (T.BUNDLED, True, True, "d", "ask", "always_ask", False),
        (T.USER, True, False, None, "ask", "first_run", True),
        (T.USER, False, False, "d", "run", "approved", False),
        (T.USER, False, False, "old", "ask", "changed", True),
        (T.USER, False, True, "d", "ask", "always_ask", False),
        (T.UNTRUSTED, True, False, "d", "ask", "untrusted", False),
    ],
)
def test_approval_decisions(
    trust: skilldeck.Trust,
    read_only: bool,
    always_ask: bool,
    stored: str | None,
    action: str,
    reason: str,
    persist: bool,
) -> None:
    got = decide_approval(
        trust=trust, read_only=read_only, always_ask=always_ask, stored_digest=stored, digest="d"
    )
    assert (got.action, got.reason, got.persist) == (action, reason, persist)


def test_untrusted_stored_approval_is_only_a_fallback() -> None:
    got = decide_approval(
        trust=T.UNTRUSTED, read_only=False, always_ask=False, stored_digest="d", digest="d"
    )
    assert got.stored_fallback
    got = decide_approval(
        trust=T.UNTRUSTED, read_only=False, always_ask=False, stored_digest="old", digest="d"
    )
    assert not got.stored_fallback


def test_user_read_only_can_be_configured_to_auto_run() -> None:
    got = decide_approval(
        trust=T.USER,
        read_only=True,
        always_ask=False,
        stored_digest=None,
        digest="d",
        auto_run_read_only=("bundled", "user"),
    )
    assert got.action == "run"


def test_a_package_build_sees_index_settings_and_no_other_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from skilldeck.execution._packages import _uv_env

    for name, value in {
        "UV_INDEX_URL": "https://pypi.example/simple",
        "UV_INDEX_PRIVATE_PASSWORD": "index-secret",  # the user's own index: uv needs it
        "HTTPS_PROXY": "http://proxy:3128",
        "no_proxy": "localhost",
        "PIP_EXTRA_INDEX_URL": "https://extra.example/simple",
        "GITHUB_TOKEN": "never",
        "AWS_SECRET_ACCESS_KEY": "never",
        "OPENAI_API_KEY": "never",
    }.items():
        monkeypatch.setenv(name, value)
    env = _uv_env()
    assert env["UV_INDEX_PRIVATE_PASSWORD"] == "index-secret"
    assert env["HTTPS_PROXY"] == "http://proxy:3128" and env["no_proxy"] == "localhost"
    assert env["UV_EXTRA_INDEX_URL"] == "https://extra.example/simple"
    assert not {"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY"} & set(env)
    # a skill's program never gets the index password: the same rule with the deny list
    from skilldeck.execution._env import build_env

    run_env = build_env(
        os.environ,
        skill_name="s",
        skill_dir="/s",
        work_dir="/w",
        scratch_dir="/t",
        extra_allow=("UV_*", "*_PROXY"),
    )
    assert "UV_INDEX_PRIVATE_PASSWORD" not in run_env and run_env["HTTPS_PROXY"]
