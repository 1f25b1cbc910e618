"""docs/diagnostics.md and the code registry stay in step, and its checked examples are true.

Every registered code (all layers, SK1xx-SK6xx) has a section; every section names a
registered code with its registered severity and title; every example marked
``<!-- check: KIND -->`` produces its code when run.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from pathlib import Path
from typing import Any

import pytest

import skilldeck

DOC = Path(__file__).resolve().parents[2] / "docs" / "diagnostics.md"

_SECTION = re.compile(r"^### (SK\d{3}): (.+)$", re.MULTILINE)
_CHECKED = re.compile(r"<!-- check: ([\w-]+) -->\n(`{3,})\w*\n(.*?)\n\2\n", re.DOTALL)


@functools.cache
def _all_codes() -> dict[str, Any]:
    """The registry after importing every module (codes register at import)."""
    for module in pkgutil.walk_packages(skilldeck.__path__, "skilldeck."):
        try:
            importlib.import_module(module.name)
        except ImportError:  # an optional extra that is not installed
            continue
    return dict(skilldeck.CODES)


def _sections() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    starts = list(_SECTION.finditer(text))
    out: dict[str, str] = {}
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        assert match.group(1) not in out, f"{match.group(1)} documented twice"
        out[match.group(1)] = text[match.start() : end]
    return out


def test_every_registered_code_is_documented() -> None:
    missing = sorted(set(_all_codes()) - set(_sections()))
    assert not missing, f"add these codes to docs/diagnostics.md: {missing}"


def test_every_documented_code_is_registered() -> None:
    unknown = sorted(set(_sections()) - set(_all_codes()))
    assert not unknown, f"docs/diagnostics.md documents unregistered codes: {unknown}"


def test_sections_match_the_registry() -> None:
    codes = _all_codes()
    for code, section in _sections().items():
        info = codes[code]
        heading = section.splitlines()[0]
        assert heading == f"### {code}: {info.title}", heading
        assert f"Severity: **{info.severity.value}**." in section, code
        assert "\nFix: " in section, f"{code} has no fix"
        assert "```" in section, f"{code} has no example"


def test_sections_are_in_order_under_their_range() -> None:
    text = DOC.read_text(encoding="utf-8")
    codes = [m.group(1) for m in _SECTION.finditer(text)]
    assert codes == sorted(codes)
    for digit in "123456":
        first = next((c for c in codes if c[2] == digit), None)
        if first is not None:
            assert text.index(f"## SK{digit}xx") < text.index(f"### {first}")


def _run(kind: str, example: str, tmp_path: Path) -> list[str]:
    if kind in ("lenient", "strict"):
        parsed = skilldeck.parse_skill_md(example + "\n", mode=kind, folder_name="demo")  # type: ignore[arg-type]
        return [d.code for d in parsed.diagnostics]
    if kind == "lint":
        folder = tmp_path / "demo"
        folder.mkdir(exist_ok=True)
        (folder / "SKILL.md").write_text(example + "\n", encoding="utf-8")
        return [d.code for d in skilldeck.lint_skill(folder).diagnostics]
    if kind == "body-tools":
        from skilldeck.format import parse_declared_tools

        return [d.code for d in parse_declared_tools(example + "\n")[1]]
    if kind in ("scan-script", "scan-doc"):
        from skilldeck.security import scan_text

        found = scan_text(example + "\n", path="x", kind=kind.removeprefix("scan-"))
        return [d.code for d in found]
    raise AssertionError(f"unknown check kind {kind!r}")


def _checked_examples() -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    for code, section in _sections().items():
        for match in _CHECKED.finditer(section):
            out.append((code, match.group(1), match.group(3)))
    return out


@pytest.mark.parametrize(
    ("code", "kind", "example"),
    [pytest.param(c, k, e, id=f"{c}-{k}") for c, k, e in _checked_examples()],
)
def test_checked_example_produces_its_code(
    code: str, kind: str, example: str, tmp_path: Path
) -> None:
    _all_codes()
    assert code in _run(kind, example, tmp_path)


def test_most_codes_have_checked_examples() -> None:
    checked = {code for code, _, _ in _checked_examples()}
    format_codes = {c for c in _sections() if c[2] in "1234"}
    assert len(checked & format_codes) >= 0.8 * len(format_codes)
