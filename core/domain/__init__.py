"""Value types and pure rules, imported by every layer above and importing none of them: documents and their
status groups, the research plan, the typed answer, deficiencies and their lifecycle, the checkpointed records,
figures and dates, the gazetteer, quality, the audit chain, the bounds and checks on what a person submits, and
the safe readers of untrusted JSON, YAML and Markdown."""
