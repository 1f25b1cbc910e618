"""``InlineSkill`` (a skill written in Python) and ``SkillRef`` (a skill folder on disk)."""

from __future__ import annotations

import dataclasses
import os
import re
import string
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skilldeck._errors import InvalidArgumentsError, SkillRefError, hint_command
from skilldeck.format import is_skill_name, pattern_problem, read_skill_md
from skilldeck.inline._errors import SkillValidationError
from skilldeck.inline._pytools import SkillTool

__all__ = ["InlineSkill", "SkillRef"]

_XML_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(\s[^<>]*)?/?>")


def _params_mapping(params: Any) -> dict[str, Any]:
    if params is None:
        return {}
    if isinstance(params, Mapping):
        return {str(k): v for k, v in params.items()}
    if dataclasses.is_dataclass(params) and not isinstance(params, type):
        return {f.name: getattr(params, f.name) for f in dataclasses.fields(params)}
    raise SkillValidationError(
        f"skill parameters must be a mapping or a dataclass instance, not {type(params).__name__}"
    )


_YAML_WORDS = frozenset("true false yes no on off null ~ y n".split())
_PLAIN = re.compile(r"^[A-Za-z(][^:#\n\"'\\`{}\[\]|>*&!%@]*$")


def _yaml_string_quoted(text: str) -> str:
    """The text as a double-quoted YAML scalar that reads back as exactly ``text``
    (line breaks, tabs and control characters escaped by PyYAML's emitter)."""
    import yaml

    dumped: str = yaml.safe_dump(text, default_style='"', width=1 << 30, allow_unicode=True)
    return dumped.rstrip("\n")


def _yaml_string(text: str) -> str:
    """The text as a YAML scalar: plain when that is unambiguous, else double-quoted."""
    if (
        _PLAIN.fullmatch(text)
        and text.isprintable()  # no tab, control or line-separator character
        and text == text.strip()
        and text.lower() not in _YAML_WORDS
    ):
        return text
    return _yaml_string_quoted(text)


