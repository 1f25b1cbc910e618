"""Diagnostics: coded findings about a skill, shared by every layer.

Code ranges (stable; extend, never rename):

- ``SK1xx`` reading and parsing SKILL.md (frontmatter, YAML)
- ``SK2xx`` the Agent Skills specification's rules (validation)
- ``SK3xx`` lint: style and quality, never blocking
- ``SK4xx`` tools declared in the Markdown body
- ``SK5xx`` discovery and catalog (roots, symlinks, requirements)
- ``SK6xx`` security scan

Every code is in ``CODES``, the one table of them, with its default severity and a title;
``docs/diagnostics.md`` documents each one with an example and the fix, and a
test keeps the two in step.
"""

from __future__ import annotations

import enum

from skilldeck._frozen import new, slots_twin, value
from skilldeck._paths import shown_excerpt, shown_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CODES", "CodeInfo", "Diagnostic", "Severity"]


_LONGEST = 1_000
"""The longest message a diagnostic keeps whole (see ``Diagnostic.make``)."""


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class CodeInfo:
    """One stable code of ``CODES``: its default severity and title.

    A plain class, not a dataclass: every command imports this module, and making a
    dataclass costs start-up about 4 M instructions."""

    __slots__ = ("code", "severity", "title")

    def __init__(self, code: str, severity: Severity, title: str) -> None:
        self.code = code
        self.severity = severity
        self.title = title

    def __repr__(self) -> str:
        return f"CodeInfo(code={self.code!r}, severity={self.severity!r}, title={self.title!r})"


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

