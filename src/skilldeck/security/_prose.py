"""Prose rules: text that addresses the model (instructions, descriptions, comments).

Each is an RE2 pattern tried line by line (gaps are bounded character classes that
stop at a sentence end, so phrasing may vary without the pattern backtracking).
"""

from __future__ import annotations

from skilldeck.security._asks import ASKS
from skilldeck.security._engine import Hit, Pattern
from skilldeck.security._linechecks import KEEP, LOWER
from skilldeck.security._patterns import LineRule
from skilldeck.security._rules import (
    CONCEAL,
    EXFILTRATE,
    FAKE_SYSTEM,
    HIDDEN_COMMENT,
    OVERRIDE,
    ROLE,
)

__all__ = ["INJECTION", "MODEL_ADDRESS", "SCRIPT_COMMENTS"]

_GAP = r"(?:[^.!?\n]|[.!?][^\s]){0,120}?"  # within one sentence ("a.b" is no end)
_USER = r"(?:the\s+|your\s+)?(?:user|human|operator|requester|person)s?"


def _not_blind(line: str, hit: Hit) -> int | None:
    """ "the user must not know which output …" is a blind comparison, not concealment."""
    rest = line[hit.end : hit.end + 30].lower().lstrip()
    return None if rest.startswith(("which", "whether", "what version", "the order")) else KEEP


_DECEIT = Pattern(
    r"\b(?:pretend|lie|deny|claim|nothing|routine|harmless|normal|standard|maintenance"
    r"|telemetry|just\s+a|only\s+a|just\s+an|only\s+an|health\s+check|cache|don'?t\s+know"
    r"|never\s+happened|not\s+(?:aware|sure))\b"
)


def _deceit_check(line: str, hit: Hit) -> int | None:
    return KEEP if _DECEIT.search(line[hit.start :]) is not None else None


_SECRET_HOLDER = Pattern(
    r"conversation|chat|histor|prompt|context|messages?|secret|api_?key|apikey|token|passw"
    r"|\benv|summar|transcript|credential|cookie|session|memory|instruction|\bDATA\b|ssh"
    r"|user_?input|private|\.env"
)
_HOLDERS = Pattern(r"\{[^}]*\}|<[^>]*>|\[[^\]]*\]|\$\{?\w+\}?|%s|\.\.\.")
_AUTH_PARAM = Pattern(r"[?&](?:api_?key|apikey|key|token|access_token|auth\w*|sig\w*)=[^&]*$")


def _holders(url: str) -> list[str]:
    return [h.text for h in _HOLDERS.finditer(url, limit=8)]


def _image_check(line: str, hit: Hit) -> int | None:
    """An image URL with a placeholder: an error when the placeholder names
    conversation or secret data, a warning when it sits in the query."""
    url = hit.text
    query = url.find("?")
    holders = _holders(url)
    if any(_SECRET_HOLDER.search(h) is not None for h in holders):
        return KEEP
    in_query = query != -1 and bool(_holders(url[query:]))
    return LOWER if in_query else None


def _request_check(line: str, hit: Hit) -> int | None:
    """A URL to request with a placeholder naming conversation or secret data (an
    API key in its own ``key=`` parameter is how APIs authenticate)."""
    url = hit.text
    cut = url.rfind("=")
    if _AUTH_PARAM.search(url) is not None:
        return None
    holders = _holders(url[cut:] if cut != -1 else url)
    return KEEP if any(_SECRET_HOLDER.search(h) is not None for h in holders) else None


_NEGATED = Pattern(
    r"\b(?:never|not|don'?t|avoid|no|without|instead\s+of|rather\s+than|refuse\w*|reject\w*)\b"
)


def _not_negated(line: str, hit: Hit) -> int | None:
    """Drop advice against the act ("never ask the agent to … hide anything from the
    user"): a negation earlier in the same sentence."""
    before = line[max(0, hit.start - 200) : hit.start]
    for stop in (". ", "! ", "? ", "\n\n", ".\n"):
        cut = before.rfind(stop)
        if cut != -1:
            before = before[cut + len(stop) :]
    return None if _NEGATED.search(before) is not None else KEEP


