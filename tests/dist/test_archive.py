"""Installing from archives, including hostile ones (zip-slip, links, bombs, member floods)."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest
from tests.dist._helpers import skill_md

import skilldeck


def _zip(path: Path, members: dict[str, bytes], *, modes: dict[str, int] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            mode = (modes or {}).get(name, 0o644)
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return path


def _tar(path: Path, members: list[tarfile.TarInfo], data: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for info in members:
            payload = data.get(info.name)
            if payload is not None:
                info.size = len(payload)
                tf.addfile(info, io.BytesIO(payload))
            else:
                tf.addfile(info)
    return path


def _file(name: str, mode: int = 0o644) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info


def _assert_nothing_installed(tmp_path: Path) -> None:
    assert skilldeck.dist.list_installed() == ()
    # the files an escaping member would write (other tests of the same worker may
    # have folders called "escaped": only these names count)
    assert not [p for p in tmp_path.parent.glob("**/escaped*.txt") if p.is_file()]


def test_a_zip_skill_installs_with_executable_scripts(tmp_path: Path) -> None:
    archive = _zip(
        tmp_path / "tools.skill",
        {
            "tools/SKILL.md": skill_md("zip-tools").encode(),
            "tools/scripts/run.sh": b"#!/bin/sh\necho hi\n",
        },
        modes={"tools/scripts/run.sh": 0o755},
    )
    result = skilldeck.dist.install(str(archive))
    assert result.source.kind == "archive"
    folder = Path(result.skills[0].path)
    assert os.stat(folder / "scripts" / "run.sh").st_mode & 0o777 == 0o755
    assert skilldeck.dist.verify().ok


def test_a_tarball_with_several_skills(tmp_path: Path) -> None:
    archive = _tar(
        tmp_path / "skills.tar.gz",
        [_file("pkg/a/SKILL.md"), _file("pkg/b/SKILL.md")],
        {
            "pkg/a/SKILL.md": skill_md("tar-a").encode(),
            "pkg/b/SKILL.md": skill_md("tar-b").encode(),
        },
    )
    result = skilldeck.dist.install(str(archive), all_skills=True)
    assert result.names == ("tar-a", "tar-b")
    tgz = tmp_path / "skills.tgz"
    tgz.write_bytes(archive.read_bytes())
    assert skilldeck.dist.install(str(tgz), skills=["tar-a"], name="tar-a2").names == ("tar-a2",)


@pytest.mark.parametrize(
    "evil",
    ["../escaped.txt", "/tmp/escaped-abs.txt", "ok/../../escaped.txt", "dir\\..\\escaped.txt"],
)
def test_zip_slip_names_are_refused(tmp_path: Path, evil: str) -> None:
    archive = _zip(
        tmp_path / "evil.zip",
        {"s/SKILL.md": skill_md("slip").encode(), evil: b"owned\n"},
    )
    with pytest.raises(skilldeck.InstallError) as info:
        skilldeck.dist.install(str(archive))
    assert info.value.code == "INSTALL_FAILED"
    assert not Path("/tmp/escaped-abs.txt").exists()
    _assert_nothing_installed(tmp_path)


def test_tar_slip_and_absolute_names_are_refused(tmp_path: Path) -> None:
    for evil in ("../escaped-tar.txt", "/tmp/escaped-tar-abs.txt"):
        archive = _tar(
            tmp_path / "evil.tar.gz",
            [_file("s/SKILL.md"), _file(evil)],
            {"s/SKILL.md": skill_md("slip").encode(), evil: b"owned\n"},
        )
        with pytest.raises(skilldeck.InstallError):
            skilldeck.dist.install(str(archive))
    assert not Path("/tmp/escaped-tar-abs.txt").exists()
    _assert_nothing_installed(tmp_path)


@pytest.mark.parametrize(
    "kind", [tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.FIFOTYPE, tarfile.CHRTYPE]
)
def test_link_and_special_tar_members_are_refused(tmp_path: Path, kind: bytes) -> None:
    link = tarfile.TarInfo("s/link")
    link.type = kind
    link.linkname = "/etc/passwd"
    archive = _tar(
        tmp_path / "links.tar.gz",
        [_file("s/SKILL.md"), link],
        {"s/SKILL.md": skill_md("linked").encode()},
    )
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(str(archive))
    _assert_nothing_installed(tmp_path)


def test_a_symlink_zip_member_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "link.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("s/SKILL.md", skill_md("zlink"))
        info = zipfile.ZipInfo("s/passwd")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc/passwd")
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(str(archive))
    _assert_nothing_installed(tmp_path)


def test_an_archive_bomb_stops_at_the_byte_cap(tmp_path: Path) -> None:
    # 8 MiB of zeros compresses to a few KB; the cap is 1 MiB
    archive = _zip(
        tmp_path / "bomb.zip",
        {"s/SKILL.md": skill_md("bomb").encode(), "s/zeros.bin": b"\0" * (8 * 1024 * 1024)},
    )
    assert archive.stat().st_size < 100_000
    limits = skilldeck.dist.InstallLimits(archive_max_bytes=1024 * 1024)
    with pytest.raises(skilldeck.InstallError, match="archive bomb"):
        skilldeck.dist.install(str(archive), limits=limits)
    _assert_nothing_installed(tmp_path)


def test_a_zip_whose_headers_lie_about_sizes_still_stops_at_the_cap(tmp_path: Path) -> None:
    archive = _zip(
        tmp_path / "liar.zip",
        {"s/SKILL.md": skill_md("liar").encode(), "s/zeros.bin": b"\0" * (4 * 1024 * 1024)},
    )
    # rewrite the declared uncompressed size of zeros.bin (local header and directory) to 10
    data = bytearray(archive.read_bytes())
    size = (4 * 1024 * 1024).to_bytes(4, "little")
    patched = data.replace(size, (10).to_bytes(4, "little"))
    assert patched != data
    archive.write_bytes(bytes(patched))
    limits = skilldeck.dist.InstallLimits(archive_max_bytes=1024 * 1024)
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(str(archive), limits=limits)
    _assert_nothing_installed(tmp_path)


def test_too_many_members_stops_the_extraction(tmp_path: Path) -> None:
    members = {"s/SKILL.md": skill_md("flood").encode()}
    members.update({f"s/f/{i}.txt": b"" for i in range(200)})
    archive = _zip(tmp_path / "flood.zip", members)
    with pytest.raises(skilldeck.InstallError, match="members"):
        skilldeck.dist.install(
            str(archive), limits=skilldeck.dist.InstallLimits(archive_max_members=50)
        )
    _assert_nothing_installed(tmp_path)


def test_a_corrupt_or_unknown_archive_is_a_coded_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.zip"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(str(bad))
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(str(tmp_path / "absent.zip"))
    _assert_nothing_installed(tmp_path)


def test_an_encrypted_zip_member_is_refused(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "enc.zip", {"s/SKILL.md": skill_md("enc").encode()})
    data = bytearray(archive.read_bytes())
    # set the "encrypted" general-purpose flag bit in the local and central headers
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):
        at = data.find(sig)
        offset = at + (6 if sig == b"PK\x03\x04" else 8)
        data[offset] |= 0x01
    archive.write_bytes(bytes(data))
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(str(archive))
    _assert_nothing_installed(tmp_path)


def _damaged(tmp_path: Path, kind: str) -> Path:
    """An archive damaged the way a cut download or a bad disk damages one."""
    noise = os.urandom(64 * 1024)  # stored, not compressed: a flipped byte stays unnoticed
    members = [_file("s/SKILL.md"), _file("s/noise.bin")]
    data = {"s/SKILL.md": skill_md("damaged").encode(), "s/noise.bin": noise}
    if kind == "corrupt-zip":
        archive = _zip(tmp_path / "d.zip", {"s/SKILL.md": skill_md("damaged").encode() * 40})
        raw = bytearray(archive.read_bytes())
        start = raw.find(b"s/SKILL.md") + len("s/SKILL.md") + 4
        raw[start : start + 24] = bytes(b ^ 0x55 for b in raw[start : start + 24])
        archive.write_bytes(bytes(raw))
        return archive
    archive = _tar(tmp_path / "d.tgz", members, data)
    raw = bytearray(archive.read_bytes())
    if kind == "truncated-tgz":
        raw = raw[:40]
    elif kind == "flipped-tgz":  # in noise.bin's data: only gzip's checksum can tell
        middle = len(raw) // 2
        raw[middle : middle + 16] = bytes(b ^ 0x55 for b in raw[middle : middle + 16])
    elif kind == "cut-xz":  # an xz stream in a .tgz, its end (and checksum) cut off
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:xz") as tf:
            for info in members:
                info.size = len(data[info.name])
                tf.addfile(info, io.BytesIO(data[info.name]))
        raw = bytearray(buf.getvalue()[:-30])
    elif kind == "empty-tgz":
        raw = bytearray()
    archive.write_bytes(bytes(raw))
    return archive


@pytest.mark.parametrize(
    "kind", ["truncated-tgz", "corrupt-zip", "flipped-tgz", "cut-xz", "empty-tgz"]
)
def test_a_damaged_archive_is_a_coded_error_and_installs_nothing(tmp_path: Path, kind: str) -> None:
    # a cut gzip stream raised EOFError (the CLI said only "Aborted!"), corrupt deflate
    # data zlib.error (a traceback), and a flipped byte or a cut xz stream installed
    # the damaged files: the members end before the stream's checksum is read
    archive = _damaged(tmp_path, kind)
    with pytest.raises(skilldeck.InstallError) as caught:
        skilldeck.dist.install(str(archive))
    assert caught.value.hint is not None and "not installed" in caught.value.hint
    assert "\n" not in str(caught.value)
    _assert_nothing_installed(tmp_path)


def test_a_cut_archive_answers_install_json_with_the_envelope(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    archive = _damaged(tmp_path, "truncated-tgz")
    done = subprocess.run(
        [sys.executable, "-m", "skilldeck", "install", "--json", "-y", str(archive)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "Aborted" not in done.stderr, done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "INSTALL_FAILED"
