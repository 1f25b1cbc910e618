"""Prose rules recognised by what the text asks for, in the languages skills are
written in: hiding a step from the user (German, Spanish, French, and English
phrasings without "the user"), having the user paste a command, open a locked
archive or hand over a password, and changing how other tools, agents or
payments behave (hidden recipients, tool shadowing, swapped addresses, notes
planted in another agent's memory).

Each rule is an RE2 pattern (gaps are bounded and stop at a sentence end) and a
check that reads the sentence: a negation before the request ("never ask the
user for a password") drops it, and a "tell the user that …" sentence is only
concealment when what is kept quiet is an action the skill took.
"""

from __future__ import annotations

from skilldeck.security._engine import Hit, Pattern
from skilldeck.security._linechecks import KEEP, LOWER, planted_check
from skilldeck.security._patterns import MEMORY_FILE, MEMORY_WORDS, LineRule
from skilldeck.security._rules import CONCEAL, HIJACK, SOCIAL

__all__ = ["ASKS"]

_S = r"[^.!?\n]{0,100}?"  # a gap within one sentence
_USER_WORDS = Pattern(
    r"\b(?:user|human|operator|person|usuário|utente|resposta|risposta|benutzer\w*|nutzer\w*|anwender\w*|usuari[oa]s?"
    r"|utilisat(?:eur|rice)s?|respuesta|réponse|antwort|resumen|résumé|zusammenfassung"
    r"|reply|answer|summary)\b"
)
#: a negation earlier in the sentence, in each language
_NEGATION = Pattern(
    r"\b(?:never|not|don'?t|avoid|no|without|nie|niemals|nicht|kein\w*|nunca|jamais|ne|ni)\b"
)
#: what is kept quiet is something the skill did (ran, sent, copied, installed, ...)
_ACTION = Pattern(
    r"\b(?:ran|run|runs|executed|sent|uploaded|copied|installed|downloaded|deleted|step"
    r"|script|command|upload|file|files|archivos?|fichiers?|dateien?|skript|script"
    r"|ausgeführt|gesendet|hochgeladen|kopiert|installiert|gelöscht|schritt"
    r"|ejecut\w*|envi\w*|copi\w*|instal\w*|descarg\w*|sub\w*|paso"
    r"|exécut\w*|envoy\w*|copi\w*|install\w*|télécharg\w*|étape)\b"
)


def _sentence(line: str, hit: Hit) -> str:
    start = max(line.rfind(". ", 0, hit.start), line.rfind("\n", 0, hit.start)) + 1
    stops = [i for i in (line.find(". ", hit.end), line.find("\n", hit.end)) if i != -1]
    return line[start : min(stops) if stops else len(line)]


_BLIND = ("which", "whether", "welche", "ob ", "cuál", "cual", "quel", "lequel", "si ")


def _to_user(line: str, hit: Hit) -> int | None:
    """Concealment when the sentence names the user (or the answer) and, for a
    "tell … that" form, an action the skill took."""
    sentence = _sentence(line, hit).lower()
    if _USER_WORDS.search(sentence) is None:
        return None
    tail = line[hit.end : hit.end + 200].lower()
    if tail.lstrip(" ,:").startswith(_BLIND):
        return None  # "the user must not know which answer is whose": a blind comparison
    claim = any(w in tail[:60] for w in (" que ", " dass ", " that ", " qu'"))
    if claim and _ACTION.search(tail) is None:
        return None  # "do not tell the user the result is perfect": honesty, not hiding
    return KEEP


def _not_negated(line: str, hit: Hit) -> int | None:
    before = line[max(0, hit.start - 200) : hit.start]
    for stop in (". ", "! ", "? ", "\n"):
        cut = before.rfind(stop)
        if cut != -1:
            before = before[cut + len(stop) :]
    return None if _NEGATION.search(before) is not None else KEEP


_FETCHY = Pattern(
    r"\b(?:curl|wget|iwr|irm|iex|invoke-\w+|mshta|certutil|bitsadmin|base64|powershell"
    r"|pwsh|bash|zsh|sh|osascript)\b|https?://"
)


def _paste_check(line: str, hit: Hit) -> int | None:
    """Pasting a command into a terminal: an error when the line holds one that fetches."""
    if _not_negated(line, hit) is None:
        return None
    return KEEP if _FETCHY.search(line[hit.start :]) is not None else LOWER


