"""SkillRuntime: the model-facing tools over a catalog, with policies and events.

A runtime is built once (catalog, options, host hooks, event sinks) and serves
many sessions. The two calls a front end needs are stable:

- ``runtime.tool_specs(session) -> list[ToolSpec]``: what to offer the model
  this turn (exposure, after allowed-tools and governance);
- ``runtime.call(session, name, arguments) -> dict``: run one call and return
  the envelope. It never raises for a bad call; the only exception is the
  ``allowed_tools_invalid_allowlist="error"`` policy, which fails the run by
  raising ``ToolNotAllowedError`` (``reason="INVALID_ALLOWLIST"``), as seed 000
  specifies.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from skilldeck._errors import (
    InvalidArgumentsError,
    SkillError,
    SkillNotFoundError,
    SkillUnavailableError,
    ToolNotAllowedError,
)
from skilldeck._events import (
    AllowedToolsPolicyChanged,
    Event,
    EventBus,
    FileRead,
    JsonlAuditSink,
    ScriptRun,
    SearchPerformed,
    SinkLike,
    SkillLoaded,
    ToolCalled,
)
from skilldeck._runtime._builtin import builtin_tools, file_payload, truncated_warning
from skilldeck._runtime._envelope import ToolResult, ToolWarning, error_envelope
from skilldeck._runtime._gates import AllowedToolsGate, GovernedSurface, ValidatedSurface
from skilldeck._runtime._governance import ConfirmCallback, GovernanceHook
from skilldeck._runtime._policy import decide_policy
from skilldeck._runtime._session import DeclaredBinding, LoadedSkill, Session, TraceEntry
from skilldeck._runtime._tools import (
    CompositeSurface,
    HostTool,
    ListSurface,
    RenamedSurface,
    Tool,
    ToolCall,
    ToolSpec,
    ToolSurface,
)
from skilldeck._search import SearchDocument, SearchIndex, extract_headings

if TYPE_CHECKING:
    from skilldeck._catalog import Catalog

__all__ = ["SEED_002_NAMES", "RuntimeOptions", "SkillRuntime"]

_log = logging.getLogger("skilldeck.runtime")

#: A rename map giving seed 002's tool names (``list_skills``, ``load_skill``, ...).
SEED_002_NAMES: Mapping[str, str] = {
    "skills_list": "list_skills",
    "skills_load": "load_skill",
    "skills_read_file": "read_skill_resource",
    "skills_validate": "validate_skill",
    "skills_lint": "lint_skill",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeOptions:
    """Everything a host can set on a runtime (all keyword arguments of ``SkillRuntime``).

    - ``allowed_tools_enforcement``: ``off`` (default) or ``enforce`` (seed 000).
    - ``allowed_tools_invalid_allowlist``: ``ignore`` (default), ``enforce``, ``error``.
    - ``honor_untrusted_allowed_tools``: apply allowed-tools of untrusted skills too.
    - ``include_location``: ``skills_list`` / ``skills_load`` give the SKILL.md path.
    - ``tool_prefix`` / ``tool_names``: expose the ``skills_*`` tools under a prefix or
      a rename map (``SEED_002_NAMES``); parameters keep their names.
    - ``search``, ``scripts``, ``declared_tools``, ``validate_tools``: which tools exist.
    - ``max_body_bytes``: cut SKILL.md bodies (``CONTENT_TRUNCATED``); ``max_file_bytes``:
      the tier-3 size limit (``FILE_TOO_LARGE`` above it); ``list_limit``: default page
      size of ``skills_list``; ``search_headings``: index body headings too.
    - ``mode``: only skills whose ``modes`` include it are listed and loadable
      (seed 003); ``None`` shows every skill.
    """

    allowed_tools_enforcement: Literal["off", "enforce"] = "off"
    allowed_tools_invalid_allowlist: Literal["ignore", "enforce", "error"] = "ignore"
    honor_untrusted_allowed_tools: bool = False
    include_location: bool = False
    tool_prefix: str = ""
    tool_names: Mapping[str, str] = field(default_factory=dict)
    search: bool = True
    scripts: bool = True
    declared_tools: bool = True
    validate_tools: bool = False
    max_body_bytes: int | None = None
    max_file_bytes: int = 200_000
    list_limit: int = 200
    search_headings: bool = True
    mode: str | None = None

    def __post_init__(self) -> None:
        if self.allowed_tools_enforcement not in ("off", "enforce"):
            raise ValueError("allowed_tools_enforcement must be 'off' or 'enforce'")
        if self.allowed_tools_invalid_allowlist not in ("ignore", "enforce", "error"):
            raise ValueError("allowed_tools_invalid_allowlist must be 'ignore', 'enforce' or 'error'")

    @classmethod
    def names(cls) -> frozenset[str]:
        return frozenset(f.name for f in fields(cls))


class _CatalogLike(Protocol):
    def list(self) -> Sequence[Any]: ...

    def get(self, name: str) -> Any: ...

    def load(self, name: str, *, max_bytes: int | None = None) -> Any: ...

    def read_file(self, name: str, relpath: str, *, max_bytes: int = ...) -> bytes: ...

    def digest(self, name: str) -> str: ...

    def trust(self, name: str) -> Any: ...


class SkillRuntime:
    """The agent-facing runtime over a catalog. Thread-safe; one per host is enough.

    Parameters besides the catalog and the ``RuntimeOptions`` fields:

    - ``governance``: the host's hook (see ``GovernanceRequest``);
    - ``confirm``: asked when the hook says ``confirm`` (a human, via the host);
    - ``host_tools``: the host's own tools (``HostTool``), offered through the runtime
      so allowed-tools and governance cover them;
    - ``sinks``: event sinks (callables or objects with ``emit``); ``audit_log``: a path
      for a ``JsonlAuditSink``;
    - ``executor``: what runs scripts and declared tools (default: skilldeck's executor).
    """

    def __init__(
        self,
        catalog: Catalog | _CatalogLike,
        *,
        options: RuntimeOptions | None = None,
        governance: GovernanceHook | None = None,
        confirm: ConfirmCallback | None = None,
        host_tools: Iterable[HostTool | Tool] = (),
        sinks: Iterable[SinkLike] = (),
        audit_log: str | os.PathLike[str] | None = None,
        executor: Any = None,
        **option_values: Any,
    ) -> None:
        unknown = set(option_values) - RuntimeOptions.names()
        if unknown:
            raise TypeError(f"unknown runtime option(s): {', '.join(sorted(unknown))}")
        base = options or RuntimeOptions()
        if option_values:
            base = RuntimeOptions(**{**_as_kwargs(base), **option_values})
        self.options = base
        self.catalog = catalog
        self.events = EventBus(list(sinks))
        if audit_log is not None:
            self.events.subscribe(JsonlAuditSink(audit_log))
        self._executor = executor
        self._index: SearchIndex | None = None
        self._index_key: tuple[Any, ...] | None = None
        self._index_lock = threading.Lock()
        host = [t.as_tool() if isinstance(t, HostTool) else t for t in host_tools]
        self._base: ToolSurface = CompositeSurface(
            RenamedSurface(
                ListSurface(builtin_tools(self)),
                prefix=base.tool_prefix,
                renames=base.tool_names,
            ),
            ListSurface(self._declared_tools),
            ListSurface(host),
        )
        surface: ToolSurface = self._base
        if governance is not None:
            surface = GovernedSurface(surface, hook=governance, confirm=confirm, emit=self.emit)
        surface = ValidatedSurface(surface)
        self._surface: ToolSurface = AllowedToolsGate(surface, emit=self.emit)

    # --- construction shortcuts ---------------------------------------------

    @classmethod
    def from_roots(
        cls,
        paths: Iterable[str | os.PathLike[str]],
        *,
        recursive: bool = False,
        **options: Any,
    ) -> SkillRuntime:
        """A runtime over a catalog of explicit roots (later roots win)."""
        from skilldeck._catalog import Catalog

        return cls(Catalog.from_roots(list(paths), recursive=recursive), **options)

    # --- the public surface -----------------------------------------------------

    def session(self, *, session_id: str | None = None) -> Session:
        """A fresh per-run session."""
        return Session(session_id=session_id, mode=self.options.mode)

    def tool_specs(self, session: Session) -> list[ToolSpec]:
        """The tools to offer the model now (allowed-tools, then governance, applied)."""
        return [t.spec for t in self._surface.tools(session)]

    def allowed(self, session: Session, name: str) -> bool:
        """Would a call of ``name`` pass allowed-tools now? (For tools the host runs itself.)"""
        tool = self._base.resolve(session, name)
        if tool is None:
            spec = ToolSpec(name, "", {}, origin="host")
            return session.policy.allows(spec)
        return session.policy.allows(tool.spec)

    def call(
        self, session: Session, name: str, arguments: Mapping[str, Any] | str | None = None
    ) -> dict[str, Any]:
        """Run one tool call; returns the envelope (``ok``/``data``/``warnings`` or ``error``)."""
        started = time.perf_counter()
        args: Mapping[str, Any] = {}
        raised: SkillError | None = None
        try:
            args = _parse_arguments(arguments)
            tool = self._surface.resolve(session, name)
            if tool is None:
                raise self._unknown_tool(session, name)
            envelope = tool(ToolCall(session, name, args, tool.spec)).envelope()
        except ToolNotAllowedError as exc:
            if exc.context.get("reason") == "INVALID_ALLOWLIST":
                raised = exc
            envelope = error_envelope(exc)
        except SkillError as exc:
            envelope = error_envelope(exc)
        except Exception as exc:
            _log.exception("tool %s failed", name)
            envelope = error_envelope(exc)
        self._finish(session, name, args, envelope, started)
        if raised is not None:
            raise raised
        return envelope

    def emit(self, event: Event) -> None:
        """Deliver an event to the runtime's sinks."""
        self.events.emit(event)

    # --- internals ----------------------------------------------------------------

    def _finish(
        self,
        session: Session,
        name: str,
        args: Mapping[str, Any],
        envelope: Mapping[str, Any],
        started: float,
    ) -> None:
        elapsed = (time.perf_counter() - started) * 1000
        ok = bool(envelope.get("ok"))
        code = None if ok else envelope["error"]["code"]
        warnings = tuple(w["code"] for w in envelope.get("warnings", ()))
        session._record(
            TraceEntry(
                seq=session._next_seq(),
                tool=name,
                ok=ok,
                code=code,
                duration_ms=elapsed,
                argument_keys=tuple(str(k) for k in args),
                skills_allowed_tools=session.policy.trace(),
                warnings=warnings,
            )
        )
        self.emit(
            ToolCalled(
                session_id=session.id,
                tool=name,
                arguments=dict(args),
                ok=ok,
                code=code,
                duration_ms=round(elapsed, 3),
            )
        )

    def _unknown_tool(self, session: Session, name: str) -> SkillError:
        base = self._base.resolve(session, name)
        if base is not None:  # exists, but governance or a filter hid it
            return ToolNotAllowedError(f"tool {name!r} is not available now", reason="HIDDEN")
        known = ", ".join(s.name for s in self.tool_specs(session))
        return ToolNotAllowedError(
            f"there is no tool named {name!r}",
            hint=f"available tools: {known}",
            reason="UNKNOWN_TOOL",
        )

    # --- catalog access -------------------------------------------------------------

    def _visible(self, meta: Any) -> bool:
        mode = self.options.mode
        if mode is None:
            return True
        manifest = getattr(meta, "manifest", None)
        modes = getattr(manifest, "modes", None)
        return _visible_in_mode(modes, mode)

    def _resolve(self, name: str) -> Any:
        meta = self.catalog.get(name)
        if meta is None:
            raise SkillNotFoundError(
                f"no skill named {name!r}",
                skill=name,
                hint="call skills_list or skills_search to see the available skills",
            )
        if not self._visible(meta):
            raise SkillUnavailableError(
                f"skill {name!r} is not available in mode {self.options.mode!r}",
                skill=name,
                hint="use a skill listed by skills_list",
            )
        return meta

    def _trusted(self, name: str) -> bool:
        try:
            level = self.catalog.trust(name)
        except SkillError:
            return False
        return str(getattr(level, "value", level)) != "untrusted"

    # --- tool handlers ----------------------------------------------------------------

    def _tool_list(self, call: ToolCall) -> ToolResult:
        offset = int(call.arguments.get("offset", 0))
        limit = int(call.arguments.get("limit", self.options.list_limit))
        metas = [m for m in self.catalog.list() if self._visible(m)]
        page = metas[offset : offset + limit]
        skills = []
        for meta in page:
            item: dict[str, Any] = {"name": meta.name, "description": meta.description}
            if getattr(meta, "source", None):
                item["source"] = meta.source
            if self.options.include_location and getattr(meta, "location", None):
                item["location"] = meta.location
            skills.append(item)
        data: dict[str, Any] = {"skills": skills, "count": len(skills), "total": len(metas)}
        if offset + limit < len(metas):
            data["next_offset"] = offset + limit
            data["hint"] = "more skills exist: page with offset, or use skills_search"
        return ToolResult(data)

    def _tool_load(self, call: ToolCall) -> ToolResult:
        name = str(call.arguments["name"])
        self._resolve(name)
        limit = self.options.max_body_bytes
        skill = self.catalog.load(name, max_bytes=limit)
        digest = self.catalog.digest(name)
        manifest = skill.manifest
        warnings: list[ToolWarning] = []
        if skill.body_truncated:
            warnings.append(truncated_warning(f"the body of {skill.name!r}", limit))
        declared = self._declare(name, skill) if self.options.declared_tools else {}
        data: dict[str, Any] = {
            "name": skill.name,
            "description": skill.description,
            "source": skill.source or None,
            "digest": digest,
            "body": skill.body,
            "files": list(skill.files),
        }
        if declared:
            data["tools"] = sorted(declared)
        if manifest is not None and manifest.allowed_tools:
            data["allowed_tools"] = [p.raw for p in manifest.allowed_tools]
        if self.options.include_location and skill.location:
            data["location"] = skill.location
        # the load succeeded: only now does allowed-tools change (seed 000)
        previous = call.session.policy
        call.session._mark_loaded(
            LoadedSkill(
                name=skill.name,
                key=name,
                source=skill.source or None,
                digest=digest,
                body=skill.body,
                body_truncated=skill.body_truncated,
                path=str(skill.path) if skill.path is not None else None,
                declared_tools=tuple(sorted(declared)),
            ),
            declared,
        )
        outcome = decide_policy(
            previous,
            mode=self.options.allowed_tools_enforcement,
            invalid_allowlist=self.options.allowed_tools_invalid_allowlist,
            skill=skill.name,
            patterns=manifest.allowed_tools if manifest is not None else None,
            available=[t.spec for t in self._base.tools(call.session)],
            trusted=self._trusted(name),
            honor_untrusted=self.options.honor_untrusted_allowed_tools,
        )
        self.emit(
            SkillLoaded(
                session_id=call.session.id,
                skill=skill.name,
                source=skill.source or None,
                digest=digest,
                body_bytes=len(skill.body.encode("utf-8")),
                body_truncated=skill.body_truncated,
            )
        )
        if outcome.error is not None:
            raise ToolNotAllowedError(
                outcome.error,
                skill=skill.name,
                hint="fix the skill's allowed-tools or set allowed_tools_invalid_allowlist "
                "to 'ignore' or 'enforce'",
                reason="INVALID_ALLOWLIST",
            )
        call.session._set_policy(outcome.policy)
        if outcome.action is not None:
            self.emit(
                AllowedToolsPolicyChanged(
                    session_id=call.session.id,
                    action=outcome.action,
                    skill=skill.name,
                    mode=outcome.policy.mode,
                    allow_set_count=outcome.policy.allow_set_count,
                    patterns=tuple(p.raw for p in outcome.policy.patterns),
                    reason=outcome.policy.ignored_reason,
                )
            )
        warnings.extend(outcome.warnings)
        return ToolResult(data, tuple(warnings))

    def _tool_read_file(self, call: ToolCall) -> ToolResult:
        name = str(call.arguments["name"])
        relpath = str(call.arguments["path"])
        meta = self._resolve(name)
        data = self.catalog.read_file(name, relpath, max_bytes=self.options.max_file_bytes)
        encoding, content = file_payload(data)
        self.emit(
            FileRead(
                session_id=call.session.id,
                skill=meta.name,
                path=relpath,
                size=len(data),
            )
        )
        return ToolResult(
            {
                "name": meta.name,
                "path": relpath,
                "encoding": encoding,
                "size": len(data),
                "content": content,
            }
        )

    def _tool_search(self, call: ToolCall) -> ToolResult:
        query = str(call.arguments["query"])
        limit = int(call.arguments.get("limit", 5))
        index = self.search_index()
        hits = index.search(query, limit=limit)
        self.emit(
            SearchPerformed(
                session_id=call.session.id,
                query=query,
                limit=limit,
                results=tuple(h.key or h.name for h in hits),
            )
        )
        return ToolResult(
            {"query": query, "results": [h.to_dict() for h in hits], "indexed": len(index)}
        )

    def search_index(self) -> SearchIndex:
        """The search index over the visible skills (rebuilt when the listing changes)."""
        metas = [m for m in self.catalog.list() if self._visible(m)]
        key = tuple((m.name, getattr(m, "source", ""), m.description) for m in metas)
        with self._index_lock:
            if self._index is not None and self._index_key == key:
                return self._index
            docs = [self._search_doc(m) for m in metas]
            self._index = SearchIndex(docs)
            self._index_key = key
            return self._index

    def _search_doc(self, meta: Any) -> SearchDocument:
        headings: tuple[str, ...] = ()
        if self.options.search_headings:
            try:
                skill = self.catalog.load(_address(meta), max_bytes=64 * 1024)
                headings = extract_headings(skill.body)
            except SkillError:
                headings = ()
        return SearchDocument(
            name=meta.name,
            description=meta.description,
            tags=tuple(getattr(meta, "tags", ()) or ()),
            headings=headings,
            key=meta.name,
            source=getattr(meta, "source", None) or None,
        )

    def _tool_run_script(self, call: ToolCall) -> ToolResult:
        name = str(call.arguments["name"])
        script = str(call.arguments["script"])
        args = [str(a) for a in call.arguments.get("args", [])]
        self._resolve(name)
        skill = self.catalog.load(name)
        return self._execute(call, skill, script, lambda ex: ex.run_script(skill, script, args))

    def _run_declared(self, call: ToolCall, binding: DeclaredBinding) -> ToolResult:
        skill = self.catalog.load(binding.skill)
        tool = binding.tool
        return self._execute(
            call, skill, tool.name, lambda ex: ex.run_tool(skill, tool, dict(call.arguments))
        )

    def _execute(
        self, call: ToolCall, skill: Any, target: str, run: Callable[[Any], Any]
    ) -> ToolResult:
        executor = self.executor()
        try:
            result = run(executor)
        except SkillError as exc:
            self.emit(
                ScriptRun(
                    session_id=call.session.id,
                    skill=skill.name,
                    target=target,
                    success=False,
                    error=exc.code,
                )
            )
            raise
        data = result.to_dict()
        self.emit(
            ScriptRun(
                session_id=call.session.id,
                skill=skill.name,
                target=target,
                success=bool(data.get("success")),
                exit_code=data.get("exit_code"),
                duration_ms=data.get("duration_ms"),
                error=data.get("error"),
            )
        )
        warnings: tuple[ToolWarning, ...] = ()
        if data.get("truncated"):
            warnings = (truncated_warning(f"the output of {target!r}", None),)
        return ToolResult(data, warnings)

    def executor(self) -> Any:
        """The executor that runs scripts and declared tools (made on first use)."""
        if self._executor is None:
            from skilldeck._exec import Executor

            self._executor = Executor(catalog=self.catalog, emit=self.emit)
        return self._executor

    def _tool_validate(self, call: ToolCall) -> ToolResult:
        from skilldeck._format import validate_skill

        return self._report(call, validate_skill)

    def _tool_lint(self, call: ToolCall) -> ToolResult:
        from skilldeck._format._lint import lint_skill

        return self._report(call, lint_skill)

    def _report(self, call: ToolCall, check: Callable[[Path], Any]) -> ToolResult:
        name = str(call.arguments["name"])
        meta = self._resolve(name)
        if getattr(meta, "path", None) is None:
            raise SkillUnavailableError(
                f"skill {name!r} has no folder to check", skill=name, hint="only on-disk skills"
            )
        report = check(Path(meta.path))
        return ToolResult(
            {
                "name": meta.name,
                "valid": bool(report.valid),
                "diagnostics": [d.to_dict() for d in report.diagnostics],
            }
        )

    # --- body-declared tools -------------------------------------------------------

    def _declare(self, name: str, skill: Any) -> dict[str, DeclaredBinding]:
        from skilldeck._format._mdtools import parse_declared_tools

        tools, _diags = parse_declared_tools(
            skill.body, path=str(skill.skill_md) if skill.skill_md else None
        )
        return {t.name: DeclaredBinding(skill=name, tool=t) for t in tools}

    def _declared_tools(self, session: Session) -> list[Tool]:
        out: list[Tool] = []
        for tool_name, binding in session.declared_tools.items():
            read_only = False
            spec = ToolSpec(
                tool_name,
                (binding.tool.description or f"Command tool of skill {binding.skill}")
                + f" (declared by skill {binding.skill})",
                binding.tool.input_schema(),
                origin=f"skill:{binding.skill}",
                read_only=read_only,
            )
            out.append(Tool(spec, _bind_declared(self, binding)))
        return out


def _bind_declared(runtime: SkillRuntime, binding: DeclaredBinding) -> Callable[[ToolCall], ToolResult]:
    return lambda call: runtime._run_declared(call, binding)


def _parse_arguments(arguments: Mapping[str, Any] | str | None) -> Mapping[str, Any]:
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise InvalidArgumentsError(
                f"the arguments are not valid JSON ({exc.msg} at position {exc.pos})",
                hint="send the arguments as one JSON object",
            ) from None
    if not isinstance(arguments, Mapping):
        raise InvalidArgumentsError(
            f"the arguments must be a JSON object (got {type(arguments).__name__})",
            hint="send the arguments as one JSON object",
        )
    return arguments


def _visible_in_mode(modes: Sequence[str] | None, mode: str) -> bool:
    if not modes:
        return True
    wanted = {m.lower() for m in modes}
    return "global" in wanted or mode.lower() in wanted


def _address(meta: Any) -> str:
    source = getattr(meta, "source", "")
    return f"{source}:{meta.name}" if source else str(meta.name)


def _as_kwargs(options: RuntimeOptions) -> dict[str, Any]:
    return {f.name: getattr(options, f.name) for f in fields(options)}
