"""The errors and the event of inline skills."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import InstallError, ManifestError
from skilldeck.events import SkillsInstalled

__all__ = ["InlineSkillsInstalled", "SkillInstallationError", "SkillValidationError"]


class SkillValidationError(ManifestError):
    """An inline skill or a section is malformed (bad name or description, duplicates)."""


class SkillInstallationError(InstallError):
    """Writing or copying one skill into an agent home failed; nothing of it was left.

    ``skill_name``, ``skills_dir``, ``source`` (``inline`` or ``ref``) and
    ``cause`` (the underlying exception) say which skill and why; ``reason``
    is ``target_exists`` when a file or link sits where the skill's folder goes.
    """

    def __init__(
        self,
        message: str,
        *,
        skill_name: str,
        skills_dir: Path,
        source: Literal["inline", "ref"],
        cause: BaseException,
        reason: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(message, skill=skill_name, path=str(skills_dir), **kwargs)
        self.skill_name = skill_name
        self.skills_dir = skills_dir
        self.source = source
        self.cause = cause
        self.reason = reason


@dataclass(frozen=True, slots=True, kw_only=True)
class InlineSkillsInstalled(SkillsInstalled):
    """``SkillsInstalled`` for a section: ``skills`` is every name, split into
    ``inline_skills`` (generated) and ``referenced_skills`` (copied);
    ``location`` is the skills folder written to."""

    kind: ClassVar[str] = "skills_installed"

    inline_skills: tuple[str, ...] = ()
    referenced_skills: tuple[str, ...] = ()
    #: what the copies left out, as ``skilldeck install`` reports it (``SK514``: a
    #: link leaving the skill; special files)
    warnings: tuple[Diagnostic, ...] = ()
