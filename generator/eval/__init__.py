"""The evaluator (``gen eval``, ``gen report``): models answer a dataset's items, the answers
are parsed and scored by each item kind's rules, and a run folder keeps what was asked, every
answer, the scores, a summary with bootstrap intervals and an HTML report.

Modules: :mod:`~hopvista.eval.prompts` (settings and prompts), :mod:`~hopvista.eval.parse`
(reading answers), :mod:`~hopvista.eval.runner` (the run), :mod:`~hopvista.eval.cache`,
:mod:`~hopvista.eval.summary`, :mod:`~hopvista.eval.error_classes` (the classes of wrong
answers, by rule and by a judge), :mod:`~hopvista.eval.compare` (paired runs),
:mod:`~hopvista.eval.report`, what keeps a run safe from what it is given
(:mod:`~hopvista.eval.paths`, :mod:`~hopvista.eval.rundir`, :mod:`~hopvista.eval.replies`,
:mod:`~hopvista.eval.clean`), and the models: :mod:`~hopvista.eval.baselines` (``random``,
``majority``, ``oracle``) and :mod:`~hopvista.eval.openai_model` (``openai:NAME``).
"""

MAX_CONCURRENCY = 256
"""The most model requests a run sends at once (one thread each)."""
