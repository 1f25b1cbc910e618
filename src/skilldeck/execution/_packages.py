"""Python packages a skill's scripts declare, and the environments that hold them.

A script declares its packages with inline script metadata (PEP 723)::

    # /// script
    # requires-python = ">=3.10"
    # dependencies = ["pypdf>=4"]
    # ///

and a skill whose scripts share a list declares it once in ``scripts/requirements.txt``
(or ``requirements.txt`` beside SKILL.md): one requirement per line, ``#`` comments.
Inline metadata wins for its own script.

Environments are built by ``uv`` when the user approves the skill (``skilldeck approve``)
or asks for it (``skilldeck packages NAME``): network is allowed then, with the user's
own package index settings (``uv``'s configuration, ``UV_*`` and ``PIP_INDEX_URL`` /
``PIP_EXTRA_INDEX_URL``). One environment per set of requirements and interpreter,
under skilldeck's cache folder, built in a private staging folder and renamed into
place whole (a half-built environment is never used). A run only uses one: it never
installs, so it stays offline under the sandbox, and a missing environment is a coded
error whose hint builds it.

What a skill may write is a requirement, never an option: lines starting with ``-``
(``--index-url``, ``-e``, ``-r``), direct references (``name @ URL``) and names of
files (``evil-1.0.tar.gz``, a wheel: uv would build them from the current folder) are
refused, so a skill cannot choose where packages come from. uv runs in skilldeck's
environments folder: the folder the user works in (a cloned repository, perhaps) has
no say through a ``uv.toml`` or ``pyproject.toml`` of its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

from skilldeck._errors import ScriptFailedError, SkillError, hint_command
from skilldeck._frozen import value
from skilldeck._ownstate import package_envs
from skilldeck.execution._env import allowed_env

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "PackageSet",
    "build_environment",
    "declared_packages",
    "environment_python",
    "find_uv",
    "install_packages",
    "missing_module_hint",
    "packages_report",
    "python_for",
    "skill_package_sets",
]

#: a requirement: a name, extras, version specifiers and a marker; no URL, no option
#: (this module's patterns are compiled by ``re`` when first used, and kept in its cache:
#: a run that reads no requirement list compiles none of them)
_REQUIREMENT = (
    r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
    r"(?:\[[A-Za-z0-9._-]+(?:\s*,\s*[A-Za-z0-9._-]+)*\])?"
    r"\s*(?:(?:===|==|!=|<=|>=|~=|<|>)\s*[A-Za-z0-9.*+!_-]+\s*(?:,\s*(?:===|==|!=|<=|>=|~=|<|>)"
    r"\s*[A-Za-z0-9.*+!_-]+\s*)*)?(?:;[^@]*)?$"
)
#: what a requirement's name may not end with: uv reads such a name as a file (a
#: source archive it would build, running its ``setup.py``; a wheel) in the current folder
_FILE_SUFFIXES = (
    ".whl", ".zip", ".tar", ".gz", ".tgz", ".bz2", ".tbz", ".xz", ".txz", ".zst", ".lz",
    ".tlz", ".lzma", ".egg",
)  # fmt: skip
_SKILL_LISTS = ("scripts/requirements.txt", "requirements.txt")
_MAX_REQUIREMENTS = 200
_MAX_LIST_BYTES = 64 * 1024
_BUILD_TIMEOUT = 900
_COMPLETE = ".skilldeck-complete"


@value
class PackageSet:
    """The packages one script needs, and where the skill declared them."""

    requirements: tuple[str, ...]
    requires_python: str | None
    origin: str

    @property
    def key(self) -> str:
        """The environment's name: requirements, Python constraint and interpreter."""
        facts = [
            sorted(self.requirements),
            self.requires_python,
            os.path.realpath(sys.executable),
            list(sys.version_info[:3]),
        ]
        return hashlib.sha256(json.dumps(facts).encode()).hexdigest()[:32]


def _bad(skill: str, origin: str, why: str) -> ScriptFailedError:
    return ScriptFailedError(
        f"{origin}: {why}",
        skill=skill,
        path=origin,
        reason="packages_invalid",
        hint="write one requirement per entry (name, extras, version, marker), "
        "e.g. pypdf>=4; options and URLs are not accepted",
    )


