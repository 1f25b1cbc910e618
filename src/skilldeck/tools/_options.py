"""Runtime options and the catalog interface the runtime relies on."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, Protocol

from skilldeck._errors import ConfigError
from skilldeck.config import check_runtime

if TYPE_CHECKING:
    from skilldeck.config import Config

__all__ = [
    "VERB_FIRST_PARAMETER_NAMES",
    "VERB_FIRST_TOOL_NAMES",
    "CatalogLike",
    "RuntimeOptions",
    "as_kwargs",
]

#: A rename map giving verb-first tool names (``list_skills``, ``load_skill``, ...).
VERB_FIRST_TOOL_NAMES: Mapping[str, str] = {
    "skills_list": "list_skills",
    "skills_load": "load_skill",
    "skills_read_file": "read_skill_resource",
    "skills_validate": "validate_skill",
    "skills_lint": "lint_skill",
}

#: The parameter names that go with ``VERB_FIRST_TOOL_NAMES`` (``load_skill(skill_name)``,
#: ``read_skill_resource(skill_name, resource_name)``), by skilldeck's tool key.
VERB_FIRST_PARAMETER_NAMES: Mapping[str, Mapping[str, str]] = {
    "skills_load": {"name": "skill_name"},
    "skills_read_file": {"name": "skill_name", "path": "resource_name"},
    "skills_validate": {"name": "skill_name"},
    "skills_lint": {"name": "skill_name"},
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeOptions:
    """Everything a host can set on a runtime (all keyword arguments of ``SkillRuntime``).

    - ``allowed_tools_enforcement``: ``off`` (default) or ``enforce``.
    - ``allowed_tools_invalid_allowlist``: ``ignore`` (default), ``enforce``, ``error``.
    - ``honor_untrusted_allowed_tools``: apply allowed-tools of untrusted skills as a
      restriction (default ``True``: it only takes tools away); ``False`` ignores them.
    - ``include_location``: ``skills_list`` / ``skills_load`` give the SKILL.md path.
    - ``tool_prefix`` / ``tool_names``: expose the ``skills_*`` tools under a prefix or
      a rename map (``VERB_FIRST_TOOL_NAMES``); ``parameter_names`` renames their
      parameters, ``{tool key: {parameter: new name}}`` (``VERB_FIRST_PARAMETER_NAMES``).
    - ``search``, ``scripts``, ``declared_tools``, ``validate_tools``: which tools exist.
    - ``max_body_bytes``: cut the bodies ``skills_load`` returns to this many bytes
      (``CONTENT_TRUNCATED``; the frontmatter does not count); ``max_file_bytes``:
      the file-read size limit (``FILE_TOO_LARGE`` above it); ``list_limit``: default page
      size of ``skills_list``; ``search_headings``: index body headings and the
      first words of each body too (at low weight); ``embedder``: ``fn(texts) ->
      vectors`` of a model the host has, to rank with embeddings too
      (``skilldeck.search.SemanticIndex``; the ``semantic`` extra), lexical when ``None``.
    - ``mode``: only skills whose ``modes`` include it (or ``Global``) are listed
      and loadable; ``None`` shows every skill.
    - ``preload``: skills loaded into every new session, as if the host had invoked
      them: their instructions are in ``session.loaded`` and their declared tools are
      offered from the first turn (for small models that do not call ``skills_load``).
      Running still needs approval.
    """

    allowed_tools_enforcement: Literal["off", "enforce"] = "off"
    allowed_tools_invalid_allowlist: Literal["ignore", "enforce", "error"] = "ignore"
    honor_untrusted_allowed_tools: bool = True
    include_location: bool = False
    tool_prefix: str = ""
    tool_names: Mapping[str, str] = field(default_factory=dict)
    parameter_names: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    search: bool = True
    scripts: bool = True
    declared_tools: bool = True
    validate_tools: bool = False
    max_body_bytes: int | None = None
    max_file_bytes: int = 200_000
    list_limit: int = 200
    search_headings: bool = True
    embedder: Callable[[Sequence[str]], Any] | None = None
    mode: str | None = None
    preload: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.preload, str):
            raise ValueError("preload must be a list of skill names, not one string")
        object.__setattr__(self, "preload", tuple(self.preload))
        if self.allowed_tools_enforcement not in ("off", "enforce"):
            raise ValueError("allowed_tools_enforcement must be 'off' or 'enforce'")
        if self.allowed_tools_invalid_allowlist not in ("ignore", "enforce", "error"):
            raise ValueError(
                "allowed_tools_invalid_allowlist must be 'ignore', 'enforce' or 'error'"
            )

    @classmethod
    def names(cls) -> frozenset[str]:
        return frozenset(f.name for f in fields(cls))

    @classmethod
    def from_config(
        cls,
        config: Config | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        **overrides: Any,
    ) -> RuntimeOptions:
        """The options set by the ``[runtime]`` tables of the config files; ``overrides``
        (the host's explicit choices: flags, keyword arguments) win over the files.

        ``config`` defaults to ``load_config(cwd=cwd)``: the user's file, and the
        project's, whose ``[runtime]`` keys only tighten unless the project is trusted
        (``docs/configuration.md``). A wrong value is ``ConfigError`` with its file
        and line; an unknown override is a ``TypeError``, as for ``SkillRuntime``.
        """
        unknown = set(overrides) - cls.names()
        if unknown:
            raise TypeError(f"unknown runtime option(s): {', '.join(sorted(unknown))}")
        if config is None:
            from skilldeck.config import load_config

            config = load_config(cwd=cwd)
        table = {k: dict(v) if isinstance(v, Mapping) else v for k, v in config.runtime.items()}
        located = config.located

        def fail(key: str, message: str, hint: str) -> ConfigError:
            return located(ConfigError(f"{key}: {message}", hint=hint))

        check_runtime(table, fail)  # each file was checked; this checks them merged
        return cls(**{**table, **overrides})


class CatalogLike(Protocol):
    """What the runtime needs from a catalog (``skilldeck.Catalog`` is the one in use)."""

    def list(self) -> Sequence[Any]: ...

    def get(self, name: str) -> Any: ...  # a CatalogEntry; raises SkillNotFoundError

    def load(self, name: str, *, max_bytes: int | None = None) -> Any: ...

    def read_file(self, name: str, relpath: str, *, max_bytes: int = ...) -> bytes: ...

    def digest(self, name: str) -> str: ...

    def trust(self, name: str) -> Any: ...


def as_kwargs(options: RuntimeOptions) -> dict[str, Any]:
    return {f.name: getattr(options, f.name) for f in fields(options)}
