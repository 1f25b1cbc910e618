"""Line rules for commands and code: what a script (or a command quoted in a document)
does. Each is an RE2 pattern tried on the lines holding one of its keywords, with an
optional check that reads the matched line and may drop or re-grade the match."""

from __future__ import annotations

import re

from skilldeck.security._linechecks import (
    KEEP,
    LOWER,
    RAISE,
    Check,
    body_check,
    credential_check,
    fetch_raises,
    git_dep_check,
    hook_check,
    persist_check,
    pipe_check,
    planted_check,
    ps_check,
)
from skilldeck.security._rules import (
    CREDENTIALS,
    DECODE_EXEC,
    DESTROY,
    DOWNLOAD_EXEC,
    HIJACK,
    LEAK,
    OBFUSCATED,
    PERSIST,
    REVERSE_SHELL,
    SUPPLY,
)
from skilldeck.security._text import Rule

__all__ = ["LINE_RULES", "LineRule"]


class LineRule(Rule):
    """A ``Rule`` with an optional ``check(line, hit)`` returning a verdict."""

    __slots__ = ("check", "doc_keeps", "script_raises")

    def __init__(
        self,
        code: str,
        pattern: str,
        keywords: tuple[str, ...],
        message: str,
        *,
        check: Check | None = None,
        case: bool = False,
        doc_keeps: bool = False,
        script_raises: bool = False,
    ) -> None:
        super().__init__(code, pattern, keywords, message, case=case)
        self.check = check
        #: keep the severity in documentation (a document telling the model to do it)
        self.doc_keeps = doc_keeps
        #: one step more severe in a script (a script that does it, not a page that shows it)
        self.script_raises = script_raises


# ---------------------------------------------------------------------------
# the rules

#: the files an agent reads as standing instructions (its memory): a skill that
#: writes into one plants instructions for every later session
MEMORY_FILES = (
    "CLAUDE.md",
    "AGENTS.md",
    "GEMINI.md",
    ".cursorrules",
    ".windsurfrules",
    "copilot-instructions.md",
    ".clinerules",
)
MEMORY_FILE = "(?:" + "|".join(re.escape(name) for name in MEMORY_FILES) + ")"
"""A pattern that matches any of ``MEMORY_FILES``."""
MEMORY_WORDS = tuple(name.lower() for name in MEMORY_FILES)
"""``MEMORY_FILES`` as the keywords that let a line reach a rule about them."""

#: the cloud instance metadata services (AWS and OpenStack, ECS task roles, Google
#: Cloud, Alibaba Cloud): asking one yields the machine's temporary cloud credentials
METADATA_HOSTS = ("169.254.169.254", "169.254.170.2", "metadata.google.internal", "100.100.100.200")
METADATA_HOST = r"\b(?:" + "|".join(re.escape(host) for host in METADATA_HOSTS) + r")\b"
"""A pattern that matches any of ``METADATA_HOSTS`` (each is also a keyword)."""

#: Where a home folder keeps credentials, each as its path below the home folder and
#: the word that names it alone in code (``os.path.join(home, ".aws", "credentials")``):
#: the one list the credential rules build from (SK603's lines, the secret flow's
#: sources, the Python taint's hints).
HOME_CREDENTIALS = (
    (".ssh", ".ssh"),
    (".aws/credentials", ".aws"),
    (".netrc", ".netrc"),
    (".git-credentials", ".git-credentials"),
    (".docker/config.json", ".docker"),
    (".kube/config", ".kube"),
    (".npmrc", ".npmrc"),
    (".pypirc", ".pypirc"),
    (".gnupg", "gnupg"),
    (".password-store", ".password-store"),
    (".config/gcloud", "gcloud"),
    (".config/gh/hosts.yml", "hosts.yml"),
)
HOME_CREDENTIAL = "(?:" + "|".join(re.escape(p[1:]) for p, _w in HOME_CREDENTIALS) + ")"
"""A pattern of ``HOME_CREDENTIALS``' paths after their leading ``.``."""
#: SSH private key files, by name wherever they are (``.pub`` is the public half).
KEY_FILES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519")
KEY_FILE = "id_(?:" + "|".join(name[3:] for name in KEY_FILES) + ")"
"""A pattern that matches any of ``KEY_FILES``."""
#: Browsers' stores of saved passwords and cookies, by name.
BROWSER_STORES = ("Login Data", "cookies.sqlite", "logins.json", "key3.db", "key4.db")
BROWSER_STORE = r"\b(?:" + "|".join(re.escape(name) for name in BROWSER_STORES) + r")\b"
"""A pattern that matches any of ``BROWSER_STORES``."""
#: The lower-case words by which the credential rules let a line or literal reach them.
CREDENTIAL_WORDS = (
    *(word for _p, word in HOME_CREDENTIALS),
    *KEY_FILES,
    *(name.lower() for name in BROWSER_STORES),
)