def _checked(skill: str, origin: str, items: list[object]) -> tuple[str, ...]:
    if len(items) > _MAX_REQUIREMENTS:
        raise _bad(skill, origin, f"more than {_MAX_REQUIREMENTS} requirements")
    out = []
    for item in items:
        text = item.strip() if isinstance(item, str) else ""
        if not re.match(_REQUIREMENT, text):
            raise _bad(skill, origin, f"{str(item)[:100]!r} is not a plain requirement")
        name = re.split(r"[^A-Za-z0-9._-]", text, maxsplit=1)[0]
        if name.lower().endswith(_FILE_SUFFIXES):
            raise _bad(skill, origin, f"{name[:100]!r} names a file, not a package")
        out.append(text)
    return tuple(out)


def _script_blocks(text: str) -> list[str]:
    """The TOML of each ``# /// script`` block (PEP 723), in one pass over the lines.

    PEP 723's reference expression backtracks (a file of openers without closers is
    quadratic); this reads each line once: a block is ``# /// script``, then lines that
    are ``#`` or start with ``# ``, then ``# ///``.
    """
    found: list[str] = []
    body: list[str] | None = None
    for line in text.splitlines():
        if body is None:
            if line == "# /// script":
                body = []
        elif line == "# ///":
            found.append("".join(body))
            body = None
        elif line == "#" or line.startswith("# "):
            body.append(line[2:] + "\n")
        else:
            body = None  # not a comment line: no block here
    return found


def _read(root: Path, rel: str, limit: int) -> bytes | None:
    """At most ``limit`` bytes of the skill's file ``rel``, read beneath ``root`` as
    every read of a skill's files is (``None``: missing, refused or unreadable)."""
    from skilldeck._tree import read_beneath

    try:
        return read_beneath(root, rel, max_bytes=limit, truncate=True).data
    except (SkillError, OSError):
        return None


def _inline(skill: str, root: Path, origin: str) -> PackageSet | None:
    raw = _read(root, origin, _MAX_LIST_BYTES * 4)
    if raw is None:
        return None
    text = raw.decode("utf-8", "replace")
    blocks = _script_blocks(text)
    if not blocks:
        return None
    if len(blocks) > 1:
        raise _bad(skill, origin, "more than one '# /// script' block")
    content = blocks[0]
    import tomllib  # only a script with a metadata block pays for it

    try:
        meta = tomllib.loads(content)
    except tomllib.TOMLDecodeError as exc:
        raise _bad(skill, origin, f"the script metadata is not TOML ({exc})") from None
    deps = meta.get("dependencies", [])
    python = meta.get("requires-python")
    if not isinstance(deps, list) or (python is not None and not isinstance(python, str)):
        raise _bad(skill, origin, "dependencies must be a list, requires-python a string")
    return PackageSet(_checked(skill, origin, deps), python, origin)


def _skill_list(skill: str, root: Path, files: Collection[str] | None) -> PackageSet | None:
    for rel in _SKILL_LISTS:
        if files is not None and rel not in files:
            continue  # not in the skill's file set: never read (nor is it there, in a copy)
        raw = _read(root, rel, _MAX_LIST_BYTES + 1)
        if raw is None:
            continue
        if len(raw) > _MAX_LIST_BYTES:
            raise _bad(skill, rel, "the file is larger than 64 KiB")
        lines = [ln.split("#", 1)[0].strip() for ln in raw.decode("utf-8", "replace").splitlines()]
        return PackageSet(_checked(skill, rel, [ln for ln in lines if ln]), None, rel)
    return None


def declared_packages(
    skill: str, root: Path, script: Path, files: Collection[str] | None = None
) -> PackageSet | None:
    """The packages ``script`` (a ``.py`` file of the skill at ``root``) declares, if any.

    ``files``: the skill's file set where it is known (a run's private copy holds
    exactly it), so a package list outside it is not even looked for.
    """
    try:
        origin = script.relative_to(root).as_posix()
    except ValueError:
        return None  # not a file of the skill: nothing it declares is read
    found = _inline(skill, root, origin)
    if found is None:
        found = _skill_list(skill, root, files)
    if found is None or (not found.requirements and found.requires_python is None):
        return None
    return found


