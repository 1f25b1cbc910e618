"""SkillRuntime: the model-facing tools over a catalog, with policies and events.

A runtime is built once (catalog, options, host hooks, event sinks) and serves
many sessions. The two calls a front end needs are stable:

- ``runtime.tool_specs(session) -> list[ToolSpec]``: what to offer the model
  this turn (exposure, after allowed-tools and governance);
- ``runtime.call(session, name, arguments) -> dict``: run one call and return
  the envelope. It never raises for a bad call; the only exception is the
  ``allowed_tools_invalid_allowlist="error"`` policy, which fails the run by
  raising ``ToolNotAllowedError`` (``reason="invalid_allowlist"``), as the policy
  specifies.
"""

from __future__ import annotations

import json
import operator
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from skilldeck._errors import (
    InvalidArgumentsError,
    SkillError,
    SkillNotFoundError,
    SkillUnavailableError,
    ToolNotAllowedError,
)
from skilldeck._json import loads
from skilldeck.events import (
    Event,
    EventBus,
    JsonlAuditSink,
    SinkLike,
    ToolCalled,
)
from skilldeck.format import model_invocable
from skilldeck.search import SearchIndex
from skilldeck.tools._builtin import BuiltinTools, builtin_tools
from skilldeck.tools._envelope import error_envelope
from skilldeck.tools._gates import AllowedToolsGate, GovernedSurface, ValidatedSurface
from skilldeck.tools._options import (
    VERB_FIRST_PARAMETER_NAMES,
    VERB_FIRST_TOOL_NAMES,
    CatalogLike,
    RuntimeOptions,
    as_kwargs,
)
from skilldeck.tools._script_tools import ScriptTools
from skilldeck.tools._searchindex import RuntimeSearch
from skilldeck.tools._session import Session
from skilldeck.tools._strict import drop_null_optionals
from skilldeck.tools._tools import (
    CompositeSurface,
    HostTool,
    ListSurface,
    RenamedSurface,
    Tool,
    ToolCall,
    ToolSpec,
    ToolSurface,
)

if TYPE_CHECKING:
    from skilldeck.catalog import Catalog
    from skilldeck.config import Config
    from skilldeck.disclosure import SkillListFormat
    from skilldeck.execution import Approver, Executor
    from skilldeck.tools._governance import ConfirmCallback, GovernanceHook
    from skilldeck.tools._invoke import Invoked

__all__ = [
    "VERB_FIRST_PARAMETER_NAMES",
    "VERB_FIRST_TOOL_NAMES",
    "RuntimeOptions",
    "SkillRuntime",
]


