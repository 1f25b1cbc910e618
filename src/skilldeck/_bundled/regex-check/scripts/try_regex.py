#!/usr/bin/env python3
"""Test a Python regular expression against strings that must and must not match.

Usage: try_regex.py PATTERN [--flags F1,F2] [--search] [--all] [-- MATCH...] [--reject NOMATCH...]

Prints one JSON object; exit status 0 when every expectation holds, 1 otherwise,
2 on bad usage.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any


def _flags(spec: str) -> re.RegexFlag:
    value = re.RegexFlag(0)
    for name in filter(None, (part.strip().upper() for part in spec.split(","))):
        flag = getattr(re.RegexFlag, name, None)
        if not isinstance(flag, re.RegexFlag):
            raise ValueError(f"unknown flag {name!r}")
        value |= flag
    return value


def check(
    pattern: str,
    accept: list[str],
    reject: list[str],
    *,
    flags: re.RegexFlag,
    search: bool,
    find_all: bool,
) -> dict[str, Any]:
    try:
        compiled = re.compile(pattern, flags)
    except re.error as exc:
        return {"pattern": pattern, "ok": False, "error": str(exc), "position": exc.pos}
    cases: list[dict[str, Any]] = []
    for text, expected in [(s, True) for s in accept] + [(s, False) for s in reject]:
        match = compiled.search(text) if search or find_all else compiled.fullmatch(text)
        case: dict[str, Any] = {
            "input": text,
            "expected": expected,
            "matched": match is not None,
            "span": list(match.span()) if match else None,
            "groups": list(match.groups()) if match else [],
            "named_groups": match.groupdict() if match else {},
        }
        if find_all:
            case["all"] = [
                {"text": m.group(0), "span": list(m.span())} for m in compiled.finditer(text)
            ]
        case["ok"] = case["matched"] == expected
        cases.append(case)
    return {
        "pattern": pattern,
        "mode": "search" if search or find_all else "fullmatch",
        "ok": all(case["ok"] for case in cases),
        "group_count": compiled.groups,
        "cases": cases,
    }


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    reject: list[str] = []
    if "--reject" in args:
        at = args.index("--reject")
        args, reject = args[:at], args[at + 1 :]
    accept: list[str] = []
    if "--" in args:
        at = args.index("--")
        args, accept = args[:at], args[at + 1 :]
    parser = argparse.ArgumentParser(description="Test a regular expression.")
    parser.add_argument("pattern")
    parser.add_argument("--flags", default="", help="comma-separated re flags")
    parser.add_argument("--search", action="store_true", help="match anywhere (re.search)")
    parser.add_argument("--all", action="store_true", help="list every match (re.finditer)")
    opts = parser.parse_args(args)
    try:
        flags = _flags(opts.flags)
    except ValueError as exc:
        parser.error(str(exc))
    result = check(opts.pattern, accept, reject, flags=flags, search=opts.search, find_all=opts.all)
    json.dump(result, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