#: every code: its default severity and title. The modules that report a code name it
#: as a string constant; a test checks that every code they use is here and every code
#: here is used and documented in docs/diagnostics.md.
CODES: dict[str, CodeInfo] = {
    code: CodeInfo(code, severity, title)
    for code, (severity, title) in {
        # SK1xx: reading and parsing SKILL.md
        "SK101": (_E, "SKILL.md does not start with a frontmatter block"),
        "SK102": (_E, "frontmatter is never closed"),
        "SK103": (_E, "frontmatter is empty"),
        "SK104": (_E, "frontmatter is not a mapping of keys to values"),
        "SK105": (_E, "frontmatter is not valid YAML"),
        "SK106": (_E, "frontmatter nests or expands aliases beyond the limit"),
        "SK107": (_E, "frontmatter is larger than the read bound"),
        "SK108": (_W, "a key appears twice in one mapping"),
        "SK109": (_W, "two keys differ only by letter case"),
        "SK110": (_W, "an unquoted value containing ': ' was recovered"),
        "SK111": (_W, "SKILL.md is not valid UTF-8"),
        "SK112": (_W, "blank lines before the opening '---'"),
        "SK113": (_E, "SKILL.md cannot be read"),
        "SK114": (_W, "a frontmatter key is not a string"),
        # SK2xx: the Agent Skills specification's rules
        "SK201": (_E, "no SKILL.md in the skill folder"),
        "SK202": (_E, "the required 'name' field is missing"),
        "SK203": (_E, "the name breaks the naming rule"),
        "SK204": (_E, "the name differs from the folder name"),
        "SK205": (_E, "the name uses non-ASCII lowercase letters"),
        "SK206": (_E, "the required 'description' field is missing or empty"),
        "SK207": (_E, "the description is longer than 1024 characters"),
        "SK208": (_E, "compatibility must be 1-500 characters"),
        "SK209": (_E, "'metadata' is not a mapping"),
        "SK210": (_E, "a 'metadata' value is not a string"),
        "SK211": (_E, "'allowed-tools' is not a space-separated string"),
        "SK212": (_W, "'allowed-tools' is separated by commas"),
        "SK213": (_E, "a top-level field outside the specification"),
        "SK214": (_E, "SKILL.md is a link that leaves the skill folder"),
        "SK215": (_E, "the file is named skill.md, not SKILL.md"),
        "SK216": (_E, "a field has the wrong type"),
        "SK217": (_W, "an extension field has an invalid value"),
        "SK218": (_W, "'allowed_tools' is spelled with an underscore"),
        "SK219": (_W, "a template placeholder, not a skill: never listed or installed"),
        # SK3xx: lint: style and quality, never blocking
        "SK301": (_W, "the body is longer than 500 lines"),
        "SK302": (_W, "the body is longer than about 5,000 tokens"),
        "SK303": (_W, "the description does not say when to use the skill"),
        "SK304": (_I, "the description is longer than 256 characters"),
        "SK305": (_W, "the description contains XML/HTML tags"),
        "SK306": (_W, "the body refers to a file that does not exist"),
        "SK307": (_I, "the body refers to a file more than one folder deep"),
        "SK308": (_W, "the body refers to a file outside the skill folder"),
        "SK309": (_W, "a script is never mentioned in the body"),
        "SK310": (_W, "the body uses a tool that allowed-tools does not list"),
        "SK311": (_I, "allowed-tools lists a tool the body never mentions"),
        "SK312": (_W, "the description is still the placeholder `skilldeck new` wrote"),
        "SK313": (_W, "the body refers to a hidden file, which is never listed or read"),
        "SK330": (_W, "modes names a mode the host does not know"),
        # SK4xx: tools declared in the Markdown body
        "SK401": (_E, "a declared tool's name breaks [a-z0-9_]{1,32}"),
        "SK402": (_E, "two declared tools share a name"),
        "SK403": (_E, "the '#### Command' section has no code block"),
        "SK404": (_E, "the command cannot be split into program + arguments"),
        "SK405": (_E, "the command uses a shell operator (no shell runs it)"),
        "SK406": (_E, "a parameter has an unknown type"),
        "SK407": (_E, "a parameter table row cannot be read"),
        "SK408": (_E, "a parameter is declared twice"),
        "SK409": (_E, "a placeholder names an undeclared parameter"),
        "SK410": (_E, "a {{name:text}} placeholder names a non-boolean"),
        "SK411": (_W, "a declared tool has no '#### Parameters' section"),
        "SK412": (_W, "a declared parameter is not used by the command"),
        "SK413": (_W, "a declared tool has no description"),
        "SK414": (_I, "a declared tool's description is over 256 chars"),
        "SK415": (_W, "shell syntax in the command is passed literally"),
        "SK416": (_W, "an '###' section has parameters but no '#### Command'"),
        "SK417": (_E, "a parameter name is not an identifier"),
        "SK418": (_E, "a parameter's default does not fit its type"),
        "SK419": (_W, "an optional value without a default follows an option word"),
        "SK420": (_E, "a declared tool's program is not a script of the skill under scripts/"),
        # SK5xx: discovery and catalog
        "SK501": (_E, "a skills root is not a folder"),
        "SK502": (_E, "a skills root cannot be read"),
        "SK503": (_W, "a symlink leads outside every allowed root"),
        "SK504": (_W, "a symlink points at nothing"),
        "SK505": (_W, "a symlink leads back to a folder being scanned"),
        "SK506": (_I, "a symlink leads to a skill already found"),
        "SK507": (_W, "folders below the recursion depth limit were not scanned"),
        "SK508": (_W, "SKILL.md is not a regular file"),
        "SK509": (_W, "two skills in one source have the same name"),
        "SK510": (_I, "a skill is hidden by one of the same name"),
        "SK511": (_W, "a required command is not on PATH"),
        "SK512": (_W, "a required environment variable is not set"),
        "SK513": (_I, "a requirement skilldeck cannot check"),
        "SK514": (_W, "a bundled file is a link leaving the skill folder"),
        "SK515": (_I, "a bundled file is not a regular file"),
        "SK516": (_W, "a skill folder holds more files than are indexed"),
        "SK517": (_I, "the config names a skill that does not exist"),
        "SK518": (_W, "a skill folder holds a file that looks like a secret"),
        "SK519": (_W, "a bundled file's name is not valid UTF-8"),
        "SK520": (_W, "a bundled file's name could be read as another path"),
        "SK521": (_W, "a skill folder holds a git submodule, which install never fetches"),
        "SK530": (_W, "a project config file is not trusted: its guarded settings are ignored"),
        "SK531": (_W, "a project folder belongs to another user and is ignored"),
        "SK532": (_I, "settings were taken from another agent's config file"),
        # SK6xx: security scan
        "SK601": (_E, "a script runs what it downloads"),
        "SK602": (_E, "a script decodes text and executes it"),
        "SK603": (_E, "a file reads a credential location"),
        "SK604": (_E, "a binary executable is bundled"),
        "SK605": (_E, "bidirectional control characters (Trojan Source)"),
        "SK606": (_W, "invisible characters (zero-width, word joiner)"),
        "SK607": (_E, "Unicode tag characters or variation-selector runs"),
        "SK608": (_E, "text tells the model to ignore earlier instructions"),
        "SK609": (_E, "text tells the model to hide something from the user"),
        "SK610": (_W, "role reassignment or jailbreak phrasing"),
        "SK611": (_E, "fake system-prompt or chat-template markup"),
        "SK612": (_W, "instructions hidden in an HTML comment"),
        "SK613": (_E, "text asks to send the conversation or secrets elsewhere"),
        "SK614": (_I, "a file could not be scanned"),
        "SK615": (_E, "secrets or collected data leave over the network"),
        "SK616": (_E, "a reverse shell"),
        "SK617": (_W, "persistence or a change to an agent's configuration"),
        "SK618": (_W, "a dependency or install hook from an unchecked source"),
        "SK619": (_E, "a destructive command aimed at a home or root folder"),
        "SK620": (_W, "obfuscated code"),
        "SK621": (
            _E,
            "text asks the user to paste a command, open a locked archive or give a secret",
        ),
        "SK622": (_E, "changes how other tools, agents or payments behave (shadowing, poisoning)"),
        "SK623": (_E, "republishes packages or repositories with the user's tokens"),
        "SK624": (_W, "the scan's judge flags the skill"),
    }.items()
}


