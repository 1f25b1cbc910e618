"""Python-defined skills: ``InlineSkill``, ``SkillRef`` and ``SkillsSection``.

- :class:`InlineSkill` is a skill written in Python: name, description, title, a
  ``string.Template`` body, default parameters, an ``enabled`` predicate and
  Python tools (:class:`SkillTool`). ``to_skill_md(params)`` renders a
  strict-valid SKILL.md.
- :class:`SkillRef` points at a skill folder on disk, validated when it is made
  (``SkillRefError`` with ``reason`` ``not_found``, ``not_directory``,
  ``missing_skill_md`` or ``invalid_frontmatter``).
- :class:`SkillsSection` holds both, refuses duplicate names, partitions them
  as agent frameworks do (``native_skills``: inline without tools, ``prompt_skills``:
  inline with tools, ``referenced_skills``) and

  * installs them into an isolated agent home (``install_skills``): inline
    skills without tools become ``<dir>/<name>/SKILL.md``, referenced folders
    are copied under the install rules (scripts stay executable, links inside
    become files, links leaving the skill are refused), each skill appears in
    one rename, and a ``SkillsInstalled`` event names what was written;
  * serves them to skilldeck's own runtime (``source``, ``catalog``,
    ``runtime``): inline skills are an in-memory catalog source of their own
    (kind ``inline``, above every on-disk source), so they are in the skill list, in
    search and in ``skills_load``; an inline skill's Python tools are offered
    only after the model loaded it, and its skill-list description says which tools
    loading unlocks.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.inline._errors import (
        InlineSkillsInstalled as InlineSkillsInstalled,
        SkillInstallationError as SkillInstallationError,
        SkillValidationError as SkillValidationError,
    )
    from skilldeck.inline._pytools import (
        INLINE_SOURCE as INLINE_SOURCE,
        InlineToolProvider as InlineToolProvider,
        SkillTool as SkillTool,
        ToolContext as ToolContext,
    )
    from skilldeck.inline._section import SkillSource as SkillSource, SkillsSection as SkillsSection
    from skilldeck.inline._skill import InlineSkill as InlineSkill, SkillRef as SkillRef
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "SkillInstallationError": "._errors",
        "SkillValidationError": "._errors",
        "SkillTool": "._pytools",
        "ToolContext": "._pytools",
        "SkillsSection": "._section",
        "InlineSkill": "._skill",
        "SkillRef": "._skill",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL = {
        "InlineSkillsInstalled": "._errors",
        "INLINE_SOURCE": "._pytools",
        "InlineToolProvider": "._pytools",
        "SkillSource": "._section",
    }
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
