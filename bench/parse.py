"""Parse + validate benchmark: skilldeck against skills-ref and a plain ``yaml.safe_load`` loop.

Usage::

    python bench/parse.py [--corpus DIR | --generate N] [--repeat 3] [--json]

Input: every skill folder under ``--corpus`` (default ``../shared/corpus`` when present),
or ``--generate N`` synthetic skills (frontmatter of the usual shape, a body of ~80
lines) written to a temporary folder. The same folder list goes to every contender:

- ``skilldeck validate``: ``validate_skill(folder)`` (lenient: full bounded read,
  frontmatter split, YAML, manifest, every rule);
- ``skilldeck validate --strict``: the same with ``strict=True``;
- ``skilldeck metadata-only``: ``read_skill_md(SKILL.md, metadata_only=True)`` (what
  discovery does: a bounded prefix, frontmatter only);
- ``skills-ref validate``: the reference library's ``validate(folder)``;
- ``yaml.safe_load loop``: read SKILL.md, split the frontmatter on ``---`` lines and
  ``yaml.safe_load`` it (no validation at all).

Each figure is the minimum of ``--repeat`` runs after one warm-up run, so the OS page
cache is warm for everyone; the runs of the contenders are interleaved, so that load
from other processes affects them alike. Ratios are ``contender time / skilldeck validate time``
(higher means skilldeck is that many times faster).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

import skilldeck

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"

_BODY = "\n".join(
    f"{i}. Step {i}: run `scripts/tool.py --step {i}` and check the output carefully."
    for i in range(1, 80)
)


def generate(root: Path, count: int) -> list[Path]:
    """``count`` skill folders with realistic frontmatter and body."""
    folders = []
    for i in range(count):
        name = f"skill-{i:05d}"
        folder = root / name
        folder.mkdir()
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\n"
            f"description: Generated skill number {i} for benchmarks. Use when measuring "
            "how fast skills are parsed and validated.\n"
            "license: MIT\n"
            "allowed-tools: Read Bash(git:*)\n"
            f"metadata:\n  author: bench\n  version: '1.{i % 10}'\n"
            f"---\n# Skill {i}\n\n{_BODY}\n",
            encoding="utf-8",
        )
        folders.append(folder)
    return folders


def _skill_md(folder: Path) -> Path:
    return folder / "SKILL.md" if (folder / "SKILL.md").exists() else folder / "skill.md"


def run_skilldeck(folders: list[Path]) -> int:
    return sum(skilldeck.validate_skill(f).valid for f in folders)


def run_skilldeck_strict(folders: list[Path]) -> int:
    return sum(skilldeck.validate_skill(f, strict=True).valid for f in folders)


def run_metadata_only(folders: list[Path]) -> int:
    return sum(skilldeck.read_skill_md(_skill_md(f), metadata_only=True).ok for f in folders)


def run_skills_ref(folders: list[Path]) -> int:
    from skills_ref import validate

    ok = 0
    for folder in folders:
        try:
            ok += not validate(folder)
        except Exception:  # the reference library raises on some inputs (invalid UTF-8)
            pass
    return ok


def run_yaml_loop(folders: list[Path]) -> int:
    ok = 0
    for folder in folders:
        try:
            text = _skill_md(folder).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        lines = text.splitlines()
        if not lines or lines[0].strip() != "---":
            continue
        try:
            end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
        except StopIteration:
            continue
        try:
            data = yaml.safe_load("\n".join(lines[1:end]))
        except yaml.YAMLError:
            continue
        ok += isinstance(data, dict)
    return ok


CONTENDERS: list[tuple[str, Callable[[list[Path]], int]]] = [
    ("skilldeck validate", run_skilldeck),
    ("skilldeck validate --strict", run_skilldeck_strict),
    ("skilldeck metadata-only", run_metadata_only),
    ("skills-ref validate", run_skills_ref),
    ("yaml.safe_load loop", run_yaml_loop),
]


def measure(folders: list[Path], repeat: int) -> list[dict[str, Any]]:
    """Best time of each contender; rounds are interleaved so load noise hits all alike."""
    best = {label: float("inf") for label, _ in CONTENDERS}
    accepted = {label: 0 for label, _ in CONTENDERS}
    for _, func in CONTENDERS:
        func(folders)  # warm-up: page cache, imports, caches inside libraries
    for _ in range(repeat):
        for label, func in CONTENDERS:
            started = time.perf_counter()
            accepted[label] = func(folders)
            best[label] = min(best[label], time.perf_counter() - started)
    base = best[CONTENDERS[0][0]]
    return [
        {
            "contender": label,
            "seconds": best[label],
            "per_skill_us": best[label] / len(folders) * 1e6,
            "ratio": best[label] / base,
            "accepted": accepted[label],
        }
        for label, _ in CONTENDERS
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--corpus", type=Path, help="folder with skills (default: shared corpus)")
    source.add_argument("--generate", type=int, metavar="N", help="generate N skills instead")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="skilldeck-bench-") as tmp:
        if args.generate:
            folders = generate(Path(tmp), args.generate)
            where = f"{args.generate} generated skills"
        else:
            corpus = args.corpus or CORPUS
            if not corpus.is_dir():
                parser.error(f"{corpus} is not a folder; use --generate N")
            folders = skilldeck.find_skill_dirs(corpus)
            where = f"{len(folders)} skills under {corpus}"
        results = measure(folders, args.repeat)

    if args.json:
        print(json.dumps({"input": where, "results": results}, indent=2))
        return 0
    print(f"parse + validate: {where} (best of {args.repeat})")
    print(f"{'contender':<30} {'total s':>9} {'us/skill':>10} {'vs skilldeck':>13} {'accepted':>9}")
    for row in results:
        print(
            f"{row['contender']:<30} {row['seconds']:>9.3f} {row['per_skill_us']:>10.1f} "
            f"{row['ratio']:>12.2f}x {row['accepted']:>9}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
