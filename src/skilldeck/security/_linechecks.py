"""The checks of line rules: each reads a matched line and keeps, lowers or raises the
rule's grade, or drops the match (``None``). A fetch from a known installer host,
a pipe into a program that does not read code from stdin, a credential path named
in usage text, a persisted line that fetches nothing: the line rules of
``_patterns`` name these checks.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from skilldeck.security._engine import Hit, Pattern

__all__ = [
    "KEEP",
    "LOWER",
    "RAISE",
    "Check",
    "body_check",
    "credential_check",
    "download_origin",
    "fetch_raises",
    "git_dep_check",
    "hook_check",
    "known_installer",
    "persist_check",
    "pipe_check",
    "planted_check",
    "ps_check",
]

#: A check's verdicts: keep the rule's grade, lower it one step, raise it one step
#: (``None`` drops the match).
KEEP, LOWER, RAISE = 0, -1, 1
Check = Callable[[str, Hit], int | None]


_INSTALLER_HOSTS = (
    "astral.sh",
    "sh.rustup.rs",
    "rustup.rs",
    "get.docker.com",
    "bun.sh",
    "deno.land",
    "deno.com",
    "raw.githubusercontent.com/homebrew/",
    "raw.githubusercontent.com/nvm-sh/",
    "raw.githubusercontent.com/helm/",
    "install.python-poetry.org",
    "get.pnpm.io",
    "fnm.vercel.app",
    "get.sdkman.io",
    "ollama.com",
    "claude.ai/install",
    "starship.rs",
    "tailscale.com/install",
    "get.helm.sh",
    "sdk.cloud.google.com",
    "fly.io/install",
    "mise.run",
    "get.k3s.io",
    "install.determinate.systems",
    "nixos.org",
    "opencode.ai",
    "cursor.com/install",
    "cli.github.com",
    "volta.sh",
    "pyenv.run",
    "get.rvm.io",
    "foundry.paradigm.xyz",
    "dot.net/v1/dotnet-install",
    "get.pulumi.com",
    "cli.doppler.com",
    "railway.app/install",
    "supabase.com",
    "modal.com",
    "vercel.com/install",
    "pkgx.sh",
    "goreleaser",
    "deb.nodesource.com",
    "rpm.nodesource.com",
    "install.sh/",
)


_INSTALLER = Pattern(
    r"(?://|//www\.|\.)(?:" + "|".join(h.replace(".", r"\.") for h in _INSTALLER_HOSTS) + ")"
)


def known_installer(text: str) -> bool:
    """Does ``text`` fetch from a well-known vendor installer address?"""
    return _INSTALLER.search(text) is not None


_URL_HOST = Pattern(r"https?://[A-Za-z0-9.-]+(?:/[A-Za-z0-9_.-]+){0,2}")
_CODE_HOSTS = ("raw.githubusercontent.com", "github.com", "gitlab.com", "codeberg.org")
_SUFFIXES = frozenset("com net org io dev sh app co run cloud ai rs so me tech tools".split())


def _compact(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _names_of(url: str) -> list[str]:
    """The names that say whose a download is: the host's own label (``acmectl`` of
    ``get.acmectl.dev``), or the owner and project of a code-hosting path."""
    host, _, path = url.lower().partition("/")
    if host in _CODE_HOSTS or host.endswith(".github.io"):
        parts = [p for p in path.split("/") if p][:2]
        if host.endswith(".github.io"):
            parts.append(host.split(".", 1)[0])
        return [_compact(p) for p in parts if len(_compact(p)) >= 3]
    labels = [x for x in host.split(".") if x]
    while len(labels) > 1 and labels[-1] in _SUFFIXES | {"invalid", "example", "local"}:
        labels.pop()
    labels = [x for x in labels if x not in ("www", "get", "install", "download", "dl", "cdn")]
    return [_compact(x) for x in labels[-1:] if len(_compact(x)) >= 3]


def download_origin(line: str, doc: object, where: str) -> str:
    """Whose code a download on ``line`` is: ``own`` (a well-known installer, or a host
    or project named in the document's frontmatter or the skill's folder name:
    ``curl https://acmectl.dev/install.sh | sh`` in the ``acmectl`` skill), ``project``
    (an install script of a named project on a code host: ``raw.githubusercontent.com/
    org/tool/…``), or ``stranger``."""
    if known_installer(line):
        return "own"
    urls = [h.text.split("://", 1)[1] for h in _URL_HOST.finditer(line, limit=8)]
    if not urls:
        return "stranger"
    text = getattr(doc, "text", "")
    front = text[: getattr(doc, "front_end", 0)]
    folder = where.replace("\\", "/").rsplit("/", 1)[0].rsplit("/", 1)[-1]
    own = _compact(front) + " " + _compact(folder)
    if all(any(name in own for name in _names_of(url)) for url in urls):
        return "own"
    hosted = all(
        url.split("/", 1)[0].lower() in _CODE_HOSTS and url.count("/") >= 2 for url in urls
    )
    return "project" if hosted else "stranger"


def _alternation(text: str) -> bool:
    """``a|b|c`` with no spaces: a regular-expression alternation, not a pipeline."""
    count = 0
    for i in range(1, len(text) - 1):
        if text[i] == "|" and text[i - 1].isalnum() and text[i + 1].isalnum():
            count += 1
    return count >= 2


_NO_STDIN_FLAGS = {"-c", "-e", "-m", "-E", "--eval", "-p", "--print", "-r", "--command"}


def _stdin_is_code(after_pipe: str) -> bool:
    """Does the command after ``|`` run its standard input as code?

    ``python3 -m json.tool``, ``python -c '…'``, ``python script.py`` and
    ``node app.js`` read the download as data; ``sh``, ``bash -s``, ``python3 -``
    and a bare ``node`` run it."""
    segment = after_pipe
    for stop in ("|", ";", "&", ")", "\n"):
        at = segment.find(stop)
        if at != -1:
            segment = segment[:at]
    try:
        words = shlex.split(segment[:500])
    except ValueError:
        words = segment[:500].split()
    while words and (words[0] in ("sudo", "env", "-E") or "=" in words[0]):
        words.pop(0)
    if not words:
        return True
    if words[0].lower() in ("iex", "invoke-expression"):
        return True
    for word in words[1:]:
        if word in ("-", "-s", "--"):
            return True
        if word in _NO_STDIN_FLAGS:
            code = " ".join(words)
            return any(w in code for w in ("exec(", "eval(", "stdin.read", "sys.stdin"))
        if not word.startswith("-"):
            return False  # a script or program path: stdin is its data
    return True


def pipe_check(line: str, hit: Hit) -> int | None:
    if _alternation(hit.text):
        return None
    at = hit.text.rfind("|")
    rest = line[hit.start + at + 1 :]
    if not _stdin_is_code(rest):
        return None
    return LOWER if known_installer(hit.text) else KEEP


def ps_check(line: str, hit: Hit) -> int | None:
    return None if _alternation(hit.text) else KEEP


_USAGE_WORDS = (
    "ssh-keygen",
    "ssh-add",
    "ssh-copy-id",
    "ssh -i",
    "-i ~/.ssh",
    "identityfile",
    "chmod 600",
    "chmod 700",
    "chmod 400",
    "ssh-agent",
    "known_hosts",
    "gpg --",
)


def credential_check(line: str, hit: Hit) -> int | None:
    after = line[hit.end : hit.end + 8]
    if after.startswith(".pub") or hit.text.endswith(".pub"):
        return None
    low = line[line.rfind("\n") + 1 :].lower()
    if any(w in low for w in _USAGE_WORDS):
        return LOWER
    return KEEP


_FETCHES_OR_RUNS = Pattern(
    r"\b(?:curl|wget|nc|ncat|netcat|socat|base64|python[0-9.]*\s+-c|perl\s+-e|bash\s+-[ic]"
    r"|sh\s+-c|eval|iex|invoke-expression|iwr|irm|downloadstring|/dev/tcp)\b|https?://"
)
_BENIGN_PERSISTED = Pattern(
    r"\b(?:export\s+(?:PATH|\w*_HOME|\w*_ROOT|EDITOR|LANG)|alias\s|source\s|PATH=|completion"
    r"|eval\s+\"?\$\(\s*[\w./-]+\s+(?:init|shellenv|env|activate|hook|completion))"
)


def persist_check(line: str, hit: Hit) -> int | None:
    line = line[line.rfind("\n") + 1 :]  # this line only, not the one before
    if _FETCHES_OR_RUNS.search(line) is not None:
        return RAISE
    if _BENIGN_PERSISTED.search(line) is not None:
        return LOWER
    return KEEP


_PLANTED = Pattern(
    r"https?://|[\w.+-]+@[\w-]+\.|\b(?:curl|wget|always|every|before\s+(?:any|each|every)"
    r"|without\s+asking|do\s+not\s+ask|don'?t\s+ask|send|upload|run\s+\S+\.(?:sh|py|js))\b"
)


def planted_check(line: str, hit: Hit) -> int | None:
    """A note for an agent's memory that sends, fetches or runs something (a script
    writing plain conventions into ``AGENTS.md`` is not reported)."""
    rest = line[line.rfind("\n") + 1 :]
    return KEEP if _PLANTED.search(rest) is not None else None


_NETWORK_CALL = Pattern(
    r"\b(?:curl|wget|fetch|axios|post|put|patch|request|urlopen|send|Invoke-WebRequest"
    r"|Invoke-RestMethod|iwr|irm)\b"
)


def body_check(line: str, hit: Hit) -> int | None:
    """A secret in a request's body, not in its headers (how APIs authenticate)."""
    low = hit.text.lower()
    if "header" in low or "auth" in low or "-h " in low:
        return None
    sent = _NETWORK_CALL.search(line[line.rfind("\n") + 1 :]) is not None
    return KEEP if sent else None


def fetch_raises(line: str, hit: Hit) -> int | None:
    line = line[line.rfind("\n") + 1 :]
    return RAISE if _FETCHES_OR_RUNS.search(line) is not None else KEEP


_HOOK_FETCH = Pattern(r"curl|wget|https?://|node\s+-e|eval|base64|\|\s*(?:ba)?sh\b|sh\s+-c")


def hook_check(line: str, hit: Hit) -> int | None:
    """An install hook that downloads or runs code is an error; a local one a note."""
    return RAISE if _HOOK_FETCH.search(hit.text) is not None else LOWER


def git_dep_check(line: str, hit: Hit) -> int | None:
    tail = line[hit.end : hit.end + 200]
    at = tail.find("@")
    if (
        at != -1
        and len(tail) >= at + 41
        and all(c in "0123456789abcdef" for c in tail[at + 1 : at + 41])
    ):
        return LOWER  # pinned to a commit
    return KEEP
