"""The HTML report of one run or several side by side (a leaderboard): one self-contained
file, tables and SVG plots inline, no script, nothing fetched.

Per run: the headline figures, the plots of accuracy by difficulty, statement type, modality
order, chart library and kind, table theme and variant (each bar with its 95% interval), the
statement confusion matrix, and what failed. With several runs: a leaderboard, the same
plots with one bar per run, and each run paired with the first on the items both answered
(:mod:`hopvista.eval.compare`). Every text that comes from a dataset or a model is escaped.
"""

from __future__ import annotations

import html
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hopvista.errors import UserError
from hopvista.eval.clean import plain_text
from hopvista.eval.compare import paired
from hopvista.eval.run_files import check_results, check_run, check_summary
from hopvista.eval.rundir import RESULTS_FILE, SUMMARY_FILE
from hopvista.eval.stages import PASSED, STAGES
from hopvista.output.atomic import write_atomic
from hopvista.output.files import RUN_FILE, OutputFile, html_generator_tag, html_written_by, reason

RunData = tuple[Path, dict[str, Any], list[dict[str, Any]], dict[str, Any]]
"""A run: its folder, ``run.json``, results and summary."""

PLOTTED = (("difficulty", "Accuracy by difficulty"), ("order", "Accuracy by modality order"),
           ("chart_library", "Accuracy by chart library"),
           ("chart_kind", "Accuracy by chart kind"), ("table_theme", "Accuracy by table theme"),
           ("variant", "Accuracy by variant"), ("family", "Accuracy by markup task family"),
           ("subtask", "Accuracy by markup subtask"),
           ("archetype", "Accuracy by table archetype"),
           ("question_type", "Accuracy by question type"),
           ("reasoning", "Accuracy by reasoning type"),
           ("answer_type", "Accuracy by answer type"),
           ("visual_kind", "Accuracy by kind of picture (an item counts under each it holds)"),
           ("structure", "Accuracy by table structure"),
           ("header_levels", "Accuracy by header levels"),
           ("tables", "Accuracy by number of tables"),
           ("size", "Accuracy by table size (rows x columns)"),
           ("richness", "Accuracy by information richness"),
           ("steps", "Accuracy by reasoning steps"),
           ("skill", "Accuracy by skill (an item counts under each its statements need)"))

STYLE = """body{font-family:sans-serif;margin:2em auto;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.3em .6em;
text-align:left}th{background:#eee}.num{text-align:right}figure{margin:1.5em 0}
figcaption{font-weight:bold}code{background:#f4f4f4}"""