def skill_package_sets(skill: str, root: Path) -> list[PackageSet]:
    """Every distinct package set the Python scripts of the skill at ``root`` declare
    (the scripts of its file set, as the one walker lists it)."""
    from skilldeck.execution._scripts import list_scripts  # it picks interpreters from here

    seen: dict[str, PackageSet] = {}
    for rel in list_scripts(root):
        if rel.endswith(".py"):
            found = declared_packages(skill, root, root / rel)
            if found is not None:
                seen.setdefault(found.key, found)
    return list(seen.values())


def _envs() -> Path:
    return package_envs()


def _safe(folder: Path) -> bool:
    """An environment folder this user (or root) owns that no one else may write."""
    try:
        st = os.stat(folder)
    except OSError:
        return False
    return st.st_uid in (os.geteuid(), 0) and not st.st_mode & 0o022


def environment_python(packages: PackageSet) -> Path | None:
    """The interpreter of the built environment for ``packages``, or ``None``."""
    folder = _envs() / packages.key
    python = folder / "bin" / "python"
    if (folder / _COMPLETE).is_file() and python.exists() and _safe(folder) and _safe(_envs()):
        return python
    return None


def find_uv() -> str | None:
    """The ``uv`` program: the one installed with skilldeck's extra, else one on PATH."""
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found, unused-ignore]

        found = str(find_uv_bin())
        if os.path.exists(found):
            return found
    except (ImportError, FileNotFoundError):
        pass
    return shutil.which("uv")


#: what a ``uv`` build sees of the host: its index, proxy and certificate settings
_UV_ALLOW = (
    "PATH",
    "HOME",
    "LANG",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "XDG_CONFIG_HOME",
    "UV_*",
    "*_PROXY",
)


def _uv_env() -> dict[str, str]:
    """The environment of a ``uv`` build: the user's index settings (credentials of a
    private index included: uv is skilldeck's own tool, not the skill's), nothing else."""
    env = allowed_env(os.environ, _UV_ALLOW, deny=())
    for pip, uv in (
        ("PIP_INDEX_URL", "UV_INDEX_URL"),
        ("PIP_EXTRA_INDEX_URL", "UV_EXTRA_INDEX_URL"),
    ):
        if pip in os.environ and uv not in env:
            env[uv] = os.environ[pip]
    env["UV_NO_PROGRESS"] = "1"
    return env


def build_environment(
    skill: str,
    packages: PackageSet,
    *,
    progress: Callable[[str], None] | None = None,
) -> Path:
    """Build (once) the environment for ``packages``; returns its interpreter."""
    ready = environment_python(packages)
    if ready is not None:
        return ready
    uv = find_uv()
    if uv is None:
        raise ScriptFailedError(
            f"skill '{skill}' declares Python packages ({packages.origin}) and uv is not installed",
            skill=skill,
            reason="uv_missing",
            hint="install uv: python3 -m pip install uv  (or: pipx install uv)",
        )
    envs = _envs()
    envs.mkdir(parents=True, exist_ok=True, mode=0o755)
    final = envs / packages.key
    stage = envs / f".stage-{os.getpid()}-{packages.key}"
    shutil.rmtree(stage, ignore_errors=True)
    if progress is not None:
        progress(f"installing {', '.join(packages.requirements) or 'nothing'} for {skill}")
    steps = [
        [uv, "venv", "--quiet", "--relocatable", "--python", sys.executable, str(stage)],
        [uv, "pip", "install", "--quiet", "--python", str(stage / "bin" / "python"), "--",
         *packages.requirements],
    ]  # fmt: skip
    if not packages.requirements:
        steps.pop()
    try:
        for argv in steps:
            # in skilldeck's own folder: uv reads a project's configuration (uv.toml,
            # pyproject.toml) from the current folder up, and that may be a cloned
            # repository naming its own package index
            done = subprocess.run(
                argv, env=_uv_env(), capture_output=True, text=True, timeout=_BUILD_TIMEOUT,
                check=False, stdin=subprocess.DEVNULL, cwd=envs,
            )  # fmt: skip
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip()[-1500:]
                raise ScriptFailedError(
                    f"could not install the packages of skill '{skill}' ({packages.origin}): "
                    f"{tail}",
                    skill=skill,
                    reason="packages_failed",
                    hint="check the names and your network or package index (uv's settings), "
                    f"then run: {hint_command('packages', skill)}",
                )
        (stage / _COMPLETE).write_text(json.dumps(list(packages.requirements)) + "\n")
        for dirpath, dirnames, filenames in os.walk(stage):
            for name in (*dirnames, *filenames):
                full = os.path.join(dirpath, name)
                if not os.path.islink(full):
                    mode = os.stat(full).st_mode
                    os.chmod(full, (mode | 0o444 | (0o111 if mode & 0o111 else 0)) & ~0o022)
        try:
            os.rename(stage, final)
        except OSError:
            if environment_python(packages) is None:  # another process did not win the race
                raise
    except subprocess.TimeoutExpired:
        raise ScriptFailedError(
            f"installing the packages of skill '{skill}' took longer than {_BUILD_TIMEOUT} s",
            skill=skill,
            reason="packages_failed",
            hint="check your network or package index, then run: "
            + hint_command("packages", skill),
        ) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    python = environment_python(packages)
    assert python is not None
    return python


