"""docs/compatibility.md names only things that exist.

The page maps items of other skill runtimes to skilldeck in tables of four columns
(there | in skilldeck | verdict | notes). Every code span in the skilldeck column that
has a recognisable shape is checked here against the product: configuration keys go
through the config checker, Python names are resolved (keyword arguments included),
commands and options through the command line's own table, folders against the roots
``skilldeck doctor`` lists, tool names against the runtime's tools, codes against the
registries, frontmatter lines through validation, environment variables against the
source. A row whose verdict is ``same`` must name at least one checked thing.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest

import skilldeck
import skilldeck.catalog
import skilldeck.config
import skilldeck.dist
import skilldeck.execution
import skilldeck.format
import skilldeck.security
from skilldeck import CODES
from skilldeck.tools import ERROR_CODES, VERB_FIRST_TOOL_NAMES, WARNING_CODES

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "compatibility.md"
SRC = REPO / "src" / "skilldeck"
HEADER = ["there", "in skilldeck", "verdict", "notes"]
VERDICTS = ("same", "different name", "differs", "not supported")

_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_SPAN = re.compile(r"`([^`]+)`")
_CONFIG = re.compile(r"^\[(?P<table>[\w.]+)\] (?P<key>\w+) = (?P<value>.+)$")
_EXAMPLE = re.compile(r"^<!-- check -->\n```(?P<lang>\w+)\n(?P<body>.*?)^```$", re.M | re.S)
_PYTHON = re.compile(
    r"^(?P<name>skilldeck(?:\.\w+)+)(?P<generic>\[[^\]]*\])?(?:\((?P<args>.*)\))?$"
)


@dataclass(frozen=True)
class Row:
    section: str
    there: str
    skilldeck: str
    verdict: str
    notes: str
    line: int

    def spans(self) -> list[str]:
        return [s.replace("\\|", "|") for s in _SPAN.findall(self.skilldeck)]

    def where(self) -> str:
        return f"docs/compatibility.md:{self.line}"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in _CELL_SPLIT.split(line.strip())[1:-1]]


def doc_rows() -> list[Row]:
    rows: list[Row] = []
    section = ""
    in_table = False
    for number, line in enumerate(DOC.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("## "):
            section = line[3:].strip()
        if not line.startswith("|"):
            in_table = False
            continue
        cells = _cells(line)
        if cells == HEADER:
            in_table = True
            continue
        if in_table and not set("".join(cells)) <= set("-: "):
            rows.append(Row(section, *cells, line=number))
    return rows


def kind(span: str) -> str | None:
    """What a code span of the skilldeck column names, when it can be checked."""
    if span == "skilldeck" or span.startswith("skilldeck "):
        return "command"
    if span.startswith("skilldeck."):
        return "python"
    if _CONFIG.match(span):
        return "config"
    if span.startswith(("~/", "./")):
        return "folder"
    if re.fullmatch(r"SK\d{3}", span):
        return "diagnostic"
    if re.fullmatch(r"[A-Z][A-Z_]+", span):
        return "code"
    if re.fullmatch(r"\$[A-Z][A-Z0-9_]*", span):
        return "env"
    if re.fullmatch(r"[a-z][a-z0-9_-]*: .+", span):
        return "frontmatter"
    if re.fullmatch(r"[a-z]+(?:_[a-z]+)+", span):
        return "tool"
    return None


def spans_of(wanted: str) -> list[tuple[str, Row]]:
    return [(s, row) for row in doc_rows() for s in row.spans() if kind(s) == wanted]


def test_the_tables_are_found_and_every_verdict_is_known() -> None:
    rows = doc_rows()
    assert len(rows) > 150
    sections = {row.section for row in rows}
    assert len(sections) == 5, sections
    bad = [f"{row.where()}: {row.verdict!r}" for row in rows if row.verdict not in VERDICTS]
    assert not bad, bad


def test_a_same_row_names_something_checked() -> None:
    unchecked = [
        row.where()
        for row in doc_rows()
        if row.verdict == "same" and not any(kind(s) for s in row.spans())
    ]
    assert not unchecked, unchecked


def test_a_row_that_is_not_the_same_says_how() -> None:
    silent = [
        row.where()
        for row in doc_rows()
        if row.verdict in ("differs", "not supported") and not row.notes
    ]
    assert not silent, silent


def test_the_counts_table_matches_the_rows() -> None:
    text = DOC.read_text(encoding="utf-8")
    block = text.split("<!-- counts -->\n", 1)[1].split("\n\n", 1)[0].splitlines()
    stated = {cells[0]: [int(c) for c in cells[1:]] for cells in map(_cells, block[2:])}
    counted: dict[str, Counter[str]] = {}
    for row in doc_rows():
        counted.setdefault(row.section, Counter())[row.verdict] += 1
    total = sum(counted.values(), Counter())
    assert stated.pop("all five") == [total[v] for v in VERDICTS]
    assert len(stated) == len(counted) == 5
    for (label, numbers), (section, counter) in zip(stated.items(), counted.items(), strict=True):
        assert label.split()[0].lower() in section.lower(), (label, section)
        assert numbers == [counter[v] for v in VERDICTS], (label, dict(counter))


def _write_user_config(text: str) -> None:
    path = skilldeck.config.config_path("user")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _load_table(table: str, body: str) -> None:
    """Load ``[table] body`` as the user's config file through the checkers."""
    _write_user_config(f"[{table}]\n{body}\n")
    config = skilldeck.load_config()
    if table == "execution":  # checked by its own reader, as `skilldeck run` does
        skilldeck.ExecConfig.from_mapping(dict(config.data.get("execution", {})))


