"""A cloned repository of skills is recognised as one: ``list --root``, ``search``,
``serve`` (over the official MCP SDK client) and ``install --all`` find the skills
where real repositories keep them, and never a template placeholder (SK219).

Each layout is a real git repository made in tmp_path after a real one: Anthropic's
(``skills/<name>`` beside a ``template/`` placeholder), openai/skills' channels
(``skills/.curated/<name>``), Claude Code marketplaces (``plugins/<p>/skills/<name>``
and ``.claude-plugin/marketplace.json``), plugin folders per category
(``<category>/<plugin>/skills/<name>``), a project's ``.claude/skills``, and samples
buried deeper than the layouts.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from tests.dist._helpers import GitRepo, make_skill, run_cli

TEMPLATE = (
    "---\nname: template-skill\n"
    "description: Replace with description of the skill and when Claude should use it.\n"
    "---\n\n# Insert instructions below\n"
)


def _anthropic_like(repo: GitRepo) -> set[str]:
    root = repo.path
    for name in ("pdf-tools", "brand-voice", "mcp-maker"):
        make_skill(root / "skills" / name, name)
    (root / "template").mkdir()
    (root / "template" / "SKILL.md").write_text(TEMPLATE)
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps(
            {"plugins": [{"name": "docs", "source": "./", "skills": ["./skills/pdf-tools"]}]}
        )
    )
    (root / "README.md").write_text("# skills\n")
    repo.commit("skills")
    return {"pdf-tools", "brand-voice", "mcp-maker"}


LAYOUTS = {
    "openai-channels": {
        "skills/.curated/gh-fix-ci": "gh-fix-ci",
        "skills/.experimental/notion-notes": "notion-notes",
        "skills/.system/skill-installer": "skill-installer",
    },
    "marketplace": {
        "plugins/code-review/skills/review-pr": "review-pr",
        "plugins/code-review/skills/review-diff": "review-diff",
        "external_plugins/linear/skills/linear-issues": "linear-issues",
    },
    "categories": {
        "engineering/skills/tdd-guide": "tdd-guide",
        "engineering/agenthub/skills/spawn": "spawn",
        "marketing/seo-audit": "seo-audit",
    },
    "project": {
        ".claude/skills/release-notes": "release-notes",
        ".agents/skills/changelog": "changelog",
        "src/app/main-helper": "main-helper",
    },
    "copilot": {
        ".github/skills/issue-triage": "issue-triage",
        ".github/skills/release-check": "release-check",
    },
}


def _names(res_out: str) -> set[str]:
    return {row["name"] for row in json.loads(res_out)["data"]["skills"]}


def test_anthropic_layout_lists_its_skills_not_its_template(git_repo: GitRepo) -> None:
    want = _anthropic_like(git_repo)
    res = run_cli("list", "--root", str(git_repo.path), "--json")
    assert res.code == 0, res.err
    assert _names(res.out) == want  # template-skill is a placeholder (SK219)
    doctor = run_cli("doctor", "--root", str(git_repo.path))
    assert "SK219" in doctor.out and "template-skill" in doctor.out
    checked = run_cli("validate", str(git_repo.path / "template"))
    assert checked.code == 0 and "SK219 warning" in checked.out
    why = run_cli("why", "template-skill", "--root", str(git_repo.path))
    assert why.out.startswith("placeholder: ") and "SK219" not in why.out.split()[0], why.out


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_repository_layouts_are_listed_from_the_root(git_repo: GitRepo, layout: str) -> None:
    for rel, name in LAYOUTS[layout].items():
        make_skill(git_repo.path / rel, name, files={"references/notes.md": "notes\n"})
    # a skill's own folders are no skills of the repository, and agents' link farms stay out
    make_skill(git_repo.path / "node_modules" / "pkg" / "npm-skill", "npm-skill")
    make_skill(git_repo.path / ".codex" / "skills" / "codex-copy", "codex-copy")
    git_repo.commit(layout)
    res = run_cli("list", "--root", str(git_repo.path), "--json")
    assert res.code == 0, res.err
    assert _names(res.out) == set(LAYOUTS[layout].values())


def test_copilot_skills_behind_a_link_are_listed_and_installed(git_repo: GitRepo) -> None:
    """GitHub Copilot reads a project's ``.github/skills``; a repository that keeps its
    plugin's skills under ``.github/plugins/<p>/skills`` links that folder there."""
    make_skill(git_repo.path / ".github" / "plugins" / "squad" / "skills" / "gate", "gate")
    (git_repo.path / ".github" / "skills").symlink_to(Path("plugins") / "squad" / "skills")
    (git_repo.path / ".github" / "workflows").mkdir()
    (git_repo.path / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    git_repo.commit("copilot plugin")
    res = run_cli("list", "--root", str(git_repo.path), "--json")
    assert res.code == 0, res.err
    assert _names(res.out) == {"gate"}
    installed = run_cli("install", git_repo.url, "--all", "--yes")
    assert installed.code == 0, installed.err
    assert _names(run_cli("list", "--installed", "--json").out) == {"gate"}


def test_a_root_skill_md_without_frontmatter_is_the_repository_s_index(
    git_repo: GitRepo, tmp_path: Path
) -> None:
    """A SKILL.md at a repository's root that opens no frontmatter (a list of the
    skills, for people) hid every skill below it: list, validate and install read the
    repository as that one invalid skill. It is an index; a folder holding nothing but
    such a file is still the invalid skill it looks like (SK101)."""
    (git_repo.path / "SKILL.md").write_text("\ufeff\n# Skills index\n\n- `alpha`: first\n")
    make_skill(git_repo.path / "tools" / "alpha", "alpha")
    make_skill(git_repo.path / "tools" / "beta", "beta")
    git_repo.commit("index")
    for flags in ((), ("--recursive",)):
        res = run_cli("list", "--root", str(git_repo.path), *flags, "--json")
        assert res.code == 0, res.err
        assert _names(res.out) == {"alpha", "beta"}, flags
    checked = run_cli("validate", str(git_repo.path))
    assert checked.code == 0 and "validated 2 skills: 0 errors" in checked.out, checked.out
    installed = run_cli("install", git_repo.url, "--all", "--yes")
    assert installed.code == 0, installed.err
    assert _names(run_cli("list", "--installed", "--json").out) == {"alpha", "beta"}
    lone = tmp_path / "lone"
    (lone / "notes").mkdir(parents=True)
    (lone / "SKILL.md").write_text("Just some text.\n")
    alone = run_cli("validate", str(lone))
    assert alone.code == 1 and "SK101" in alone.out, alone.out


def test_a_skill_inside_a_skill_needs_recursive(git_repo: GitRepo) -> None:
    outer = make_skill(git_repo.path / "skills" / "outer", "outer")
    make_skill(outer / "assets" / "sample-skill", "sample-skill")
    git_repo.commit("nested")
    flat = run_cli("list", "--root", str(git_repo.path), "--json")
    deep = run_cli("list", "--root", str(git_repo.path), "--recursive", "--json")
    assert _names(flat.out) == {"outer"}
    assert _names(deep.out) == {"outer", "sample-skill"}


def test_samples_deeper_than_the_layouts_are_found_when_nothing_else_is(
    git_repo: GitRepo,
) -> None:
    """A repository whose only skills sit deeper than the layouts (samples of a
    framework) is searched at every depth, as the skills CLI of npx does."""
    make_skill(git_repo.path / "python" / "samples" / "02-agents" / "skills" / "unit-converter",
               "unit-converter")  # fmt: skip
    git_repo.commit("samples")
    res = run_cli("list", "--root", str(git_repo.path), "--json")
    assert _names(res.out) == {"unit-converter"}


def test_search_on_an_empty_catalog_says_so_and_where(tmp_path: Path) -> None:
    empty = tmp_path / "nothing here"
    empty.mkdir()
    res = run_cli("search", "--root", str(empty), "fill", "a", "pdf", "form")
    assert res.code == 0
    assert "the catalog is empty" in res.out and "shares a word" not in res.out
    assert f"looked in {empty} (repository)" in res.out
    (hint,) = [line for line in res.out.splitlines() if line.startswith("hint: ")]
    pasted = shlex.split(hint.split("`")[1])
    assert pasted[:2] == ["skilldeck", "doctor"]
    again = run_cli(*pasted[1:])
    assert again.code == 0 and str(empty) in again.out and "0 skill(s)" in again.out
    # JSON says it too
    data = json.loads(run_cli("search", "--root", str(empty), "pdf", "--json").out)["data"]
    assert data["empty"] is True and data["skills"] == []


def test_search_finds_a_repository_s_skills(git_repo: GitRepo) -> None:
    _anthropic_like(git_repo)
    res = run_cli("search", "--root", str(git_repo.path), "pdf-tools", "--json")
    hits = [h["name"] for h in json.loads(res.out)["data"]["skills"]]
    assert hits and hits[0] == "pdf-tools" and "template-skill" not in hits


def test_install_all_installs_the_layouts_and_skips_the_placeholder(git_repo: GitRepo) -> None:
    want = _anthropic_like(git_repo)
    make_skill(git_repo.path / "skills" / ".curated" / "curated-one", "curated-one")
    git_repo.commit("a channel")
    res = run_cli("install", git_repo.url, "--all", "--yes")
    assert res.code == 0, res.err
    assert "skipped template: SK219" in res.err
    listed = run_cli("list", "--installed", "--json")
    assert _names(listed.out) == want | {"curated-one"}


def test_install_of_a_placeholder_alone_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "template"
    folder.mkdir()
    (folder / "SKILL.md").write_text(TEMPLATE)
    res = run_cli("install", str(folder), "--yes")
    assert res.code != 0 and "Traceback" not in res.err
    assert "template placeholder" in res.err and "SK219" in res.err
    assert run_cli("list", "--installed", "--json").json()["data"]["skills"] == []


mcp = pytest.importorskip("mcp", reason="the MCP SDK (skilldeck[mcp]) is not installed")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_serve_over_the_sdk_client_offers_the_repository_s_skills(
    git_repo: GitRepo, anyio_backend: str
) -> None:
    want = _anthropic_like(git_repo)
    nested = make_skill(git_repo.path / "skills" / "pdf-tools" / "examples" / "inner", "inner")
    git_repo.commit("nested")
    args = ["-m", "skilldeck", "serve", "--root", str(git_repo.path), "--no-watch"]

    async def served(*extra: str) -> set[str]:
        params = mcp.StdioServerParameters(
            command=sys.executable, args=[*args, *extra], env=dict(os.environ)
        )
        async with mcp.Client(params) as client:
            listed = await client.call_tool("skills_list", {})
            return {s["name"] for s in listed.structured_content["data"]["skills"]}

    assert await served() == want
    assert await served("--recursive") == want | {"inner"}
    assert nested.is_dir()