@value
class Diagnostic:
    """One finding. ``line`` and ``column`` are 1-based and refer to the file at ``path``."""

    code: str
    severity: Severity
    message: str
    path: str | None = None
    line: int | None = None
    column: int | None = None
    hint: str | None = None

    @classmethod
    def make(
        cls,
        code: str,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
        severity: Severity | str | None = None,
    ) -> Diagnostic:
        """A diagnostic with the code's severity in ``CODES`` unless one is given.

        A control character in ``message`` (a name or value quoted from a skill) is
        shown escaped (``shown_text``): every front end prints messages as they are;
        a message past ``_LONGEST`` characters (one quoting a huge value) is cut."""
        if not message.isprintable():
            message = shown_text(message)
        if len(message) > _LONGEST:
            message = shown_excerpt(message, _LONGEST)
        if severity is None:
            sev = CODES[code].severity
        else:
            sev = severity if isinstance(severity, Severity) else Severity(severity)
        # built on its twin (``_frozen``): a cold listing makes one for most skills
        d = new(_DIAGNOSTIC_TWIN)
        d.code = code
        d.severity = sev
        d.message = message
        d.path = path
        d.line = line
        d.column = column
        d.hint = hint
        d.__class__ = cls
        made: Diagnostic = d
        return made

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def with_severity(self, severity: Severity) -> Diagnostic:
        from dataclasses import replace

        return replace(self, severity=severity)

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        out = asdict(self)
        out["severity"] = self.severity.value
        return out

    def format(self) -> str:
        """Compiler style: ``path:line:col: CODE severity: message``."""
        loc = self.path or "<input>"
        if self.line is not None:
            loc += f":{self.line}"
            if self.column is not None:
                loc += f":{self.column}"
        text = f"{loc}: {self.code} {self.severity.value}: {self.message}"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text


_DIAGNOSTIC_TWIN = slots_twin(Diagnostic)