def read_run(folder: Path) -> RunData:
    """A finished run folder (``UserError`` naming what is missing, or the file, line and
    field the report cannot read: :mod:`hopvista.eval.run_files`)."""
    try:
        run = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
        numbered = [(number, json.loads(line)) for number, line in enumerate(
            (folder / RESULTS_FILE).read_text(encoding="utf-8").split("\n"), start=1) if line]
        summary = json.loads((folder / SUMMARY_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise UserError(f"{folder}: not a finished evaluation run (no "
                        f"{Path(str(exc.filename)).name})") from None
    except (OSError, ValueError, RecursionError) as exc:
        raise UserError(f"{folder}: cannot be read ({exc})") from None
    check_run(folder / RUN_FILE, run)
    check_results(folder / RESULTS_FILE, numbered)
    check_summary(folder / SUMMARY_FILE, summary)
    return folder, run, [result for _, result in numbered], summary


REPORT_GENERATOR = "hopvista-report"
"""The generator the report's ``<meta name="generator">`` names: the mark of a file
``gen report`` may replace."""


def report_output(path: Path, runs: Sequence[Path], flag: str = "--out") -> OutputFile:
    """The report file ``gen report`` writes at ``path`` for the run folders ``runs``: a new
    file or an earlier report, never inside a dataset or one of the runs."""
    return OutputFile(path, flag, "a hopvista report", html_written_by(REPORT_GENERATOR),
                      inputs=tuple(runs))


def write_report(runs: Sequence[RunData], path: Path | OutputFile) -> None:
    """Write the report of ``runs`` to ``path`` (atomically); an :class:`OutputFile` is
    checked first (:func:`report_output`). A write the disk refuses is a ``UserError``."""
    data = render(runs).encode()
    if isinstance(path, OutputFile):
        path.write(data)
        return
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise UserError(f"{path}: cannot write it: {reason(exc)}") from None


def _e(value: Any) -> str:
    return html.escape(plain_text("" if value is None else str(value)))


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _estimate(e: dict[str, Any] | None) -> str:
    if not e or e.get("value") is None:
        return "–"
    return f"{_pct(e['value'])} [{_pct(e['low'])}, {_pct(e['high'])}] (n={e['n']})"


def _label(data: RunData) -> str:
    run = data[1]
    shown = "".join(f" · {run[k]}" for k in ("protocol", "strategy", "table_format")
                    if run.get(k))
    return f"{run.get('model')} · {run.get('setting')}{shown}"


def render(runs: Sequence[RunData]) -> str:
    """The report's HTML."""
    title = "hopvista evaluation" + ("" if len(runs) == 1 else f": {len(runs)} runs")
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"{html_generator_tag(REPORT_GENERATOR)}"
             f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{_e(title)}</h1>", _leaderboard(runs)]
    if len(runs) > 1:
        parts.append(_pairs(runs))
        parts.append(_chart_reading(runs))
    for facet, caption in PLOTTED:
        parts.append(_facet_plot(runs, facet, caption))
    parts.append(_type_plot(runs))
    parts.append(_stages_section(runs))
    for data in runs:
        parts.append(_details(data))
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p)


def _leaderboard(runs: Sequence[RunData]) -> str:
    rows = []
    order = sorted(runs, key=lambda d: -(d[3]["accuracy"].get("value") or 0.0))
    for data in order:
        s = data[3]
        st = s.get("statements") or {}
        cost = "–" if s.get("cost") is None else f"${s['cost']:.4f}"
        rows.append(
            f"<tr><td>{_e(data[1].get('model'))}</td><td>{_e(data[1].get('setting'))}</td>"
            f"<td>{_e(data[1].get('dataset', {}).get('domain'))}</td>"
            f"<td class='num'>{_estimate(s['accuracy'])}</td>"
            f"<td class='num'>{_estimate(st.get('accuracy'))}</td>"
            f"<td class='num'>{s['answered']}/{s['items']}</td>"
            f"<td class='num'>{s['errors']}</td><td class='num'>{s['unparseable']}</td>"
            f"<td class='num'>{cost}</td>"
            f"<td>{_e(data[0].name)}</td></tr>")
    return ("<h2>Runs</h2><table><tr><th>model</th><th>setting</th><th>domain</th>"
            "<th>accuracy (95% CI)</th><th>statement accuracy</th><th>answered</th>"
            "<th>errors</th><th>unparseable</th><th>cost</th><th>folder</th></tr>"
            + "".join(rows) + "</table>")


def _pairs(runs: Sequence[RunData]) -> str:
    rows = []
    first = runs[0]
    for other in runs[1:]:
        p = paired(first[2], other[2])
        if p is None:
            rows.append(f"<tr><td>{_e(_label(other))}</td><td colspan='5'>no common answered "
                        "item</td></tr>")
            continue
        rows.append(
            f"<tr><td>{_e(_label(other))}</td><td class='num'>{p['items']}</td>"
            f"<td class='num'>{_pct(p['first'])} → {_pct(p['second'])}</td>"
            f"<td class='num'>{100 * p['difference']:+.1f} points "
            f"[{100 * p['low']:+.1f}, {100 * p['high']:+.1f}]</td>"
            f"<td class='num'>{p['only_first']} / {p['only_second']}</td>"
            f"<td class='num'>{p['p_value']:.3g}</td></tr>")
    return (f"<h2>Paired with {_e(_label(first))}</h2><p>On the items both runs answered: "
            "the difference in accuracy with its paired bootstrap 95% interval, the items "
            "only one of the two gets right, and McNemar's exact p-value.</p><table><tr>"
            "<th>run</th><th>items</th><th>accuracy</th><th>difference</th>"
            "<th>right only in first / only in this</th><th>p</th></tr>"
            + "".join(rows) + "</table>")


def _chart_reading(runs: Sequence[RunData]) -> str:
    """Each ``chart-derendered`` run beside a ``chart-as-table`` run (of the same model when
    there is one): the chart as read against its exact data, paired on the items both
    answered; empty unless the runs have both settings."""
    exact = [d for d in runs if d[1].get("setting") == "chart-as-table"]
    read = [d for d in runs if d[1].get("setting") == "chart-derendered"]
    if not exact or not read:
        return ""
    rows = []
    for data in read:
        upper = next((d for d in exact if d[1].get("model") == data[1].get("model")), exact[0])
        reading = data[3].get("derendered") or {}
        p = paired(upper[2], data[2])
        difference = "no common answered item" if p is None else (
            f"{100 * p['difference']:+.1f} points [{100 * p['low']:+.1f}, "
            f"{100 * p['high']:+.1f}] on {p['items']} items")
        rows.append(
            f"<tr><td>{_e(data[1].get('model'))}</td><td>{_e(reading.get('by'))}</td>"
            f"<td class='num'>{_estimate(upper[3]['accuracy'])}</td>"
            f"<td class='num'>{_estimate(data[3]['accuracy'])}</td>"
            f"<td class='num'>{_e(difference)}</td>"
            f"<td class='num'>{reading.get('read', 0)}/{reading.get('values', 0)} "
            f"({_pct(reading.get('share'))})</td></tr>")
    return ("<h2>The chart as read beside its exact data</h2><p><code>chart-as-table</code> "
            "gives the chart's exact data: the upper bound of any chart-to-table reader. "
            "<code>chart-derendered</code> gives the table a derenderer read from the chart "
            "image (<code>ocr</code>: the chart's words only). The difference is what reading "
            "the chart costs; values read are the chart's points the readings hold.</p>"
            "<table><tr><th>model</th><th>derenderer</th><th>exact data (chart-as-table)</th>"
            "<th>as read (chart-derendered)</th><th>difference, paired</th>"
            "<th>chart values read</th></tr>" + "".join(rows) + "</table>")


def _readings_table(results: Sequence[dict[str, Any]], reading: dict[str, Any]) -> str:
    """A ``chart-derendered`` run's readings: the totals, and the items whose chart was
    read worst (a failed reading first)."""
    records = [(r["id"], r["derendered"]) for r in results
               if isinstance(r.get("derendered"), dict)]
    worst = sorted(((i, d) for i, d in records
                    if d.get("read") is None or d.get("read") != d.get("values")),
                   key=lambda x: (x[1].get("read") is not None,
                                  (x[1].get("read") or 0) / (x[1].get("values") or 1)))[:20]
    cost = "–" if reading.get("cost") is None else f"${reading['cost']:.4f}"
    return (f"<h3>Chart readings ({_e(reading['by'])})</h3><p>{reading['charts']} charts read, "
            f"{reading['failed']} failed; {reading['read']} of their {reading['values']} "
            f"values read ({_pct(reading['share'])}); cost {cost}.</p>"
            + ("<table><tr><th>item</th><th>values read</th></tr>" + "".join(
                f"<tr><td>{_e(i)}</td><td class='num'>"
                f"{'failed' if d.get('read') is None else _e(d['read'])}/"
                f"{_e(d.get('values'))}</td></tr>" for i, d in worst) + "</table>"
               if worst else ""))


def _bars(title: str, groups: list[str], series: list[tuple[str, list[dict[str, Any] | None]]],
          salt: str, ylabel: str = "accuracy (%)") -> str:
    """A bar plot (one bar per run in each group, 95% whiskers) as inline SVG."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"svg.hashsalt": salt, "svg.fonttype": "none"}):
        width = max(5.0, 0.5 + 0.45 * len(groups) * max(1, len(series)))
        width += 2.5 if len(series) > 1 else 0.0
        fig = Figure(figsize=(min(width, 14.0), 3.2))
        ax = fig.add_subplot()
        step = 0.8 / max(1, len(series))
        for k, (name, values) in enumerate(series):
            xs = [i - 0.4 + step * (k + 0.5) for i in range(len(groups))]
            ys = [100 * (v["value"] or 0.0) if v and v.get("value") is not None else 0.0
                  for v in values]
            low = [max(0.0, y - 100 * (v["low"] or 0.0)) if v and v.get("low") is not None
                   else 0.0 for y, v in zip(ys, values, strict=True)]
            high = [max(0.0, 100 * (v["high"] or 0.0) - y) if v and v.get("high") is not None
                    else 0.0 for y, v in zip(ys, values, strict=True)]
            ax.bar(xs, ys, width=step * 0.9, label=name, yerr=[low, high], capsize=2)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups, rotation=30 if len(groups) > 4 else 0, ha="right"
                           if len(groups) > 4 else "center", fontsize=8)
        ax.set_ylim(0, 100)
        ax.set_ylabel(ylabel)
        if len(series) > 1:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        fig.tight_layout()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    return svg[svg.index("<svg"):]


LEVEL_ORDER = {"easy": 0, "medium": 1, "hard": 2}


def _facet_plot(runs: Sequence[RunData], facet: str, caption: str) -> str:
    groups = sorted({g for d in runs for g in d[3]["by"].get(facet, {})},
                    key=lambda g: (LEVEL_ORDER.get(g, 9), g))
    if not groups or (len(groups) < 2 and facet != "difficulty"):
        return ""
    series = [(_label(d), [d[3]["by"].get(facet, {}).get(g) for g in groups]) for d in runs]
    return (f"<figure class='plot' data-facet='{_e(facet)}'>"
            f"{_bars(caption, groups, series, facet)}"
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _type_plot(runs: Sequence[RunData]) -> str:
    groups = sorted({t for d in runs for t in (d[3].get("statements") or {}).get("by_type", {})})
    if not groups:
        return ""
    series = [(_label(d), [(d[3].get("statements") or {}).get("by_type", {}).get(g)
                           for g in groups]) for d in runs]
    caption = "Statement accuracy by statement type"
    return (f"<figure class='plot' data-facet='statement_type'>"
            f"{_bars(caption, groups, series, 'statement_type')}"
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _stages_section(runs: Sequence[RunData]) -> str:
    """FCMR's Figure 22 for the runs graded by the stage protocol: per run, the share of
    statements first failing at each stage, by modality (a plot) and by level and modality (a
    table); with several such runs, a plot of every modality together, one bar per run."""
    graded = [d for d in runs if d[3].get("stages")]
    if not graded:
        return ""
    stages = [*STAGES, PASSED]
    parts = ["<h2>Stages (--protocol stages)</h2><p>Where each statement first failed: "
             "planning (a value the program reads not named), identification (a value's "
             "modality wrong), retrieval (a value misread), reasoning (a conclusion that does "
             "not follow from the values read), or passed every stage. Shares of the "
             "statements that read each modality.</p>"]
    if len(graded) > 1:
        series = [(_label(d), [_share(d[3]["stages"]["first_failure"], stage)
                               for stage in stages]) for d in graded]
        caption = "First failing stage, every modality"
        parts.append(f"<figure class='plot' data-facet='stages'>"
                     f"{_bars(caption, stages, series, 'stages', 'statements (%)')}"
                     f"<figcaption>{_e(caption)}</figcaption></figure>")
    for number, data in enumerate(graded, start=1):
        parts.append(_stages_of_run(data, stages, f"stages-{number}"))
    return "\n".join(parts)


def _share(counts: dict[str, int], stage: str) -> dict[str, Any] | None:
    return {"value": _fraction(counts, stage), "low": None, "high": None,
            "n": sum(counts.values())}


def _fraction(counts: dict[str, int], stage: str) -> float | None:
    total = sum(counts.values())
    return counts[stage] / total if total else None


def _stages_of_run(data: RunData, stages: list[str], name: str) -> str:
    figures = data[3]["stages"]
    modalities = list(figures["by_modality"])
    caption = f"First failing stage by modality: {_label(data)}"
    series = [(m, [_share(figures["by_modality"][m], st) for st in stages])
              for m in modalities]
    plot = "" if not modalities else (
        f"<figure class='plot' data-facet='{name}'>"
        f"{_bars(caption, stages, series, name, 'statements (%)')}"
        f"<figcaption>{_e(caption)}</figcaption></figure>")
    rows = []
    for level, group in [("all", figures), *figures["by_level"].items()]:
        for modality, counts in [("all", group["first_failure"]),
                                 *group["by_modality"].items()]:
            rows.append(f"<tr><td>{_e(level)}</td><td>{_e(modality)}</td>"
                        f"<td class='num'>{sum(counts.values())}</td>" + "".join(
                            f"<td class='num'>{_pct(_fraction(counts, st))}</td>"
                            for st in stages) + "</tr>")
    head = "".join(f"<th>{_e(st)}</th>" for st in stages)
    return (f"<h3>Stages: {_e(_label(data))}</h3>{plot}<table class='stages'><tr>"
            f"<th>level</th><th>modality</th><th>statements</th>{head}</tr>"
            + "".join(rows) + "</table>")


def _markup_table(markup: dict[str, Any]) -> str:
    """Markup variants and markup-task families: accuracy and the classes of the failures."""
    rows = [(name, v) for name, v in markup.items() if name != "families"]
    rows += [(name, v) for name, v in (markup.get("families") or {}).items()]
    classes = sorted({c for _, v in rows for c in v["failures"]})
    head = "".join(f"<th>{_e(c)}</th>" for c in classes)
    return ("<h3>Markup</h3><table><tr><th>variant or family</th><th>items</th>"
            f"<th>accuracy</th>{head}</tr>" + "".join(
                f"<tr><td>{_e(name)}</td><td class='num'>{v['items']}</td>"
                f"<td class='num'>{_pct(v['accuracy'])}</td>" + "".join(
                    f"<td class='num'>{v['failures'].get(c, 0)}</td>" for c in classes)
                + "</tr>" for name, v in rows) + "</table>")


def _error_tables(errors: dict[str, Any]) -> str:
    """The error classes of the wrong answers (FCMR's and MMTabReal's), the judge, and the
    error rate of each modality per level (FCMR's Table 4)."""
    wrong = errors["wrong"]
    judge = errors.get("judge")
    said = (f"<p>{wrong} wrong answers: {errors['by_rule']} classified by rule, "
            f"{errors['by_judge']} by the judge, {errors['unclassified']} unclassified; "
            f"{errors['unknown']} say the answer is unknown "
            f"({_pct(errors['unknown_rate'])} of the answered items).</p>")
    if judge:
        cost = "no cost known" if judge["cost"] is None else f"${judge['cost']:.4f}"
        said += (f"<p>Judge <code>{_e(judge['model'])}</code>: {judge['asked']} asked "
                 f"({judge['cached']} from the cache), {judge['unreadable']} replies it could "
                 f"not read; tokens {judge['tokens']['input']} in, "
                 f"{judge['tokens']['output']} out; {cost}.</p>")
    rows = []
    for taxonomy, title in (("fcmr", "FCMR"), ("mmtabreal", "MMTabReal")):
        for name, count in errors[taxonomy].items():
            share = _pct(count / wrong) if wrong else "–"
            rows.append(f"<tr><td>{title}</td><td>{_e(name)}</td><td class='num'>{count}</td>"
                        f"<td class='num'>{share}</td></tr>")
    classes = ("<table><tr><th>taxonomy</th><th>class</th><th>wrong answers</th>"
               "<th>share</th></tr>" + "".join(rows) + "</table>")
    modal = []
    for level, cells in sorted(errors["by_modality"].items(),
                               key=lambda kv: (LEVEL_ORDER.get(kv[0], 9), kv[0])):
        for modality, c in cells.items():
            modal.append(f"<tr><td>{_e(level)}</td><td>{_e(modality)}</td>"
                         f"<td class='num'>{c['wrong']}/{c['statements']}</td>"
                         f"<td class='num'>{_pct(c['rate'])}</td>"
                         f"<td class='num'>{c['attributed']}</td></tr>")
    by_modality = ("<h4>Error rate by modality (FCMR Table 4)</h4><p>Statements that read "
                   "each modality and those judged wrong (a wrong statement counts under "
                   "every modality it reads); attributed: those whose first failing stage "
                   "lies in it (the stage protocol).</p><table><tr><th>level</th>"
                   "<th>modality</th><th>wrong</th><th>error rate</th><th>attributed</th>"
                   "</tr>" + "".join(modal) + "</table>") if modal else ""
    return "<h3>Error classes</h3>" + said + classes + by_modality


def _time_taken(seconds: dict[str, Any]) -> str:
    """The time answers took (a person's: ``--model human``)."""
    return (f"<p>Time per item: median {seconds['median']:.1f} s, mean {seconds['mean']:.1f} s"
            f" ({seconds['items']} items timed, {seconds['total'] / 60:.1f} minutes in all)."
            "</p>")


def _details(data: RunData) -> str:
    folder, run, results, s = data
    parts = [f"<h2>{_e(_label(data))}</h2><p>Dataset <code>{_e(run['dataset']['path'])}</code>,"
             f" {s['items']} items; {s['answered']} answered, {s['errors']} errors, "
             f"{s['unparseable']} unparseable; {s['cached']} from the cache. Tokens: "
             f"{s['tokens']['input']} in, {s['tokens']['output']} out.</p>"]
    if s.get("seconds"):
        parts.append(_time_taken(s["seconds"]))
    if s.get("metrics"):
        parts.append("<table><tr><th>metric</th><th>value (95% CI)</th></tr>" + "".join(
            f"<tr><td>{_e(m)}</td><td class='num'>{_estimate(e)}</td></tr>"
            for m, e in s["metrics"].items()) + "</table>")
    st = s.get("statements")
    if st:
        c = st["confusion"]
        parts.append(
            "<h3>Statements (true is positive)</h3><table><tr><th></th><th>predicted true</th>"
            f"<th>predicted false</th></tr><tr><th>true</th><td class='num'>{c['tp']}</td>"
            f"<td class='num'>{c['fn']}</td></tr><tr><th>false</th><td class='num'>{c['fp']}"
            f"</td><td class='num'>{c['tn']}</td></tr></table><p>Precision "
            f"{_pct(st['precision'])}, recall {_pct(st['recall'])}, F1 {_pct(st['f1'])}; "
            f"{c['unanswered']} statements of unparseable answers.</p>")
    if s.get("variants"):
        v = s["variants"]
        parts.append(f"<h3>Variants</h3><p>{v['bases']} base items with several variants; "
                     f"the same answer on all of them for {_pct(v['consistency'])}.</p>"
                     "<table><tr><th>variant</th><th>bases</th><th>base accuracy</th>"
                     "<th>accuracy</th><th>drop</th></tr>" + "".join(
                         f"<tr><td>{_e(n)}</td><td class='num'>{d['bases']}</td>"
                         f"<td class='num'>{_pct(d['base_accuracy'])}</td>"
                         f"<td class='num'>{_pct(d['accuracy'])}</td>"
                         f"<td class='num'>{100 * d['drop']:+.1f}</td></tr>"
                         for n, d in v["drop"].items()) + "</table>")
    if s.get("markup"):
        parts.append(_markup_table(s["markup"]))
    if s.get("error_classes"):
        parts.append(_error_tables(s["error_classes"]))
    if s.get("derendered"):
        parts.append(_readings_table(results, s["derendered"]))
    failed = [r for r in results if r["error"] is not None][:20]
    if failed:
        parts.append("<h3>Errors</h3><table><tr><th>item</th><th>error</th></tr>" + "".join(
            f"<tr><td>{_e(r['id'])}</td><td>{_e(r['error'])}</td></tr>" for r in failed)
            + "</table>")
    return "\n".join(parts)