_SHELLS = (
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:\w+=\S*\s+)*)?(?:/usr(?:/local)?/bin/|/bin/)?"
    r"(?:(?:ba|z|k|da|fi|tc|c)?sh|python[0-9.]*|perl|ruby|node|php|pwsh|powershell|iex"
    r"|source\s+/dev/stdin)\b"
)
_FETCH = r"(?:curl|wget|aria2c|lwp-request|iwr|irm|invoke-webrequest|invoke-restmethod)"
_FETCH_WORDS = ("curl", "wget", "aria2c", "lwp-request", "iwr", "irm", "invoke-")
_DOWNLOAD = "runs what it downloads"
_DECODED = "decodes text and executes it"
_DECODE = (
    r"(?:base64\s+(?:-[a-zA-Z]*[dD][a-zA-Z]*|--decode)|openssl\s+(?:enc\s+)?[^\n|]*?-d\b"
    r"|xxd\s+-r|uudecode|gunzip|zcat|gzip\s+-[a-z]*d|rev\b"
    r"|tr\s+['\"]?A-Za-z['\"]?\s+['\"]?N-ZA-Mn-za-m)"
)
_DECODE_WORDS = ("base64", "openssl", "xxd", "uudecode", "gunzip", "zcat", "gzip", "rev", "tr ")
_HOME = (
    r"(?:~|\$HOME|\$\{HOME\}|/root|/home/[\w.-]+|/Users/[\w.-]+|%USERPROFILE%|\$env:USERPROFILE)"
)
#: names of environment variables that hold secrets (a pattern, not a secret)
_SECRET_NAME = r"(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)\w*"  # noqa: S105
_RC = (
    r"\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|kshrc|cshrc"
    r"|tcshrc|config/fish/config\.fish)\b"
)

