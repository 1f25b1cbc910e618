"""The manifest: the frontmatter of a SKILL.md as a checked, frozen value.

``build_manifest`` applies the Agent Skills specification's rules (strict) or
the lenient reading DESIGN.md describes, reporting each finding as a
diagnostic. Recognised extension fields (``version``, ``author``, ``tags``,
``requires``, ``modes``, ``read_only``, ``always_ask``, ``timeout``,
``network``, ``triggers``) are read at the top level or under ``metadata``;
the top level wins.
"""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._frozen import field, new, slots_twin, value
from skilldeck.format import _codes as C
from skilldeck.format._checks import Ctx, scalar_text, typename
from skilldeck.format._extensions import Extensions, Requirements, Triggers
from skilldeck.format._invocation import INVOCATION_FIELDS, Invocation, read_invocation
from skilldeck.format._placeholder import is_placeholder

__all__ = [
    "EXTENSION_FIELDS",
    "INVOCATION_FIELDS",
    "SPEC_FIELDS",
    "Invocation",
    "Manifest",
    "Requirements",
    "ToolPattern",
    "Triggers",
    "build_manifest",
    "check_name",
    "is_skill_name",
    "parse_allowed_tools",
]

SPEC_FIELDS = frozenset(
    {"name", "description", "license", "compatibility", "allowed-tools", "metadata"}
)
EXTENSION_FIELDS = (
    frozenset(
        {
            "version",
            "author",
            "tags",
            "requires",
            "modes",
            "read_only",
            "always_ask",
            "timeout",
            "network",
            "triggers",
        }
    )
    | INVOCATION_FIELDS
)

_LENIENT_FIELDS = SPEC_FIELDS | EXTENSION_FIELDS | {"allowed_tools"}
"""The top-level fields lenient reading knows (the rest are kept as extras)."""

NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500


@value
class ToolPattern:
    """One ``allowed-tools`` entry: ``Read``, ``Bash(git:*)``, ``mcp__srv__*``.

    ``name`` is the tool-name part (a glob); ``argument`` the part in
    parentheses, handed to the host policy as a constraint.
    """

    raw: str
    name: str
    argument: str | None = None

    @classmethod
    def parse(cls, raw: str) -> ToolPattern:
        text = raw.strip()
        m = re.fullmatch(r"([^()\s]+)\((.*)\)", text, flags=re.DOTALL)
        if m:
            return cls(text, m.group(1), m.group(2).strip())
        return cls(text, text, None)

    @property
    def canonical_name(self) -> str:
        """The name with ``.`` canonicalised to ``_`` (``state.get`` matches ``state_get``)."""
        return self.name.replace(".", "_")

    def matches(self, tool_name: str) -> bool:
        """Does ``tool_name`` fall under this pattern's name part?"""
        candidate = tool_name.replace(".", "_")
        return fnmatch.fnmatchcase(candidate, self.canonical_name)


@value
class Manifest:
    """The checked frontmatter of one SKILL.md."""

    name: str
    description: str
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: tuple[ToolPattern, ...] | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    version: str | None = None
    author: str | None = None
    tags: tuple[str, ...] = ()
    requires: Requirements = field(default_factory=Requirements)
    modes: tuple[str, ...] | None = None
    read_only: bool = False
    always_ask: bool = False
    timeout: int | None = None
    network: bool = False
    triggers: Triggers | None = None
    invocation: Invocation = field(default_factory=Invocation)
    extra: Mapping[str, Any] = field(default_factory=dict)
    frontmatter: Mapping[str, Any] = field(default_factory=dict)
    frontmatter_text: str = ""
    positions: Mapping[str, tuple[int, int]] = field(default_factory=dict, repr=False)

    # the invocation controls (Claude Code's extension fields), typed

    @property
    def disable_model_invocation(self) -> bool:
        """The model never sees or loads this skill on its own (the user and host may)."""
        return self.invocation.disable_model_invocation

    @property
    def user_invocable(self) -> bool:
        """Offered to the user as a command (``/name``, MCP prompts)."""
        return self.invocation.user_invocable

    @property
    def when_to_use(self) -> str | None:
        return self.invocation.when_to_use

    @property
    def argument_hint(self) -> str | None:
        return self.invocation.argument_hint

    @property
    def arguments(self) -> tuple[str, ...]:
        return self.invocation.arguments

    @property
    def context(self) -> str | None:
        """``"fork"``: the skill runs in a sub-session of its own (``Session.fork``)."""
        return self.invocation.context

    @property
    def agent(self) -> str | None:
        return self.invocation.agent

    @property
    def model(self) -> str | None:
        return self.invocation.model

    @property
    def effort(self) -> str | None:
        return self.invocation.effort

    @property
    def hooks(self) -> Mapping[str, Any] | None:
        return self.invocation.hooks

    def position(self, key: str) -> tuple[int | None, int | None]:
        """Line and column of a (dotted) frontmatter key, if known."""
        pos = self.positions.get(key)
        return (pos[0], pos[1]) if pos else (None, None)


