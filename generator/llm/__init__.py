"""The LLM stage: steps of a build that ask a language model, and check what it answers."""
