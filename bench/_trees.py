"""Skill trees for the start-up and listing benchmarks: real skills with their resources.

``corpus_copy(work)`` makes (once) a copy of ``../shared/corpus`` with its symbolic
links restored (``with-links``); ``make_tree(root, n, samples)`` fills ``root`` with
``n`` folders ``skill-NNNNNN``, each a whole corpus skill folder (SKILL.md, scripts,
references, assets, links as they are, some dangling) whose ``name:`` is rewritten
to the folder's name. Resource files are hard links to the copy (100,000 skills
would otherwise take gigabytes); SKILL.md is a file of its own.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
_NAME = re.compile(r"(?m)^name:.*$")


def corpus_copy(work: Path, corpus: Path = CORPUS) -> Path:
    """A copy of the corpus with its links restored, made once under ``work``."""
    dest = work / "corpus-with-links"
    if (dest / ".complete").exists():
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    tool = corpus / "with-links"
    if tool.exists():
        subprocess.run(["bash", str(tool), str(dest)], check=True)
    else:
        shutil.copytree(corpus, dest, symlinks=True)
    (dest / ".complete").touch()
    return dest


def samples_of(copy: Path) -> list[tuple[Path, str]]:
    """Every skill folder of the copy whose SKILL.md has a frontmatter naming it."""
    out = []
    for md in sorted(copy.rglob("SKILL.md")):
        if md.is_symlink() or not md.is_file():
            continue
        text = md.read_bytes().decode("utf-8", "replace")
        if text.lstrip("\ufeff").startswith("---") and _NAME.search(text):
            out.append((md.parent, text))
    return out


def make_tree(root: Path, count: int, samples: list[tuple[Path, str]], seed: int = 7) -> Path:
    """``count`` renamed copies of sampled skill folders under ``root`` (made once)."""
    if (root / ".complete").exists():
        return root
    rng = random.Random(seed)
    tmp = root.with_name(root.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for i in range(count):
        folder, text = rng.choice(samples)
        name = f"skill-{i:06d}"
        dest = tmp / name
        shutil.copytree(folder, dest, symlinks=True, copy_function=os.link)
        md = dest / "SKILL.md"
        md.unlink()
        md.write_text(_NAME.sub(f"name: {name}", text, count=1), encoding="utf-8")
    shutil.rmtree(root, ignore_errors=True)
    os.replace(tmp, root)
    (root / ".complete").touch()
    return root


def tree(work: Path, count: int, corpus: Path = CORPUS) -> Path:
    """``work/tree-COUNT``, made from the corpus copy when it is not there yet."""
    root = work / f"tree-{count}"
    if not (root / ".complete").exists():
        if not corpus.is_dir():
            raise SystemExit(f"{corpus} is not a folder (the corpus of real skills)")
        make_tree(root, count, samples_of(corpus_copy(work, corpus)))
    return root
