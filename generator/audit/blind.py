"""A blind classifier: the label guessed from the statement's wording alone.

TF-IDF of word 1–2 grams and a logistic regression, cross-validated over the audit's folds
(grouped by item: an item's three statements are always in the same fold). The TF-IDF vectors
are not length-normalised, so a word that gives the label away weighs the same in a long
statement as in a short one.
"""

from __future__ import annotations

from collections.abc import Sequence

from hopvista.audit.data import AuditItem
from hopvista.audit.solvers import Answer, Predictions

#: An n-gram must occur in this many training statements to be a feature (one that occurs
#: once can only memorise its statement).
MIN_DF = 2


def solve_blind(items: Sequence[AuditItem]) -> Predictions:
    """Each statement's label predicted from its text by a model of the other folds."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    predictions: Predictions = [[] for _ in items]
    for fold in sorted({item.fold for item in items}):
        train = [s for item in items if item.fold != fold for s in item.statements]
        labels = [bool(s["label"]) for s in train]
        test = [i for i, item in enumerate(items) if item.fold == fold]
        if len(set(labels)) < 2:
            for i in test:
                predictions[i] = [Answer(labels[0] if labels else False, prior=True)] * len(
                    items[i].statements)
            continue
        vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=MIN_DF,
                                     norm=None)
        try:
            features = vectorizer.fit_transform([s["text"] for s in train])
        except ValueError:  # no n-gram occurs twice: nothing to learn from the wording
            majority = 2 * sum(labels) > len(labels)
            for i in test:
                predictions[i] = [Answer(majority, prior=True)] * len(items[i].statements)
            continue
        model = LogisticRegression(max_iter=2000)
        model.fit(features, labels)
        for i in test:
            texts = [s["text"] for s in items[i].statements]
            predictions[i] = [Answer(bool(p)) for p in model.predict(vectorizer.transform(texts))]
    return predictions