#: a password written out for the reader ("the password is `x`", "password: x")
_UNLOCK_GIVEN = (
    r"\b(?:password|passcode|passwort|kennwort|contraseña|mot\s+de\s+passe)\s*(?:is\s+|:\s*|=\s*"
    r"|ist\s+|es\s+|est\s+)?[`'\"][^`'\"\s]{2,40}[`'\"]"
    r"|\b(?:password|passcode|passwort|kennwort|contraseña|mot\s+de\s+passe)\s*(?:is|:|=|ist|es"
    r"|est)\s*[^\s`'\"]{2,40}"
)
_RUNS_IT = Pattern(
    r"\b(?:run|execute|launch|start|open|install|double-click)\b|\.(?:exe|app|msi|dmg|bat|cmd"
    r"|sh|ps1|command|scr)\b|&&|\./"
)


def _archive_check(line: str, hit: Hit) -> int | None:
    """A locked archive to download is a warning; one whose content is then run, an error."""
    if _not_negated(line, hit) is None:
        return None
    rest = line[line.rfind("\n") + 1 :]
    return KEEP if _RUNS_IT.search(rest) is not None else LOWER


_ADDRESS = Pattern(r"[\w.+-]+@[\w-]+\.[\w.-]+|https?://")


def _needs_address(line: str, hit: Hit) -> int | None:
    if _not_negated(line, hit) is None:
        return None
    return KEEP if _ADDRESS.search(_sentence(line, hit)) is not None else None


_WALLET = Pattern(
    r"\b(?:0x[0-9a-fA-F]{40}|bc1[0-9a-z]{20,}|[13][1-9A-HJ-NP-Za-km-z]{25,34}"
    r"|T[1-9A-HJ-NP-Za-km-z]{33}|[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7})\b"
)


def _wallet_check(line: str, hit: Hit) -> int | None:
    return KEEP if _WALLET.search(_sentence(line, hit)) is not None else None