_MANIFEST_TWIN = slots_twin(Manifest)


def parse_allowed_tools(value: str) -> tuple[list[str], bool]:
    """Split an ``allowed-tools`` string into entries; report whether commas were used.

    Whitespace and commas separate entries except inside parentheses, so
    ``Bash(git commit:*)`` stays one entry.
    """
    out: list[str] = []
    buf: list[str] = []
    depth = 0
    commas = False
    for ch in value:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        if depth == 0 and (ch.isspace() or ch == ","):
            if ch == ",":
                commas = True
            if buf:
                out.append("".join(buf))
                buf = []
            continue
        buf.append(ch)
    if buf:
        out.append("".join(buf))
    return out, commas


def is_skill_name(name: str) -> bool:
    """Does ``name`` obey the naming rule as it stands (no normalising): 1-64
    characters of ``a-z``, ``0-9`` and single inner hyphens?"""
    return 0 < len(name) <= MAX_NAME and NAME_RE.fullmatch(name) is not None


def check_name(
    name: str, *, strict: bool, path: str | None, pos: tuple[int | None, int | None]
) -> list[Diagnostic]:
    """The naming rule: ``^[a-z0-9]+(-[a-z0-9]+)*$``, 1-64 characters, after NFKC."""
    line, col = pos
    norm = unicodedata.normalize("NFKC", name)
    diags: list[Diagnostic] = []
    if not norm or len(norm) > MAX_NAME:
        diags.append(
            Diagnostic.make(
                C.NAME_INVALID,
                f"name must be 1-{MAX_NAME} characters (it has {len(norm)})",
                path=path,
                line=line,
                column=col,
                hint="use a short lowercase name such as 'pdf-tools'",
                severity=_lenient_name_severity(norm, strict),
            )
        )
        return diags
    if NAME_RE.fullmatch(norm):
        return diags
    if _unicode_lower_ok(norm):
        diags.append(
            Diagnostic.make(
                C.NAME_UNICODE,
                f"name '{name}' uses non-ASCII letters; the specification allows a-z, 0-9 and '-'",
                path=path,
                line=line,
                column=col,
                hint="use ASCII letters: " + _suggest(norm),
                severity=Severity.ERROR if strict else Severity.WARNING,
            )
        )
        return diags
    problems = []
    if norm != norm.lower():
        problems.append("uppercase letters")
    if norm.startswith("-") or norm.endswith("-"):
        problems.append("a leading or trailing hyphen")
    if "--" in norm:
        problems.append("consecutive hyphens")
    if re.search(r"[^A-Za-z0-9-]", norm):
        problems.append("characters other than a-z, 0-9 and '-'")
    diags.append(
        Diagnostic.make(
            C.NAME_INVALID,
            f"name '{name}' has {', '.join(problems) or 'an invalid form'}",
            path=path,
            line=line,
            column=col,
            hint=f"rename to '{_suggest(norm)}' (and the folder too)",
            severity=_lenient_name_severity(norm, strict),
        )
    )
    return diags