def test_every_config_key_is_accepted_and_its_table_refuses_unknown_keys() -> None:
    found = spans_of("config")
    assert len(found) > 20
    tables = set()
    for span, row in found:
        match = _CONFIG.match(span)
        assert match is not None
        tables.add(match["table"])
        try:
            _load_table(match["table"], f"{match['key']} = {match['value']}")
        except skilldeck.ConfigError as exc:
            pytest.fail(f"{row.where()}: {span}: {exc}")
    for table in sorted(tables):  # the check above can fail: each table is strict
        with pytest.raises(skilldeck.ConfigError):
            _load_table(table, "zzz_not_a_key = 1")


def _resolve(dotted: str) -> Any:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for i, attr in enumerate(parts[cut:]):
            owner = obj
            try:
                obj = getattr(owner, attr)
            except AttributeError:
                last = cut + i == len(parts) - 1
                fields = (
                    {f.name for f in dataclasses.fields(owner)}
                    if dataclasses.is_dataclass(owner)
                    else set()
                )
                if last and (attr in fields or attr in getattr(owner, "__annotations__", {})):
                    return None  # a field without a class-level default
                raise
        return obj
    raise ImportError(dotted)


def test_every_python_name_resolves_with_its_keyword_arguments() -> None:
    found = spans_of("python")
    assert len(found) > 80
    for span, row in found:
        match = _PYTHON.match(span)
        assert match is not None, f"{row.where()}: cannot read {span!r}"
        try:
            obj = _resolve(match["name"])
        except (ImportError, AttributeError) as exc:
            pytest.fail(f"{row.where()}: {span}: {exc}")
        if match["generic"]:
            assert hasattr(obj, "__class_getitem__"), f"{row.where()}: {span} is not generic"
        keywords = re.findall(r"(\w+)=", match["args"] or "")
        if not keywords:
            continue
        params = inspect.signature(obj).parameters
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            continue
        missing = [k for k in keywords if k not in params]
        assert not missing, f"{row.where()}: {span}: no parameter {missing}"


def _command(words: list[str]) -> None:
    from skilldeck.cli import main

    command: click.Command = main
    ctx = click.Context(main)
    options: list[str] = []
    for word in words:
        if word.startswith("-"):
            options.append(word)
        elif isinstance(command, click.Group) and not options:
            found = command.get_command(ctx, word)
            assert found is not None, f"no command {word!r}"
            command = found
    known = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
    known |= {"-h", "--help"}
    unknown = [o for o in options if o.split("=")[0] not in known]
    assert not unknown, f"{command.name}: no option {unknown}"


def test_every_command_and_option_exists() -> None:
    found = spans_of("command")
    assert len(found) > 25
    for span, row in found:
        try:
            _command(span.split()[1:])
        except AssertionError as exc:
            raise AssertionError(f"{row.where()}: {span}: {exc}") from None


