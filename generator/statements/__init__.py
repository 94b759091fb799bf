"""hopvista."""
