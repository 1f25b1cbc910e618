"""``SkillsSection``: inline and referenced skills together, installed into an agent
home or served to skilldeck's runtime."""

from __future__ import annotations

import errno
import logging
import os
import secrets
import stat
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import SkillError
from skilldeck._statedir import remove_tree_at
from skilldeck.events import Event, EventBus, SinkLike
from skilldeck.inline._errors import (
    InlineSkillsInstalled,
    SkillInstallationError,
    SkillValidationError,
)
from skilldeck.inline._pytools import INLINE_SOURCE, InlineToolProvider, make_runtime
from skilldeck.inline._skill import InlineSkill, SkillRef

if TYPE_CHECKING:
    from skilldeck.catalog import Catalog, Source
    from skilldeck.tools import SkillRuntime

__all__ = ["SkillSource", "SkillsSection"]

_TMP_PREFIX = ".skilldeck-inline-"
_log = logging.getLogger("skilldeck")

SkillSource = InlineSkill | SkillRef


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillsSection:
    """Inline and referenced skills together; duplicate names are refused.

    ``params`` given to the methods below reach each inline skill's template
    and ``enabled`` predicate (``None``: its ``default_params``);
    ``enabled_skills`` keeps only the named skills (what other frameworks call
    ``SkillsSectionParams.enabled_skills``).
    """

    skills: Sequence[SkillSource] = ()
    skill_refs: Sequence[SkillRef] = ()
    title: str = "Skills"
    key: str = "skills"

    def __post_init__(self) -> None:
        object.__setattr__(self, "skills", tuple(self.skills))
        object.__setattr__(self, "skill_refs", tuple(self.skill_refs))
        for item in self.all_skills:
            if not isinstance(item, InlineSkill | SkillRef):
                raise SkillValidationError(
                    f"a section holds InlineSkill and SkillRef objects, not {type(item).__name__}"
                )
        seen: dict[str, str] = {}
        for item in self.all_skills:
            if isinstance(item, SkillRef) and not item.is_enabled():
                continue
            kind = "inline" if isinstance(item, InlineSkill) else f"ref {item.resolved_path}"
            if item.name in seen:
                raise SkillValidationError(
                    f"two skills named {item.name!r} in one section ({seen[item.name]}, {kind})",
                    skill=item.name,
                    hint="skill names must be unique across inline and referenced skills",
                )
            seen[item.name] = kind

    # --- partitions -------------------------------------------------------

    @property
    def all_skills(self) -> tuple[SkillSource, ...]:
        return tuple(self.skills) + tuple(self.skill_refs)

    @property
    def inline_skills(self) -> tuple[InlineSkill, ...]:
        return tuple(s for s in self.skills if isinstance(s, InlineSkill))

    @property
    def referenced_skills(self) -> tuple[SkillRef, ...]:
        return tuple(s for s in self.skills if isinstance(s, SkillRef)) + tuple(self.skill_refs)

    @property
    def native_skills(self) -> tuple[InlineSkill, ...]:
        """Inline skills without tools (installed as files into an agent home)."""
        return tuple(s for s in self.inline_skills if not s.has_tools)

    @property
    def prompt_skills(self) -> tuple[InlineSkill, ...]:
        """Inline skills with tools (kept in the host's prompt / runtime)."""
        return tuple(s for s in self.inline_skills if s.has_tools)

    def active(
        self, params: Any = None, *, enabled_skills: Collection[str] | None = None
    ) -> tuple[SkillSource, ...]:
        """The skills taking part for ``params``: enabled, and named in ``enabled_skills``."""
        out: list[SkillSource] = []
        for item in self.all_skills:
            if isinstance(item, InlineSkill):
                on = item.is_enabled(params)
            else:
                on = item.is_enabled()
                if on and not item._name:
                    item.validate()  # a ref enabled since it was made
            if on and (enabled_skills is None or item.name in enabled_skills):
                if any(o.name == item.name for o in out):
                    # possible only with a ref that was disabled when the section was made
                    raise SkillValidationError(
                        f"two active skills named {item.name!r} in one section",
                        skill=item.name,
                        hint="skill names must be unique across inline and referenced skills",
                    )
                out.append(item)
        return tuple(out)

    def render_summaries(
        self,
        params: Any = None,
        *,
        installed: bool = True,
        enabled_skills: Collection[str] | None = None,
    ) -> str:
        """The section as prompt text: one summary per skill kept in the prompt.

        With ``installed`` (skills went to an agent home), only inline skills
        with tools are listed; otherwise every active skill is.
        """
        lines: list[str] = []
        for item in self.active(params, enabled_skills=enabled_skills):
            if isinstance(item, InlineSkill):
                if installed and not item.has_tools:
                    continue
                lines.append(item.render_summary())
            elif not installed:
                lines.append(f"[Skill: {item.name}] {item.description}")
        return f"## {self.title}\n\n" + "\n\n".join(lines) + "\n" if lines else ""

    # --- installation into an agent home -----------------------------------------

    def install_skills(
        self,
        *,
        skills_dir: str | os.PathLike[str],
        params: Any = None,
        enabled_skills: Collection[str] | None = None,
        include_prompt_skills: bool = False,
        events: SinkLike | EventBus | None = None,
        limits: Any = None,
        force: bool = False,
    ) -> tuple[Path, ...]:
        """Write native inline skills and copy referenced folders into ``skills_dir``.

        Each skill is built in a temporary folder beside its target and swapped
        in with one rename (an existing copy of a skill, a folder, is
        replaced), so a failure never leaves a half-written skill; it raises
        ``SkillInstallationError`` naming the skill, its kind and the cause
        (skills installed before it stay). A file or link at ``<dir>/<name>``
        is not a copy of a skill: it is replaced only with ``force``, else the
        install stops before writing anything (``reason="target_exists"``).
        Inline skills with tools are skipped unless ``include_prompt_skills``
        (their tools exist only in this process).

        A referenced folder is copied under the rules of ``skilldeck install``:
        a link leaving the skill is left out and reported as ``SK514`` (as
        ``skilldeck install`` reports it) in the event's ``warnings`` and on the
        ``skilldeck`` logger; a SKILL.md that is such a link is an error.
        Returns the installed folders, in section order, and emits
        ``InlineSkillsInstalled``.
        """
        from skilldeck.dist import InstallLimits

        lim = limits if limits is not None else InstallLimits()
        target = Path(skills_dir)
        chosen = self.active(params, enabled_skills=enabled_skills)
        plan: list[SkillSource] = [
            s for s in chosen if isinstance(s, SkillRef) or include_prompt_skills or not s.has_tools
        ]
        texts = {s.name: s.to_skill_md(params) for s in plan if isinstance(s, InlineSkill)}
        if not force:
            _refuse_non_skills(target, plan)
        try:
            target.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            first = plan[0] if plan else None
            raise SkillInstallationError(
                f"cannot create the skills folder {target}: {exc.strerror or exc}",
                skill_name=first.name if first else "",
                skills_dir=target,
                source="inline" if isinstance(first, InlineSkill) else "ref",
                cause=exc,
                hint="the skills folder must be writable (an isolated agent home)",
            ) from exc
        done: list[Path] = []
        problems: list[Diagnostic] = []
        for item in plan:
            kind: Literal["inline", "ref"] = "inline" if isinstance(item, InlineSkill) else "ref"
            try:
                if isinstance(item, InlineSkill):
                    done.append(_install_text(target, item.name, texts[item.name]))
                else:
                    left_out: list[Diagnostic] = []
                    done.append(_install_copy(target, item.name, item.resolved_path, lim, left_out))
                    for d in left_out:
                        _log.warning("%s: %s %s (%s)", item.name, d.code, d.message, d.path)
                    problems.extend(left_out)
            except (OSError, SkillError) as exc:
                why = exc.message if isinstance(exc, SkillError) else (exc.strerror or str(exc))
                raise SkillInstallationError(
                    f"cannot install {kind} skill {item.name!r} into {target}: {why}",
                    skill_name=item.name,
                    skills_dir=target,
                    source=kind,
                    cause=exc,
                    hint=getattr(exc, "hint", None) or "check the skill folder and the target",
                ) from exc
        inline = tuple(s.name for s in plan if isinstance(s, InlineSkill))
        refs = tuple(s.name for s in plan if isinstance(s, SkillRef))
        event = InlineSkillsInstalled(
            skills=inline + refs,
            source=INLINE_SOURCE,
            location=str(target),
            inline_skills=inline,
            referenced_skills=refs,
            warnings=tuple(problems),
        )
        _deliver(events, event)
        return tuple(done)

    # --- skilldeck's own runtime ---------------------------------------------------

    def source(
        self,
        params: Any = None,
        *,
        enabled_skills: Collection[str] | None = None,
        name: str = INLINE_SOURCE,
    ) -> Source:
        """A catalog source (kind ``inline``) serving the active skills.

        Inline skills come from memory (their skill-list description names the tools
        loading unlocks); referenced folders are roots of the same source.
        """
        from skilldeck.catalog import MemoryStore, Source

        store = MemoryStore(source=name)
        roots: list[Path] = []
        for item in self.active(params, enabled_skills=enabled_skills):
            if isinstance(item, InlineSkill):
                store.add(item._catalog_skill_md(params))
            else:
                roots.append(item.resolved_path)
        return Source.of(name, "inline", roots, store=store)

    def catalog(
        self,
        params: Any = None,
        *,
        enabled_skills: Collection[str] | None = None,
        defaults: bool = False,
        **options: Any,
    ) -> Catalog:
        """A catalog of this section's skills; with ``defaults`` the configured sources
        too, below the inline source (``Catalog.default(extra_sources=...)``)."""
        from skilldeck.catalog import Catalog

        src = self.source(params, enabled_skills=enabled_skills)
        if defaults:
            return Catalog.default(extra_sources=[src], **options)
        options.setdefault("cache", False)
        return Catalog([src], **options)

    def runtime(
        self,
        params: Any = None,
        *,
        catalog: Catalog | None = None,
        enabled_skills: Collection[str] | None = None,
        defaults: bool = False,
        **runtime_options: Any,
    ) -> SkillRuntime:
        """A ``SkillRuntime`` over this section's catalog that offers each inline
        skill's Python tools once the model has loaded that skill."""
        cat = catalog or self.catalog(params, enabled_skills=enabled_skills, defaults=defaults)
        return make_runtime(cat, self.tool_provider(), **runtime_options)

    def tool_provider(self) -> InlineToolProvider:
        """The tools of loaded inline skills, per session (the runtime's seam)."""
        return InlineToolProvider(self.prompt_skills)


