"""Values of the distribution layer: sources, limits, progress, results, events."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from skilldeck._diagnostics import Diagnostic

__all__ = [
    "ExportResult",
    "ExportedSkill",
    "FileChanges",
    "InstallLimits",
    "InstallProgress",
    "InstallResult",
    "InstalledSkill",
    "LockEntry",
    "Placement",
    "PlacementCheck",
    "ProgressCallback",
    "RemoveResult",
    "Scope",
    "SkillUpdate",
    "SkillVerification",
    "SourceKind",
    "SourceSpec",
    "UpdateResult",
    "VerifyReport",
]

Scope = Literal["user", "project"]
SourceKind = Literal["git", "local", "archive"]

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class InstallLimits:
    """Caps applied to every skill installed or exported, and to archives.

    The per-skill defaults (512 files, 16 MiB) are those of the MCP Skills
    extension. Archive caps bound what an archive may expand to before any
    skill inside it is looked at (archive bombs).
    """

    max_files: int = 512
    max_bytes: int = 16 * MiB
    archive_max_members: int = 10_000
    archive_max_bytes: int = 64 * MiB
    git_timeout: float = 300.0


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """Where skills come from, parsed from the ``SOURCE`` argument.

    ``url`` is a git URL for ``git`` (local repositories become ``file://``),
    an absolute path for ``local`` and ``archive``. ``subpath`` selects a
    folder inside the source (``REPO#SUBDIR`` or ``--path``).
    """

    kind: SourceKind
    url: str
    ref: str | None = None
    subpath: str | None = None
    display: str = ""


@dataclass(frozen=True, slots=True)
class InstallProgress:
    """One progress report. ``done``/``total`` are set when countable.

    ``stage`` is one of ``fetch``, ``checkout`` (fetched, not yet checked out),
    ``extract``, ``copy``, ``validate``, ``staged`` (every chosen skill copied and
    checked; nothing installed moved), ``swap`` (the intent is written; nothing moved
    yet) and ``record`` (moved in; the lockfile is not yet written). A process killed
    at any of them leaves state the next command completes or undoes.
    """

    stage: str
    message: str
    done: int | None = None
    total: int | None = None


ProgressCallback = Callable[[InstallProgress], None]


def report(on_progress: ProgressCallback | None, stage: str, message: str) -> None:
    """Tell ``on_progress`` (when given) that ``stage`` is reached."""
    if on_progress is not None:
        on_progress(InstallProgress(stage, message))


PlacementMode = Literal["link", "copy"]


@dataclass(frozen=True, slots=True)
class Placement:
    """An agent's folder that shows an installed skill: a link to skilldeck's
    installed copy (``link``, the default) or a copy of it (``copy``).

    The agent id and mode are recorded, and for a copy the inode of the
    folder skilldeck placed (``remove`` deletes only that folder); the folder
    is derived from the agent table and the scope each time, never read back
    from the lockfile.
    """

    agent: str
    mode: PlacementMode = "link"
    ino: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"agent": self.agent, "mode": self.mode}
        if self.ino is not None:
            out["ino"] = self.ino
        return out

    @classmethod
    def from_json(cls, data: Any) -> Placement:
        if not isinstance(data, dict) or not isinstance(data.get("agent"), str):
            raise ValueError("a placement needs an agent id")
        mode = data.get("mode", "link")
        if mode not in ("link", "copy"):
            raise ValueError(f"unknown placement mode {mode!r}")
        ino = data.get("ino")
        if ino is not None and (not isinstance(ino, int) or isinstance(ino, bool) or ino < 0):
            raise ValueError("a placement's ino must be a number")
        return cls(agent=data["agent"], mode=mode, ino=ino)


@dataclass(frozen=True, slots=True)
class PlacementCheck:
    """One placement checked on disk. ``problem`` is None when it is in step:
    ``missing``, ``dangling link``, ``link to another folder``, ``differs from the
    installed copy``, ``present while disabled`` or ``not a folder``."""

    agents: tuple[str, ...]
    path: str
    mode: PlacementMode
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class LockEntry:
    """What the lockfile records about one installed skill."""

    name: str
    kind: SourceKind
    url: str
    ref: str | None
    subpath: str | None
    skill_path: str
    commit: str | None
    digest: str
    files: dict[str, str]
    trust: str = "untrusted"
    installed_at: str = ""
    updated_at: str = ""
    placements: tuple[Placement, ...] = ()
    #: a source on this machine's disk, signed by the user who installed it
    #: (``signed_source``): a project's lockfile can come with the repository
    mac: str | None = None

    @property
    def signed_source(self) -> str:
        """What ``mac`` signs: the source and the skill's folder in it."""
        return f"{self.kind}\0{self.url}\0{self.skill_path}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": {
                "kind": self.kind,
                "url": self.url,
                "ref": self.ref,
                "path": self.subpath,
                "skill_path": self.skill_path,
            },
            "commit": self.commit,
            "digest": self.digest,
            "files": dict(sorted(self.files.items())),
            "trust": self.trust,
            "installed_at": self.installed_at,
            "updated_at": self.updated_at,
        }
        if self.placements:
            out["placements"] = [p.to_json() for p in self.placements]
        if self.mac is not None:
            out["source"]["mac"] = self.mac
        return out

    @classmethod
    def from_json(cls, name: str, data: dict[str, Any]) -> LockEntry:
        src = data.get("source") or {}
        kind = src.get("kind", "git")
        if kind not in ("git", "local", "archive"):
            raise ValueError(f"unknown source kind {kind!r}")
        files = data.get("files") or {}
        if not isinstance(files, dict):
            raise ValueError("files must be a table")
        raw_places = data.get("placements") or []
        if not isinstance(raw_places, list):
            raise ValueError("placements must be a list")
        return cls(
            name=name,
            kind=kind,
            url=str(src["url"]),
            ref=src.get("ref"),
            subpath=src.get("path"),
            skill_path=str(src.get("skill_path", "")),
            commit=data.get("commit"),
            digest=str(data["digest"]),
            files={str(k): str(v) for k, v in files.items()},
            trust=str(data.get("trust", "untrusted")),
            installed_at=str(data.get("installed_at", "")),
            updated_at=str(data.get("updated_at", "")),
            placements=tuple(Placement.from_json(p) for p in raw_places),
            mac=src["mac"] if isinstance(src.get("mac"), str) else None,
        )

    @property
    def source_display(self) -> str:
        text = self.url
        if self.subpath:
            text += f"#{self.subpath}"
        if self.ref:
            text += f"@{self.ref}"
        return text


@dataclass(frozen=True, slots=True)
class InstalledSkill:
    """One skill an install put in place."""

    name: str
    path: str
    digest: str
    source: str
    commit: str | None
    skill_path: str
    replaced: bool
    file_count: int
    warnings: tuple[Diagnostic, ...] = ()
    #: agent folders now showing the skill (links or copies)
    placed: tuple[str, ...] = ()
    #: the Python packages its scripts declare, one ``"ORIGIN: REQ REQ"`` per set
    #: (PEP 723 blocks, ``scripts/requirements.txt``); installing never builds them
    packages: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class InstallResult:
    """The outcome of ``install``: what is now installed, and where."""

    scope: Scope
    source: SourceSpec
    commit: str | None
    skills: tuple[InstalledSkill, ...]
    installed_dir: str
    available: tuple[str, ...] = ()
    #: with ``skip_invalid``: the source's skills left out, each ``"PATH: why"``
    skipped: tuple[str, ...] = ()
    #: with ``skip_existing``: the chosen skills left alone, already installed
    existing: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.skills)