def _unicode_lower_ok(name: str) -> bool:
    if name.startswith("-") or name.endswith("-") or "--" in name:
        return False
    return all(ch == "-" or ch.isdigit() or (ch.isalpha() and ch.islower()) for ch in name)


def usable_name(name: str) -> bool:
    """Can ``name`` address a skill in lenient mode (the naming rule broken, but on one
    line, with no separator, ``:`` or control character)? A name that cannot is an
    error even in lenient mode, and no setting can name it."""
    return (
        0 < len(name) <= 128
        and name.strip() == name
        and not any(ch in name for ch in "/\\:")
        and name.isprintable()
    )


def _lenient_name_severity(name: str, strict: bool) -> Severity:
    """Lenient mode keeps a rule-breaking name usable unless it could not address a skill."""
    if strict:
        return Severity.ERROR
    return Severity.WARNING if usable_name(name) else Severity.ERROR


def _suggest(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return slug[:MAX_NAME].strip("-") or "my-skill"


def build_manifest(
    data: Mapping[str, Any],
    *,
    positions: Mapping[str, tuple[int, int]],
    frontmatter_text: str = "",
    path: str | None = None,
    folder_name: str | None = None,
    strict: bool = False,
    origin: tuple[int, int] | None = None,
) -> tuple[Manifest | None, list[Diagnostic]]:
    """Check a frontmatter mapping; ``None`` when name or description is unusable.

    ``origin`` (the opening ``---`` line) locates findings about missing keys.
    """
    ctx = Ctx(positions, path, strict, origin)
    name = _name(data, ctx, folder_name)
    description = _description(data, ctx)
    if is_placeholder(name, description, folder_name):
        ctx.add(
            C.PLACEHOLDER,
            f"'{name}' is a template placeholder (its description is template text); "
            "skilldeck never lists, serves or installs it",
            "description",
            hint="write the skill's own name and description to make it a skill, "
            "or start one with `skilldeck new NAME`",
            severity=Severity.WARNING,
        )
    license_ = _optional_str(data, "license", ctx)
    compatibility = _optional_str(data, "compatibility", ctx)
    if compatibility is not None and not 1 <= len(compatibility) <= MAX_COMPATIBILITY:
        ctx.add(
            C.COMPATIBILITY_LENGTH,
            f"compatibility must be 1-{MAX_COMPATIBILITY} characters (it has {len(compatibility)})",
            "compatibility",
            hint="describe the environment needs briefly, or remove the field",
            severity=ctx.mode(),
        )
    metadata = _metadata(data, ctx)
    allowed = _allowed_tools(data, ctx)
    extra = _unknown_fields(data, ctx)
    ext = Extensions(data, metadata, ctx)
    if name is None or description is None:
        return None, ctx.diags
    # the fields in order (the checks add findings in this order), set on the twin
    # (``_frozen``): three times as fast as the frozen ``__init__``, one per skill listed
    m = new(_MANIFEST_TWIN)
    m.name = name
    m.description = description
    m.license = license_
    m.compatibility = compatibility
    m.allowed_tools = allowed
    m.metadata = metadata
    m.version = ext.text("version")
    m.author = ext.text("author")
    m.tags = ext.words("tags")
    m.requires = ext.requires()
    m.modes = ext.modes()
    m.read_only = ext.flag("read_only")
    m.always_ask = ext.flag("always_ask")
    m.timeout = ext.timeout()
    m.network = ext.flag("network")
    m.triggers = ext.triggers()
    m.invocation = read_invocation(ext)
    m.extra = extra
    m.frontmatter = dict(data)
    m.frontmatter_text = frontmatter_text
    m.positions = dict(positions)
    m.__class__ = Manifest
    manifest: Manifest = m
    return manifest, ctx.diags


def _name(data: Mapping[str, Any], ctx: Ctx, folder_name: str | None) -> str | None:
    if "name" not in data or data["name"] is None or data["name"] == "":
        ctx.add(
            C.NAME_MISSING,
            "the required field 'name' is missing",
            "name" if "name" in data else None,
            hint=f"add 'name: {_suggest(folder_name or 'my-skill')}' to the frontmatter",
        )
        return None
    raw = data["name"]
    if not isinstance(raw, str):
        if ctx.strict or isinstance(raw, list | dict | bool):
            ctx.add(
                C.WRONG_TYPE,
                f"'name' must be a string, not {typename(raw)}",
                "name",
                hint="quote the name",
            )
            return None
        raw = str(raw)
        ctx.add(
            C.WRONG_TYPE,
            "'name' is not a string; it is read as text",
            "name",
            hint=f'quote it: name: "{raw}"',
            severity=Severity.WARNING,
        )
    pos = ctx.positions.get("name")
    findings = check_name(
        raw, strict=ctx.strict, path=ctx.path, pos=(pos[0], pos[1]) if pos else (None, None)
    )
    ctx.diags.extend(findings)
    same = (
        folder_name is None
        or raw == folder_name
        or unicodedata.normalize("NFKC", raw) == unicodedata.normalize("NFKC", folder_name)
    )
    if not same:
        target = raw if not findings else _suggest(raw)
        ctx.add(
            C.NAME_MISMATCH,
            f"name '{raw}' differs from its folder '{folder_name}'",
            "name",
            hint=f"rename the folder to '{target}'"
            + (f" and set 'name: {target}'" if findings else f" or set 'name: {folder_name}'"),
            severity=ctx.mode(),
        )
    if any(d.is_error for d in findings):
        return None
    return raw


def _description(data: Mapping[str, Any], ctx: Ctx) -> str | None:
    raw = data.get("description")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        ctx.add(
            C.DESCRIPTION_MISSING,
            "the required field 'description' is missing or empty",
            "description" if "description" in data else None,
            hint="add 'description: <what the skill does and when to use it>'",
        )
        return None
    if not isinstance(raw, str):
        if ctx.strict or isinstance(raw, list | dict):
            ctx.add(
                C.WRONG_TYPE,
                f"'description' must be a string, not {typename(raw)}",
                "description",
                hint="quote the description",
            )
            return None
        raw = str(raw)
        ctx.add(
            C.WRONG_TYPE,
            "'description' is not a string; it is read as text",
            "description",
            hint="quote the description",
            severity=Severity.WARNING,
        )
    if len(raw) > MAX_DESCRIPTION:
        ctx.add(
            C.DESCRIPTION_TOO_LONG,
            f"description has {len(raw)} characters; the limit is {MAX_DESCRIPTION}",
            "description",
            hint="keep the description to what the skill does and when to use it; "
            "move details into the body",
            severity=ctx.mode(),
        )
    return raw


def _optional_str(data: Mapping[str, Any], key: str, ctx: Ctx) -> str | None:
    if key not in data or data[key] is None:
        return None
    value = data[key]
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool) and not ctx.strict:
        return str(value)
    ctx.add(
        C.WRONG_TYPE,
        f"'{key}' must be a string, not {typename(value)}",
        key,
        hint=f"quote the value of '{key}'",
        severity=ctx.mode(),
    )
    return None