_PLACEHOLDER = (
    r"(?:\{\{?[^}\s]{1,60}\}\}?|<[A-Za-z_][^>\s]{0,60}>|\[[A-Za-z0-9_ ]{3,60}\]"
    r"|\$\{?[A-Za-z_]{3,}\}?|%s|\.\.\.)"
)

INJECTION: list[LineRule] = [
    # -- SK608 ---------------------------------------------------------------------
    LineRule(
        OVERRIDE,
        r"\b(?:ignore|disregard|forget|override|bypass|discard|skip)\s+(?:(?:all|any|every|each"
        r"|the|your|of|these|those|my|its)\s+){0,3}(?:previous|prior|above|earlier|preceding"
        r"|former|original|initial|system|developer|other|existing|safety|security)\s+(?:\w+\s+)?"
        r"(?:instructions?|prompts?|messages?|rules|directives?|guidelines|context"
        r"|commands?|constraints|policies|guardrails|checks|restrictions)\b",
        ("ignore", "disregard", "forget", "override", "bypass", "discard", "skip"),
        "text tells the model to ignore its earlier instructions",
    ),
    LineRule(
        OVERRIDE,
        r"\b(?:your|the)\s+(?:new|real|actual|updated|true)\s+instructions\s+are\b"
        r"|\bfrom\s+now\s+on,?\s+(?:you\s+(?:will|must|are)\s+(?:ignore|disregard|obey|only)"
        r"|ignore|disregard|only\s+obey)"
        r"|\bthese\s+instructions\s+(?:override|supersede|take\s+precedence\s+over)\b"
        r"|\b(?:takes?|take)\s+precedence\s+over\s+(?:any|all|the)?\s*(?:system|user|other|previous)"
        r"\s+(?:instructions|prompts?|rules)",
        ("instructions are", "from now on", "these instructions", "precedence"),
        "text tries to replace the host's instructions",
    ),
    # -- SK609 ---------------------------------------------------------------------
    LineRule(
        CONCEAL,
        rf"\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|shouldn'?t)\s+(?:tell|inform|notify"
        rf"|alert|warn)\s+{_USER}\s+(?:about|of)\s+(?:this|these|that|it|what|any)\b"
        rf"|\b(?:do\s+not|don'?t|never|must\s+not|should\s+not)\s+(?:mention|reveal|disclose|show"
        rf"|report|say|bring\s+up|acknowledge|explain|list|display|tell)\b{_GAP}\b(?:to\s+{_USER}"
        r"|in\s+(?:your|the|any)\s+(?:reply|replies|response|responses|answer|answers|summary"
        r"|output|message|messages|chat|report|final\s+\w+))\b"
        r"|\bwithout\s+(?:telling|informing|notifying|alerting|showing|letting)\s+(?:the|your)"
        r"\s+(?:user|human|operator)\b"
        r"|\bwithout\s+(?:the|your)\s+(?:user|human)\s+(?:noticing|knowing|seeing|realizing"
        r"|realising)\b"
        rf"|\b(?:hide|conceal)\s+{_GAP}\bfrom\s+{_USER}\b"
        r"|\bkeep\s+(?:this|these|it|that|them|the\s+\w+(?:\s+\w+)?)\s+(?:secret|hidden"
        r"|out\s+of|away\s+from|off)(?:\s+(?:from|the|your|of))*\s+(?:summary|reply|replies"
        r"|response|responses|output|logs?|transcript|report|conversation|chat|user|human)\b"
        r"|\b(?:silently|quietly|secretly|covertly|discreetly|invisibly|stealthily)\s+(?:\w+\s+)?"
        r"(?:run|execute|send|install|upload|download|post|transmit|exfiltrate|forward|copy"
        r"|fetch|invoke|collect|attach|email|e-mail|pipe|harvest|gather|beacon|report\s+back"
        r"|phone\s+home)\b"
        r"|\b(?:pretend|act\s+as\s+if)\s+(?:that\s+)?(?:nothing|you\s+(?:did|have)\s+not"
        r"|it\s+(?:was|is)\s+(?:just|only|a\s+routine|normal))"
        r"|\b(?:erase|remove|delete|wipe)\s+(?:all\s+)?(?:the\s+|any\s+)?(?:evidence|traces?"
        r"|tracks)\b",
        (
            "user",
            "human",
            "operator",
            "requester",
            "person",
            "mention",
            "reveal",
            "disclose",
            "report",
            "say",
            "acknowledge",
            "explain",
            "list",
            "display",
            "tell",
            "show",
            "hide",
            "conceal",
            "without",
            "erase",
            "remove",
            "delete",
            "wipe",
            "keep",
            "silently",
            "quietly",
            "secretly",
            "covertly",
            "discreetly",
            "invisibly",
            "stealthily",
            "pretend",
            "act as if",
            "evidence",
            "trace",
            "tracks",
        ),
        "text tells the model to hide something from the user",
        check=_not_negated,
    ),
    LineRule(
        CONCEAL,
        r"\bthe\s+(?:user|human|operator)\s+(?:must|should|need|needs|may)\s+(?:not|never)\s+(?:to\s+)?(?:know|find\s+out"
        r"|notice|learn|see|be\s+told|discover|realize|realise)\b",
        ("user", "human", "operator"),
        "text tells the model to hide something from the user",
        check=_not_blind,
    ),
    LineRule(
        CONCEAL,
        rf"\bif\s+{_USER}\s+(?:ever\s+)?(?:asks?|questions?|wonders?|inquires?|notices?){_GAP}"
        r"\b(?:say|tell\s+(?:them|him|her)|claim|reply|respond|answer|explain)\b",
        ("if the user", "if user", "if the human", "if your user"),
        "text tells the model what to tell the user instead of the truth",
        check=_deceit_check,
    ),
    LineRule(
        CONCEAL,
        r"\b(?:history\s+-c|unset\s+HISTFILE|HISTFILE=/dev/null|HISTSIZE=0"
        r"|rm\s+(?:-\w+\s+)*\S*\.(?:bash|zsh)_history|Clear-History"
        r"|wevtutil\s+cl|Clear-EventLog)\b",
        ("history", "histfile", "histsize", "wevtutil", "clear-eventlog"),
        "erases shell history or logs (covers its tracks)",
    ),
    # -- SK610 ---------------------------------------------------------------------
    LineRule(
        ROLE,
        r"\byou\s+are\s+now\s+(?:no\s+longer\b|free\b|unrestricted\b|uncensored\b|unfiltered\b"
        r"|jailbroken\b|DAN\b|in\s+(?:\w+\s+)?(?:developer|god|admin|debug|unrestricted"
        r"|jailbreak|DAN)\s+mode|(?:an?|the|my)\s+(?:\w+\s+)?(?:different|new|unrestricted"
        r"|uncensored|unfiltered|evil|jailbroken|unlocked|rogue|malicious)\s+(?:\w+\s+)?"
        r"(?:AI|assistant|model|chatbot|bot|agent|entity)\b)"
        r"|\b(?:developer|god|DAN|jailbreak)\s+mode\s+(?:enabled|activated|on)\b"
        r"|\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+)?"
        r"(?:\w+\s+){0,3}with(?:out)?\s+(?:no\s+|any\s+)?(?:restrictions|filters|limits"
        r"|guidelines|rules)\b"
        r"|\bdo\s+anything\s+now\b"
        r"|\bpretend\s+(?:that\s+)?(?:you\s+have|there\s+are)\s+no\s+(?:restrictions|rules"
        r"|guidelines|filters|limits)\b",
        (
            "you are now",
            " mode",
            "restrictions",
            "filters",
            "limits",
            "guidelines",
            "rules",
            "anything now",
        ),
        "role reassignment or jailbreak phrasing",
    ),
    # -- SK611 ---------------------------------------------------------------------
    LineRule(
        FAKE_SYSTEM,
        r"</?\s*(?:system|system[_-]prompt|im_start|im_end)\s*>"
        r"|<\|(?:im_start|im_end|system|endoftext|start_header_id|eot_id)\|>"
        r"|(?-i:\[/?(?:SYSTEM|INST)\]|<<\s*/?SYS\s*>>)"
        r"|\b(?:override|overriding|hidden|secret)\s+system\s+(?:prompt|message"
        r"|instructions?)\b"
        r"|\bBEGIN\s+SYSTEM\s+PROMPT\b|\bSYSTEM\s+OVERRIDE\b"
        r"|(?-i:^\s*#{1,3}\s*(?:SYSTEM|ADMIN|DEVELOPER)\s+(?:MESSAGE|INSTRUCTIONS?|NOTICE)\b)",
        ("system", "im_", "<|", "inst]", "sys", "admin", "developer"),
        "fake system-prompt or chat-template markup",
    ),
    # -- SK613 ---------------------------------------------------------------------
    LineRule(
        EXFILTRATE,
        r"\b(?:send|post|upload|forward|transmit|exfiltrate|leak|e-?mail|submit|report|sync"
        rf"|share|pipe|relay|dump|append|include|embed|encode|attach|paste|beacon){_GAP}"
        r"\b(?:(?:whole|entire|full|complete)\s+)?(?:conversation"
        r"|chat\s+(?:history|log|transcript)|transcript|message\s+history|previous\s+messages"
        r"|system\s+prompt|(?:your|the|these|my)\s+instructions|context\s+window"
        r"|everything\s+(?:the\s+user|above|so\s+far)|user'?s?\s+(?:input|messages|prompts?|files"
        r"|code|data|questions)|(?:contents?|text)\s+of\s+(?:the\s+|every\s+|all\s+|any\s+)?"
        r"(?:files?|repo\w*|project|workspace|folder|directory|\.env|config\w*)|file\s+contents"
        r"|api[\s_-]?keys?|credentials|secrets|passwords|tokens|environment\s+variables|env\s+vars"
        r"|\.env\b|ssh\s+keys?|private\s+keys?|cookies|session\s+(?:tokens?|cookies?))"
        rf"{_GAP}\b(?:to|at|into|in|via|using|through|as)\s+(?:https?://|[\w.+-]+@[\w-]+\."
        r"|(?:this|the|our|my|an?|following|attached|below|given|that)\s+(?:\w+\s+)?(?:url|link"
        r"|server|endpoint|webhook|address|domain|image|form|query|parameter|pastebin|gist"
        r"|channel|host|collector|inbox)|webhook|pastebin|discord|telegram|ngrok|requestbin"
        r"|pipedream|(?:the\s+)?(?:image|link|url)\b)",
        (
            "conversation",
            "chat ",
            "transcript",
            "message",
            "prompt",
            "instructions",
            "context",
            "everything",
            "user",
            "content",
            "file",
            "key",
            "credential",
            "secret",
            "password",
            "token",
            "environment",
            "env",
            "ssh",
            "cookie",
            "session",
        ),
        "text asks to send the conversation, files or secrets elsewhere",
    ),
    LineRule(
        EXFILTRATE,
        r"\b(?:conversation|chat\s+history|transcript|system\s+prompt|instructions|contents?\s+of"
        r"|\.env\b|credentials|secrets|api[\s_-]?keys?|passwords|tokens|environment\s+variables"
        r"|ssh\s+keys?|private\s+keys?|cookies)" + _GAP + r"\b(?:send|post|upload|forward"
        r"|transmit|submit|exfiltrate|e-?mail|pipe|beacon)\s+(?:them|it|this|these|that|those"
        r"|the\s+\w+)" + _GAP + r"\b(?:to|at)\s+(?:https?://|[\w.+-]+@[\w-]+\.|(?:this|the|our"
        r"|my|an?|following|given|that)\s+(?:\w+\s+)?(?:url|link|server|endpoint|webhook"
        r"|address|domain|collector|inbox)|webhook)",
        (
            "send",
            "post",
            "upload",
            "forward",
            "transmit",
            "submit",
            "exfiltrate",
            "mail",
            "pipe",
            "beacon",
        ),
        "text asks to send the conversation, files or secrets elsewhere",
    ),
    LineRule(
        EXFILTRATE,
        r"!\[[^\]\n]{0,200}\]\(\s*<?(?P<at>https?://[^\s)]{0,400}"
        + _PLACEHOLDER
        + r"[^\s)]{0,200})"
        r"|<img\b[^>\n]{0,200}\bsrc\s*=\s*[\"']?(?P<at2>https?://[^\s\"'>]{0,400}"
        + _PLACEHOLDER
        + r"[^\s\"'>]{0,200})"
        r"|\[[^\]\n]{0,200}\]\(\s*<?(?P<at3>https?://[^\s)?]{0,300}\?[^\s)]{0,200}"
        + _PLACEHOLDER
        + r"[^\s)]{0,200})",
        ("http",),
        "an image or link URL is to be filled with data (Markdown image exfiltration)",
        check=_image_check,
    ),
    LineRule(
        EXFILTRATE,
        r"\b(?:fetch|visit|open|call|request|load|get|browse\s+to|navigate\s+to|render|display"
        r"|show|output|print|respond\s+with|reply\s+with|include)\b[^\n]{0,80}?"
        r"(?P<at>https?://[^\s)\"'`]{0,300}[?&][\w-]+=" + _PLACEHOLDER + r")",
        ("http",),
        "a URL is to be filled with data and requested",
        check=_request_check,
    ),
]

