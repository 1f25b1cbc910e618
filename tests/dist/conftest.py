"""Fixtures of the distribution tests (helpers live in ``_helpers``)."""

from tests.dist._helpers import git_repo

__all__ = ["git_repo"]
