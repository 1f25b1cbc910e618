# ruff: noqa: E501
"""A labelled search set: generated skills beside the bundled ones, and queries with answers.

The generated skills are written like real ones (a name, a "what + when"
description, tags, a few headings). Queries are phrased the way a model or a
user asks, not copied from the descriptions. ``bench/search.py`` reuses this
module for its quality figures and ``make_synthetic`` for its 10,000-skill catalog.
"""

from __future__ import annotations

import random
from pathlib import Path

# name, description, tags, headings
GENERATED: list[tuple[str, str, tuple[str, ...], tuple[str, ...]]] = [
    (
        "pdf-extract",
        "Extract text, tables and images from PDF documents. Use when the user hands over a PDF and wants its contents as text or data.",
        ("pdf", "documents"),
        ("Extracting text", "Tables", "Scanned pages and OCR"),
    ),
    (
        "pdf-forms",
        "Fill in and flatten PDF forms programmatically. Use when a PDF has form fields to complete.",
        ("pdf", "forms"),
        ("Listing fields", "Filling", "Flattening"),
    ),
    (
        "xlsx-editor",
        "Create and edit Excel spreadsheets with formulas, formatting and charts. Use for .xlsx workbooks.",
        ("excel", "spreadsheet"),
        ("Formulas", "Formatting cells", "Charts"),
    ),
    (
        "docx-writer",
        "Create and edit Word documents (.docx) with styles, tables and tracked changes.",
        ("word", "documents"),
        ("Styles", "Tracked changes", "Tables"),
    ),
    (
        "pptx-builder",
        "Build PowerPoint slide decks from an outline, with layouts, speaker notes and images.",
        ("powerpoint", "slides", "presentation"),
        ("Layouts", "Speaker notes"),
    ),
    (
        "sql-optimizer",
        "Analyse slow SQL queries, read EXPLAIN plans and propose indexes. Use when a database query is slow.",
        ("database", "postgres", "performance"),
        ("Reading EXPLAIN", "Index design"),
    ),
    (
        "db-migrations",
        "Write safe, reversible database schema migrations with Alembic or Django. Use before changing tables in production.",
        ("database", "schema", "alembic"),
        ("Zero-downtime changes", "Rollback"),
    ),
    (
        "docker-compose",
        "Write and debug Docker Compose files for local multi-container development environments.",
        ("docker", "containers"),
        ("Services", "Volumes and networks", "Healthchecks"),
    ),
    (
        "k8s-debug",
        "Diagnose failing Kubernetes pods: crash loops, image pull errors, pending scheduling, OOM kills.",
        ("kubernetes", "k8s", "devops"),
        ("CrashLoopBackOff", "Events and logs", "Resource limits"),
    ),
    (
        "terraform-plan",
        "Review Terraform plans and modules for drift, destructive changes and security issues.",
        ("terraform", "infrastructure", "iac"),
        ("Reading a plan", "State drift"),
    ),
    (
        "github-actions",
        "Write and fix GitHub Actions CI workflows: matrices, caching, secrets and reusable workflows.",
        ("ci", "github", "workflows"),
        ("Matrix builds", "Caching dependencies"),
    ),
    (
        "pytest-writer",
        "Write pytest unit tests with fixtures, parametrisation and temporary paths for Python code.",
        ("python", "testing", "pytest"),
        ("Fixtures", "Parametrize", "tmp_path"),
    ),
    (
        "flaky-tests",
        "Find and fix flaky tests caused by timing, ordering, shared state or network access.",
        ("testing", "ci"),
        ("Reproducing", "Quarantine"),
    ),
    (
        "python-profiling",
        "Profile slow Python code with cProfile and py-spy and find the hot path.",
        ("python", "performance"),
        ("cProfile", "Flame graphs"),
    ),
    (
        "memory-leaks",
        "Track down memory leaks in long-running services using heap snapshots and tracemalloc.",
        ("performance", "debugging"),
        ("Heap snapshots", "tracemalloc"),
    ),
    (
        "react-components",
        "Build accessible React components with hooks, props typing and tests.",
        ("react", "frontend", "typescript"),
        ("Hooks", "Accessibility"),
    ),
    (
        "css-layout",
        "Fix CSS layout problems with flexbox and grid; centre things, align columns, make pages responsive.",
        ("css", "frontend"),
        ("Flexbox", "Grid", "Media queries"),
    ),
    (
        "web-accessibility",
        "Audit web pages for accessibility (WCAG): contrast, labels, keyboard navigation, screen readers.",
        ("a11y", "wcag", "frontend"),
        ("Keyboard", "ARIA"),
    ),
    (
        "api-design",
        "Design REST APIs: resources, status codes, pagination, versioning and error formats.",
        ("rest", "http", "api"),
        ("Pagination", "Errors", "Versioning"),
    ),
    (
        "openapi-spec",
        "Write and validate OpenAPI 3 specifications and generate client code from them.",
        ("openapi", "swagger", "api"),
        ("Schemas", "Code generation"),
    ),
    (
        "graphql-schema",
        "Design GraphQL schemas, resolvers and avoid N+1 queries with dataloaders.",
        ("graphql", "api"),
        ("Resolvers", "Dataloader"),
    ),
    (
        "security-review",
        "Review code for security vulnerabilities: injection, XSS, secrets in code, unsafe deserialisation.",
        ("security", "review", "owasp"),
        ("Injection", "Secrets"),
    ),
    (
        "dependency-audit",
        "Audit project dependencies for known CVEs, licences and outdated versions.",
        ("security", "dependencies", "cve"),
        ("Vulnerability scan", "Licences"),
    ),
    (
        "log-analysis",
        "Search and summarise application logs to find errors, spikes and their first occurrence.",
        ("logs", "observability"),
        ("Grepping logs", "Timelines"),
    ),
    (
        "incident-postmortem",
        "Write blameless incident postmortems with timeline, impact, root cause and action items.",
        ("incident", "sre"),
        ("Timeline", "Root cause", "Action items"),
    ),
    (
        "changelog-writer",
        "Write release notes and a CHANGELOG from merged pull requests and commits.",
        ("release", "changelog"),
        ("Keep a Changelog", "Grouping changes"),
    ),
    (
        "semver-release",
        "Decide the next semantic version and cut a release: tag, build, publish.",
        ("release", "versioning"),
        ("Choosing the bump", "Publishing"),
    ),
    (
        "code-review",
        "Review pull requests for correctness, readability, tests and design; leave actionable comments.",
        ("review", "pull-request"),
        ("Checklist", "Tone of comments"),
    ),
    (
        "refactoring",
        "Refactor code safely in small steps: extract function, rename, remove duplication, keep tests green.",
        ("refactor", "clean-code"),
        ("Extract function", "Characterisation tests"),
    ),
    (
        "regex-explainer",
        "Explain what an existing regular expression does, piece by piece, in plain English.",
        ("regex", "explain"),
        ("Tokens", "Groups"),
    ),
    (
        "json-transform",
        "Reshape, filter and convert JSON data with jq-style transformations.",
        ("json", "jq", "data"),
        ("Selecting", "Reshaping"),
    ),
    (
        "data-cleaning",
        "Clean tabular datasets with pandas: missing values, duplicates, types, outliers.",
        ("pandas", "data", "csv"),
        ("Missing values", "Deduplication"),
    ),
    (
        "charts-matplotlib",
        "Make clear charts and plots with matplotlib for reports and notebooks.",
        ("plotting", "visualisation", "python"),
        ("Line charts", "Bar charts"),
    ),
    (
        "image-resize",
        "Resize, crop, compress and convert images in bulk (PNG, JPEG, WebP).",
        ("images", "media"),
        ("Batch resize", "Formats"),
    ),
    (
        "video-transcode",
        "Transcode and trim video files with ffmpeg; extract audio and thumbnails.",
        ("video", "ffmpeg", "media"),
        ("Trimming", "Extracting audio"),
    ),
    (
        "email-drafting",
        "Draft clear professional emails: requests, follow-ups, apologies and announcements.",
        ("writing", "email"),
        ("Subject lines", "Follow-ups"),
    ),
    (
        "meeting-notes",
        "Turn a meeting transcript into notes with decisions, owners and deadlines.",
        ("meetings", "notes", "summaries"),
        ("Decisions", "Action items"),
    ),
    (
        "translation",
        "Translate documents between languages keeping formatting, terminology and tone.",
        ("i18n", "languages"),
        ("Glossary", "Formatting"),
    ),
    (
        "i18n-strings",
        "Extract UI strings for internationalisation and manage gettext or ICU message catalogs.",
        ("i18n", "localisation"),
        ("Extraction", "Plurals"),
    ),
    (
        "shell-scripting",
        "Write robust bash scripts: quoting, set -euo pipefail, argument parsing, traps.",
        ("bash", "shell"),
        ("Quoting", "Error handling"),
    ),
    (
        "git-bisect",
        "Find the commit that introduced a bug with git bisect, automated with a test script.",
        ("git", "debugging"),
        ("Manual bisect", "bisect run"),
    ),
    (
        "git-rebase",
        "Rewrite local git history with interactive rebase: squash, reorder, edit commits, resolve conflicts.",
        ("git", "history"),
        ("Squash", "Conflicts"),
    ),
    (
        "cron-schedules",
        "Write and explain cron expressions and systemd timers for scheduled jobs.",
        ("cron", "scheduling"),
        ("Cron syntax", "systemd timers"),
    ),
    (
        "ssl-certificates",
        "Inspect, renew and debug TLS certificates and chains (openssl, Let's Encrypt).",
        ("tls", "ssl", "security"),
        ("Chains", "Renewal"),
    ),
    (
        "nginx-config",
        "Configure nginx as a reverse proxy with TLS, caching, redirects and rate limits.",
        ("nginx", "web-server"),
        ("Reverse proxy", "Rate limiting"),
    ),
    (
        "latex-papers",
        "Write and fix LaTeX papers: bibliographies, figures, tables and compile errors.",
        ("latex", "academic"),
        ("BibTeX", "Figures"),
    ),
    (
        "prompt-engineering",
        "Improve LLM prompts: structure, examples, output formats and evaluation.",
        ("llm", "prompts"),
        ("Few-shot", "Evaluation"),
    ),
    (
        "mcp-server-builder",
        "Build Model Context Protocol servers exposing tools and resources to LLM clients.",
        ("mcp", "llm", "tools"),
        ("Tools", "Resources", "Transports"),
    ),
]

