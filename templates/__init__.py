"""Built-in domain packs: one folder each, holding pack.yaml, statements.yaml and templates."""