@dataclass(frozen=True, slots=True, kw_only=True)
class InlineSkill:
    """A skill defined in Python (a prompt-section framework's ``Skill``); validated when made.

    ``template`` is the body in ``string.Template`` syntax (``$name``,
    ``${name}``; ``$$`` for a literal ``$``); it is dedented, and placeholders
    without a value are left as written. ``enabled(params)`` decides whether the
    skill takes part for given parameters. ``summary`` is the one-line text a
    prompt shows before the skill is loaded (default ``[Skill: {name}]
    {description}``; ``$name``, ``$description`` and ``$title`` are filled in).
    """

    name: str
    description: str
    title: str
    template: str
    key: str = ""
    default_params: Any = None
    enabled: Callable[[Any], bool] | None = None
    tools: Sequence[SkillTool | Callable[..., Any]] = ()
    summary: str | None = None
    license: str | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)
    allowed_tools: str | None = None
    triggers: Mapping[str, Sequence[str]] | None = None

    def __post_init__(self) -> None:
        problems: list[str] = []
        if self.triggers is not None:
            unknown = set(self.triggers) - {"keywords", "verbs", "patterns"}
            if unknown or not all(
                isinstance(v, Sequence)
                and not isinstance(v, str)
                and all(isinstance(x, str) for x in v)
                for v in self.triggers.values()
            ):
                problems.append("triggers maps keywords, verbs and patterns to lists of strings")
            for pattern in self.triggers.get("patterns", ()):
                problem = pattern_problem(pattern)
                if problem is not None:
                    problems.append(f"trigger pattern {pattern!r} is invalid (RE2): {problem}")
        if not is_skill_name(self.name):
            problems.append(
                f"name {self.name!r} must be 1-64 lowercase letters, digits and single hyphens"
            )
        if not self.description.strip() or len(self.description) > 1024:
            problems.append("description must be 1-1024 characters")
        elif _XML_TAG.search(self.description):
            problems.append("description must not contain XML tags")
        if not self.title.strip():
            problems.append("title must not be empty")
        if not self.template.strip():
            problems.append("template must not be empty")
        bad_meta = [k for k, v in self.metadata.items() if not isinstance(v, str)]
        if bad_meta:
            problems.append(f"metadata values must be strings ({', '.join(map(str, bad_meta))})")
        tools = tuple(SkillTool.of(t) for t in self.tools)
        names = [t.name for t in tools]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            problems.append(f"tool name(s) used twice: {', '.join(dupes)}")
        if problems:
            raise SkillValidationError(
                f"invalid inline skill {self.name!r}: " + "; ".join(problems),
                skill=self.name,
                hint="names follow the Agent Skills rule, e.g. 'code-review'",
            )
        object.__setattr__(self, "tools", tools)
        if not self.key:
            object.__setattr__(self, "key", self.name)

    @property
    def has_tools(self) -> bool:
        return len(self.tools) > 0

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.skill_tools)

    @property
    def skill_tools(self) -> tuple[SkillTool, ...]:
        return tuple(t for t in self.tools if isinstance(t, SkillTool))

    def is_enabled(self, params: Any = None) -> bool:
        """Whether the skill takes part for ``params`` (else ``default_params``).

        A predicate that fails (typically one reading fields of params when none
        were bound) raises ``InvalidArgumentsError`` naming the skill."""
        if self.enabled is None:
            return True
        value = params if params is not None else self.default_params
        try:
            return bool(self.enabled(value))
        except Exception as exc:
            if value is None:
                message = (
                    f"inline skill {self.name!r} decides from its params whether it is "
                    f"enabled, but no params were given ({type(exc).__name__}: {exc})"
                )
                hint = "pass params= to the section's method, or give the skill default_params"
            else:
                message = (
                    f"the enabled predicate of inline skill {self.name!r} failed on the "
                    f"params given ({type(exc).__name__}: {exc})"
                )
                hint = "pass params of the type the predicate expects"
            raise InvalidArgumentsError(
                message, skill=self.name, field="params", hint=hint
            ) from exc

    def render_body(self, params: Any = None) -> str:
        """The body: the template with ``params`` (else ``default_params``) filled in."""
        values = _params_mapping(self.default_params)
        values.update(_params_mapping(params))
        body = string.Template(textwrap.dedent(self.template).strip("\n")).safe_substitute(values)
        return body.strip() + "\n"

    def _frontmatter(self, description: str, *, extensions: bool = False) -> str:
        lines = ["---", f"name: {self.name}", f"description: {_yaml_string(description)}"]
        if extensions and self.triggers:
            # triggers are an extension (not in the spec's field set):
            # only the catalog's copy carries them, to_skill_md stays strict-valid
            lines.append("triggers:")
            for kind, values in self.triggers.items():
                items = ", ".join(_yaml_string_quoted(v) for v in values)
                lines.append(f"  {kind}: [{items}]")
        if self.license:
            lines.append(f"license: {_yaml_string(self.license)}")
        if self.allowed_tools:
            lines.append(f"allowed-tools: {_yaml_string(self.allowed_tools)}")
        if self.metadata:
            lines.append("metadata:")
            lines.extend(
                f"  {_yaml_string(str(k))}: {_yaml_string(v)}" for k, v in self.metadata.items()
            )
        lines.append("---")
        return "\n".join(lines) + "\n"

    def to_skill_md(self, params: Any = None) -> str:
        """SKILL.md text (strict-valid): ``name`` and ``description`` frontmatter, then the
        rendered body (the title is the prompt section's heading, not the file's)."""
        return f"{self._frontmatter(self.description)}\n{self.render_body(params)}"

    def catalog_description(self) -> str:
        """The skill-list description: the description, plus the tools loading unlocks."""
        if not self.has_tools:
            return self.description
        suffix = f" Load this skill to use its tools: {', '.join(self.tool_names)}."
        room = 1024 - len(suffix)
        text = (
            self.description
            if len(self.description) <= room
            else self.description[: room - 1] + "…"
        )
        return text + suffix

    def render_summary(self) -> str:
        """The one-line summary, with the suffix naming the tools loading unlocks."""
        if self.summary is None:
            text = f"[Skill: {self.name}] {self.description}"
        else:
            text = string.Template(self.summary).safe_substitute(
                name=self.name, description=self.description, title=self.title
            )
        if self.has_tools:
            text += (
                f'\n[This skill is summarized. Call `skills_load` with name "{self.name}" '
                f"to view the full workflow and use its tools: {', '.join(self.tool_names)}.]"
            )
        return text

    def _catalog_skill_md(self, params: Any) -> str:
        body = self.render_body(params)
        if self.has_tools:
            lines = [
                f"- `{t.name}`: {t.description}" + (" (read-only)" if t.read_only else "")
                for t in self.skill_tools
            ]
            body += "\n## Tools\n\nLoading this skill made these tools available:\n\n"
            body += "\n".join(lines) + "\n"
        head = self._frontmatter(self.catalog_description(), extensions=True)
        return f"{head}\n{body}"


