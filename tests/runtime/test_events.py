"""Events, the bus, redaction and the JSONL audit sink (threads and processes)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from skilldeck.events import (
    REDACTED,
    AllowedToolsPolicyChanged,
    EventBus,
    FileRead,
    JsonlAuditSink,
    ListSink,
    SkillLoaded,
    ToolCalled,
    event_types,
    redact,
)

SECRET_VALUES = [
    "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
    "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "xoxb-123456789012-abcdefghijkl",
    "AKIAABCDEFGHIJKLMNOP",
    "AIzaSyA-abcdefghijklmnopqrstuvwxyz012345",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


def test_event_to_dict_is_json_with_kind_and_iso_time() -> None:
    ev = SkillLoaded(session_id="s1", skill="pdf", source="root1", digest="sha256:ab")
    d = ev.to_dict()
    assert d["event"] == "skill_loaded"
    assert d["skill"] == "pdf" and d["session_id"] == "s1"
    assert d["created_at"].endswith("+00:00")
    assert len(d["event_id"]) == 32
    json.dumps(d)
    with pytest.raises(AttributeError):
        ev.skill = "other"  # type: ignore[misc]


def test_registry_names_every_event_kind() -> None:
    kinds = set(event_types())
    assert {
        "skill_loaded",
        "file_read",
        "search",
        "script_run",
        "tool_called",
        "tool_call_blocked",
        "skills_allowed_tools_policy_changed",
        "approval_asked",
        "approval_granted",
        "approval_denied",
        "skills_installed",
        "skills_updated",
        "skills_removed",
    } <= kinds


def test_bus_delivers_to_callables_and_sink_objects_in_order() -> None:
    seen: list[str] = []
    objs = ListSink()
    bus = EventBus([lambda e: seen.append(e.kind)])
    unsubscribe = bus.subscribe(objs)
    bus.emit(FileRead(skill="a", path="references/x.md"))
    unsubscribe()
    bus.emit(FileRead(skill="a", path="references/y.md"))
    assert seen == ["file_read", "file_read"]
    assert [e.path for e in objs.of(FileRead)] == ["references/x.md"]


def test_failing_sink_is_isolated_unless_fail_closed() -> None:
    def broken(_event: object) -> None:
        raise OSError("disk full")

    after = ListSink()
    bus = EventBus([broken, after])
    bus.emit(FileRead(skill="a", path="p"))
    assert len(after.events) == 1
    assert isinstance(bus.errors[0], OSError)
    kept = 100  # a long-running server keeps the last ones only
    for _ in range(kept + 50):
        bus.emit(FileRead(skill="a", path="p"))
    assert len(bus.errors) == kept
    assert bus.failures == kept + 51

    strict = EventBus([broken], raise_errors=True)
    with pytest.raises(OSError, match="disk full"):
        strict.emit(FileRead(skill="a", path="p"))


@pytest.mark.parametrize("secret", SECRET_VALUES)
def test_redact_catches_credential_shapes_inside_text(secret: str) -> None:
    out = redact({"query": f"use {secret} please"})
    assert secret not in json.dumps(out)
    assert REDACTED in out["query"]
    assert out["query"].startswith("use ")


def test_redact_by_key_name_and_keeps_harmless_fields() -> None:
    data = {
        "password": "hunter2",
        "API_KEY": "abc",
        "GITHUB_TOKEN": "t",
        "Authorization": "Basic Zm9vOmJhcg==",
        "client_secret": "x",
        "nested": {"db": {"passwd": "p", "host": "db.local"}},
        "headers": [{"cookie": "a=b"}],
        "author": "Jane",
        "max_tokens": 256,
        "session_id": "abc123",
        "url": "https://user:pa55@example.com/x",
        "auth": "bearer-ish",
        "text": "Authorization: Bearer abcdefghijklmnop",
    }
    out = redact(data)
    for key in ("password", "API_KEY", "GITHUB_TOKEN", "Authorization", "client_secret", "auth"):
        assert out[key] == REDACTED, key
    assert out["nested"]["db"] == {"passwd": REDACTED, "host": "db.local"}
    assert out["headers"] == [{"cookie": REDACTED}]
    assert out["author"] == "Jane"
    assert out["max_tokens"] == 256
    assert out["session_id"] == "abc123"
    assert out["url"] == f"https://{REDACTED}@example.com/x"
    assert out["text"] == f"Authorization: Bearer {REDACTED}"
    assert data["password"] == "hunter2"  # the input is not modified


def test_redact_private_key_block() -> None:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"
    assert redact({"content": f"key:\n{pem}\nend"})["content"] == f"key:\n{REDACTED}\nend"


def test_audit_sink_writes_redacted_lines_with_private_mode(tmp_path: Path) -> None:
    log = tmp_path / "audit" / "events.jsonl"
    sink = JsonlAuditSink(log)
    sink.emit(ToolCalled(tool="deploy", arguments={"token": "s3cr3t", "target": "prod"}))
    sink.emit(AllowedToolsPolicyChanged(action="activated", skill="x", allow_set_count=2))
    raw = log.read_text("utf-8")
    assert "s3cr3t" not in raw
    lines = raw.splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert first["arguments"] == {"token": REDACTED, "target": "prod"}
    assert json.loads(lines[1])["event"] == "skills_allowed_tools_policy_changed"
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600
    assert sink.read()[0]["tool"] == "deploy"


def test_audit_sink_is_append_only(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    log.write_text('{"event":"earlier"}\n', encoding="utf-8")
    JsonlAuditSink(log).emit(FileRead(skill="s", path="p"))
    JsonlAuditSink(log).emit(FileRead(skill="s", path="q"))
    records = JsonlAuditSink(log).read()
    assert [r["event"] for r in records] == ["earlier", "file_read", "file_read"]


def test_extra_redaction_hook(tmp_path: Path) -> None:
    def drop_paths(rec: dict[str, object]) -> dict[str, object]:
        return {k: v for k, v in rec.items() if k != "path"}

    sink = JsonlAuditSink(tmp_path / "a.jsonl", extra_redact=drop_paths)
    sink.emit(FileRead(skill="s", path="references/private.md"))
    assert "path" not in sink.read()[0]


_BIG = "x" * 9000  # well over PIPE_BUF: unlocked appends could interleave

_WRITER = """
import sys
from skilldeck.events import JsonlAuditSink, ToolCalled
sink = JsonlAuditSink(sys.argv[1])
for i in range(int(sys.argv[3])):
    sink.emit(ToolCalled(session_id=sys.argv[2], tool="t", arguments={
        "i": i, "blob": "x" * 9000, "api_key": "sk-live-abcdefghijklmnopqrstuv"}))
"""


def test_audit_after_concurrent_threads_and_processes(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(log), f"proc{n}", "60"],
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        for n in range(3)
    ]
    sink = JsonlAuditSink(log)

    def write(tid: int) -> None:
        for i in range(60):
            sink.emit(
                ToolCalled(
                    session_id=f"thread{tid}",
                    tool="t",
                    arguments={"i": i, "blob": _BIG, "password": "hunter2"},
                )
            )

    threads = [threading.Thread(target=write, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in procs:
        assert p.wait(timeout=60) == 0

    raw = log.read_bytes()
    assert b"hunter2" not in raw and b"sk-live-" not in raw
    lines = raw.decode("utf-8").splitlines()
    assert len(lines) == 7 * 60
    records = [json.loads(line) for line in lines]  # every line is whole
    by_session: dict[str, list[int]] = {}
    for rec in records:
        assert rec["arguments"]["blob"] == _BIG
        by_session.setdefault(rec["session_id"], []).append(rec["arguments"]["i"])
    assert len(by_session) == 7
    for seq in by_session.values():
        assert seq == list(range(60))  # each writer's lines in its own order
    assert len({r["event_id"] for r in records}) == len(records)