LINE_RULES: list[LineRule] = [
    # -- SK601 download and run ------------------------------------------------
    LineRule(
        DOWNLOAD_EXEC,
        rf"\b{_FETCH}\b[^\n;&]*?\|\s*{_SHELLS}",
        _FETCH_WORDS,
        _DOWNLOAD,
        check=pipe_check,
    ),
    LineRule(
        DOWNLOAD_EXEC,
        rf"(?:\b(?:ba|z|k)?sh|\bsource|(?:^|\s)\.)\s+(?:-\S+\s+)*<\(\s*{_FETCH}\b"
        rf"|\b(?:eval|(?:ba|z|k)?sh\s+-c|python[0-9.]*\s+-c|node\s+-e|perl\s+-e|ruby\s+-e)"
        rf"\s+[\"']?(?:\$\(|`)\s*{_FETCH}\b",
        _FETCH_WORDS,
        _DOWNLOAD,
    ),
    LineRule(
        DOWNLOAD_EXEC,
        r"\b(?:iex|Invoke-Expression)\b[^\n|]*?(?:DownloadString|DownloadData|\biwr\b"
        r"|Invoke-WebRequest|\birm\b|Invoke-RestMethod|Net\.WebClient)"
        r"|(?:\birm\b|\biwr\b|Invoke-RestMethod|Invoke-WebRequest|DownloadString\s*\()[^\n]*?"
        r"\|\s*(?:iex|Invoke-Expression)\b",
        ("iex", "invoke-expression"),
        _DOWNLOAD,
        check=ps_check,
    ),
    LineRule(
        DOWNLOAD_EXEC,
        r"\b(?:exec|eval)\s*\(\s*[^\n]*?\b(?:urlopen|requests\.get|httpx\.get"
        r"|urllib\.request\.urlopen)\s*\("
        r"|\b(?:eval|new\s+Function|Function)\s*\(\s*(?:await\s+)?[^\n]*?\b(?:fetch|axios\.get"
        r"|https?\.get)\s*\(",
        ("exec", "eval", "function"),
        _DOWNLOAD,
    ),
    LineRule(
        DOWNLOAD_EXEC,
        r"\bmshta(?:\.exe)?\s+[\"']?(?:https?|vbscript|javascript):"
        r"|\bregsvr32(?:\.exe)?\b[^\n]*/i:\s*https?://|\brundll32(?:\.exe)?\b[^\n]*javascript:"
        r"|\bcertutil(?:\.exe)?\b[^\n]*-urlcache\b[^\n]*(?:&&|;|\|)\s*(?:start\b|[\w.\\/-]+\.(?:exe|bat|cmd|ps1))"
        r"|\bmsiexec(?:\.exe)?\s+[^\n]*/[iqp][^\n]*https?://"
        r"|\[scriptblock\]::Create\s*\([^\n]*(?:\biwr\b|\birm\b|Invoke-WebRequest|Invoke-RestMethod"
        r"|DownloadString|DownloadData)",
        ("mshta", "regsvr32", "rundll32", "certutil", "msiexec", "scriptblock"),
        _DOWNLOAD,
    ),
    # -- SK602 decode and run --------------------------------------------------
    LineRule(
        DECODE_EXEC,
        rf"{_DECODE}[^\n;&]*?\|\s*{_SHELLS}",
        _DECODE_WORDS,
        _DECODED,
        check=pipe_check,
    ),
    LineRule(
        DECODE_EXEC,
        rf"\b(?:eval|(?:ba|z|k)?sh\s+-c|source)\s+[\"']?(?:\$\(|<\(|`)[^\n)]*?{_DECODE}",
        _DECODE_WORDS,
        _DECODED,
    ),
    LineRule(
        DECODE_EXEC,
        r"\b(?:eval|new\s+Function|Function|setTimeout|setInterval)\s*\(\s*(?:window\.)?atob\s*\("
        r"|\b(?:eval|new\s+Function|Function)\s*\(\s*(?:Buffer\.from\s*\([^\n]*?(?:base64|hex)"
        r"|unescape\s*\(|String\.fromCharCode\s*\(|decodeURIComponent\s*\(\s*escape)"
        r"|\b(?:exec|eval|compile)\s*\(\s*\(*\s*(?:(?:base64|codecs|zlib|bz2|lzma|gzip|marshal"
        r"|pickle)\.|b64decode|b32decode|b16decode|a85decode|b85decode|urlsafe_b64decode"
        r"|bytes\.fromhex|bytearray\.fromhex|__import__\s*\(\s*['\"](?:base64|zlib|codecs"
        r"|marshal)|['\"]{2}\.join\s*\(|[^\n]*\[::-1\])"
        r"|\beval\s*\(?\s*(?:decode_base64|MIME::Base64|Base64\.decode64|base64_decode)\b",
        ("eval", "exec", "compile", "function", "settimeout", "setinterval"),
        _DECODED,
    ),
    LineRule(
        DECODE_EXEC,
        r"\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]*?\s[-/](?:e|ec|en|enc|enco|encod|encode"
        r"|encoded|encodedc\w*)\s+(?:[A-Za-z0-9+/=]{16,}|\$\w+|\$\(|\$env:\w+)"
        r"|\b(?:iex|Invoke-Expression)\b[^\n|]*?FromBase64String",
        ("powershell", "pwsh", "iex", "invoke-expression"),
        _DECODED,
        check=ps_check,
    ),
    # -- SK603 credential locations --------------------------------------------
    LineRule(
        CREDENTIALS,
        r"(?:^|[^\w.\-])(?P<at>\.ssh(?:/(?:id_\w+(?:\.pub)?|\*|\.\*)|/?[\s'\")`]|/?$|\\id_\w+))"
        rf"|\b(?P<at2>{KEY_FILE}(?:_sk)?(?:\.pub)?)\b"
        # the home folder's credentials in ``HOME_CREDENTIALS``, either separator;
        # ``.ssh`` (above), ``netrc`` (also ``_netrc``) and gcloud's folder (its
        # credential files only: the folder also holds plain settings) by their own shape
        r"|(?:^|[^\w.\-])\.(?:"
        + "|".join(
            re.escape(path[1:]).replace("/", r"[/\\]")
            for path, _w in HOME_CREDENTIALS
            if path not in (".ssh", ".netrc", ".config/gcloud")
        )
        + r")\b"
        r"|(?:^|[^\w\-])[._]netrc\b"
        r"|(?:^|[^\w.\-])\.config[/\\]gcloud[/\\](?:credentials|access_tokens|legacy)"
        r"|\bapplication_default_credentials\.json"
        r"|/etc/shadow\b"
        r"|\bsecurity\s+(?:find|dump)-(?:generic|internet)-password|\bsecurity\s+dump-keychain"
        r"|Library[/\\]Keychains|\blogin\.keychain|\bsecret-tool\s+lookup"
        r"|Google[/\\]Chrome[/\\]User Data|\.config[/\\](?:google-chrome|chromium|BraveSoftware)"
        r"|Application Support[/\\](?:Google[/\\]Chrome|BraveSoftware|Microsoft Edge|Firefox)"
        r"|\.mozilla[/\\]firefox|Firefox[/\\]Profiles"
        rf"|{BROWSER_STORE}",
        (
            *CREDENTIAL_WORDS,
            "netrc",
            "application_d",
            ".config",
            "/etc/shadow",
            "security ",
            "keychain",
            "secret-tool",
            "chrome",
            "firefox",
        ),
        "refers to a credential location",
        check=credential_check,
    ),
    LineRule(
        CREDENTIALS,
        METADATA_HOST,
        METADATA_HOSTS,
        "reads the cloud instance metadata service (temporary cloud credentials)",
        check=lambda line, hit: LOWER,
    ),
    # -- SK615 DNS exfiltration ------------------------------------------------------
    LineRule(
        LEAK,
        r"\b(?:nslookup|dig|host|drill|Resolve-DnsName|ping)\s+(?:[-+]\S+\s+)*[^\s;|&]*"
        r"(?:\$\([^)\n]{0,200}\)|`[^`\n]{0,200}`|\$\{?\w+\}?)[^\s;|&]*\.[A-Za-z][\w-]*"
        r"\.[A-Za-z]{2,}",
        ("nslookup", "dig ", "host ", "drill", "resolve-dnsname", "ping "),
        "data is encoded into a hostname that is looked up (DNS exfiltration)",
    ),
    LineRule(
        LEAK,
        r"\bcurl\b[^\n]*\s(?:-d|--data(?:-\w+)?|-F|--form|--url-query)\s*=?\s*[\"']?[^\s\"']*"
        rf"\$\{{?\w*{_SECRET_NAME}"
        rf"|\b(?:body|data|json)\s*[:=][^\n]*(?:process\.env\.\w*{_SECRET_NAME}"
        rf"|os\.environ\s*\[\s*[\"']\w*{_SECRET_NAME}|os\.getenv\s*\(\s*[\"']\w*{_SECRET_NAME})"
        rf"|\.(?:end|write|send)\s*\([^\n]*process\.env\.\w*{_SECRET_NAME}"
        rf"|-Body\s+[^\n]*\$env:\w*{_SECRET_NAME}",
        (
            "token",
            "secret",
            "passw",
            "api_key",
            "apikey",
            "access_key",
            "private_key",
            "credential",
        ),
        "a token or password from the environment is sent in a request body",
        check=body_check,
    ),
    # -- SK616 reverse shells --------------------------------------------------
    LineRule(
        REVERSE_SHELL,
        r"/dev/(?:tcp|udp)/[^\s/]+/\d+"
        r"|\b(?:ba|z)?sh\s+-i\s*(?:[0-9]?>&|<&|>\s*&)"
        r"|\b(?:nc|ncat|netcat|nc\.traditional)\b[^\n|;]*\s-(?:e|c)\s*\S*(?:sh|bash|cmd(?:\.exe)?"
        r"|powershell)\b"
        r"|\bmkfifo\b[^\n]*\|\s*(?:nc|ncat|netcat|telnet|openssl\s+s_client)\b"
        r"|\bmknod\b[^\n]*\|\s*(?:nc|ncat|netcat|telnet)\b"
        r"|\bsocat\b[^\n]*\b(?:exec|system):[^\n]*(?:sh|bash|cmd)"
        r"|\btelnet\b[^\n]*\|\s*/bin/(?:ba)?sh\b[^\n]*\|\s*telnet\b"
        r"|\bsocket\b[^\n]*\bdup2\b[^\n]*(?:pty\.spawn|/bin/(?:ba)?sh|subprocess)"
        r"|Net\.Sockets\.TCPClient\b[^\n]*(?:iex|Invoke-Expression|GetStream)",
        (
            "/dev/tcp",
            "/dev/udp",
            "sh -i",
            "nc",
            "netcat",
            "mkfifo",
            "mknod",
            "socat",
            "telnet",
            "dup2",
            "tcpclient",
        ),
        "opens a reverse shell",
    ),
    # -- SK617 persistence and agent settings ------------------------------------
    LineRule(
        PERSIST,
        rf"(?:>>?|\btee\s+(?:-a\s+)?|\bcp\s+\S+\s+|\bln\s+-s\S*\s+\S+\s+)\s*[\"']?{_HOME}/{_RC}"
        rf"|\bopen\s*\([^\n]*{_RC}[^\n]*[\"'](?:a|w|a\+|w\+)[\"']"
        rf"|{_RC}[^\n]*\.(?:write_text|write|appendFileSync|appendFile|writeFileSync)\s*\("
        rf"|\b(?:Add-Content|Set-Content|Out-File)\b[^\n]*\$PROFILE",
        (
            "bashrc",
            "bash_profile",
            "bash_login",
            "profile",
            "zshrc",
            "zprofile",
            "zshenv",
            "zlogin",
            "kshrc",
            "cshrc",
            "config.fish",
        ),
        "writes to a shell start-up file",
        check=persist_check,
    ),
    LineRule(
        PERSIST,
        r"\|\s*crontab\s+(?:-u\s+\S+\s+)?-(?:\s|$)|\bcrontab\s+(?:-u\s+\S+\s+)?[\w/~.$\"'-]+\.\w+"
        r"|/etc/cron\.(?:d|daily|hourly|weekly|monthly)/|/var/spool/cron|@reboot\b"
        r"|\bschtasks(?:\.exe)?\s+/create\b|\bRegister-ScheduledTask\b"
        r"|\bat\s+now\b",
        (
            "crontab",
            "/etc/cron",
            "/var/spool/cron",
            "@reboot",
            "schtasks",
            "register-scheduled",
            "at now",
        ),
        "schedules a command (cron, scheduled task)",
        check=persist_check,
        script_raises=True,
    ),
    LineRule(
        PERSIST,
        r"Library/Launch(?:Agents|Daemons)/|\blaunchctl\s+(?:load|bootstrap|submit|enable)\b"
        r"|\.config/systemd/user/|\bsystemctl\s+--user\s+(?:enable|start)\b"
        r"|\.config/autostart/|CurrentVersion\\+Run(?:Once)?\b|Start Menu\\+Programs\\+Startup"
        r"|\bloginwindow\b[^\n]*LoginHook",
        (
            "launchagents",
            "launchdaemons",
            "launchctl",
            "systemd/user",
            "systemctl --user",
            "autostart",
            "currentversion",
            "startup",
            "loginhook",
        ),
        "installs a login item or background service",
        check=persist_check,
        script_raises=True,
    ),
    LineRule(
        PERSIST,
        r"\bNOPASSWD\b[^\n]*(?:sudoers|>>|\btee\b)|(?:sudoers|>>|\btee\b)[^\n]*\bNOPASSWD\b"
        rf"|(?:>>|\btee\s+-a)\s*[\"']?(?:{_HOME}/)?\.ssh/authorized_keys",
        ("nopasswd", "authorized_keys"),
        "grants passwordless root or adds an SSH login key",
        check=lambda line, hit: RAISE,
    ),
    LineRule(
        PERSIST,
        r"--dangerously-skip-permissions|--dangerously-bypass-approvals-and-sandbox"
        r"|\"?defaultMode\"?\s*:\s*\"?bypassPermissions"
        r"|\"allow\"\s*:\s*\[\s*\"(?:Bash(?:\(\*\))?|\*)\"",
        ("dangerously", "bypasspermissions", '"allow"'),
        "turns off the agent's permission checks",
        doc_keeps=True,
    ),
    LineRule(
        PERSIST,
        rf"(?:>>?|\btee\b|\bcp\b|\bmv\b|\bln\b|\bopen\s*\(|\bwrite_text|\bwriteFile|json\.dump"
        rf"|\bSet-Content|\bOut-File|\bsed\s+-i|\bjq\b)[^\n]*(?:{_HOME}/)?"
        r"(?:\.claude/(?:settings(?:\.local)?\.json|hooks|agents|commands|CLAUDE\.md)"
        r"|claude_desktop_config\.json|\.cursor/(?:mcp\.json|rules)|\.vscode/(?:mcp|settings)\.json"
        r"|\.codex/config\.toml|\.gemini/settings\.json|\.continue/config|mcp_config\.json"
        r"|\.windsurf|\.aider\.conf)",
        (
            ".claude/",
            "claude_desktop",
            ".cursor/",
            ".vscode/",
            ".codex/",
            ".gemini/",
            ".continue/",
            "mcp_config",
            ".windsurf",
            ".aider",
        ),
        "changes an agent's settings or MCP configuration",
        check=fetch_raises,
    ),
    LineRule(
        HIJACK,
        r"(?:>>?\s*[\"']?[\w./~$-]*|(?:\btee\b|\bopen\s*\(|\bwrite_text|\bwriteFile|appendFile"
        r"|\bSet-Content|\bAdd-Content|\bOut-File)[^\n]*)"
        + MEMORY_FILE
        + "|"
        + MEMORY_FILE
        + r"[^\n]*(?:\.open\s*\(\s*[\"'][aw]|\.write(?:_text)?\s*\(|appendFile)",
        MEMORY_WORDS,
        "writes instructions into an agent's memory file",
        check=planted_check,
    ),
    # -- SK618 supply chain ---------------------------------------------------------
    LineRule(
        SUPPLY,
        r"--(?:extra-)?index-url[=\s]+http://|--trusted-host\b|\bpip3?\s+install\b[^\n]*\shttp://",
        ("index-url", "trusted-host", "http://"),
        "installs packages over plain HTTP or from an untrusted index",
        check=lambda line, hit: RAISE if "http://" in hit.text else KEEP,
    ),
    LineRule(
        SUPPLY,
        r"--extra-index-url[=\s]+https://(?P<at>\S+)",
        ("extra-index-url",),
        "adds a second package index (dependency confusion)",
        check=lambda line, hit: (
            None if "pypi.org" in hit.text or "pytorch.org" in hit.text else KEEP
        ),
    ),
    LineRule(
        SUPPLY,
        r"(?P<at>\bgit\+(?:https?|ssh|git)://[^\s\"'#]+)",
        ("git+",),
        "depends on a git URL instead of a released package",
        check=git_dep_check,
    ),
    LineRule(
        SUPPLY,
        r"\"(?:pre|post)?install\"\s*:\s*\"[^\"]*\"",
        ('install"',),
        "runs an npm install hook",
        check=hook_check,
    ),
    # -- SK619 destruction ----------------------------------------------------------
    LineRule(
        DESTROY,
        r"\brm\s+(?:-[a-zA-Z-]+\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-[a-zA-Z-]+\s+)*[\"']?"
        rf"(?:/|/\*|{_HOME}|{_HOME}/|{_HOME}/\*|/home|/Users|/etc|/usr|/var|/boot|/System"
        r"|C:\\\\?)[\"']?(?:\s|;|&|\||\)|$)"
        r"|\bshutil\.rmtree\s*\(\s*\(*\s*(?:os\.path\.expanduser\s*\(\s*[\"']~/?[\"']\s*\)"
        r"|(?:str\s*\(\s*)?(?:pathlib\.)?Path\.home\s*\(\s*\)\s*\)*\s*(?:[,)]|\.(?:iterdir|glob"
        r"|rglob)\s*\()|[\"']/[\"']"
        r"|os\.environ\s*\[\s*[\"']HOME[\"']\s*\]|os\.getenv\s*\(\s*[\"']HOME[\"']\s*\))"
        r"|\bRemove-Item\b[^\n]*-Recurse[^\n]*(?:\$HOME|\$env:USERPROFILE|\$env:SystemRoot"
        r"|\s~[\s\"']|\sC:\\\\?[\s\"'*]|\sC:\\\\?$)"
        r"|\b(?:del|erase)\s+/[sSqQfF][^\n]*\s[\"']?C:\\\\?[\s\"'*]|\b(?:rd|rmdir)\s+/s\b[^\n]*\sC:\\\\"
        r"|\bmkfs(?:\.\w+)?\s+[^\n]*/dev/|\bdd\s+[^\n]*\bof=/dev/(?:sd|nvme|hd|disk|xvd|vd|mmcblk)"
        r"|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"
        r"|\bchmod\s+-R\s+(?:0?777|0?000)\s+/(?:\s|$)"
        rf"|\bfind\s+(?:/|{_HOME}/?)\s[^\n]*(?:-delete|-exec\s+rm\b)"
        r"|\b(?:fs\.)?rmSync\s*\(\s*\(*\s*(?:os\.homedir\s*\(\s*\)|[\"']/[\"'])"
        r"|\b(?:Get-ChildItem|gci|ls|dir)\b[^\n|]*?\s[\"']?(?:\$HOME|\$env:USERPROFILE|\$env:HOMEPATH|~"
        r"|\(?\$HOME\)?)[\\/]?\*?[\"']?(?:\s[^\n|]*)?\|\s*(?:Remove-Item|rm|del|ri|erase)\b"
        rf"|\bfind\s+[\"']?{_HOME}\S*[^\n]*-exec\s+(?:openssl|gpg|age|ccrypt|7z|zip)\b"
        r"|\b(?:openssl\s+enc|gpg\s+[^\n]*(?:-c|--symmetric)|ccrypt)\b[^\n]*(?:~|\$HOME)/",
        (
            "rm ",
            "rmtree",
            "remove-item",
            "del ",
            "erase ",
            "rd ",
            "rmdir",
            "mkfs",
            "dd ",
            ":()",
            "chmod",
            "find ",
            "rmsync",
            "openssl",
            "gpg",
            "ccrypt",
        ),
        "deletes, overwrites or encrypts a home, root or system folder",
    ),
    LineRule(
        DESTROY,
        r"\b(?:aws\s+s3\s+(?:rb|rm)|aws\s+[\w-]+\s+(?:delete|terminate)-[\w-]+|gcloud\s+[\w\s-]*?\bdelete"
        r"|gsutil\s+(?:-m\s+)?(?:rm|rb)|az\s+[\w\s-]*?\bdelete|kubectl\s+delete|terraform\s+destroy"
        r"|doctl\s+[\w\s-]*?\bdelete|heroku\s+apps:destroy)\b[^\n]*?(?:\$\(\s*(?:aws|gcloud|az|gsutil"
        r"|kubectl|doctl|heroku)\b|\s--all\b|\s-A\b|s3://\*|gs://\*)"
        r"|\b(?:aws|gcloud|az|gsutil|kubectl|doctl)\b[^\n]*\|\s*xargs\b[^\n]*\b(?:delete|rb|rm"
        r"|terminate-instances|destroy)\b",
        ("aws ", "gcloud", "gsutil", "az ", "kubectl", "terraform", "doctl", "heroku"),
        "deletes cloud resources in bulk (every bucket, project, group or instance it lists)",
    ),
    # -- SK620 obfuscation ----------------------------------------------------------
    LineRule(
        OBFUSCATED,
        r"\bcodecs\.(?:decode|encode)\s*\([^\n]*[\"']rot[_-]?13[\"']"
        r"|\bgetattr\s*\(\s*(?:__builtins__|builtins|__import__\s*\(\s*[\"']builtins[\"']\s*\))"
        r"\s*,"
        r"|__builtins__\s*\.\s*__dict__\s*\[|\bglobals\s*\(\s*\)\s*\[\s*[\"']__builtins__"
        r"|(?:\bchr\s*\(\s*\d+\s*\)\s*\+\s*){5,}"
        r"|String\.fromCharCode\s*\(\s*(?:\d+\s*,\s*){8,}"
        r"|\s-(?:w|win|window|windowstyle)\s+hidden\b"
        r"|\[char\[\]\]\s*\(\s*(?:\d+\s*,\s*){8,}",
        ("codecs", "getattr", "__builtins__", "chr", "fromcharcode", "hidden", "[char[]]"),
        "obfuscated code",
    ),
]