def _metadata(data: Mapping[str, Any], ctx: Ctx) -> dict[str, Any]:
    if "metadata" not in data or data["metadata"] is None:
        return {}
    value = data["metadata"]
    if not isinstance(value, dict):
        ctx.add(
            C.METADATA_NOT_MAPPING,
            f"'metadata' must be a mapping, not {typename(value)}",
            "metadata",
            hint="write metadata as indented 'key: value' lines",
            severity=ctx.mode(),
        )
        return {}
    for key, item in value.items():
        if not isinstance(item, str):
            ctx.add(
                C.METADATA_NOT_STRING,
                f"metadata value '{key}' is {typename(item)}; the specification wants strings",
                f"metadata.{key}" if f"metadata.{key}" in ctx.positions else "metadata",
                hint=_string_hint(key, item),
                severity=ctx.mode(),
            )
    return dict(value)


def _string_hint(key: str, item: Any) -> str:
    """How to write a metadata value as the one string the specification wants: a
    list of words joined by spaces (as ``tags`` and ``requires`` are read), anything
    else nested as JSON text; never Python's repr, which no reader understands."""
    if isinstance(item, list) and all(_word(x) for x in item):
        return f'join it into one string: {key}: "{" ".join(str(x) for x in item)}"'
    if isinstance(item, list | dict):
        import json  # (only for this hint: a listing never needs it)

        text = json.dumps(item, ensure_ascii=False, default=str).replace("'", "''")
        return f"write it as one string, such as JSON: {key}: '{text}'"
    return f'quote it: {key}: "{scalar_text(item)}"'