class SkillRuntime:
    """The agent-facing runtime over a catalog. Thread-safe; one per host is enough.

    Parameters besides the catalog and the ``RuntimeOptions`` fields:

    - ``governance``: the host's hook (see ``GovernanceRequest``);
    - ``confirm``: asked when the hook says ``confirm`` (a human, via the host);
    - ``host_tools``: the host's own tools (``HostTool``), offered through the runtime
      so allowed-tools and governance cover them;
    - ``sinks``: event sinks (callables or objects with ``emit``); ``audit_log``: a path
      for a ``JsonlAuditSink``;
    - ``executor``: what runs scripts and declared tools (default: skilldeck's
      ``Executor`` in the runtime's mode); ``approver``: the host's yes/no callback for
      runs that need approval (``ApprovalRequest`` -> bool; without one such runs fail
      with ``APPROVAL_REQUIRED``). Asking and the answer are emitted as events.
    - ``skill_tools``: tools that appear when a skill is loaded, as a function of the
      session (inline skills' Python tools: ``SkillsSection.tool_provider().tools``).
    """

    def __init__(
        self,
        catalog: Catalog | CatalogLike,
        *,
        options: RuntimeOptions | None = None,
        governance: GovernanceHook | None = None,
        confirm: ConfirmCallback | None = None,
        host_tools: Iterable[HostTool | Tool] = (),
        sinks: Iterable[SinkLike] = (),
        audit_log: str | os.PathLike[str] | None = None,
        executor: Executor | None = None,
        approver: Approver | None = None,
        skill_tools: Callable[[Session], Iterable[Tool]] | None = None,
        **option_values: Any,
    ) -> None:
        unknown = set(option_values) - RuntimeOptions.names()
        if unknown:
            raise TypeError(f"unknown runtime option(s): {', '.join(sorted(unknown))}")
        base = options or RuntimeOptions()
        if option_values:
            base = RuntimeOptions(**{**as_kwargs(base), **option_values})
        self.options = base
        self.catalog = catalog
        self.events = EventBus(list(sinks))
        if audit_log is not None:
            self.events.subscribe(JsonlAuditSink(audit_log))
        self.scripts = ScriptTools(self, executor, approver)
        self.builtin = BuiltinTools(self)
        self._search = RuntimeSearch(catalog, base)
        # the catalog listing, the options and the listing the model may know of
        self._listed: tuple[Sequence[Any], RuntimeOptions, list[Any]] | None = None
        host = [t.as_tool() if isinstance(t, HostTool) else t for t in host_tools]
        self._base: ToolSurface = CompositeSurface(
            RenamedSurface(
                ListSurface(builtin_tools(self)),
                prefix=base.tool_prefix,
                renames=base.tool_names,
                parameters=base.parameter_names,
            ),
            ListSurface(self.scripts.declared_tools),
            ListSurface(skill_tools or (lambda _session: ())),
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
        load_mode: Literal["lenient", "strict"] | None = None,
        **options: Any,
    ) -> SkillRuntime:
        """A runtime over a catalog of explicit roots (later roots win).

        ``load_mode`` is the catalog's ``mode`` (``"strict"``: every deviation from
        the SKILL.md format makes the skill invalid); ``mode`` stays the runtime's
        agent mode, as for ``SkillRuntime(...)``.
        """
        from skilldeck.catalog import Catalog

        catalog = Catalog.from_roots(list(paths), recursive=recursive, mode=load_mode)
        return cls(catalog, **options)

    @classmethod
    def default(
        cls,
        *,
        cwd: str | os.PathLike[str] | None = None,
        config: Config | None = None,
        **arguments: Any,
    ) -> SkillRuntime:
        """A runtime as the config files describe it: ``Catalog.default()``, the
        options of their ``[runtime]`` tables (``RuntimeOptions.from_config``) and
        the model ``[search] embedder`` of the user's own file names
        (``skilldeck.search.configured_embedder``; ``embedder=None`` here: lexical).

        ``arguments`` are ``SkillRuntime``'s: option values given here win over the
        files; the others (``governance``, ``sinks``, ...) pass through.
        ``SkillRuntime(catalog)`` itself never reads a config file.
        """
        from skilldeck.catalog import Catalog
        from skilldeck.config import load_config

        if "options" in arguments:
            raise TypeError("SkillRuntime.default() takes option values as keyword arguments")
        cfg = config if config is not None else load_config(cwd=cwd)
        chosen = {k: arguments.pop(k) for k in list(arguments) if k in RuntimeOptions.names()}
        if "embedder" not in chosen:  # [search] embedder of the user's own file, loaded
            from skilldeck.search import configured_embedder

            chosen["embedder"] = configured_embedder()
        options = RuntimeOptions.from_config(cfg, **chosen)
        return cls(Catalog.default(cwd=cwd, config=cfg), options=options, **arguments)

    # --- the public surface -----------------------------------------------------

    def session(self, *, session_id: str | None = None) -> Session:
        """A fresh per-run session (with the ``preload`` skills loaded, if any).

        A preloaded skill that cannot be loaded (gone, disabled, out of the mode)
        is left out; the ``skills_load`` it would have been is in the trace and the
        audit as a failed call.
        """
        session = Session(
            session_id=session_id,
            mode=self.options.mode,
            enforcement=self.options.allowed_tools_enforcement,
        )
        for name in self.options.preload:
            spec = ToolSpec(self._exposed("skills_load"), "", {}, origin="skills")
            started = time.perf_counter()
            args = {"name": name}
            try:
                envelope = self.builtin.load_skill(
                    ToolCall(session, spec.name, args, spec), by_host=True
                ).envelope()
            except SkillError as exc:
                envelope = error_envelope(exc)
            self._finish(session, spec.name, args, envelope, started)
        return session

    def tool_specs(self, session: Session) -> list[ToolSpec]:
        """The tools to offer the model now (allowed-tools, then governance, applied)."""
        return [t.spec for t in self._surface.tools(session)]

    def available_skills(
        self,
        *,
        budget: int | str | None = None,
        format: SkillListFormat = "xml",
        pinned: Sequence[str] = (),
    ) -> str:
        """The skill list for the system prompt: ``<available_skills>`` of the visible skills.

        Uses the disclosure renderer with this runtime's ``include_location`` and mode;
        when ``budget`` cuts the list, its last line points at the search tool under
        the name the model sees.
        """
        from skilldeck.disclosure import render_skills

        search = self._base.resolve(Session(), self._exposed("skills_search"))
        return render_skills(
            self._listing(),
            format=format,
            budget=budget,
            pinned=pinned,
            include_location=self.options.include_location,
            search_tool=search.spec.name if search is not None else self._exposed("skills_list"),
        )

    def _exposed(self, key: str) -> str:
        return self.options.tool_names.get(key, self.options.tool_prefix + key)

    def allowed(self, session: Session, name: str) -> bool:
        """Would a call of ``name`` pass allowed-tools now? (For tools the host runs itself.)"""
        tool = self._base.resolve(session, name)
        if tool is None:
            spec = ToolSpec(name, "", {}, origin="host")
            return session.permits(spec)
        return session.permits(tool.spec)

    def visible_skills(self, session: Session | None = None) -> list[Any]:
        """Metadata of the skills ``skills_list`` shows (the mode's, and a forked
        session's subset; never a ``disable-model-invocation`` skill); what the skill list
        for that session should render."""
        metas = [m for m in self.catalog.list() if self._visible(m) and model_invocable(m)]
        if session is None or session.scope is None:
            return metas
        return [m for m in metas if session.can_see(m.name)]

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
            # a strict-mode model sends null for an optional argument it leaves out
            args = drop_null_optionals(tool.spec.parameters, args)
            envelope = tool(ToolCall(session, name, args, tool.spec)).envelope()
        except ToolNotAllowedError as exc:
            if exc.context.get("reason") == "invalid_allowlist":
                raised = exc
            envelope = error_envelope(exc)
        except SkillError as exc:
            envelope = error_envelope(exc)
        except Exception as exc:
            import logging  # only a failing tool logs: not imported for every runtime

            logging.getLogger("skilldeck.runtime").exception("tool %s failed", name)
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
        session.record_call(
            tool=name,
            ok=ok,
            code=code,
            duration_ms=elapsed,
            argument_keys=tuple(str(k) for k in args),
            skills_allowed_tools=session.policy.trace(),
            warnings=warnings,
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
            return ToolNotAllowedError(f"tool {name!r} is not available now", reason="hidden")
        known = ", ".join(s.name for s in self.tool_specs(session))
        return ToolNotAllowedError(
            f"there is no tool named {name!r}",
            hint=f"available tools: {known}",
            reason="unknown_tool",
        )

    # --- catalog access -------------------------------------------------------------

    def _visible(self, meta: Any) -> bool:
        mode = self.options.mode
        if mode is None:
            return True
        from skilldeck.execution import skill_visible_in_mode

        return skill_visible_in_mode(getattr(meta, "manifest", None), mode)

    def resolve_skill(
        self, name: str, session: Session | None = None, *, by_host: bool = False
    ) -> Any:
        """The catalog entry for ``name`` (``SOURCE:NAME`` accepted), checked against the
        mode and the session's scope (a forked session's hidden skills do not exist).

        For the model (``by_host`` false) a ``disable-model-invocation`` skill does not
        exist either, until the user invoked it in this session."""
        entry = self.catalog.get(name)
        hidden = (
            not by_host
            and not model_invocable(entry.metadata)
            and (session is None or not session.is_loaded(entry.metadata.name))
        )
        if hidden or (session is not None and not session.can_see(entry.metadata.name)):
            raise SkillNotFoundError(
                f"no skill named {name!r}",
                skill=name,
                hint="call skills_list or skills_search to see the available skills",
            )
        if not self._visible(entry.metadata):
            raise SkillUnavailableError(
                f"skill {name!r} is not available in mode {self.options.mode!r}",
                skill=name,
                hint="use a skill listed by skills_list",
            )
        return entry

    def is_trusted(self, name: str) -> bool:
        """Whether ``name``'s source is trusted (an unknown skill is not)."""
        try:
            level = self.catalog.trust(name)
        except SkillError:
            return False
        return str(getattr(level, "value", level)) != "untrusted"

    def suggest(
        self, text: str, *, limit: int | None = 5, session: Session | None = None
    ) -> list[Any]:
        """Skills that fit ``text``, best first: trigger matches combined with search
        (``skilldeck.search._suggest.suggest``; each ``Suggestion`` says why and how confident
        it is). With ``session``, only the skills that session can see."""
        from skilldeck.search import suggest

        # the index's own listing is what visible_skills() gives without a session
        # scope: one pass over the catalog, and suggest keeps its prepared triggers
        listing = self._listing()
        index = self._search.index(listing)
        if session is not None and session.scope is not None:
            listing = [m for m in listing if session.can_see(m.name)]
        return suggest(text, listing, limit=limit, index=index)

    def preflight(
        self, user_message: str, *, limit: int = 3, session: Session | None = None
    ) -> str:
        """A short block naming the few skills that confidently fit ``user_message``,
        and why, for the host to add before the model answers; ``""`` when none does.

        Forcing the model to consider the skills that fit (rather than hoping it
        notices them in the skill list) is what raises activation; abstaining when nothing
        fits keeps the hint from steering ordinary requests.
        """
        from skilldeck.tools._preflight import render_preflight

        picked = self.suggest(user_message, limit=limit, session=session)
        return render_preflight(
            user_message,
            [s for s in picked if s.confident],
            load_tool=self._exposed("skills_load"),
        )

    def search_index(self, *, progress: Callable[[int, int], None] | None = None) -> SearchIndex:
        """The search index over the visible skills (rebuilt when the listing changes).

        ``progress(done, total)`` is called while a build reads the skills (a first
        search over a large catalog takes seconds); never when the index is reused."""
        return self._search.index(self._listing(), progress=progress)

    def prepare_search(
        self,
        *,
        background: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> SearchIndex:
        """Build or load the search index now and, with an embedder, the skill
        embeddings, calling ``progress(done, total)`` as skills are embedded. With
        ``background``, the embeddings (of this and every later catalog state) are
        made in a thread and searches answer lexically until they are ready: what a
        server does, so its first answers do not wait minutes for a new catalog."""
        from skilldeck.search import SemanticIndex

        if background:
            self._search.embed_background = True
        index = self.search_index()
        if isinstance(index, SemanticIndex):
            index.prepare(background=background, progress=progress)
        return index

    def _listing(self) -> list[Any]:
        """What the model may know of: the mode's skills, less ``disable-model-invocation``.

        Kept while the catalog hands out the same metadata objects (it does until it
        rescans), so a search or a suggestion does not filter the whole catalog again."""
        metas = self.catalog.list()
        kept = self._listed
        if (
            kept is not None
            and kept[1] is self.options
            and len(kept[0]) == len(metas)
            and all(map(operator.is_, metas, kept[0]))
        ):
            return list(kept[2])
        listing = [m for m in metas if model_invocable(m)]
        if self.options.mode is not None:
            listing = [m for m in listing if self._visible(m)]
        self._listed = (metas, self.options, listing)
        return list(listing)

    # --- the user's path: invoking a skill by name ----------------------------------

    def invoke(
        self,
        session: Session,
        name: str,
        arguments: str | Sequence[str] = "",
    ) -> Invoked:
        """The user invoked skill ``name`` (a slash command, an MCP prompt): load it
        for them, even when the model may not (``disable-model-invocation``).

        Refuses skills marked ``user-invocable: false`` (``SkillUnavailableError``).
        The body's ``$ARGUMENTS``, ``$N`` and ``$name`` placeholders get
        ``arguments`` (see ``skilldeck.tools.substitute_arguments``). A skill with
        ``context: fork`` is loaded into a child of ``session`` (``Session.fork``,
        limited to the skill's ``allowed-tools`` when it has them), returned as
        ``Invoked.session``. Emits the same events as ``skills_load``.
        """
        from skilldeck.tools._invoke import Invoked, split_arguments, substitute_arguments

        entry = self.resolve_skill(name, session, by_host=True)
        meta = entry.metadata
        if not getattr(meta, "user_invocable", True):
            raise SkillUnavailableError(
                f"skill {name!r} is not invocable by the user (user-invocable: false)",
                skill=name,
                hint="the model loads it itself when it fits the task",
            )
        manifest = meta.manifest
        target = session
        forked = manifest is not None and manifest.context == "fork"
        if forked:
            tools = [p.raw for p in manifest.allowed_tools] if manifest.allowed_tools else None
            target = session.fork(tools=tools)
        spec = ToolSpec(self._exposed("skills_load"), "", {}, origin="skills")
        started = time.perf_counter()
        args = {"name": name}
        result = self.builtin.load_skill(ToolCall(target, spec.name, args, spec), by_host=True)
        self._finish(target, spec.name, args, result.envelope(), started)
        data = result.data
        names = manifest.arguments if manifest is not None else ()
        prompt = substitute_arguments(
            str(data["body"]),
            arguments,
            names=names,
            skill_dir=str(meta.path) if meta.path is not None else None,
            session_id=target.id,
        )
        parts = (
            tuple(split_arguments(arguments))
            if isinstance(arguments, str)
            else tuple(str(a) for a in arguments)
        )
        return Invoked(
            name=str(data["name"]),
            prompt=prompt,
            session=target,
            forked=forked,
            arguments=parts,
            agent=manifest.agent if manifest is not None else None,
            model=manifest.model if manifest is not None else None,
            effort=manifest.effort if manifest is not None else None,
            hooks=manifest.hooks if manifest is not None else None,
            data=data,
        )

    def base_tools(self, session: Session) -> list[Tool]:
        """The tools of the base surface, before policies (allowed-tools decides over these)."""
        return list(self._base.tools(session))

    def executor(self) -> Executor:
        """The executor that runs scripts and declared tools (made on first use)."""
        return self.scripts.executor()


def _parse_arguments(arguments: Mapping[str, Any] | str | None) -> Mapping[str, Any]:
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            arguments = loads(arguments)
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
