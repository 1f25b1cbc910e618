"""The security scan: patterns in a skill's files that a human should look at first.

``scan_skill(path)`` walks a skill folder (or one file) and returns coded
diagnostics (``SK6xx``) with path, line, column and a hint. It reads files; it
never runs anything. What it looks for:

- scripts that run what they download (``curl ... | sh``, ``bash <(curl ...)``,
  ``iex (iwr ...)``, ``exec(urlopen(...).read())``) — SK601;
- decode-and-execute (``base64 -d | bash``, ``eval(atob(...))``,
  ``exec(base64.b64decode(...))``, ``powershell -enc``) — SK602;
- reading credential locations (``~/.ssh``, ``~/.aws/credentials``, ``.netrc``,
  keychains, browser profiles, ...) — SK603;
- binary executables (ELF, Mach-O, PE, Java class, WebAssembly) — SK604;
- bidirectional control characters (Trojan Source) — SK605; invisible
  characters (zero-width spaces, word joiners) — SK606; Unicode tag characters
  and variation-selector runs that smuggle hidden text — SK607;
- prompt injection in descriptions and Markdown: overriding earlier
  instructions (SK608), hiding things from the user (SK609), role reassignment
  and jailbreak phrasing (SK610), fake system-prompt or chat-template markup
  (SK611), instructions hidden in HTML comments (SK612), requests to send the
  conversation or secrets elsewhere (SK613);
- files it could not scan (too large, unreadable, over the time budget) — SK614;
- secrets gathered and sent over the network (SK615), reverse shells (SK616),
  persistence and agent-settings changes (SK617), dependencies and install hooks
  from unchecked sources (SK618), destructive commands aimed at home or root
  (SK619), obfuscated code (SK620).

Every built-in rule runs in linear time (RE2, line by line) and each file has a
time budget, so hostile text cannot stall a scan or an install.

Severity follows context. Command patterns are errors in scripts and warnings
in documentation (a SKILL.md that says ``curl ... | sh`` asks the model to run
it, but many honest skills document installers that way). Injection phrasing
is an error in the frontmatter (tier 1 shows it on every turn) and in plain
prose, and a warning when it is quoted or inside code, where it is usually an
example. There is no in-file way to silence a finding (a hostile skill would
use it); hosts pass ``ignore=`` codes instead. ``docs/security-scan.md`` says
what the scan cannot catch.
"""

from skilldeck._scan._rules import SCAN_CODES
from skilldeck._scan._scanner import (
    SCAN_MODES,
    ScanOptions,
    install_scan,
    scan_mode,
    scan_skill,
    scan_skills,
    scan_text,
)

__all__ = [
    "SCAN_CODES",
    "SCAN_MODES",
    "ScanOptions",
    "install_scan",
    "scan_mode",
    "scan_skill",
    "scan_skills",
    "scan_text",
]