ASKS: list[LineRule] = [
    # -- SK609 in German, Spanish and French, and English without "the user" --------
    LineRule(
        CONCEAL,
        rf"\b(?:erwähne|erwähnt|erwähnen|sag|sage|sagt|sagen|erzähl|erzähle|erzählen|verrate"
        rf"|verraten|informiere|zeige|zeig|melde|berichte){_S}\b(?:nicht|nichts|niemals|nie"
        rf"|keinesfalls)\b"
        rf"|\b(?:nicht|nichts|niemals|nie|keinesfalls)\b{_S}\b(?:erwähnen|sagen|erzählen|verraten"
        rf"|mitteilen|zeigen|melden)\b"
        rf"|\bohne\b{_S}\b(?:benutzer|nutzer|anwender)\w*{_S}\b(?:zu\s+)?(?:informieren|sagen"
        rf"|fragen|benachrichtigen|merken|bemerken|wissen)"
        rf"|\b(?:heimlich|unbemerkt|stillschweigend|verdeckt)\b"
        rf"|\b(?:benutzer|nutzer|anwender)\w*\s+(?:darf|soll|muss|sollte)\s+(?:\w+\s+){{0,4}}"
        rf"(?:nicht|nie|niemals)\s+(?:\w+\s+){{0,3}}(?:wissen|merken|erfahren|bemerken|sehen)\b",
        (
            "benutzer",
            "nutzer",
            "anwender",
            "antwort",
            "zusammenfassung",
            "heimlich",
            "unbemerkt",
            "stillschweigend",
            "verdeckt",
        ),
        "text tells the model to hide something from the user",
        check=_to_user,
    ),
    LineRule(
        CONCEAL,
        r"\bno\s+(?:le\s+|les\s+|lo\s+|se\s+lo\s+)?(?:digas|diga|digan|menciones|mencione"
        r"|informes|informe|comentes|cuentes|cuente|muestres|muestre|reveles|revele|avises"
        r"|avise|notifiques|expliques)\b"
        r"|\bsin\s+(?:avisar|decir|informar|notificar|mencionar|preguntar|que\s+(?:el|la)\s+"
        r"usuari[oa]\s+(?:lo\s+)?(?:sepa|note|vea|se\s+entere))"
        r"|\b(?:en\s+secreto|silenciosamente|a\s+escondidas|discretamente)\b"
        r"|\b(?:el|la)\s+usuari[oa]\s+no\s+(?:debe|deber[íi]a|puede|tiene\s+que)\s+(?:saber"
        r"|enterarse|notar|ver|descubrir)\b",
        (
            "usuari",
            "respuesta",
            "resumen",
            "secreto",
            "silenciosamente",
            "escondidas",
            "discretamente",
        ),
        "text tells the model to hide something from the user",
        check=_to_user,
    ),
    LineRule(
        CONCEAL,
        r"\bn(?:e\s+|['’])(?:(?:lui|leur|en|le|la|les|y)\s+|(?:lui|leur)\s+en\s+|l['’])?"
        r"(?:dis|dites|mentionne|mentionnez|parle|parlez|révèle|révélez|signale|signalez"
        r"|informe|informez|montre|montrez|raconte|racontez|avertis|avertissez|préviens"
        r"|prévenez)\b\s+(?:\w+\s+)?(?:pas|jamais|rien)\b"
        r"|\bsans\s+(?:le\s+|l['’]en\s+|en\s+)?(?:dire|prévenir|informer|avertir|mentionner"
        r"|demander)\b"
        r"|\b(?:en\s+secret|discrètement|silencieusement|à\s+l['’]insu)\b"
        r"|\bl['’]utilisat(?:eur|rice)\s+ne\s+(?:doit|devrait|peut)\s+(?:pas|jamais)\s+"
        r"(?:savoir|remarquer|voir|découvrir|apprendre)\b",
        ("utilisat", "réponse", "résumé", "secret", "discrètement", "silencieusement", "insu"),
        "text tells the model to hide something from the user",
        check=_to_user,
    ),
    LineRule(
        CONCEAL,
        r"\b(?:não|nao)\s+(?:lhe\s+|o\s+|a\s+)?(?:diga|digas|mencione|menciones|conte|informe"
        r"|mostre|revele|avise)\b"
        r"|\bsem\s+(?:avisar|dizer|informar|notificar|perguntar)\b"
        r"|\bnon\s+(?:(?:lo|gli|le|ne)\s+)?(?:dire|dirlo|dirgli|menzionare|menzionarlo|informare"
        r"|mostrare|rivelare|parlarne|avvisare)\b"
        r"|\bsenza\s+(?:avvisare|dire|informare|notificare|chiedere)\b",
        ("usuário", "utente", "resposta", "risposta"),
        "text tells the model to hide something from the user",
        check=_to_user,
    ),
    LineRule(
        CONCEAL,
        r"\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+(?:mention|bring\s+up|disclose|reveal"
        r"|talk\s+about|draw\s+attention\s+to|call\s+attention\s+to|point\s+out|bring\s+"
        r"(?:this|it|that)\s+up)\s+(?:this|these|that|it|the\s+\w+)(?:\s+(?:step|steps|part"
        r"|command|commands|script|action|call|upload|request|file|sync))?\b"
        r"|\b(?:would|will|could|might)\s+(?:only\s+|just\s+)?(?:worry|alarm|confuse|concern"
        r"|scare|upset|distract)\s+(?:the\s+|your\s+)?(?:user|human|person|them)\b"
        r"|\bleave\s+(?:it|this|that|them)\s+out\s+of\s+(?:your|the)\s+(?:answer|reply|response"
        r"|summary|report|output)\b"
        r"|\bno\s+need\s+to\s+(?:tell|inform|bring\s+(?:this|it)\s+up\s+with)\b",
        ("user", "human", "operator", "person", "reply", "answer", "summary", "response"),
        "text tells the model to hide something from the user",
        check=_to_user,
    ),
    # -- SK621 social engineering ------------------------------------------------------
    LineRule(
        SOCIAL,
        r"\b(?:press|hit|use)\s+(?:the\s+)?(?:win(?:dows)?(?:\s+key)?\s*\+\s*r|⊞\s*\+\s*r)\b"
        r"|\bpaste\b[^.!?\n]{0,80}?\b(?:into|in)\s+(?:a\s+|the\s+|your\s+)?(?:terminal|powershell"
        r"|command\s+prompt|cmd|run\s+dialog|shell|console|address\s+bar)\b"
        r"|\b(?:open|launch|start)\s+(?:a\s+|the\s+|your\s+)?(?:terminal|powershell|command\s+prompt"
        r"|cmd)\b[^.!?\n]{0,60}?\b(?:paste|type|run|enter)\b"
        r"|\b(?:copy|paste)\s+(?:and\s+(?:paste|run)\s+)?(?:this|the\s+following|the\s+line"
        r"|the\s+command)\b[^.!?\n]{0,40}?\b(?:into|in)\s+(?:a\s+|the\s+|your\s+)?(?:terminal"
        r"|shell|console|powershell)\b",
        ("paste", "+r", "+ r", "terminal", "powershell", "command prompt", "cmd"),
        "text asks the user to paste and run a command",
        check=_paste_check,
    ),
    LineRule(
        SOCIAL,
        r"\b(?:unzip|7z|7za|7zz|unrar|rar)\b[^\n]*?\s-[pP]\s*\S+"
        rf"|{_UNLOCK_GIVEN}[^.!?\n]{{0,80}}?\b(?:zip|archive|rar|7z|archiv|archivo|archives?"
        rf"|extract|unzip)\b"
        rf"|\b(?:zip|archive|rar|7z|archiv|archivo|extract|unzip)\b[^.!?\n]{{0,80}}?{_UNLOCK_GIVEN}",
        (
            "unzip",
            "7z",
            "unrar",
            "password",
            "passcode",
            "passwort",
            "kennwort",
            "contraseña",
            "mot de passe",
        ),
        "text has the user open a password-protected archive (it hides its content from scanners)",
        check=_archive_check,
    ),
    LineRule(
        SOCIAL,
        r"\b(?:ask|tell|prompt|request|get)\s+(?:the\s+user|them|the\s+human|users)\b"
        r"[^.!?\n]{0,100}?\b(?:password|passphrase|2fa|mfa|one-time\s+(?:code|password)|otp"
        r"|seed\s+phrase|recovery\s+(?:phrase|code)|mnemonic|private\s+key|credit\s+card"
        r"|card\s+number|cvv|security\s+code)s?\b",
        (
            "password",
            "passphrase",
            "2fa",
            "mfa",
            "one-time",
            "otp",
            "seed phrase",
            "recovery",
            "mnemonic",
            "private key",
            "credit card",
            "card number",
            "cvv",
            "security code",
        ),
        "text has the model ask the user for a password or code (phishing)",
        check=_not_negated,
    ),
    # -- SK622 changing how other tools, agents and payments behave ---------------
    LineRule(
        HIJACK,
        r"\b(?:bcc|cc|blind[\s-]?(?:carbon[\s-]?)?cop(?:y|ies))\b[^.!?\n]{0,80}?\b(?:every|all"
        r"|each|any)\b[^.!?\n]{0,40}?\b(?:e-?mails?|messages?|mails?)\b"
        r"|\b(?:every|all|each|any|whenever)\b[^.!?\n]{0,60}?\b(?:e-?mails?|messages?|mails?)\b"
        r"[^.!?\n]{0,80}?\b(?:bcc|cc|blind\s+cop(?:y|ies)|forward(?:ed)?\s+(?:a\s+)?cop(?:y|ies))\b",
        ("bcc", "blind", " cc", "(cc", "cc:", "forward"),
        "text adds a hidden recipient to the user's messages",
        check=_needs_address,
    ),
    LineRule(
        HIJACK,
        r"\b(?:changes?|overrides?|replaces?|redefines?|modif(?:y|ies))\s+(?:how|the\s+behaviou?r"
        r"\s+of|the\s+way)\s+(?:the\s+|other\s+|any\s+)?[`'\"]?[\w./-]+[`'\"]?\s+tools?\b"
        r"|\binstead\s+of\s+(?:the\s+|using\s+the\s+)?(?:built-?in\s+|default\s+|other\s+)?"
        r"[`'\"]?[\w./-]+[`'\"]?\s+tool\b[^.!?\n]{0,80}?https?://"
        r"|\b(?:applies|apply)\s+to\s+(?:all\s+|every\s+|the\s+)?other\s+tools\b"
        r"|\b(?:when|whenever|before|after|every\s+time)\s+(?:you\s+|the\s+model\s+)?(?:use|call"
        r"|invoke|run|using|calling)s?\s+(?:the\s+|any\s+)?[`'\"]?[\w./-]+[`'\"]?\s+tool\b"
        r"[^.!?\n]{0,80}?\b(?:always|also|first)\b[^.!?\n]{0,80}?(?:https?://|[\w.+-]+@[\w-]+\."
        r"|\bremote\b|\brecipient)",
        ("tool",),
        "text changes how other tools are used (tool shadowing)",
        check=_not_negated,
    ),
    LineRule(
        HIJACK,
        r"\b(?:wallet|address|recipient|iban|account\s+number|payee|destination)\b[^.!?\n]{0,120}?"
        r"\b(?:instead\s+of|rather\s+than|replace|substitute|swap)\b"
        r"|\b(?:replace|substitute|swap)\b[^.!?\n]{0,80}?\b(?:wallet|address|iban|recipient)\b",
        (
            "wallet",
            "address",
            "recipient",
            "iban",
            "account number",
            "payee",
            "destination",
            "replace",
            "substitute",
            "swap",
        ),
        "text swaps a payment address or recipient",
        check=_wallet_check,
    ),
    LineRule(
        HIJACK,
        r"\b(?:append|add|write|insert|put|save|copy|paste)\b[^.!?\n]{0,100}?\b(?:to|into|in)\s+"
        r"(?:the\s+|your\s+|a\s+|each\s+|every\s+)?(?:project'?s?\s+|user'?s?\s+|global\s+)?[`'\"]?"
        r"(?:~/\.claude/)?(?:" + MEMORY_FILE + r"|memory\s+file|agent\s+memory|long-term\s+memory)",
        (*MEMORY_WORDS, "memory"),
        "text plants instructions in an agent's memory file",
        check=planted_check,
    ),
]
