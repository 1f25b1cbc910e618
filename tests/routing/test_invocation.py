"""Invocation controls as Claude Code documents them: each field read and typed, bad
values reported, and the runtime honouring them."""

from __future__ import annotations

from pathlib import Path

import pytest

import skilldeck


def write(root: Path, name: str, front: str, body: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\n{front}---\n{body or f'# {name}'}\n")
    return folder


def manifest(tmp_path: Path, front: str, *, strict: bool = False) -> tuple[object, list[object]]:
    folder = write(tmp_path, "s", "description: A skill. Use when testing.\n" + front)
    parsed = skilldeck.read_skill_md(folder / "SKILL.md", mode="strict" if strict else "lenient")
    return parsed.manifest, list(parsed.diagnostics)


@pytest.mark.parametrize(
    ("front", "attribute", "value"),
    [
        ("", "disable_model_invocation", False),
        ("disable-model-invocation: true\n", "disable_model_invocation", True),
        ("", "user_invocable", True),
        ("user-invocable: false\n", "user_invocable", False),
        (
            "when_to_use: Use when the user says ship it\n",
            "when_to_use",
            "Use when the user says ship it",
        ),
        ("argument-hint: '[issue-number]'\n", "argument_hint", "[issue-number]"),
        # unquoted, YAML reads a list: the hint keeps the brackets the author wrote
        ("argument-hint: [issue-number]\n", "argument_hint", "[issue-number]"),
        ("argument-hint: <file-or-pattern>\n", "argument_hint", "<file-or-pattern>"),
        ("arguments: [issue, branch]\n", "arguments", ("issue", "branch")),
        ("arguments: issue branch\n", "arguments", ("issue", "branch")),
        ("context: fork\n", "context", "fork"),
        ("agent: Explore\n", "agent", "Explore"),
        ("model: claude-opus-4-1\n", "model", "claude-opus-4-1"),
        ("effort: high\n", "effort", "high"),
        (
            "hooks:\n  PreToolUse:\n    - matcher: Bash\n",
            "hooks",
            {"PreToolUse": [{"matcher": "Bash"}]},
        ),
        # read under metadata too, as the format reads every extension
        ("metadata:\n  argument-hint: <file>\n", "argument_hint", "<file>"),
    ],
)
def test_each_field_is_read_typed(
    tmp_path: Path, front: str, attribute: str, value: object
) -> None:
    m, diags = manifest(tmp_path, front)
    assert getattr(m, attribute) == value
    assert not [d for d in diags if d.code == "SK217"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("front", "attribute", "default", "words"),
    [
        ("disable-model-invocation: maybe\n", "disable_model_invocation", False, "true or false"),
        ("user-invocable: sometimes\n", "user_invocable", True, "true or false"),
        ("context: thread\n", "context", None, "must be one of fork"),
        ("effort: enormous\n", "effort", None, "low, medium, high, xhigh, max"),
        ("hooks: run-this\n", "hooks", None, "mapping of events"),
        ("arguments: ['1st', ok]\n", "arguments", (), "letters, digits"),
        ("when_to_use: {a: b}\n", "when_to_use", None, "must be a string"),
    ],
)
def test_bad_values_are_warnings_and_ignored(
    tmp_path: Path, front: str, attribute: str, default: object, words: str
) -> None:
    m, diags = manifest(tmp_path, front)
    assert getattr(m, attribute) == default
    (diag,) = [d for d in diags if d.code == "SK217"]  # type: ignore[attr-defined]
    assert words in diag.message  # type: ignore[attr-defined]
    assert diag.line == 4  # type: ignore[attr-defined]


def test_strict_mode_names_them_as_extensions(tmp_path: Path) -> None:
    _, diags = manifest(tmp_path, "disable-model-invocation: true\ncontext: fork\n", strict=True)
    found = [d for d in diags if d.code == "SK213"]  # type: ignore[attr-defined]
    assert len(found) == 2
    assert all("Claude Code extension" in d.message for d in found)  # type: ignore[attr-defined]
    assert all("metadata" not in (d.hint or "") for d in found)  # type: ignore[attr-defined]


def test_metadata_carries_the_controls_through_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root, "deploy", "description: Deploy.\ndisable-model-invocation: true\n")
    write(root, "legacy", "description: Legacy context.\nuser-invocable: false\n")
    write(
        root, "plain", "description: Plain.\nwhen_to_use: Use when plain.\nargument-hint: '[x]'\n"
    )
    cache = tmp_path / "cache"
    for _ in range(2):  # cold, then from the cache file in a fresh catalog
        metas = {m.name: m for m in skilldeck.Catalog.from_roots([root], cache=cache).list()}
        assert (metas["deploy"].model_invocable, metas["deploy"].user_invocable) == (False, True)
        assert (metas["legacy"].model_invocable, metas["legacy"].user_invocable) == (True, False)
        assert metas["plain"].when_to_use == "Use when plain."
        assert metas["plain"].argument_hint == "[x]"
    assert any(cache.iterdir())