BUNDLED = ("conventional-commits", "csv-profile", "decision-records", "regex-check")

# query -> the skill(s) that answer it (any of them counts as a hit)
QUERIES: list[tuple[str, tuple[str, ...]]] = [
    ("get the text out of a pdf", ("pdf-extract",)),
    ("complete form fields in a PDF file", ("pdf-forms",)),
    ("excel workbook with charts", ("xlsx-editor",)),
    ("make a slide deck", ("pptx-builder",)),
    ("my postgres query is slow", ("sql-optimizer",)),
    ("add a column to a production table safely", ("db-migrations",)),
    ("pod keeps restarting crashloop", ("k8s-debug",)),
    ("terraform plan destroys resources", ("terraform-plan",)),
    ("ci workflow caching on github", ("github-actions",)),
    ("write unit tests in python", ("pytest-writer",)),
    ("tests fail randomly in CI", ("flaky-tests",)),
    ("find the hot path in slow python", ("python-profiling",)),
    ("service memory keeps growing", ("memory-leaks",)),
    ("center a div with flexbox", ("css-layout",)),
    ("screen reader keyboard navigation audit", ("web-accessibility",)),
    ("pagination and error format for http api", ("api-design",)),
    ("swagger spec", ("openapi-spec",)),
    ("n+1 queries graphql", ("graphql-schema",)),
    ("check code for xss and injection", ("security-review",)),
    ("known CVEs in dependencies", ("dependency-audit",)),
    ("blameless postmortem after an outage", ("incident-postmortem",)),
    ("release notes from merged PRs", ("changelog-writer",)),
    ("which version bump for a release", ("semver-release", "conventional-commits")),
    ("write a commit message", ("conventional-commits",)),
    ("what columns are in this csv file", ("csv-profile", "data-cleaning")),
    ("document an architecture decision", ("decision-records",)),
    ("test a regular expression against sample strings", ("regex-check",)),
    ("explain this regex", ("regex-explainer", "regex-check")),
    ("convert jpeg images to webp", ("image-resize",)),
    ("extract audio from a video with ffmpeg", ("video-transcode",)),
    ("meeting transcript to action items", ("meeting-notes",)),
    ("bash script error handling", ("shell-scripting",)),
    ("which commit introduced the bug", ("git-bisect",)),
    ("squash commits", ("git-rebase",)),
    ("cron expression every monday", ("cron-schedules",)),
    ("renew tls certificate", ("ssl-certificates",)),
    ("reverse proxy config", ("nginx-config",)),
    ("bibtex citations in latex", ("latex-papers",)),
    ("build an mcp server", ("mcp-server-builder",)),
    ("missing values in a pandas dataframe", ("data-cleaning",)),
]


