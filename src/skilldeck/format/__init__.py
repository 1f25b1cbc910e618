"""The SKILL.md format: parsing, validation, lint, manifests and body-declared tools.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.format._frontmatter import split_frontmatter as split_frontmatter
    from skilldeck.format._invocation import (
        NO_CONTROLS as NO_CONTROLS,
        Invocation as Invocation,
        listing_description as listing_description,
        model_invocable as model_invocable,
        model_invocable_frontmatter as model_invocable_frontmatter,
    )
    from skilldeck.format._linear import (
        compile_linear as compile_linear,
        pattern_problem as pattern_problem,
    )
    from skilldeck.format._links import (
        estimate_tokens as estimate_tokens,
        linked_paths as linked_paths,
    )
    from skilldeck.format._lint import lint_skill as lint_skill
    from skilldeck.format._manifest import (
        EXTENSION_FIELDS as EXTENSION_FIELDS,
        NAME_RE as NAME_RE,
        SPEC_FIELDS as SPEC_FIELDS,
        Manifest as Manifest,
        Requirements as Requirements,
        ToolPattern as ToolPattern,
        Triggers as Triggers,
        check_name as check_name,
        is_skill_name as is_skill_name,
        parse_allowed_tools as parse_allowed_tools,
        usable_name as usable_name,
    )
    from skilldeck.format._mdtools import (
        ArgTemplate as ArgTemplate,
        CommandTemplate as CommandTemplate,
        DeclaredTool as DeclaredTool,
        Literal as Literal,
        ParamType as ParamType,
        Placeholder as Placeholder,
        ToolParameter as ToolParameter,
        parse_declared_tools as parse_declared_tools,
    )
    from skilldeck.format._scaffold import (
        RESOURCE_FOLDERS as RESOURCE_FOLDERS,
        scaffold_skill as scaffold_skill,
    )
    from skilldeck.format._skillmd import (
        DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES,
        FRONTMATTER_LIMIT as FRONTMATTER_LIMIT,
        ParsedSkillMd as ParsedSkillMd,
        cut_text as cut_text,
        parse_read as parse_read,
        parse_skill_md as parse_skill_md,
        read_limit as read_limit,
        read_skill_md as read_skill_md,
    )
    from skilldeck.format._validate import (
        ValidationReport as ValidationReport,
        find_skill_dirs as find_skill_dirs,
        locate_skill_md as locate_skill_md,
        validate_skill as validate_skill,
    )
    from skilldeck.format._yaml import prepare_yaml as prepare_yaml
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "Invocation": "._invocation",
        "model_invocable_frontmatter": "._invocation",
        "estimate_tokens": "._links",
        "lint_skill": "._lint",
        "Manifest": "._manifest",
        "NAME_RE": "._manifest",
        "Requirements": "._manifest",
        "ToolPattern": "._manifest",
        "Triggers": "._manifest",
        "check_name": "._manifest",
        "is_skill_name": "._manifest",
        "CommandTemplate": "._mdtools",
        "DeclaredTool": "._mdtools",
        "ParamType": "._mdtools",
        "ToolParameter": "._mdtools",
        "parse_declared_tools": "._mdtools",
        "RESOURCE_FOLDERS": "._scaffold",
        "scaffold_skill": "._scaffold",
        "FRONTMATTER_LIMIT": "._skillmd",
        "ParsedSkillMd": "._skillmd",
        "parse_skill_md": "._skillmd",
        "read_skill_md": "._skillmd",
        "ValidationReport": "._validate",
        "find_skill_dirs": "._validate",
        "validate_skill": "._validate",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL = {
        "split_frontmatter": "._frontmatter",
        "NO_CONTROLS": "._invocation",
        "listing_description": "._invocation",
        "model_invocable": "._invocation",
        "compile_linear": "._linear",
        "pattern_problem": "._linear",
        "linked_paths": "._links",
        "EXTENSION_FIELDS": "._manifest",
        "SPEC_FIELDS": "._manifest",
        "parse_allowed_tools": "._manifest",
        "usable_name": "._manifest",
        "ArgTemplate": "._mdtools",
        "Literal": "._mdtools",
        "Placeholder": "._mdtools",
        "DEFAULT_MAX_BYTES": "._skillmd",
        "cut_text": "._skillmd",
        "parse_read": "._skillmd",
        "read_limit": "._skillmd",
        "locate_skill_md": "._validate",
        "prepare_yaml": "._yaml",
    }
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
