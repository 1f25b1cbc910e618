"""Config files: locations, merging, validation, atomic comment-keeping writes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit

import skilldeck
import skilldeck.config
from skilldeck import ConfigError
from skilldeck.config import Budget, config_path, dirs, load_config, update_config


def _git_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def test_paths_user_and_project(tmp_path: Path) -> None:
    assert config_path("user") == dirs().config_file
    repo = _git_repo(tmp_path / "repo")
    sub = repo / "a" / "b"
    sub.mkdir(parents=True)
    assert config_path("project", cwd=sub) == repo.resolve() / ".skilldeck" / "config.toml"
    loose = tmp_path / "loose"
    loose.mkdir()
    assert config_path("project", cwd=loose) == loose.resolve() / ".skilldeck" / "config.toml"


def test_no_files_gives_defaults(tmp_path: Path) -> None:
    cfg = load_config(cwd=tmp_path)
    assert cfg.files == ()
    assert cfg.sources == ("bundled", "user", "extra", "project", "installed")
    assert cfg.disabled == () and cfg.budget is None


def test_project_overrides_user_key_by_key(tmp_path: Path) -> None:
    user = config_path("user")
    user.parent.mkdir(parents=True)
    user.write_text(
        '[catalog]\ndisabled = ["a"]\npinned = ["p"]\nroots = ["rel"]\n'
        "[execution]\ntimeout_cap = 30\nnetwork = false\n"
    )
    repo = _git_repo(tmp_path / "repo")
    (repo / ".skilldeck").mkdir()
    (repo / ".skilldeck" / "config.toml").write_text(
        '[catalog]\ndisabled = ["b"]\nrecursive = ["deep"]\n[execution]\nnetwork = true\n'
    )
    cfg = load_config(cwd=repo)
    assert cfg.disabled == ("b",)
    assert cfg.pinned == ("p",)
    assert cfg.roots == (user.parent / "rel",)
    assert cfg.recursive_roots == (repo.resolve() / "deep",)
    # network = true is guarded: a project file asks, it does not grant (docs/security.md)
    assert dict(cfg.execution) == {"timeout_cap": 30, "network": False}
    assert cfg.untrusted is not None and cfg.untrusted.keys == ("execution.network",)
    skilldeck.config.trust_project_config(cwd=repo)
    cfg = load_config(cwd=repo)
    assert dict(cfg.execution) == {"timeout_cap": 30, "network": True}
    assert cfg.files == (user, repo.resolve() / ".skilldeck" / "config.toml")


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("[catalog]\nsources = [1]\n", 2, "catalog.sources"),
        ('[catalog]\nsources = ["bundled", "nowhere"]\n', 2, "nowhere"),
        ("[catalog]\nbudget = -3\n", 2, "catalog.budget"),
        ("[catalog]\nbogus = 1\n", 2, "unknown key"),
        # a misspelt table or a stray key at the top was ignored by every command
        ('[catlog]\nmode = "strict"\n', 1, "catlog: unknown table"),
        ("\nbogus_key = 5\n", 2, "bogus_key: unknown table or key"),
        ("[catalog\nx=1\n", 1, "invalid TOML"),
        ("catalog = 3\n", 1, "must be a table"),
        ("[plugins.x]\nenabled = 'yes'\n", 2, "plugins.x.enabled"),
        ("[installed.x]\nenabled = 'yes'\n", 2, "installed.x.enabled"),
        ('[installed.x]\nurl = "a"\n\n[plugins.y]\nurl = "b"\n\n[plugins.x]\n', 7, "also has"),
        ("installed = 3\n", 1, "must be a table"),
        # a NUL byte in a path made every command fail with a ValueError traceback
        ('[catalog]\nroots = ["\\u0000"]\n', 2, "NUL byte"),
        ('[catalog]\nrecursive = "a\\u0000"\n', 2, "NUL byte"),
        ('[install]\ndir = "\\u0000"\n', 2, "NUL byte"),
        ('[security]\nsafe_directories = ["\\u0000"]\n', 2, "NUL byte"),
        ('[installed.x]\npath = "\\u0000"\n', 2, "NUL byte"),
    ],
)
def test_invalid_config_is_a_config_error(text: str, line: int, needle: str) -> None:
    path = config_path("user")
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config()
    err = info.value
    assert needle in err.message
    assert err.path == str(path)
    assert err.context["line"] == line
    assert err.hint


@pytest.mark.parametrize("value", ["[" * 5000 + "]" * 5000, "{a = " * 3000 + "1" + "}" * 3000])
def test_deep_nesting_is_a_config_error_not_a_recursion_error(value: str) -> None:
    path = config_path("user")
    path.parent.mkdir(parents=True)
    path.write_text(f"a = {value}\n")
    with pytest.raises(ConfigError) as info:
        load_config()
    assert "nest too deeply" in info.value.message and info.value.hint
    done = subprocess.run(
        [sys.executable, "-m", "skilldeck", "list"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1 and "[CONFIG_INVALID]" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_update_keeps_comments_and_validates(tmp_path: Path) -> None:
    path = config_path("user")
    path.parent.mkdir(parents=True)
    original = '# my settings\n[catalog]\n# keep this\ndisabled = ["a"]  # trailing\n'
    path.write_text(original)

    def add(doc: tomlkit.TOMLDocument) -> None:
        doc["catalog"]["disabled"].append("b")  # type: ignore[index,union-attr]
        plugin = tomlkit.table()
        plugin["url"] = "https://example.com/x.git"
        plugin["enabled"] = True
        doc.setdefault("installed", tomlkit.table())["x"] = plugin  # type: ignore[index]

    assert update_config("user", add) == path
    text = path.read_text()
    assert "# my settings" in text and "# keep this" in text and "# trailing" in text
    cfg = load_config()
    assert cfg.disabled == ("a", "b")
    assert cfg.installed["x"]["url"] == "https://example.com/x.git"

    def bad(doc: tomlkit.TOMLDocument) -> None:
        doc["catalog"]["sources"] = ["nope"]  # type: ignore[index]

    with pytest.raises(ConfigError):
        update_config("user", bad)
    assert path.read_text() == text  # unchanged


def test_update_with_text_that_is_not_utf8_writes_nothing() -> None:
    # `skilldeck disable NAME` with a name typed in another encoding was a traceback
    path = config_path("user")
    path.parent.mkdir(parents=True)
    path.write_text('[catalog]\ndisabled = ["a"]\n')

    def add(doc: tomlkit.TOMLDocument) -> None:
        doc["catalog"]["disabled"].append(os.fsdecode(b"b\xff"))  # type: ignore[index,union-attr]

    with pytest.raises(ConfigError) as info:
        update_config("user", add)
    assert "not valid UTF-8" in info.value.message
    assert path.read_text() == '[catalog]\ndisabled = ["a"]\n'


def test_update_creates_project_file(tmp_path: Path) -> None:
    repo = _git_repo(tmp_path / "r")

    def pin(doc: tomlkit.TOMLDocument) -> None:
        doc["catalog"] = {"pinned": ["z"]}

    written = update_config("project", pin, cwd=repo)
    assert written == repo.resolve() / ".skilldeck" / "config.toml"
    assert load_config(cwd=repo).pinned == ("z",)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(800, Budget(800)), ("800", Budget(800)), ("200 tokens", Budget(200, "tokens"))],
)
def test_budget_parse(value: object, expected: Budget) -> None:
    assert Budget.parse(value) == expected
    assert Budget(200, "tokens").chars == 800


def test_a_budget_of_any_length_is_as_good_as_unlimited() -> None:
    # a number past int()'s digit limit raised Python's own advice about
    # sys.set_int_max_str_digits
    assert Budget.parse("9" * 40) == Budget(int("9" * 18) + 1)
    assert Budget.parse("9" * 5_000 + " tokens") == Budget(10**18, "tokens")
    assert Budget.parse("007 tokens") == Budget(7, "tokens")


@pytest.mark.parametrize("value", ["x" * 100_000, "0" * 5_000, "0", 0, -3])
def test_a_hostile_budget_is_refused_in_a_short_message(value: object) -> None:
    # the message repeated the whole value
    with pytest.raises(ValueError) as caught:
        Budget.parse(value)
    message = str(caught.value)
    assert message.startswith("invalid budget ") and "2000 tokens" in message
    assert "int_max_str_digits" not in message and len(message) < 400


def test_plugins_tables_are_read_as_installed(tmp_path: Path) -> None:
    path = config_path("user")
    path.parent.mkdir(parents=True)
    path.write_text('[plugins.old]\nurl = "a"\nenabled = false\n\n[installed.new]\nurl = "b"\n')
    cfg = load_config()
    assert sorted(cfg.installed) == ["new", "old"]
    assert cfg.installed["old"]["enabled"] is False
    assert "plugins" not in cfg.data


def test_a_skill_in_both_spellings_is_config_invalid() -> None:
    path = config_path("user")
    path.parent.mkdir(parents=True)
    path.write_text('[installed.twice]\nurl = "a"\n\n[plugins.twice]\nurl = "a"\n')
    with pytest.raises(ConfigError) as info:
        load_config()
    err = info.value
    assert err.code == "CONFIG_INVALID"
    assert err.context["line"] == 4
    assert "[installed.twice]" in (err.hint or "") and "older spelling" in (err.hint or "")