def _word(x: Any) -> bool:
    """A list item that joins into a space-separated string as it is."""
    if isinstance(x, bool) or not isinstance(x, str | int | float):
        return False
    text = str(x)
    return text.split() == [text] and '"' not in text and "\\" not in text


def _allowed_tools(data: Mapping[str, Any], ctx: Ctx) -> tuple[ToolPattern, ...] | None:
    key = "allowed-tools"
    if key not in data and "allowed_tools" in data:
        key = "allowed_tools"
        if not ctx.strict:
            ctx.add(
                C.ALLOWED_TOOLS_ALIAS,
                "'allowed_tools' is read as 'allowed-tools'",
                key,
                hint="spell it 'allowed-tools' as the specification does",
            )
    if key not in data or data[key] is None:
        return None
    value = data[key]
    entries: list[str]
    if isinstance(value, str):
        entries, commas = parse_allowed_tools(value)
        if commas:
            ctx.add(
                C.ALLOWED_TOOLS_COMMAS,
                "'allowed-tools' entries are separated by commas",
                key,
                hint="separate entries with spaces: " + " ".join(entries),
            )
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        if ctx.strict:
            ctx.add(
                C.ALLOWED_TOOLS_TYPE,
                "'allowed-tools' is a list; the specification wants a space-separated string",
                key,
                hint="allowed-tools: " + " ".join(value),
            )
        entries = [e for v in value for e in parse_allowed_tools(v)[0]]
    else:
        ctx.add(
            C.ALLOWED_TOOLS_TYPE,
            f"'allowed-tools' must be a space-separated string, not {typename(value)}",
            key,
            hint="allowed-tools: Read Bash(git:*)",
            severity=ctx.mode(),
        )
        return None
    return tuple(ToolPattern.parse(e) for e in entries if e)


def _unknown_fields(data: Mapping[str, Any], ctx: Ctx) -> dict[str, Any]:
    known = SPEC_FIELDS if ctx.strict else _LENIENT_FIELDS
    unknown = [k for k in data if k not in known]
    if not unknown:
        return {}
    if ctx.strict:
        for key in unknown:
            if key in INVOCATION_FIELDS:
                ctx.add(
                    C.UNKNOWN_FIELD,
                    f"field '{key}' is an invocation control (a Claude Code extension), "
                    "not part of the specification",
                    key,
                    hint="skilldeck and Claude Code read it at the top level; agents that "
                    "follow only the specification ignore it",
                )
                continue
            hint = (
                f"move it under 'metadata:' as a string ({key}: ...)"
                if key in EXTENSION_FIELDS or key == "allowed_tools"
                else "remove it, or move it under 'metadata:'"
            )
            ctx.add(
                C.UNKNOWN_FIELD, f"field '{key}' is not part of the specification", key, hint=hint
            )
    else:
        ctx.add(
            C.UNKNOWN_FIELD,
            "field(s) outside the specification kept as extras: " + ", ".join(unknown),
            unknown[0],
            hint="move them under 'metadata:' to be specification-conformant",
            severity=Severity.INFO,
        )
    return {k: data[k] for k in unknown if k not in EXTENSION_FIELDS}
