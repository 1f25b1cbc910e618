"""The skills_* tools, the envelope and every error code reachable without scripts."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import jsonschema
import pytest

from skilldeck import (
    ApprovalRequiredError,
    HostTool,
    ManifestError,
    RuntimeOptions,
    SandboxUnavailableError,
    ScriptFailedError,
    ScriptTimeoutError,
    SkillRuntime,
)
from skilldeck.events import FileRead, ListSink, SearchPerformed, SkillLoaded, ToolCalled
from skilldeck.tools import ERROR_CODES, VERB_FIRST_TOOL_NAMES

from .conftest import MakeSkill, check, error_code, host_tools, runtime_for, write_skill


def names(rt: SkillRuntime) -> list[str]:
    return [s.name for s in rt.tool_specs(rt.session())]


def test_default_tool_set_and_options(skills_root: Path) -> None:
    assert names(runtime_for(skills_root)) == [
        "skills_list",
        "skills_load",
        "skills_read_file",
        "skills_search",
        "skills_run_script",
    ]
    assert names(runtime_for(skills_root, search=False, scripts=False)) == [
        "skills_list",
        "skills_load",
        "skills_read_file",
    ]
    assert names(runtime_for(skills_root, validate_tools=True))[-2:] == [
        "skills_validate",
        "skills_lint",
    ]


def test_specs_are_valid_json_schema(skills_root: Path) -> None:
    rt = runtime_for(skills_root, validate_tools=True)
    for spec in rt.tool_specs(rt.session()):
        jsonschema.Draft202012Validator.check_schema(spec.parameters)
        d = spec.to_dict()
        assert set(d) == {"name", "description", "parameters"}
        assert d["parameters"]["type"] == "object"
        json.dumps(d)


def test_unknown_option_is_a_type_error(skills_root: Path) -> None:
    with pytest.raises(TypeError, match="allowed_tools_enforcment"):
        runtime_for(skills_root, allowed_tools_enforcment="enforce")
    with pytest.raises(ValueError, match="allowed_tools_enforcement"):
        RuntimeOptions(allowed_tools_enforcement="strict")  # type: ignore[arg-type]


def test_prefix_and_seed_002_names(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("alpha")
    rt = runtime_for(skills_root, tool_prefix="deck_")
    s = rt.session()
    assert names(rt)[0] == "deck_skills_list"
    assert check(rt.call(s, "deck_skills_list"))["ok"]
    assert error_code(rt.call(s, "skills_list")) == "TOOL_NOT_ALLOWED"

    rt2 = runtime_for(skills_root, tool_names=VERB_FIRST_TOOL_NAMES, validate_tools=True)
    assert names(rt2) == [
        "list_skills",
        "load_skill",
        "read_skill_resource",
        "skills_search",
        "skills_run_script",
        "validate_skill",
        "lint_skill",
    ]
    s2 = rt2.session()
    env = rt2.call(s2, "load_skill", {"name": "alpha"})
    assert check(env)["ok"] and env["data"]["name"] == "alpha"
    assert rt2.tool_specs(s2)[1].key == "skills_load"


def test_list_with_location_and_paging(make_skill: MakeSkill, skills_root: Path) -> None:
    for n in ("alpha", "beta", "gamma"):
        make_skill(n)
    rt = runtime_for(skills_root, include_location=True, list_limit=2)
    s = rt.session()
    env = check(rt.call(s, "skills_list", {}))
    data = env["data"]
    assert [x["name"] for x in data["skills"]] == ["alpha", "beta"]
    assert data["total"] == 3 and data["next_offset"] == 2 and "skills_search" in data["hint"]
    loc = data["skills"][0]["location"]
    assert os.path.isabs(loc) and loc.endswith("alpha/SKILL.md")
    rest = rt.call(s, "skills_list", {"offset": 2})["data"]
    assert [x["name"] for x in rest["skills"]] == ["gamma"] and "next_offset" not in rest
    assert "location" not in runtime_for(skills_root).call(s, "skills_list")["data"]["skills"][0]


def test_load_discloses_body_digest_files_and_records(
    make_skill: MakeSkill, skills_root: Path, events: ListSink
) -> None:
    make_skill(
        "pdf-tools",
        body="# PDF\n\nRead references/guide.md first.\n",
        files={"references/guide.md": "guide", "scripts/run.py": "print(1)\n"},
    )
    rt = runtime_for(skills_root, sink=events)
    s = rt.session()
    env = check(rt.call(s, "skills_load", {"name": "pdf-tools"}))
    data = env["data"]
    assert data["body"].lstrip().startswith("# PDF")
    assert data["digest"] == rt.catalog.digest("pdf-tools")
    assert sorted(data["files"]) == ["references/guide.md", "scripts/run.py"]
    assert env["warnings"] == []
    assert [x.name for x in s.loaded] == ["pdf-tools"]
    loaded = events.of(SkillLoaded)[0]
    assert (loaded.skill, loaded.digest, loaded.session_id) == ("pdf-tools", data["digest"], s.id)
    called = events.of(ToolCalled)[0]
    assert (called.tool, called.ok, called.arguments) == (
        "skills_load",
        True,
        {"name": "pdf-tools"},
    )


def test_body_over_limit_is_cut_with_content_truncated(
    make_skill: MakeSkill, skills_root: Path
) -> None:
    make_skill("big", body="# Big\n\n" + "word " * 4000)
    rt = runtime_for(skills_root, max_body_bytes=2000)
    s = rt.session()
    env = check(rt.call(s, "skills_load", {"name": "big"}))
    assert [w["code"] for w in env["warnings"]] == ["CONTENT_TRUNCATED"]
    assert len(env["data"]["body"].encode()) == 2000
    assert s.loaded[0].body_truncated


def test_body_limit_counts_only_the_body_and_keeps_the_declared_tools(
    make_skill: MakeSkill, skills_root: Path
) -> None:
    tool = (
        "### say_hi\n\nGreet.\n\n#### Parameters\n\nNone.\n\n"
        "#### Command\n\n```bash\necho hi\n```\n"
    )
    body = "# Long\n\n" + "é" * 400 + "\n\n" + tool
    long_description = "Says hello in many words. Use when greeting. " + "x" * 900
    make_skill("long", long_description, body=body)
    full = runtime_for(skills_root)
    whole = check(full.call(full.session(), "skills_load", {"name": "long"}))["data"]["body"]
    rt = runtime_for(skills_root, max_body_bytes=302)
    s = rt.session()
    env = check(rt.call(s, "skills_load", {"name": "long"}))
    assert [w["code"] for w in env["warnings"]] == ["CONTENT_TRUNCATED"]
    # the body's first 302 bytes less the half of a character, however long the file's
    # frontmatter is (the old limit counted it: this skill failed as FILE_TOO_LARGE)
    assert env["data"]["body"].encode() == whole.encode()[:301]
    assert env["data"]["tools"] == ["say_hi"]
    assert "say_hi" in [spec.name for spec in rt.tool_specs(s)]
    assert s.loaded[0].body == env["data"]["body"] and s.loaded[0].body_truncated


def test_source_name_addresses_a_shadowed_copy(tmp_path: Path) -> None:
    low, high = tmp_path / "low", tmp_path / "high"
    write_skill(low, "same", body="# low copy\n")
    write_skill(high, "same", body="# high copy\n")
    rt = SkillRuntime.from_roots([low, high])
    s = rt.session()
    assert "high copy" in rt.call(s, "skills_load", {"name": "same"})["data"]["body"]
    env = check(rt.call(s, "skills_load", {"name": "root1:same"}))
    assert "low copy" in env["data"]["body"]


def test_read_file_text_binary_and_event(
    make_skill: MakeSkill, skills_root: Path, events: ListSink
) -> None:
    blob = bytes(range(256))
    make_skill("s", files={"references/a.md": "héllo", "assets/logo.bin": blob})
    rt = runtime_for(skills_root, sink=events)
    s = rt.session()
    text = check(rt.call(s, "skills_read_file", {"name": "s", "path": "references/a.md"}))
    assert text["data"]["content"] == "héllo" and text["data"]["encoding"] == "utf-8"
    binary = rt.call(s, "skills_read_file", {"name": "s", "path": "assets/logo.bin"})["data"]
    assert binary["encoding"] == "base64" and base64.b64decode(binary["content"]) == blob
    assert [(e.skill, e.path) for e in events.of(FileRead)] == [
        ("s", "references/a.md"),
        ("s", "assets/logo.bin"),
    ]


def test_read_file_refusals(make_skill: MakeSkill, skills_root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret")
    folder = make_skill("s", files={"references/big.md": "x" * 5000})
    (folder / "references" / "escape.md").symlink_to(outside)
    rt = runtime_for(skills_root, max_file_bytes=1000)
    s = rt.session()

    def code(path: str) -> str | None:
        return error_code(rt.call(s, "skills_read_file", {"name": "s", "path": path}))

    assert code("references/missing.md") == "FILE_NOT_FOUND"
    assert code("../secret.txt") == "PATH_NOT_ALLOWED"
    assert code(str(outside)) == "PATH_NOT_ALLOWED"
    assert code("references/escape.md") in {"PATH_NOT_ALLOWED", "FILE_NOT_FOUND"}
    assert code("references/big.md") == "FILE_TOO_LARGE"
    # a hint the model can act on: it has no limit to pass to the tool
    big = rt.call(s, "skills_read_file", {"name": "s", "path": "references/big.md"})
    hint = big["error"]["hint"]
    assert "at most 1000 bytes" in hint and "max_bytes" not in hint.replace("max_file_bytes", "")
    for call in s.trace():
        assert "secret" not in json.dumps(call)


def test_skill_not_found_and_unavailable(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("dev-only", extra="modes: [Dev]\n")
    make_skill("anywhere")
    rt = runtime_for(skills_root, mode="Meeting")
    s = rt.session()
    env = rt.call(s, "skills_load", {"name": "nope"})
    assert error_code(env) == "SKILL_NOT_FOUND" and env["error"]["hint"]
    assert error_code(rt.call(s, "skills_load", {"name": "dev-only"})) == "SKILL_UNAVAILABLE"
    listed = [x["name"] for x in rt.call(s, "skills_list")["data"]["skills"]]
    assert listed == ["anywhere"]
    dev = runtime_for(skills_root, mode="dev")
    assert check(dev.call(dev.session(), "skills_load", {"name": "dev-only"}))["ok"]


def test_unavailable_by_requirements(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("needs-tool", extra="requires:\n  commands: [no-such-command-xyz]\n")
    rt = runtime_for(skills_root)
    s = rt.session()
    env = rt.call(s, "skills_load", {"name": "needs-tool"})
    assert error_code(env) == "SKILL_UNAVAILABLE"
    assert "needs-tool" not in [x["name"] for x in rt.call(s, "skills_list")["data"]["skills"]]


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        ("skills_load", {}, "name"),
        ("skills_load", {"name": 3}, "name"),
        ("skills_load", {"name": ""}, "name"),
        ("skills_load", {"name": "a", "extra": 1}, "extra"),
        ("skills_list", {"limit": "ten"}, "limit"),
        ("skills_list", {"limit": 0}, "limit"),
        ("skills_search", {"query": "x", "limit": 99}, "limit"),
        ("skills_search", {"query": "x", "limit": True}, "limit"),
        ("skills_read_file", {"name": "a"}, "path"),
        ("skills_run_script", {"name": "a", "script": "s", "args": ["ok", 2]}, "args[1]"),
    ],
)
def test_invalid_arguments_name_the_field(
    skills_root: Path, tool: str, args: dict[str, object], field: str
) -> None:
    rt = runtime_for(skills_root)
    env = rt.call(rt.session(), tool, args)
    assert error_code(env) == "INVALID_ARGUMENTS"
    assert env["error"]["field"] == field
    assert f"`{field}`" in env["error"]["message"]


def test_arguments_as_json_text(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("alpha")
    rt = runtime_for(skills_root)
    s = rt.session()
    assert check(rt.call(s, "skills_load", '{"name": "alpha"}'))["ok"]
    bad = rt.call(s, "skills_load", '{"name": ')
    assert error_code(bad) == "INVALID_ARGUMENTS" and "JSON" in bad["error"]["message"]
    assert error_code(rt.call(s, "skills_load", "[1, 2]")) == "INVALID_ARGUMENTS"


def test_unknown_tool(skills_root: Path) -> None:
    rt = runtime_for(skills_root)
    env = rt.call(rt.session(), "rm_rf", {})
    assert error_code(env) == "TOOL_NOT_ALLOWED"
    assert env["error"]["reason"] == "unknown_tool" and "skills_list" in env["error"]["hint"]


def test_host_tool_crash_is_internal_without_details(skills_root: Path) -> None:
    def boom(_args: object) -> None:
        raise RuntimeError("/etc/shadow leaked in message")

    rt = runtime_for(skills_root, host_tools=[HostTool("boom", "explodes", boom)])
    env = rt.call(rt.session(), "boom", {})
    assert error_code(env) == "INTERNAL"
    assert "shadow" not in json.dumps(env)


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (ApprovalRequiredError("approve first"), "APPROVAL_REQUIRED"),
        (ScriptFailedError("exit 1"), "SCRIPT_FAILED"),
        (ScriptTimeoutError("too slow"), "SCRIPT_TIMEOUT"),
        (SandboxUnavailableError("no bwrap"), "SANDBOX_UNAVAILABLE"),
        (ManifestError("SKILL.md became unreadable"), "INVALID_SKILL"),
    ],
)
def test_host_tool_skill_errors_keep_their_code(
    skills_root: Path, exc: Exception, code: str
) -> None:
    def fail(_args: object) -> None:
        raise exc

    rt = runtime_for(skills_root, host_tools=[HostTool("job", "fails", fail)])
    env = rt.call(rt.session(), "job", {})
    assert error_code(env) == code
    assert env["error"]["message"] == str(exc)


def test_every_error_code_is_listed() -> None:
    import skilldeck

    def tree(cls: type[skilldeck.SkillError]) -> list[type[skilldeck.SkillError]]:
        return [cls, *(sub for child in cls.__subclasses__() for sub in tree(child))]

    exported = {
        value
        for value in (getattr(skilldeck, name) for name in skilldeck.__all__)
        if isinstance(value, type) and issubclass(value, skilldeck.SkillError)
    }
    assert set(tree(skilldeck.SkillError)) == exported  # every error class is public
    assert {cls.code for cls in exported} == set(ERROR_CODES)
    assert len(ERROR_CODES) == len(set(ERROR_CODES))


def test_search_tool_over_a_catalog(skills_root: Path, events: ListSink) -> None:
    from . import searchdata as sd

    sd.write_generated(skills_root)
    rt = runtime_for(skills_root, sink=events)
    s = rt.session()
    env = check(rt.call(s, "skills_search", {"query": "slow postgres query", "limit": 3}))
    data = env["data"]
    assert data["results"][0]["name"] == "sql-optimizer"
    assert data["indexed"] == len(sd.GENERATED)
    assert events.of(SearchPerformed)[0].results[0] == "sql-optimizer"
    # headings are indexed too: "CrashLoopBackOff" is only a heading of k8s-debug
    hits = rt.call(s, "skills_search", {"query": "crashloopbackoff"})["data"]["results"]
    assert hits[0]["name"] == "k8s-debug"


def test_search_recall_through_the_runtime(skills_root: Path, tmp_path: Path) -> None:
    """The labelled query set against generated + bundled skill folders, via skills_search."""
    from . import searchdata as sd

    sd.write_generated(skills_root)
    bundled = Path(__file__).resolve().parents[2] / "src" / "skilldeck" / "_bundled"
    rt = SkillRuntime.from_roots([bundled, skills_root])
    s = rt.session()
    found = 0
    for query, answers in sd.QUERIES:
        results = rt.call(s, "skills_search", {"query": query, "limit": 5})["data"]["results"]
        found += bool({r["name"] for r in results} & set(answers))
    assert found / len(sd.QUERIES) >= 0.95


def test_search_index_follows_catalog_changes(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("alpha", "Alpha does charts.")
    rt = runtime_for(skills_root)
    s = rt.session()
    assert rt.call(s, "skills_search", {"query": "zebra"})["data"]["results"] == []
    make_skill("zebra-care", "Look after zebras.")
    rt.catalog.refresh()
    assert rt.call(s, "skills_search", {"query": "zebra"})["data"]["results"][0]["name"] == (
        "zebra-care"
    )


def test_validate_and_lint_tools(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("good", "Formats things well. Use when formatting.")
    write_skill(skills_root, "wrong-dir", extra="")
    (skills_root / "wrong-dir" / "SKILL.md").write_text(
        "---\nname: other-name\ndescription: x\n---\nbody\n"
    )
    rt = runtime_for(skills_root, validate_tools=True)
    s = rt.session()
    good = check(rt.call(s, "skills_validate", {"name": "good"}))
    assert good["data"]["valid"] is True
    lint = check(rt.call(s, "skills_lint", {"name": "good"}))
    assert isinstance(lint["data"]["diagnostics"], list)
    for d in lint["data"]["diagnostics"]:
        assert {"code", "severity", "message"} <= set(d)


def test_host_tool_result_shapes(skills_root: Path) -> None:
    tools = [
        HostTool("n", "number", lambda a: 42),
        *host_tools("echo"),
    ]
    rt = runtime_for(skills_root, host_tools=tools)
    s = rt.session()
    assert rt.call(s, "n", {})["data"] == {"result": 42}
    assert rt.call(s, "echo", {"command": "x"})["data"] == {
        "tool": "echo",
        "echo": {"command": "x"},
    }


def test_available_skills_block_for_the_system_prompt(
    make_skill: MakeSkill, skills_root: Path
) -> None:
    for i in range(30):
        make_skill(f"skill-{i:02d}", f"Skill number {i} does a long list of useful things.")
    rt = runtime_for(skills_root, tool_prefix="deck_", include_location=True)
    full = rt.available_skills()
    assert full.startswith("<available_skills>") and full.count("<skill>") == 30
    assert "<location>" in full
    cut = rt.available_skills(budget=1500)
    assert cut.count("<skill>") < 30
    assert "deck_skills_search" in cut.splitlines()[-1]
    off = runtime_for(skills_root, search=False).available_skills(budget=1500)
    assert "skills_list" in off.splitlines()[-1]


def test_corpus_loads_and_searches_without_crashing(corpus: Path) -> None:
    roots = sorted(p for p in corpus.iterdir() if p.is_dir())[:4]
    rt = SkillRuntime.from_roots(roots, recursive=True, search_headings=False)
    s = rt.session()
    listed = rt.call(s, "skills_list", {"limit": 1000})
    assert check(listed)["ok"] and listed["data"]["total"] > 0
    for item in listed["data"]["skills"][:40]:
        env = check(rt.call(s, "skills_load", {"name": item["name"]}))
        assert env["ok"] or env["error"]["code"] in {"SKILL_UNAVAILABLE", "INVALID_SKILL"}
    hits = check(rt.call(s, "skills_search", {"query": "pdf documents", "limit": 5}))
    assert hits["ok"]
    assert s.restore_block(4000).startswith("<loaded_skills>")


def test_search_reads_headings_not_frontmatter_comments(
    make_skill: MakeSkill, skills_root: Path
) -> None:
    make_skill("alpha", "Does alpha.", extra="# zanzibar comment\n", body="## Quokka care\n")
    rt = runtime_for(skills_root)
    s = rt.session()
    assert rt.call(s, "skills_search", {"query": "zanzibar"})["data"]["results"] == []
    assert rt.call(s, "skills_search", {"query": "quokka"})["data"]["results"][0]["name"] == (
        "alpha"
    )
    headless = runtime_for(skills_root, search_headings=False)
    assert (
        headless.call(headless.session(), "skills_search", {"query": "quokka"})["data"]["results"]
        == []
    )


def test_a_skill_removed_since_the_listing_is_not_found_not_invalid(tmp_path: Path) -> None:
    # skills_load of a skill whose folder was deleted while serving said INVALID_SKILL
    # and pointed at `skilldeck validate` on a folder that no longer exists
    import shutil

    write_skill(tmp_path, "gone", "Goes away. Use in tests.")
    rt = SkillRuntime.from_roots([tmp_path])
    session = rt.session()
    assert "<name>gone</name>" in rt.available_skills()
    shutil.rmtree(tmp_path / "gone")
    env = check(rt.call(session, "skills_load", {"name": "gone"}))
    assert error_code(env) == "SKILL_NOT_FOUND"
    assert "removed" in env["error"]["message"] and "refresh" in env["error"]["hint"]
    read = check(rt.call(session, "skills_read_file", {"name": "gone", "path": "x.md"}))
    assert error_code(read) == "FILE_NOT_FOUND" and read["error"]["hint"] == env["error"]["hint"]


@pytest.mark.parametrize("text", ["{nope", "[" * 100_000, '{"name": ' + "[" * 5_000])
def test_arguments_text_that_is_not_json_is_invalid_arguments(
    make_skill: MakeSkill, skills_root: Path, text: str
) -> None:
    """A model's arguments given as text: nested past the parser's recursion, json
    raised RecursionError, which escaped the tool call."""
    make_skill("pdf-tools")
    rt = runtime_for(skills_root)
    env = rt.call(rt.session(), "skills_load", text)
    assert error_code(env) == "INVALID_ARGUMENTS", env
    assert "not valid JSON" in env["error"]["message"]
