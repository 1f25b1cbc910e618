"""The command of a declared tool: one line split once into program + argv templates.

POSIX quoting rules, no shell: a shell operator (``|``, ``&&``, ``>``, ...) is an
error, whether it stands alone or is glued to a word, and the program cannot
hold a placeholder. Each argv entry keeps its ``{{name}}`` and
``{{flag:--text}}`` placeholders as fragments, filled at run time by
:mod:`skilldeck.execution._interp`.
"""

from __future__ import annotations

import re
import shlex

from skilldeck._names import is_parameter_name
from skilldeck.format._mdmodel import ArgTemplate, CommandTemplate, Literal, Placeholder

__all__ = ["ShellOperatorError", "parse_command_template"]

#: ``{{name}}`` or ``{{name:text}}``
_PLACEHOLDER = re.compile(r"\{\{\s*([^{}:\s]*)\s*(?::([^{}]*))?\}\}")
_SHELL_OPERATORS = frozenset({"|", "||", "&&", ";", ";;", "&", ">", ">>", "<", "<<", "2>", "2>&1"})


def _arg_template(token: str) -> tuple[ArgTemplate, list[str]]:
    """Split one shell word into fragments; returns the template and bad placeholder texts."""
    frags: list[Literal | Placeholder] = []
    bad: list[str] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(token):
        if m.start() > pos:
            frags.append(Literal(token[pos : m.start()]))
        name = m.group(1)
        if not is_parameter_name(name):
            bad.append(m.group(0))
        frags.append(Placeholder(name, m.group(2)))
        pos = m.end()
    if pos < len(token) or not frags:
        frags.append(Literal(token[pos:]))
    # merge adjacent literals (possible when a placeholder was dropped)
    merged: list[Literal | Placeholder] = []
    for frag in frags:
        if merged and isinstance(frag, Literal) and isinstance(merged[-1], Literal):
            merged[-1] = Literal(merged[-1].text + frag.text)
        else:
            merged.append(frag)
    return ArgTemplate(tuple(merged)), bad


def parse_command_template(text: str) -> CommandTemplate:
    """Split a command once into program + argv templates (POSIX quoting, no shell).

    Raises ``ValueError`` with a readable reason for an empty command, unbalanced
    quotes, several commands, a shell operator or a placeholder in the program.
    """
    lines = text.replace("\\\r\n", " ").replace("\\\n", " ").splitlines()
    lines = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise ValueError("the command is empty")
    if len(lines) > 1:
        raise ValueError(
            "the command block holds more than one line; a tool runs exactly one command "
            "(join lines with a trailing '\\' or move the steps into a script under scripts/)"
        )
    raw = lines[0].strip()
    if raw.startswith("$ "):
        raw = raw[2:].lstrip()
    try:
        tokens = shlex.split(raw, comments=False, posix=True)
    except ValueError as exc:
        raise ValueError(f"cannot split the command: {exc}") from None
    if not tokens:
        raise ValueError("the command is empty")
    for tok in tokens:
        if tok in _SHELL_OPERATORS:
            raise ShellOperatorError(tok)
    glued = _glued_operator(raw)
    if glued is not None:
        raise ShellOperatorError(glued)
    program, *rest = tokens
    prog_tpl, _ = _arg_template(program)
    if not prog_tpl.is_literal:
        raise ValueError("the program (first word) cannot contain a placeholder")
    args: list[ArgTemplate] = []
    for tok in rest:
        tpl, bad = _arg_template(tok)
        if bad:
            raise ValueError(
                f"invalid placeholder {bad[0]!r}: use {{{{name}}}} or {{{{flag:--text}}}}"
            )
        args.append(tpl)
    return CommandTemplate(program=program, args=tuple(args), raw=raw)


def _glued_operator(raw: str) -> str | None:
    """An unquoted operator written against a word (``echo hi; rm x``, ``a|b``,
    ``cmd 2>&1``), which a shell would read as an operator although the plain split
    keeps it inside the word."""
    lexer = shlex.shlex(raw, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        for tok in lexer:
            if tok and all(ch in ";&|<>" for ch in tok):
                return tok
    except ValueError:
        return None
    return None


class ShellOperatorError(ValueError):
    def __init__(self, op: str) -> None:
        super().__init__(
            f"'{op}' is a shell operator but no shell runs the command "
            "(pipes, redirects and chaining need a script under scripts/)"
        )
        self.op = op
