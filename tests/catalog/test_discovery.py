"""Discovery: immediate vs recursive roots, odd roots, names, lowercase skill.md."""

from __future__ import annotations

from pathlib import Path

import skilldeck.catalog
from skilldeck import Catalog, FileSystemStore, SkillStatus, Source

from .conftest import MakeSkill


def _names(catalog: Catalog) -> list[str]:
    return [m.name for m in catalog.list()]


def test_immediate_root_finds_direct_children_only(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "skills"
    make_skill(root, "alpha")
    make_skill(root, "beta")
    make_skill(root / "group", "deep")  # two levels down
    outer = make_skill(root, "outer")
    make_skill(outer / "nested", "inner")  # a skill inside a skill
    (root / ".hidden").mkdir()
    make_skill(root / ".hidden", "secret")
    cat = Catalog([Source.of("agents", "user", [root])])  # an agent's skills folder
    assert _names(cat) == ["alpha", "beta", "outer"]
    # a folder the user names (--root) may be a repository: category folders are
    # searched, a skill's own folders and hidden ones are not
    assert _names(Catalog.from_roots([root])) == ["alpha", "beta", "deep", "outer"]


def test_recursive_root_finds_nested_skills(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "skills"
    make_skill(root, "alpha")
    make_skill(root / "group", "deep")
    outer = make_skill(root, "outer")
    make_skill(outer / "nested", "inner")
    make_skill(root / "node_modules" / "pkg", "vendored")
    cat = Catalog.from_roots([root], recursive=True)
    assert _names(cat) == ["alpha", "deep", "inner", "outer"]
    deep = cat.get("deep")
    assert deep.path == root / "group" / "deep"
    assert deep.metadata.skill_md == root / "group" / "deep" / "SKILL.md"


def test_root_that_is_a_skill(tmp_path: Path, make_skill: MakeSkill) -> None:
    skill = make_skill(tmp_path, "solo")
    make_skill(skill / "scripts", "not-a-child-skill")
    assert _names(Catalog.from_roots([skill])) == ["solo"]


def test_missing_root_is_fine_file_root_is_a_diagnostic(tmp_path: Path) -> None:
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    cat = Catalog.from_roots([tmp_path / "missing", afile])
    assert cat.list() == []
    codes = [d.code for d in cat.diagnostics]
    assert codes == ["SK501"]
    assert cat.diagnostics[0].path == str(afile)
    infos = {r.path.name: r.exists for r in cat.roots}
    assert infos == {"missing": False, "file.txt": False}


def test_unreadable_root_is_a_diagnostic(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)  # stat fails with ELOOP, whoever runs the test
    cat = Catalog.from_roots([loop])
    assert cat.list() == []
    assert [d.code for d in cat.diagnostics] == ["SK502"]
    assert "cannot read skills root" in cat.diagnostics[0].message


def test_name_comes_from_frontmatter_not_folder(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "r"
    make_skill(root, "declared", folder="folder-name")
    cat = Catalog.from_roots([root])
    assert _names(cat) == ["declared"]
    entry = cat.get("declared")
    assert any(d.code == "SK204" for d in entry.diagnostics)  # name differs from folder


def test_invalid_skill_is_listed_with_status(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "r"
    make_skill(root, "broken", raw="no frontmatter at all\n")
    make_skill(root, "fine")
    cat = Catalog.from_roots([root])
    assert _names(cat) == ["fine"]
    broken = cat.get("broken")  # addressed by folder name when no manifest
    assert broken.status is SkillStatus.INVALID
    assert broken.reason and "SK101" in broken.reason


def test_lowercase_skill_md_is_found_with_a_warning(tmp_path: Path) -> None:
    skill = tmp_path / "r" / "lower"
    skill.mkdir(parents=True)
    (skill / "skill.md").write_text("---\nname: lower\ndescription: Lowercase file.\n---\nBody\n")
    cat = Catalog.from_roots([tmp_path / "r"])
    entry = cat.get("lower")
    assert entry.status is SkillStatus.ENABLED
    assert any(d.code == "SK215" for d in entry.diagnostics)


def test_depth_limit_reports_sk507(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "r"
    deep = root
    for i in range(4):
        deep = deep / f"l{i}"
    make_skill(deep, "bottom")
    store = FileSystemStore(root, recursive=True, max_depth=2)
    found = store.discover()
    assert found.skills == ()
    assert [d.code for d in found.diagnostics] == ["SK507"]
    assert [m.name for m in FileSystemStore(root, recursive=True).list_skills()] == ["bottom"]


def test_skill_md_that_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / "r" / "odd" / "SKILL.md").mkdir(parents=True)
    cat = Catalog.from_roots([tmp_path / "r"])
    assert cat.list() == []
    assert cat.diagnostics == ()
    (entry,) = cat.entries()  # a candidate with the error validate gives
    assert "SK113" in [d.code for d in entry.diagnostics]


class _DiscoveringStore(skilldeck.catalog.StoreBase):
    """A host's store that overrides ``StoreBase.discover`` to report diagnostics."""

    def __init__(self, inner: FileSystemStore) -> None:
        self.inner = inner

    def discover(self, *, refresh: bool = False) -> skilldeck.catalog.Discovery:
        return self.inner.discover(refresh=refresh)

    def list_skills(self) -> list[skilldeck.catalog.SkillMetadata]:
        raise AssertionError("the catalog uses discover()")

    def load_skill(self, name: str, *, max_bytes: int | None = None) -> skilldeck.catalog.Skill:
        return self.inner.load_skill(name, max_bytes=max_bytes)

    def read_file(self, name: str, relpath: str, *, max_bytes: int = 200_000) -> bytes:
        return self.inner.read_file(name, relpath, max_bytes=max_bytes)


def test_a_store_overriding_discover_reports_its_diagnostics(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    make_skill(tmp_path / "r", "older")
    make_skill(tmp_path / "r" / "a" / "b" / "c", "too-deep")
    inner = FileSystemStore(tmp_path / "r", recursive=True, max_depth=2)
    cat = Catalog([skilldeck.catalog.Source("host", "extra", store=_DiscoveringStore(inner))])
    assert _names(cat) == ["older"]
    assert [d.code for d in cat.diagnostics] == ["SK507"]