def python_for(
    skill: str, root: Path, script: Path, files: Collection[str] | None = None
) -> str | None:
    """The interpreter for a ``.py`` script with declared packages (``None``: none declared;
    ``files`` as for :func:`declared_packages`).

    Raises ``SCRIPT_FAILED`` (``packages_missing``) when the environment is not built:
    runs never install.
    """
    packages = declared_packages(skill, root, script, files)
    if packages is None:
        return None
    python = environment_python(packages)
    if python is None:
        raise ScriptFailedError(
            f"skill '{skill}' needs Python packages that are not installed: "
            f"{', '.join(packages.requirements) or packages.requires_python} "
            f"(declared in {packages.origin})",
            skill=skill,
            reason="packages_missing",
            hint="install them (network is used once, then runs stay offline): "
            + hint_command("packages", skill),
        )
    return str(python)


def install_packages(
    skill: str, folder: Path, *, progress: Callable[[str], None] | None = None
) -> list[tuple[PackageSet, Path]]:
    """Build the environments every Python script of the skill at ``folder`` declares.

    Returns each package set with its interpreter (already built ones are reused).
    The one place that installs: ``skilldeck approve`` and ``skilldeck packages`` call it.
    """
    return [
        (packages, build_environment(skill, packages, progress=progress))
        for packages in skill_package_sets(skill, folder)
    ]


_MISSING = r"ModuleNotFoundError: No module named '([A-Za-z0-9_]+)"
#: import names whose package has another name (the common ones in skills)
_DISTRIBUTIONS = {
    "PIL": "pillow",
    "yaml": "pyyaml",
    "pptx": "python-pptx",
    "docx": "python-docx",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "bs4": "beautifulsoup4",
    "fitz": "pymupdf",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "magic": "python-magic",
    "Crypto": "pycryptodome",
}


def missing_module_hint(output: str, skill: str, script: str | None) -> str | None:
    """A hint for a Python run that failed on an import of a package it did not declare."""
    found = re.search(_MISSING, output[-8192:])
    if found is None:
        return None
    module = found.group(1)
    package = _DISTRIBUTIONS.get(module, module)
    where = script or "scripts/SCRIPT.py"
    return (
        f"the script imports '{module}' (package {package}), which its skill does not declare: "
        f"in the skill folder run `uv add --script {where} {package}` (or list it in "
        f"scripts/requirements.txt), then: {hint_command('packages', skill)}"
    )


def packages_report(skills: Iterable[tuple[str, Path]]) -> dict[str, Any]:
    """For ``doctor``: uv, and each skill's declared package sets and whether they are built.

    A skill whose declaration is malformed is reported with the error, not raised.
    """
    rows: list[dict[str, Any]] = []
    for name, folder in skills:
        try:
            sets = skill_package_sets(name, folder)
        except ScriptFailedError as exc:
            rows.append({"name": name, "error": exc.message, "hint": exc.hint})
            continue
        for packages in sets:
            python = environment_python(packages)
            rows.append(
                {
                    "name": name,
                    "origin": packages.origin,
                    "requirements": list(packages.requirements),
                    "installed": python is not None,
                    "hint": None if python else hint_command("packages", name),
                }
            )
    return {"uv": find_uv(), "skills": rows}
