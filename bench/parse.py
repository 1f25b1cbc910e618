"""Frontmatter YAML: skilldeck's loader against libyaml and compiled YAML parsers.

Usage::

    python bench/parse.py [--corpus DIR] [--repeat 5] [--json]

Input: the frontmatter of every SKILL.md under ``--corpus`` (default
``../shared/corpus``), split as skilldeck splits it. Each contender parses every
frontmatter; the figure is CPU microseconds per frontmatter, the minimum of
``--repeat`` passes. Contenders:

- ``libyaml CSafeLoader``: ``yaml.load`` with PyYAML's C loader (plain data);
- ``skilldeck load_yaml``: what discovery runs: the line-scanner fast path, and
  libyaml's composer with skilldeck's resolver where the fast path declines;
- ``skilldeck fast path``: the fast path alone, on the frontmatters it accepts;
- ``yaml-rs``, ``ryaml``: Rust parsers building Python values;
- ``rapidyaml``: the C++ parser building its tree only (no Python values).

The compiled parsers run in a throwaway venv (made once under ``--work``), in a
fresh process. "differs" counts frontmatters whose values differ from
libyaml's and from skilldeck's (skilldeck keeps floats and dates as their text,
so a parser that builds floats cannot match it without the source text; none of
them reports key positions, which skilldeck's diagnostics need).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve()
CORPUS = BENCH.parents[2] / "shared" / "corpus"
COMPILED = {"yaml-rs": "yaml-rs==0.1.6", "ryaml": "ryaml==0.5.1", "rapidyaml": "rapidyaml==0.15.2"}


def frontmatters(corpus: Path) -> list[str]:
    from skilldeck.format._frontmatter import decode, split_frontmatter

    out = []
    for md in sorted(corpus.rglob("SKILL.md")):
        text, _ = decode(md.read_bytes())
        fm = split_frontmatter(text).frontmatter
        if fm:
            out.append(fm if fm.endswith("\n") else fm + "\n")
    return out


def per_item(fn: Callable[[str], Any], texts: list[str], repeat: int) -> float:
    """CPU microseconds per text, best of ``repeat`` passes (errors count as work)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for text in texts:
            try:
                fn(text)
            except Exception:
                continue
        best = min(best, time.process_time() - t0)
    return best / max(1, len(texts)) * 1e6


def results(fn: Callable[[str], Any], texts: list[str]) -> list[str]:
    out = []
    for text in texts:
        try:
            out.append(repr(fn(text)))
        except Exception as exc:
            out.append(f"error: {type(exc).__name__}")
    return out


# ------------------------------------------------------------------ compiled parsers


def _compiled(name: str) -> Callable[[str], Any]:
    if name == "yaml-rs":
        import yaml_rs

        return yaml_rs.loads  # type: ignore[no-any-return]
    if name == "ryaml":
        import ryaml

        return ryaml.loads  # type: ignore[no-any-return]
    import ryml

    return lambda text: ryml.parse_in_arena(text.encode())


def worker(name: str, texts_file: str, repeat: int) -> None:
    texts = json.loads(Path(texts_file).read_text("utf-8"))
    fn = _compiled(name)
    us = per_item(fn, texts, repeat)
    values = results(fn, texts) if name != "rapidyaml" else None
    print(json.dumps({"us": us, "values": values}))


def venv_python(work: Path) -> str | None:
    venv = work / "venv-yaml"
    py = venv / "bin" / "python"
    if not py.exists():
        try:
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run(
                [str(py), "-m", "pip", "install", "-q", *COMPILED.values()],
                check=True,
                capture_output=True,
            )
        except (OSError, subprocess.CalledProcessError):
            return None
    return str(py)


# ------------------------------------------------------------------ driver


def measure(
    texts: list[str], repeat: int, work: Path, *, compiled: bool = True
) -> list[dict[str, Any]]:
    import yaml

    from skilldeck.format._yaml import load_yaml
    from skilldeck.format._yamlfast import fast_load

    def libyaml(text: str) -> Any:
        return yaml.load(text, Loader=yaml.CSafeLoader)

    reference = results(libyaml, texts)
    ours = results(lambda t: load_yaml(t).data, texts)
    fast = [t for t in texts if fast_load(t, 2) is not None]
    rows: list[dict[str, Any]] = [
        {"contender": "libyaml CSafeLoader", "us": per_item(libyaml, texts, repeat)},
        {"contender": "skilldeck load_yaml", "us": per_item(load_yaml, texts, repeat)},
        {
            "contender": "skilldeck fast path",
            "us": per_item(lambda t: fast_load(t, 2), fast, repeat),
            "note": f"takes {len(fast)} of {len(texts)}",
        },
    ]
    rows[0]["differs_libyaml"] = 0
    rows[0]["differs_skilldeck"] = sum(a != b for a, b in zip(reference, ours, strict=True))
    rows[1]["differs_libyaml"] = rows[0]["differs_skilldeck"]
    rows[1]["differs_skilldeck"] = 0
    if not compiled:
        return rows
    py = venv_python(work)
    texts_file = work / "frontmatters.json"
    texts_file.write_text(json.dumps(texts), "utf-8")
    for name in COMPILED:
        row: dict[str, Any] = {"contender": name}
        if py is None:
            row["note"] = "not installed"
            rows.append(row)
            continue
        proc = subprocess.run(
            [py, str(BENCH), "--worker", name, str(texts_file), "--repeat", str(repeat)],
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "PYTHONPATH": ""},
        )
        if proc.returncode != 0:
            row["note"] = f"failed: {proc.stderr.strip().splitlines()[-1:]}"
            rows.append(row)
            continue
        got = json.loads(proc.stdout)
        row["us"] = got["us"]
        if got["values"] is None:
            row["note"] = "tree only, no Python values"
        else:
            row["differs_libyaml"] = sum(
                a != b for a, b in zip(got["values"], reference, strict=True)
            )
            row["differs_skilldeck"] = sum(a != b for a, b in zip(got["values"], ours, strict=True))
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "skilldeck-bench"
    )
    parser.add_argument("--only-ours", action="store_true", help="skip the compiled parsers")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1], args.repeat)
        return 0
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus} is not a folder")
    texts = frontmatters(args.corpus)
    args.work.mkdir(parents=True, exist_ok=True)
    rows = measure(texts, args.repeat, args.work, compiled=not args.only_ours)
    if args.json:
        print(json.dumps({"frontmatters": len(texts), "results": rows}, indent=2))
        return 0
    print(f"{len(texts)} corpus frontmatters; CPU us per frontmatter, best of {args.repeat}")
    print(f"{'contender':<24}{'us':>8}{'vs libyaml':>12}{'differs from libyaml / skilldeck':>36}")
    base = rows[0]["us"]
    for r in rows:
        us = f"{r['us']:.1f}" if "us" in r else "n/a"
        ratio = f"{r['us'] / base:.2f}x" if "us" in r else ""
        differs = (
            f"{r['differs_libyaml']} / {r['differs_skilldeck']}" if "differs_libyaml" in r else ""
        )
        print(f"{r['contender']:<24}{us:>8}{ratio:>12}{differs:>22}  {r.get('note', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
