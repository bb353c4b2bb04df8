"""Compliance Research Workbench core: everything testable, no UI imports."""
