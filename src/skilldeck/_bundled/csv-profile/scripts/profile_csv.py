#!/usr/bin/env python3
"""Profile a CSV/TSV file: one JSON object on stdout with per-column statistics.

Usage: profile_csv.py FILE [--delimiter D] [--top N] [--max-rows N]

Only the standard library is used, and the file is read as a stream.
Exit status: 0 on success, 1 when the file cannot be read or parsed, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import sys
from collections import Counter
from typing import Any

_BOOLEANS = {"true", "false", "yes", "no", "y", "n", "t", "f"}


def _kind(value: str) -> str:
    """The narrowest type that fits one non-empty cell."""
    try:
        int(value)
        return "integer"
    except ValueError:
        pass
    try:
        float(value)
        return "float"
    except ValueError:
        pass
    if value.lower() in _BOOLEANS:
        return "boolean"
    try:
        dt.date.fromisoformat(value)
        return "date"
    except ValueError:
        return "text"


def _merge(current: str | None, new: str) -> str:
    if current is None or current == new:
        return new
    if {current, new} == {"integer", "float"}:
        return "float"
    return "text"


class Column:
    def __init__(self, name: str) -> None:
        self.name = name
        self.kind: str | None = None
        self.empty = 0
        self.values: Counter[str] = Counter()
        self.low: Any = None
        self.high: Any = None

    def add(self, raw: str) -> None:
        value = raw.strip()
        if not value:
            self.empty += 1
            return
        kind = _kind(value)
        self.kind = _merge(self.kind, kind)
        if len(self.values) < 100_000 or value in self.values:
            self.values[value] += 1
        key: Any = None
        if kind in ("integer", "float"):
            key = float(value)
        elif kind == "date":
            key = value
        if key is not None and self.kind in ("integer", "float", "date"):
            self.low = key if self.low is None else min(self.low, key)
            self.high = key if self.high is None else max(self.high, key)

    def report(self, top: int) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "type": self.kind or "empty",
            "empty": self.empty,
            "distinct": len(self.values),
            "top": [[value, count] for value, count in self.values.most_common(top)],
        }
        if self.kind in ("integer", "float", "date") and self.low is not None:
            low, high = self.low, self.high
            if self.kind == "integer":
                low, high = int(low), int(high)
            out["min"], out["max"] = low, high
        return out


def profile(path: str, *, delimiter: str | None, top: int, max_rows: int | None) -> dict[str, Any]:
    with open(path, newline="", encoding="utf-8-sig") as handle:
        sample = handle.read(64 * 1024)
        handle.seek(0)
        if delimiter is None:
            try:
                delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
            except csv.Error:
                delimiter = "\t" if path.endswith(".tsv") else ","
        reader = csv.reader(handle, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            return {"file": path, "rows": 0, "columns": [], "delimiter": delimiter}
        columns = [Column(name or f"column_{i + 1}") for i, name in enumerate(header)]
        rows = 0
        ragged = 0
        truncated = False
        for row in reader:
            if max_rows is not None and rows >= max_rows:
                truncated = True
                break
            rows += 1
            if len(row) != len(columns):
                ragged += 1
            for column, cell in zip(columns, row, strict=False):
                column.add(cell)
            for column in columns[len(row) :]:
                column.add("")
    return {
        "file": path,
        "delimiter": delimiter,
        "rows": rows,
        "ragged_rows": ragged,
        "truncated": truncated,
        "columns": [column.report(top) for column in columns],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Profile a CSV/TSV file as JSON.")
    parser.add_argument("file")
    parser.add_argument("--delimiter", default=None, help="field separator (default: detect)")
    parser.add_argument("--top", type=int, default=5, help="frequent values per column")
    parser.add_argument("--max-rows", type=int, default=None, help="stop after N data rows")
    args = parser.parse_args(argv)
    try:
        result = profile(args.file, delimiter=args.delimiter, top=args.top, max_rows=args.max_rows)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        json.dump({"file": args.file, "error": str(exc)}, sys.stdout)
        sys.stdout.write("\n")
        return 1
    json.dump(result, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