@dataclass(frozen=True, slots=True)
class FileChanges:
    """Relative paths added, removed and modified between two versions of a skill."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed or self.modified)

    @classmethod
    def between(cls, old: dict[str, str], new: dict[str, str]) -> FileChanges:
        return cls(
            added=tuple(sorted(set(new) - set(old))),
            removed=tuple(sorted(set(old) - set(new))),
            modified=tuple(sorted(k for k in set(old) & set(new) if old[k] != new[k])),
        )

    def to_json(self) -> dict[str, list[str]]:
        return {
            "added": list(self.added),
            "removed": list(self.removed),
            "modified": list(self.modified),
        }


@dataclass(frozen=True, slots=True)
class SkillUpdate:
    """One skill's update: ``status`` is ``updated``, ``unchanged``, ``would-update``
    (dry run) or ``failed`` (``error`` says why; other skills still update).

    ``approvals_revoked``: a stored script approval for the old content was
    deleted (approvals are digest-bound, so it no longer applied anyway).
    """

    name: str
    status: Literal["updated", "unchanged", "would-update", "failed"]
    old_digest: str
    new_digest: str | None
    old_commit: str | None
    new_commit: str | None
    changes: FileChanges = field(default_factory=FileChanges)
    approvals_revoked: bool = False
    error: str | None = None
    #: agent folders refreshed or repaired for this skill
    placed: tuple[str, ...] = ()
    #: of those, the ones that were missing or wrong and were put back
    repaired: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class UpdateResult:
    scope: Scope
    dry_run: bool
    skills: tuple[SkillUpdate, ...]

    @property
    def ok(self) -> bool:
        return all(s.status != "failed" for s in self.skills)


@dataclass(frozen=True, slots=True)
class RemoveResult:
    scope: Scope
    name: str
    path: str
    #: agent folders the skill was taken out of
    unplaced: tuple[str, ...] = ()
    #: agent folders left alone (not skilldeck's link or copy any more), with why
    kept: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SkillVerification:
    """One installed skill checked against the lockfile."""

    name: str
    ok: bool
    expected: str
    actual: str | None
    changes: FileChanges = field(default_factory=FileChanges)
    problem: str | None = None
    placements: tuple[PlacementCheck, ...] = ()


@dataclass(frozen=True, slots=True)
class VerifyReport:
    scope: Scope
    skills: tuple[SkillVerification, ...]
    untracked: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.skills)


@dataclass(frozen=True, slots=True)
class ExportedSkill:
    """``status``: ``exported`` (new), ``replaced`` (``force``) or ``unchanged``."""

    name: str
    path: str
    digest: str
    status: Literal["exported", "replaced", "unchanged"]


@dataclass(frozen=True, slots=True)
class ExportResult:
    skills_dir: str
    skills: tuple[ExportedSkill, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.skills)