def skill_md(name: str, description: str, tags: tuple[str, ...], headings: tuple[str, ...]) -> str:
    tag_lines = "".join(f"    - {t}\n" for t in tags)
    body = "".join(f"\n## {h}\n\nSteps for {h.lower()}.\n" for h in headings)
    return (
        f"---\nname: {name}\ndescription: {description}\nmetadata:\n  tags:\n{tag_lines}---\n"
        f"\n# {name}\n{body}"
    )


def write_generated(root: Path) -> Path:
    """Write GENERATED as skill folders under ``root``; returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for name, desc, tags, heads in GENERATED:
        d = root / name
        d.mkdir(exist_ok=True)
        (d / "SKILL.md").write_text(skill_md(name, desc, tags, heads), encoding="utf-8")
    return root


_WORDS = (
    "alpha beta gamma delta report invoice ledger parser crawler schema backup restore "
    "metrics dashboard alert queue cache router gateway token session upload download "
    "archive compress encrypt decrypt sign verify audit render template layout theme "
    "widget form table chart graph map route index search rank filter sort merge split "
    "convert export import sync mirror deploy rollback build package publish lint format "
    "translate summarise classify cluster embed vector prompt agent workflow pipeline"
).split()


def make_synthetic(
    n: int, *, seed: int = 7
) -> list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]:
    """``n`` synthetic skills (name, description, tags, headings) for the speed benchmark."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = rng.sample(_WORDS, 8)
        name = f"{words[0]}-{words[1]}-{i}"
        desc = (
            f"{words[2].capitalize()} and {words[3]} {words[4]} files for {words[5]} "
            f"teams. Use when the user needs {words[6]} or {words[7]} work."
        )
        tags = (words[2], words[5])
        heads = (f"{words[3].capitalize()} step", f"{words[6].capitalize()} notes")
        out.append((name, desc, tags, heads))
    return out
