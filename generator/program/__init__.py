"""The program language: the ground floor every stage reads statements' programs through.

A statement's program (docs/format.md) is a selector node and a claim. This package holds what
decides its label and nothing above it: the executor (:mod:`hopvista.program.executor`), the
operator registry (:mod:`hopvista.program.operators`) and the built-in operators
(:mod:`hopvista.program.builtin`), each declaring its node's fields
(:mod:`hopvista.program.fields`, checked by :mod:`hopvista.program.schema`), the inputs it
reads and its lenient reading (:mod:`hopvista.program.lenient`); text is read as a reader sees
it (:mod:`hopvista.reading`). A plug-in's operator registers the same way.
"""
