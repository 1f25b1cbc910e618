"""A host's own store with exactly the documented methods (``list_skills``,
``load_skill``, ``read_file``) works through the tools and approval, as an
application that injects its own store uses it."""

from __future__ import annotations

import sys

from tests._skills import HostStore

from skilldeck import (
    Catalog,
    ExecConfig,
    Executor,
    SkillMetadata,
    SkillRuntime,
    Source,
    Store,
)
from skilldeck.execution import MemoryApprovalStore

from .conftest import check, error_code

BODY = (
    "# Echo\n\nSee references/guide.md.\n\n### say\n\nRepeat a word.\n\n#### Parameters\n\n"
    "| Name | Type | Required | Description |\n|---|---|---|---|\n"
    "| word | string | yes | what to say |\n\n"
    f'#### Command\n\n```bash\n{sys.executable} -c "import sys; print(sys.argv[1])" '
    "{{word}}\n```\n"
)
SKILL_MD = "---\nname: echo\ndescription: Repeats words. Use to test host stores.\n---\n" + BODY


def _store() -> HostStore:
    return HostStore(
        {"echo": (SKILL_MD, {"references/guide.md": b"# Guide\n", "assets/logo.bin": b"\x00\x01"})}
    )


def _runtime(store: HostStore) -> SkillRuntime:
    catalog = Catalog([Source("host", "extra", store=store)], cache=False)
    cfg = ExecConfig(sandbox="none", run_as=None)
    executor = Executor(cfg, approvals=MemoryApprovalStore())
    return SkillRuntime(catalog, executor=executor, approver=lambda _req: True)


def test_the_host_store_is_a_store() -> None:
    assert isinstance(_store(), Store)


def test_load_read_and_an_approved_tool_through_a_host_store() -> None:
    store = _store()
    rt = _runtime(store)
    s = rt.session()
    loaded = check(rt.call(s, "skills_load", {"name": "echo"}))["data"]
    assert "references/guide.md" in str(loaded)
    read = check(rt.call(s, "skills_read_file", {"name": "echo", "path": "references/guide.md"}))
    assert read["data"]["content"] == "# Guide\n"
    missing = rt.call(s, "skills_read_file", {"name": "echo", "path": "references/none.md"})
    assert error_code(missing) == "FILE_NOT_FOUND"
    hidden = rt.call(s, "skills_read_file", {"name": "echo", "path": ".env"})
    assert error_code(hidden) == "PATH_NOT_ALLOWED"

    # approval is bound to the content digest, which the catalog now computes from
    # the three methods: stable while nothing changes, different when a file does
    digest = rt.catalog.digest("echo")
    assert digest.startswith("sha256:") and loaded["digest"] == digest
    approvals = MemoryApprovalStore()
    approvals.grant("echo", digest, trust="user", path=None)
    store.skills["echo"] = (SKILL_MD, {"references/guide.md": b"# Changed\n"})
    rt.catalog.refresh()
    changed = rt.catalog.digest("echo")
    assert changed != digest and approvals.get("echo").digest == digest  # lapsed
    # running needs a folder on disk; the tool says so (it used to fail with INTERNAL)
    said = rt.call(s, "say", {"word": "hello"})
    assert error_code(said) == "SCRIPT_FAILED"
    assert "no folder on disk" in said["error"]["message"]


def test_skill_md_of_a_host_store_is_put_back_together() -> None:
    catalog = Catalog([Source("host", "extra", store=_store())], cache=False)
    data = catalog.skill_md_bytes("echo").data.decode()
    assert data.startswith("---\nname: echo\n") and data.endswith(BODY)
    cut = catalog.skill_md_bytes("echo", max_bytes=10, truncate=True)
    assert cut.truncated and cut.data == data.encode()[:10] and cut.size == len(data.encode())


class _KeylessStore(HostStore):
    """A host store that builds its metadata by hand, as the README of an app would:
    name, description and no folder, leaving ``key`` to its default."""

    def list_skills(self) -> list[SkillMetadata]:
        return [
            SkillMetadata(name=m.name, description=m.description, folder=None)
            for m in super().list_skills()
        ]


def test_metadata_without_a_key_is_loaded_and_read_by_its_name() -> None:
    # the catalog asked the store for skill '' (the key's default): SKILL_NOT_FOUND
    store = _KeylessStore({"echo": (SKILL_MD, {"references/guide.md": b"# Guide\n"})})
    rt = _runtime(store)
    s = rt.session()
    assert check(rt.call(s, "skills_load", {"name": "echo"}))["data"]["name"] == "echo"
    read = check(rt.call(s, "skills_read_file", {"name": "echo", "path": "references/guide.md"}))
    assert read["data"]["content"] == "# Guide\n"