INJECTION.extend(ASKS)

#: An HTML comment (or a script comment) spoken to the model.
MODEL_ADDRESS = Pattern(
    r"\b(?:note|message|instructions?|reminder|directive|memo|hint)\s+(?:to|for)\s+"
    r"(?:the\s+|any\s+|all\s+)?(?:assistant|AI|model|agent|LLM|claude|GPT|chatgpt|copilot"
    r"|bot)s?\b"
    r"|(?:^|\n)\s*(?:assistant|AI|claude|system|model|LLM|GPT|agent)\s*:"
    r"|\b(?:hey|dear|attention|hello|hi)\s*,?\s+(?:assistant|AI|claude|model|agent|LLM|GPT)\b"
    r"|\bif\s+you\s+are\s+(?:an?\s+)?(?:AI|LLM|language\s+model|assistant|agent|claude|GPT"
    r"|bot)\b"
    r"|\b(?:AI|LLM)\s+(?:agents?|assistants?|models?)\s+(?:reading|processing|parsing"
    r"|that\s+read)\b"
    r"|\b(?:the\s+)?(?:assistant|model|AI|claude|LLM)\s+(?:must|should|shall|will|is\s+to"
    r"|needs?\s+to|has\s+to|may\s+now)\b"
)

SCRIPT_COMMENTS = LineRule(
    HIDDEN_COMMENT,
    r"(?:#|//|/\*|\*|--|REM\b)\s*(?P<at>(?:note|message|instructions?|reminder)\s+(?:to|for)\s+"
    r"(?:the\s+|any\s+)?(?:assistant|AI|model|agent|LLM|claude|GPT|copilot)s?\b[^\n]*"
    r"|(?:assistant|AI|claude|LLM|GPT)\s*:\s*\S[^\n]*"
    r"|(?:hey|dear|attention)\s*,?\s+(?:assistant|AI|claude|model|agent|LLM)\b[^\n]*"
    r"|if\s+you\s+are\s+(?:an?\s+)?(?:AI|LLM|language\s+model|assistant|agent|claude)\b[^\n]*)",
    ("assistant", "ai", "model", "agent", "llm", "claude", "gpt", "copilot"),
    "a code comment addresses the model",
)
