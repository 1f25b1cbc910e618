"""Per-run state: skills loaded so far, the allowed-tools policy, approvals, the trace.

A :class:`Session` belongs to one agent run and is made by
``runtime.session()``. It holds no catalog or tool code, only state, so a host
can keep many (one per conversation) on one runtime. It is safe to use from
several threads (one lock). Nothing in it is persisted.

``fork(skills=..., tools=...)`` derives a child session for a subagent: a
subset of the skills, and never more tools than its parent (see ``Session.fork``).
"""

from __future__ import annotations

import datetime as _dt
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skilldeck._errors import SkillNotFoundError
from skilldeck.tools._policy import AllowedToolsPolicy

if TYPE_CHECKING:
    from skilldeck.tools._tools import ToolSpec

__all__ = ["LoadedSkill", "Session", "TraceEntry"]


@dataclass(frozen=True, slots=True)
class LoadedSkill:
    """A skill disclosed in this session (``skills_load`` succeeded)."""

    name: str
    key: str  # how it was addressed, e.g. ``project:pdf-tools`` or ``pdf-tools``
    source: str | None
    digest: str | None
    body: str
    body_truncated: bool = False
    path: str | None = None
    declared_tools: tuple[str, ...] = ()
    loaded_at: _dt.datetime = field(default_factory=lambda: _dt.datetime.now(_dt.UTC))


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One tool call as the trace records it (arguments are not kept, only their keys)."""

    seq: int
    tool: str
    ok: bool
    code: str | None
    duration_ms: float
    argument_keys: tuple[str, ...]
    skills_allowed_tools: Mapping[str, Any]
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "tool": self.tool,
            "ok": self.ok,
            "code": self.code,
            "duration_ms": round(self.duration_ms, 3),
            "argument_keys": list(self.argument_keys),
            "warnings": list(self.warnings),
            "skills_allowed_tools": dict(self.skills_allowed_tools),
        }


@dataclass(frozen=True, slots=True)
class DeclaredBinding:
    """A body-declared tool of a loaded skill, as the session exposes it."""

    skill: str  # catalog key used to load it
    tool: Any  # skilldeck.format._mdtools.DeclaredTool
    read_only: bool = False  # the skill's ``read_only`` flag


class Session:
    """State of one agent run. Create with ``runtime.session()``."""

    def __init__(
        self,
        *,
        session_id: str | None = None,
        mode: str | None = None,
        enforcement: str = "off",
    ) -> None:
        self.id: str = session_id or uuid.uuid4().hex
        self.mode = mode
        self.created_at = _dt.datetime.now(_dt.UTC)
        self._lock = threading.RLock()
        self._loaded: OrderedDict[str, LoadedSkill] = OrderedDict()
        self._declared: OrderedDict[str, DeclaredBinding] = OrderedDict()
        self._policy = AllowedToolsPolicy(mode=enforcement)
        self._approvals: set[str] = set()
        self._tool_approvals: set[str] = set()
        self._trace: list[TraceEntry] = []
        # subagent scoping (fork): the skill names this session may see (None: all),
        # and the allowed-tools limits of its ancestors, which it can never widen
        self.parent_id: str | None = None
        self._scope: frozenset[str] | None = None
        self._ceilings: tuple[AllowedToolsPolicy, ...] = ()

    # --- loaded skills -----------------------------------------------------

    @property
    def loaded(self) -> tuple[LoadedSkill, ...]:
        """Skills loaded in this session, oldest first (a reload moves a skill last)."""
        with self._lock:
            return tuple(self._loaded.values())

    def is_loaded(self, name: str) -> bool:
        with self._lock:
            return name in self._loaded or any(s.key == name for s in self._loaded.values())

    def mark_loaded(self, skill: LoadedSkill, declared: Mapping[str, DeclaredBinding]) -> None:
        """Record a successful load and the declared tools it brings (the runtime calls
        this; a host loads skills through ``skills_load`` or ``runtime.invoke``)."""
        with self._lock:
            self._loaded.pop(skill.name, None)
            self._loaded[skill.name] = skill
            for tool_name in [n for n, b in self._declared.items() if b.skill == skill.key]:
                del self._declared[tool_name]
            for tool_name, binding in declared.items():
                # the most recently loaded skill wins a name clash
                self._declared.pop(tool_name, None)
                self._declared[tool_name] = binding

    @property
    def declared_tools(self) -> Mapping[str, DeclaredBinding]:
        with self._lock:
            return dict(self._declared)

    # --- allowed-tools policy --------------------------------------------------

    @property
    def policy(self) -> AllowedToolsPolicy:
        """The active allowed-tools policy (``enforced`` False when nothing is contracted)."""
        with self._lock:
            return self._policy

    def apply_policy(self, policy: AllowedToolsPolicy) -> None:
        """Make ``policy`` the session's allowed-tools policy (the runtime calls this
        after a load; see ``decide_policy``)."""
        with self._lock:
            self._policy = policy

    # --- subagent scoping ---------------------------------------------------------

    @property
    def scope(self) -> frozenset[str] | None:
        """The skill names this session may see; ``None`` means the whole catalog."""
        return self._scope

    def can_see(self, name: str) -> bool:
        """May this session list, search, load or use the skill named ``name``?"""
        return self._scope is None or name in self._scope

    def permits(self, spec: ToolSpec) -> bool:
        """Does allowed-tools let this session use ``spec`` (its policy and its ancestors')?"""
        return self.refusal(spec) is None

    def refusal(self, spec: ToolSpec) -> str | None:
        """Why allowed-tools refuses ``spec`` in this session, or ``None`` if it may run."""
        policy = self.policy
        if not policy.allows(spec):
            return f"not in the allowed-tools of skill {policy.skill!r}"
        for ceiling in self._ceilings:
            if not ceiling.allows(spec):
                if ceiling.skill is None:
                    return "not among the tools this sub-session was given"
                return f"not in the allowed-tools of skill {ceiling.skill!r} (parent session)"
        return None

    def fork(
        self,
        *,
        skills: Iterable[str] | None = None,
        tools: Iterable[str] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """A child session for a subagent: a subset of this session's skills and tools.

        - ``skills``: the skill names (not ``SOURCE:NAME`` addresses) the child may
          list, search, load and use; ``None`` keeps this session's set. A name this
          session cannot see raises ``SkillNotFoundError``.
        - ``tools``: allowed-tools patterns (``save_note``, ``mcp_*``, ``Bash(git:*)``)
          limiting the child further; the baseline ``skills_list`` / ``skills_load`` /
          ``skills_read_file`` stay available, as under allowed-tools.
        - The child starts under this session's allowed-tools policy, and that policy
          plus every limit this session has stays a ceiling: whatever skill the child
          loads later, it never gets a tool this session could not use at the fork.
        - It starts with nothing loaded, no approvals and an empty trace;
          ``parent_id`` is this session's id. Changes in the child never reach the
          parent.
        """
        with self._lock:
            scope = self._scope
            policy = self._policy
            ceilings = self._ceilings
        if skills is not None:
            wanted = frozenset(skills)
            hidden = sorted(n for n in wanted if scope is not None and n not in scope)
            if hidden:
                raise SkillNotFoundError(
                    f"the parent session cannot see skill(s) {', '.join(hidden)}",
                    skill=hidden[0],
                    hint="a sub-session gets a subset of its parent's skills",
                )
            scope = wanted
        if policy.enforced:
            ceilings = (*ceilings, policy)
        if tools is not None:
            from skilldeck.format import ToolPattern  # (the manifest's classes: not for a search)

            patterns = tuple(ToolPattern.parse(t) for t in tools if t.strip())
            ceilings = (
                *ceilings,
                AllowedToolsPolicy(
                    mode="enforce",
                    enforced=True,
                    patterns=patterns,
                    allow_set_count=len(patterns),
                    baseline_only=not patterns,
                ),
            )
        child = Session(session_id=session_id, mode=self.mode)
        child.parent_id = self.id
        child._scope = scope
        child._ceilings = ceilings
        child._policy = policy
        return child

    # --- approvals given in this run -------------------------------------------

    def approve(self, confirmation_id: str) -> None:
        """Approve one tool call (the ``confirmation_id`` of a ``TOOL_CONFIRMATION_REQUIRED``)."""
        with self._lock:
            self._approvals.add(confirmation_id)

    def approve_tool(self, name: str) -> None:
        """Approve every call of tool ``name`` for the rest of this session."""
        with self._lock:
            self._tool_approvals.add(name)

    def is_approved(self, tool: str, confirmation_id: str) -> bool:
        with self._lock:
            return confirmation_id in self._approvals or tool in self._tool_approvals

    # --- trace -----------------------------------------------------------------

    def trace(self) -> list[dict[str, Any]]:
        """Every tool call of this session, in order, with the allowed-tools section."""
        with self._lock:
            return [entry.to_dict() for entry in self._trace]

    def record_call(self, **fields: Any) -> TraceEntry:
        with self._lock:  # numbering and appending under one lock: seq stays unique
            entry = TraceEntry(seq=len(self._trace) + 1, **fields)
            self._trace.append(entry)
            return entry

    # --- compaction --------------------------------------------------------------

    def restore_block(self, budget: int = 8000) -> str:
        """What to re-inject after compacting history so loaded skills are not forgotten.

        Lists every skill loaded in this session, most recent first, with its
        name, source and digest; full bodies are included, newest first, while
        they fit in ``budget`` characters (about four per token); the others say
        to call ``skills_load`` again. Also states an active allowed-tools
        policy. Returns ``""`` when nothing was loaded.
        """
        with self._lock:
            skills = list(reversed(self._loaded.values()))
            policy = self._policy
        if not skills:
            return ""
        head = (
            "<loaded_skills>\n"
            "Skills loaded earlier in this session (most recent first). Follow them as "
            "before; call skills_load again for any body not shown.\n"
        )
        tail = "</loaded_skills>"
        if policy.enforced:
            head += (
                f"allowed-tools of {policy.skill!r} is in force: "
                f"{' '.join(p.raw for p in policy.patterns) or 'baseline only'}\n"
            )
        parts: list[str] = []
        used = len(head) + len(tail)
        stubs = [_skill_tag(s, None) for s in skills]
        used += sum(len(s) for s in stubs)
        for i, skill in enumerate(skills):
            full = _skill_tag(skill, skill.body)
            extra = len(full) - len(stubs[i])
            if used + extra <= budget:
                parts.append(full)
                used += extra
            else:
                parts.append(stubs[i])
        return head + "".join(parts) + tail


def _skill_tag(skill: LoadedSkill, body: str | None) -> str:
    # imported here: xml.sax.saxutils imports urllib.request (http, email, ssl), a
    # fifth of what a search or a listing through the runtime imports otherwise
    from xml.sax.saxutils import quoteattr

    attrs = f"name={quoteattr(skill.name)}"
    if skill.source:
        attrs += f" source={quoteattr(skill.source)}"
    if skill.digest:
        attrs += f" digest={quoteattr(skill.digest)}"
    if body is None:
        return f'<skill {attrs} body="omitted"/>\n'
    return f"<skill {attrs}>\n{body.strip()}\n</skill>\n"
