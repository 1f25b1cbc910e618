"""The security scan of skill folders, and its step in installing them.

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
  (SK619), obfuscated code (SK620);
- social engineering (paste this command, open this locked archive, type your
  password) — SK621; hijacking other tools, agents and payments (hidden
  recipients, tool shadowing, swapped addresses, memory poisoning) — SK622;
  republishing the user's packages or repositories (worms) — SK623.

Rules read what a skill does, not one spelling: each file is also read as a
normalised view (``_normal``: continued lines joined, variables followed,
concatenations folded, escapes and base64/hex decoded), a few behaviours are
judged by the whole file (``_behaviour``), prose by what it asks for in
several languages (``_asks``), and a skill's files together (``_joined``).

Every built-in rule runs in linear time (RE2, line by line) and each file has a
time budget, so hostile text cannot stall a scan or an install.

Severity follows consequence and context. Fetch-and-run, decode-and-run,
reverse shells and destruction are errors in documentation too, unless the
download is the skill's own or a well-known vendor's (a note) or a named
project's install script on a code host (a warning). Injection phrasing
is an error in the frontmatter (the skill list shows it on every turn) and in plain
prose, and a warning when it is quoted or inside code, where it is usually an
example. There is no in-file way to silence a finding (a hostile skill would
use it); hosts pass ``ignore=`` codes instead. ``docs/security-scan.md`` says
what the scan cannot catch.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.security._judge import (
        Judge as Judge,
        JudgeRequest as JudgeRequest,
        JudgeVerdict as JudgeVerdict,
        openai_judge as openai_judge,
    )
    from skilldeck.security._rules import SCAN_CODES as SCAN_CODES
    from skilldeck.security._scanner import (
        SCAN_MODES as SCAN_MODES,
        ScanOptions as ScanOptions,
        install_scan as install_scan,
        scan_mode as scan_mode,
        scan_skill as scan_skill,
        scan_skills as scan_skills,
        scan_text as scan_text,
    )
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "Judge": "._judge",
        "JudgeRequest": "._judge",
        "JudgeVerdict": "._judge",
        "openai_judge": "._judge",
        "SCAN_CODES": "._rules",
        "ScanOptions": "._scanner",
        "install_scan": "._scanner",
        "scan_mode": "._scanner",
        "scan_skill": "._scanner",
        "scan_skills": "._scanner",
        "scan_text": "._scanner",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL = {
        "SCAN_MODES": "._scanner",
    }
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
