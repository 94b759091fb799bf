"""The LLM stage of a build: paraphrases of the statements, a judge of their meaning, facts
extracted from documents (docs/llm.md). The program and the label never come from it."""