def test_every_folder_is_a_root_doctor_lists(tmp_path: Path, hermetic_env: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    out = subprocess.run(
        [sys.executable, "-m", "skilldeck", "doctor", "--format", "json"],
        cwd=project,
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        check=False,
    )
    roots = [(r["source"], r["path"]) for r in json.loads(out.stdout)["data"]["roots"]]
    paths = [p for _s, p in roots]
    found = spans_of("folder")
    assert len(found) >= 4
    for span, row in found:
        base = hermetic_env if span.startswith("~/") else project
        assert str(base / span[2:]) in paths, f"{row.where()}: {span} is not a root: {roots}"

    def rank(path: Path) -> int:
        return paths.index(str(path))

    # plugins > project (.agent/skills) > claude (.claude/skills) > user > bundled
    order = [
        rank(hermetic_env / ".agent" / "skills"),
        rank(project / ".claude" / "skills"),
        rank(project / ".agent" / "skills"),
        rank(hermetic_env / ".agent" / "plugins"),
    ]
    assert roots[0][0] == "bundled"
    assert order == sorted(order), roots


def test_every_tool_name_is_offered(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "demo"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: demo\ndescription: Demo. Use when testing.\n---\n# Demo\n", encoding="utf-8"
    )
    offered: set[str] = set()
    for names in ({}, VERB_FIRST_TOOL_NAMES):
        runtime = skilldeck.SkillRuntime.from_roots(
            [tmp_path / "skills"], validate_tools=True, tool_names=names
        )
        offered |= {spec.name for spec in runtime.tool_specs(runtime.session())}
    assert {"list_skills", "skills_list", "skills_run_script"} <= offered
    found = spans_of("tool")
    assert len(found) > 10
    missing = [f"{row.where()}: {span}" for span, row in found if span not in offered]
    assert not missing, missing


def test_every_code_exists() -> None:
    codes = spans_of("code")
    diagnostics = spans_of("diagnostic")
    assert len(codes) > 15 and len(diagnostics) > 30
    known = set(ERROR_CODES) | set(WARNING_CODES)
    missing = [f"{row.where()}: {span}" for span, row in codes if span not in known]
    missing += [f"{row.where()}: {span}" for span, row in diagnostics if span not in CODES]
    assert not missing, missing


def test_every_environment_variable_is_read() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in SRC.rglob("*.py"))
    found = spans_of("env")
    assert len(found) >= 5
    missing = [f"{row.where()}: {s}" for s, row in found if f'"{s[1:]}"' not in source]
    assert not missing, missing


def test_every_frontmatter_line_loads(tmp_path: Path) -> None:
    found = spans_of("frontmatter")
    assert len(found) > 15
    for number, (span, row) in enumerate(found):
        folder = tmp_path / f"s{number}" / "demo"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: demo\ndescription: Demo. Use when testing.\n{span}\n---\n# Demo\n",
            encoding="utf-8",
        )
        report = skilldeck.validate_skill(folder)
        bad = [d.format() for d in report.diagnostics if d.code == "SK213" or d.severity == "error"]
        assert not bad, f"{row.where()}: {span}: {bad}"


_OTHER_DESIGNS = re.compile(r"\bseeds?\b|\bissues? #?\d", re.IGNORECASE)
_PUBLIC_MODULES = (
    "skilldeck",
    "skilldeck.adapters",
    "skilldeck.catalog",
    "skilldeck.config",
    "skilldeck.disclosure",
    "skilldeck.dist",
    "skilldeck.events",
    "skilldeck.execution",
    "skilldeck.format",
    "skilldeck.search",
    "skilldeck.security",
    "skilldeck.tools",
)


def test_user_facing_text_describes_other_designs_by_what_they_are() -> None:
    """Docs and public docstrings say "a plugin-style agent runtime", not a project label."""
    found = [
        f"{path.relative_to(REPO)}: {m.group(0)!r}"
        for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
        for m in _OTHER_DESIGNS.finditer(path.read_text(encoding="utf-8"))
    ]
    for name in _PUBLIC_MODULES:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            members = [obj, *vars(obj).values()] if inspect.isclass(obj) else [obj]
            for member in members:
                if isinstance(member, (property, staticmethod, classmethod)) or callable(member):
                    doc = inspect.getdoc(member) or ""
                    found += [
                        f"{name}.{attr}: {m.group(0)!r}" for m in _OTHER_DESIGNS.finditer(doc)
                    ]
    assert not found, found


def test_the_switching_examples_work(tmp_path: Path) -> None:
    """Each section's example: TOML goes through the config checkers, Python runs."""
    blocks = [(m["lang"], m["body"]) for m in _EXAMPLE.finditer(DOC.read_text(encoding="utf-8"))]
    assert sorted(lang for lang, _ in blocks) == ["python"] * 3 + ["toml"] * 2
    demo = tmp_path / "skills" / "demo"
    demo.mkdir(parents=True)
    (demo / "SKILL.md").write_text(
        "---\nname: demo\ndescription: Demo skill. Use when testing.\n---\n# Demo\n",
        encoding="utf-8",
    )
    for lang, body in blocks:
        if lang == "toml":
            _write_user_config(body)
            config = skilldeck.load_config()
            skilldeck.ExecConfig.from_mapping(dict(config.data.get("execution", {})))
            continue
        result = subprocess.run(
            [sys.executable, "-c", body], cwd=tmp_path, capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, f"{body}\n{result.stderr}"