def _deliver(events: SinkLike | EventBus | None, event: Event) -> None:
    if events is None:
        return
    if isinstance(events, EventBus) or hasattr(events, "emit"):
        events.emit(event)
    else:
        events(event)


def _refuse_non_skills(target: Path, plan: Sequence[SkillSource]) -> None:
    """A file or link where a skill's folder goes stops the install before any write."""
    for item in plan:
        dest = target / item.name
        try:
            st = os.lstat(dest)
        except (FileNotFoundError, NotADirectoryError):
            continue
        if stat.S_ISDIR(st.st_mode):
            continue
        what = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "a file"
        raise SkillInstallationError(
            f"{dest} is {what}, not a copy of skill {item.name!r}; nothing was installed",
            skill_name=item.name,
            skills_dir=target,
            source="inline" if isinstance(item, InlineSkill) else "ref",
            cause=FileExistsError(errno.EEXIST, "target exists", str(dest)),
            hint=f"move {dest} away, or pass force=True to install_skills to replace it",
            reason="target_exists",
        )


def _temp_name() -> str:
    return f"{_TMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"


def _open(target: Path) -> int:
    return os.open(target, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))


def _install_text(target: Path, name: str, text: str) -> Path:
    from skilldeck.dist import swap_at

    fd = _open(target)
    tmp = _temp_name()
    try:
        os.mkdir(tmp, 0o755, dir_fd=fd)
        out = os.open(
            f"{tmp}/SKILL.md",
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
            0o644,
            dir_fd=fd,
        )
        with os.fdopen(out, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        swap_at(fd, tmp, name)
    finally:
        remove_tree_at(fd, tmp)
        os.close(fd)
    return target / name


def _install_copy(
    target: Path, name: str, src: Path, limits: Any, problems: list[Diagnostic]
) -> Path:
    from skilldeck.dist import copy_skill_tree, swap_at

    fd = _open(target)
    tmp = _temp_name()
    try:
        copy_skill_tree(src, Path(tmp), limits, dir_fd=fd, problems=problems)
        swap_at(fd, tmp, name)
    finally:
        remove_tree_at(fd, tmp)
        os.close(fd)
    return target / name
