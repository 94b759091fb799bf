"""Built-in domain packs: one folder each, holding domain.yaml and whatever its source reads."""