@dataclass(frozen=True, slots=True)
class SkillRef:
    """A skill folder on disk: absolute, or relative to ``base_path`` (default: the cwd).

    Validated when made unless ``enabled()`` is false (then on first use);
    raises ``SkillRefError`` whose ``reason`` is ``not_found``, ``not_directory``,
    ``missing_skill_md`` or ``invalid_frontmatter``. ``path`` is not sandboxed:
    callers pass folders they trust.
    """

    path: str | os.PathLike[str]
    base_path: str | os.PathLike[str] | None = None
    enabled: Callable[[], bool] | None = None
    _name: str = field(default="", init=False, repr=False, compare=False)
    _description: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.is_enabled():
            self.validate()

    @property
    def resolved_path(self) -> Path:
        p = Path(self.path).expanduser()
        if p.is_absolute():
            return p
        base = Path(self.base_path) if self.base_path is not None else Path.cwd()
        return (base / p).resolve()

    @property
    def skill_md_path(self) -> Path:
        return self.resolved_path / "SKILL.md"

    @property
    def name(self) -> str:
        """The ``name`` of the folder's SKILL.md."""
        if not self._name:
            self.validate()
        return self._name

    @property
    def description(self) -> str:
        if not self._name:
            self.validate()
        return self._description

    def is_enabled(self) -> bool:
        return bool(self.enabled()) if self.enabled is not None else True

    def validate(self) -> None:
        """Check the folder and read name and description; raises ``SkillRefError``."""
        folder = self.resolved_path
        if not os.path.lexists(folder) or not folder.exists():
            raise SkillRefError(
                f"skill folder {folder} does not exist",
                reason="not_found",
                path=str(folder),
                hint="check the path (relative paths start at base_path, else the cwd)",
            )
        if not folder.is_dir():
            raise SkillRefError(
                f"{folder} is not a folder",
                reason="not_directory",
                path=str(folder),
                hint="point at the skill's folder, not at a file inside it",
            )
        md = self.skill_md_path
        if not md.is_file():
            raise SkillRefError(
                f"{folder} holds no SKILL.md",
                reason="missing_skill_md",
                path=str(folder),
                hint="a skill folder needs a SKILL.md with name and description",
            )
        parsed = read_skill_md(md, metadata_only=True, folder_name=folder.name)
        manifest = parsed.manifest
        errors = [d for d in parsed.diagnostics if d.is_error]
        if manifest is None or errors or not is_skill_name(manifest.name or ""):
            detail = "; ".join(f"{d.code} {d.message}" for d in errors[:3])
            raise SkillRefError(
                f"the SKILL.md in {folder} has invalid frontmatter"
                + (f": {detail}" if detail else ""),
                reason="invalid_frontmatter",
                path=str(md),
                diagnostics=parsed.diagnostics,
                hint=f"run: {hint_command('validate', folder)}",
            )
        object.__setattr__(self, "_name", manifest.name)
        object.__setattr__(self, "_description", manifest.description)
