"""Reading bundled files. A hostile path suite; limits; binary files."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

import skilldeck
from skilldeck import (
    Catalog,
    FileAccessError,
    FileNotFoundInSkillError,
    FileTooLargeError,
    PathNotAllowedError,
    read_skill_file,
)

from .conftest import MakeSkill

SECRET = b"TOP-SECRET-OUTSIDE"


@pytest.fixture
def cat(tmp_path: Path, make_skill: MakeSkill) -> Catalog:
    (tmp_path / "secret.txt").write_bytes(SECRET)
    root = tmp_path / "skills"
    skill = make_skill(
        root,
        "target",
        files={
            "references/guide.md": "# Guide\n",
            "references/sub/deeper.md": "deeper\n",
            "scripts/run.py": "print('hi')\n",
            "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary",
            "notes.md": "root level note\n",
        },
    )
    make_skill(root, "neighbour", files={"references/other.md": "other skill\n"})
    refs = skill / "references"
    (skill / ".env").write_bytes(SECRET)
    (refs / ".hidden.md").write_bytes(SECRET)
    (refs / "escape.md").symlink_to(tmp_path / "secret.txt")
    (refs / "abs-escape.md").symlink_to("/etc/hostname")
    (refs / "to-neighbour.md").symlink_to(root / "neighbour" / "references" / "other.md")
    (refs / "inside.md").symlink_to(refs / "guide.md")
    (refs / "dir-link").symlink_to(tmp_path, target_is_directory=True)
    (refs / "zero").symlink_to("/dev/zero")
    os.mkfifo(refs / "pipe")
    (skill / "scripts" / "dangling.sh").symlink_to(tmp_path / "nope.sh")
    return Catalog.from_roots([root])


HOSTILE = [
    "../secret.txt",
    "../../secret.txt",
    "references/../../secret.txt",
    "references/../../../secret.txt",
    "./../secret.txt",
    "..",
    ".",
    "",
    "/etc/passwd",
    "//etc/passwd",
    "~/secret.txt",
    "~root/.bashrc",
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "references\\..\\..\\secret.txt",
    "references/guide.md\x00.png",
    "\x00",
    "%2e%2e/secret.txt",
    "%2e%2e%2fsecret.txt",
    "references%2f..%2f..%2fsecret.txt",
    "..%2fsecret.txt",
    "%252e%252e/secret.txt",
    "references/%2e%2e/%2e%2e/secret.txt",
    "references/escape.md",
    "references/abs-escape.md",
    "references/to-neighbour.md",
    "references/dir-link/secret.txt",
    "references/dir-link",
    "references/zero",
    "references/pipe",
    "references",
    "references/",
    "scripts/dangling.sh",
    "references/sub",
    ".env",
    "references/.hidden.md",
    str(Path("/proc/self/environ")),
    "references/guide.md/",
    "references/./../../secret.txt",
    "references/\n../secret.txt",
    "references/…/secret.txt",
]


def test_hostile_suite_is_large_enough() -> None:
    assert len(HOSTILE) >= 25


@pytest.mark.parametrize("relpath", HOSTILE)
def test_hostile_paths_are_refused(cat: Catalog, relpath: str) -> None:
    with pytest.raises(FileAccessError) as info:
        data = cat.read_file("target", relpath)
        assert SECRET not in data  # pragma: no cover - reached only on a bug
    assert info.value.code in {"PATH_NOT_ALLOWED", "FILE_NOT_FOUND"}
    # the file-read helper refuses the same way
    with pytest.raises(FileAccessError):
        read_skill_file(cat, "target", relpath)


@pytest.mark.parametrize("relpath", ["references/escape.md", "../secret.txt"])
def test_hostile_paths_refused_with_all_files_index(cat: Catalog, relpath: str) -> None:
    with pytest.raises(PathNotAllowedError) as info:
        data = cat.read_bundled("target", relpath, index="all").data
        assert SECRET not in data  # pragma: no cover - reached only on a bug
    assert SECRET.decode() not in str(info.value)


@pytest.mark.parametrize("name", ["tab\there.md", "bell\x07.md", "esc\x1b[31m.md", "us\x1f.md"])
def test_a_name_with_a_control_character_is_never_read(
    cat: Catalog, tmp_path: Path, name: str
) -> None:
    (tmp_path / "skills" / "target" / "references" / name).write_bytes(SECRET)
    with pytest.raises(PathNotAllowedError):
        cat.read_bundled("target", f"references/{name}")
    with pytest.raises(PathNotAllowedError):
        cat.read_bundled("target", f"references/{name}", index="all")
    assert cat.read_bundled("target", "references/guide.md", index="all").data == b"# Guide\n"


def test_a_deep_file_is_readable_with_all_files_index(cat: Catalog) -> None:
    assert cat.read_bundled("target", "references/sub/deeper.md", index="all").data


def test_allowed_reads(cat: Catalog) -> None:
    assert cat.read_file("target", "references/guide.md") == b"# Guide\n"
    assert cat.read_file("target", "./references//guide.md") == b"# Guide\n"
    assert cat.read_file("target", "references/inside.md") == b"# Guide\n"
    assert cat.files("target") == (
        "assets/logo.png",
        "notes.md",  # files at the skill's root are indexed by default
        "references/guide.md",
        "references/inside.md",
        "scripts/run.py",
    )
    everything = cat.files("target", index="all")
    assert "notes.md" in everything and "references/sub/deeper.md" in everything
    assert "SKILL.md" not in everything
    assert not any("escape" in f or "zero" in f or "pipe" in f for f in everything)


def test_missing_file_code(cat: Catalog) -> None:
    with pytest.raises(FileNotFoundInSkillError) as info:
        cat.read_file("target", "references/nope.md")
    assert info.value.code == "FILE_NOT_FOUND"


def test_size_limit_refuse_or_truncate(cat: Catalog, tmp_path: Path) -> None:
    big = tmp_path / "skills" / "target" / "references" / "big.txt"
    big.write_text("é" * 150_000)  # 300,000 bytes
    with pytest.raises(FileTooLargeError) as info:
        cat.read_file("target", "references/big.txt")
    assert info.value.code == "FILE_TOO_LARGE"
    content = read_skill_file(cat, "target", "references/big.txt", oversize="truncate")
    assert content.truncated and content.size == 300_000
    assert len(content.text.encode()) == 200_000
    assert [w["code"] for w in content.warnings] == ["CONTENT_TRUNCATED"]
    odd = read_skill_file(cat, "target", "references/big.txt", oversize="truncate", max_bytes=7)
    assert odd.text == "ééé"  # a cut multi-byte character is dropped, not mangled
    assert cat.read_file("target", "references/big.txt", max_bytes=300_000).startswith(b"\xc3")


def test_binary_as_base64_or_refused(cat: Catalog) -> None:
    content = read_skill_file(cat, "target", "assets/logo.png")
    assert content.encoding == "base64" and content.mime == "image/png"
    assert base64.b64decode(content.text) == b"\x89PNG\r\n\x1a\n\x00\x00binary"
    with pytest.raises(PathNotAllowedError):
        read_skill_file(cat, "target", "assets/logo.png", binary="refuse")
    text = read_skill_file(cat, "target", "scripts/run.py")
    assert text.encoding == "utf-8" and text.text == "print('hi')\n"
    assert text.to_dict()["mime_type"] == "text/x-python"


def test_load_with_every_file(cat: Catalog) -> None:
    assert cat.read_file("target", "notes.md") == b"root level note\n"
    # the index a host exposes is the boundary of reads; index="all" opens every file
    with pytest.raises(skilldeck.PathNotAllowedError, match="not in the file index"):
        cat.read_file("target", "references/sub/deeper.md")
    deeper = cat.read_bundled("target", "references/sub/deeper.md", index="all")
    assert deeper.data == b"deeper\n"
    assert cat.read_file("target", "SKILL.md").startswith(b"---")
    assert "references/sub/deeper.md" not in cat.load("target").files
    assert "references/sub/deeper.md" in cat.load("target", index="all").files