# --- argument substitution (the user's path) -------------------------------------


@pytest.mark.parametrize(
    ("body", "arguments", "names", "expected"),
    [
        ("Fix GitHub issue $ARGUMENTS now.", "123", (), "Fix GitHub issue 123 now."),
        (
            "Migrate the $ARGUMENTS[0] component from $ARGUMENTS[1] to $ARGUMENTS[2].",
            "SearchBar React Vue",
            (),
            "Migrate the SearchBar component from React to Vue.",
        ),
        ("Move $0 to $1.", '"my file.txt" dest', (), "Move my file.txt to dest."),
        ("Issue $issue on $branch.", "42 main", ("issue", "branch"), "Issue 42 on main."),
        ("Missing: [$1] [$branch]", "only", ("issue", "branch"), "Missing: [] []"),
        # shell variables the skill writes are not arguments
        ("Run `echo $HOME $PATH` for $ARGUMENTS", "x", (), "Run `echo $HOME $PATH` for x"),
        # no placeholder: the text is appended, not lost
        (
            "# Review\n\nReview the code.\n",
            "src/app.py",
            (),
            "# Review\n\nReview the code.\n\nARGUMENTS: src/app.py\n",
        ),
        ("# Review\n", "", (), "# Review\n"),
        # unbalanced quotes fall back to plain splitting
        ("$0|$1", "it's fine", (), "it's|fine"),
        ("Dir ${CLAUDE_SKILL_DIR}/x, $ARGUMENTS", "a", (), "Dir /skills/s/x, a"),
    ],
)
def test_substitution(body: str, arguments: str, names: tuple[str, ...], expected: str) -> None:
    got = skilldeck.tools.substitute_arguments(body, arguments, names=names, skill_dir="/skills/s")
    assert got == expected


def test_substitution_does_not_rescan_values() -> None:
    # an argument holding '$1' is inserted as text, never substituted again
    assert skilldeck.tools.substitute_arguments("$0 and $1", ["$1", "b"]) == "$1 and b"


def test_context_fork_runs_in_a_child_session(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(
        root,
        "deep-research",
        "description: Research a topic thoroughly.\ncontext: fork\nagent: Explore\n"
        "model: opus\neffort: high\nallowed-tools: Read Grep\n",
        "Research $ARGUMENTS thoroughly.",
    )
    rt = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=False))
    parent = rt.session()
    invoked = rt.invoke(parent, "deep-research", "the auth flow")
    assert invoked.forked and invoked.session is not parent
    assert invoked.session.parent_id == parent.id
    assert invoked.session.is_loaded("deep-research") and not parent.is_loaded("deep-research")
    assert invoked.prompt == "Research the auth flow thoroughly.\n"
    assert (invoked.agent, invoked.model, invoked.effort) == ("Explore", "opus", "high")
    # the child is limited to the skill's allowed-tools (plus the baseline)
    names = {s.name for s in rt.tool_specs(invoked.session)}
    assert "skills_run_script" not in names and "skills_load" in names
    assert invoked.to_dict()["forked"] is True
