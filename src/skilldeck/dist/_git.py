"""Fetch one commit of a git repository with the system ``git``, safely.

- no shell: argv lists only; the URL and ref are validated and passed after
  options;
- shallow: ``git fetch --depth 1 <url> <ref>`` works for branches, tags and
  full commit ids (protocol v2); an abbreviated commit falls back to a full
  fetch followed by ``rev-parse``;
- hooks never run (``core.hooksPath=/dev/null``, an empty template folder),
  submodules are not fetched (``submodules`` names them, so an install can say
  so), LFS smudging is skipped;
- no prompts (``GIT_TERMINAL_PROMPT=0``, ssh ``BatchMode``), transports
  restricted to https/ssh/file (``GIT_ALLOW_PROTOCOL``, ``protocol.ext.allow=never``);
- a timeout bounds every git process.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from skilldeck._errors import InstallError

from ._model import InstallProgress, ProgressCallback

__all__ = ["fetch_commit", "git_available", "submodule_urls", "submodules"]

_SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "protocol.ext.allow=never",
    "protocol.allow=user",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    "core.fsmonitor=false",
    "core.symlinks=true",
    "advice.detachedHead=false",
    "init.defaultBranch=main",
    "credential.interactive=never",
)
_HEX = re.compile(r"^[0-9a-f]{4,40}$")


def git_available() -> bool:
    try:
        subprocess.run(["git", "--version"], capture_output=True, check=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return True


def _env() -> dict[str, str]:
    env = dict(os.environ)
    for key in list(env):
        # Variables that would redirect git at another repository or run commands.
        if key in {
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
            "GIT_OBJECT_DIRECTORY",
            "GIT_EXEC_PATH",
            "GIT_TEMPLATE_DIR",
            "GIT_CONFIG_PARAMETERS",
            "GIT_CONFIG_COUNT",
            "GIT_EXTERNAL_DIFF",
            "GIT_PROXY_COMMAND",
        }:
            del env[key]
    env.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "",
            "SSH_ASKPASS": "",
            "GIT_ALLOW_PROTOCOL": "https:ssh:file",
            "GIT_LFS_SKIP_SMUDGE": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
            "LC_ALL": "C",
        }
    )
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def _git(args: list[str], *, cwd: Path, timeout: float, url: str) -> str:
    return _git_bytes(args, cwd=cwd, timeout=timeout, url=url).decode("utf-8", "replace").strip()


def _git_bytes(args: list[str], *, cwd: Path, timeout: float, url: str) -> bytes:
    argv = ["git"]
    for item in _SAFE_CONFIG:
        argv += ["-c", item]
    argv += args
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            env=_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError as exc:
        raise InstallError(
            "git is not installed", hint="install git, or install from a folder or archive"
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise InstallError(
            f"git timed out after {timeout:g}s fetching {url}",
            hint="check the network, or raise the timeout (InstallLimits.git_timeout)",
        ) from exc
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        lines = err.splitlines()
        # git's first fatal line says why; its last is often boilerplate ("... and the
        # repository exists.")
        why = next((line for line in lines if line.startswith(("fatal:", "error:"))), None)
        why = why or (lines[-1] if lines else f"exit status {proc.returncode}")
        hint = "check the URL, the ref and your access to the repository"
        if "dubious ownership" in err:
            hint = (
                "git refuses a repository that belongs to another user (its hooks and "
                "config would run as you): install from a clone or copy you own"
            )
        raise InstallError(f"git failed for {url}: {why}", hint=hint, detail=err[-2000:])
    return proc.stdout


def fetch_commit(
    url: str,
    ref: str | None,
    dest: Path,
    *,
    timeout: float = 300.0,
    on_progress: ProgressCallback | None = None,
) -> str:
    """Fetch ``ref`` (default: the remote HEAD) of ``url`` into a new repo at ``dest``
    and check it out. Returns the full commit id.
    """
    if url.startswith("-"):
        raise InstallError(f"invalid git URL {url!r}")
    dest.mkdir(parents=True)
    template = dest.parent / (dest.name + ".template")
    template.mkdir()
    _git(["init", "-q", f"--template={template}", str(dest)], cwd=dest.parent, timeout=60, url=url)
    template.rmdir()
    if on_progress:
        on_progress(InstallProgress("fetch", f"fetching {ref or 'HEAD'} from {url}"))
    target = ref or "HEAD"
    try:
        _git(
            ["fetch", "-q", "--no-tags", "--depth", "1", "--", url, target],
            cwd=dest,
            timeout=timeout,
            url=url,
        )
        rev = "FETCH_HEAD"
    except InstallError:
        if ref is None or not _HEX.fullmatch(ref.lower()):
            raise
        # An abbreviated commit id cannot be fetched by name: fetch everything.
        _git(
            [
                "fetch",
                "-q",
                "--tags",
                "--",
                url,
                "+refs/heads/*:refs/remotes/origin/*",
            ],
            cwd=dest,
            timeout=timeout,
            url=url,
        )
        rev = ref
    try:
        commit = _git(
            ["rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}"],
            cwd=dest,
            timeout=60,
            url=url,
        )
    except InstallError as exc:
        raise InstallError(
            f"no commit {ref!r} in {url}", hint="check the branch, tag or commit name"
        ) from exc
    if on_progress:
        on_progress(InstallProgress("checkout", f"checking out {commit[:12]}"))
    _git(["checkout", "-q", "--detach", commit], cwd=dest, timeout=timeout, url=url)
    return commit


def submodules(repo: Path, *, url: str, timeout: float = 60.0) -> tuple[str, ...]:
    """The paths (relative to ``repo``, a checkout made by ``fetch_commit``) of its git
    submodules: gitlinks, which the checkout leaves as empty folders since submodules
    are never fetched."""
    out = _git_bytes(["ls-files", "--stage", "-z"], cwd=repo, timeout=timeout, url=url)
    found: list[str] = []
    for record in out.split(b"\0"):
        info, _, path = record.partition(b"\t")
        if info.startswith(b"160000 ") and path:
            found.append(os.fsdecode(path))
    return tuple(found)


def submodule_urls(repo: Path, *, url: str, timeout: float = 60.0) -> dict[str, str]:
    """Each submodule's path -> its URL, as the checkout's ``.gitmodules`` gives them
    (relative URLs resolved against ``url``, as git resolves them); a submodule the
    file does not describe is missing. The file comes from the repository: it is
    read as data (no includes), and what it says is only shown."""
    try:
        out = _git_bytes(
            ["config", "--file", ".gitmodules", "--no-includes", "-z", "--get-regexp",
             r"^submodule\..*\.(path|url)$"],
            cwd=repo, timeout=timeout, url=url,
        )  # fmt: skip
    except InstallError:  # no .gitmodules, or one git cannot read
        return {}
    paths: dict[str, str] = {}
    urls: dict[str, str] = {}
    for record in out.decode("utf-8", "replace").split("\0"):
        key, _, value = record.partition("\n")
        name, _, field = key.rpartition(".")
        (paths if field == "path" else urls)[name] = value
    base = url.rstrip("/")
    out_map: dict[str, str] = {}
    for name, path in paths.items():
        sub_url = urls.get(name)
        if not sub_url:
            continue
        if sub_url.startswith(("./", "../")) and "://" in base:
            from urllib.parse import urljoin

            sub_url = urljoin(base + "/", sub_url)
        out_map[path.strip("/")] = sub_url
    return out_map
