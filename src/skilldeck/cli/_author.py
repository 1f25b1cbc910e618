"""Authoring commands: validate, lint, show, new."""
