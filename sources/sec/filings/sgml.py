"""10-K filings: SGML full submissions (header fields, the main document)."""

from __future__ import annotations

import re
from pathlib import Path

from hopvista.sources.sec.model import FilingError

FORM_TYPES = frozenset({"10-K", "10-K405", "10-K/A", "10-K405/A", "10-KT", "10-KT/A"})

_SGML_START = re.compile(r"^\s*(?:-----BEGIN PRIVACY-ENHANCED MESSAGE-----|<SEC-DOCUMENT>|"
                         r"<SEC-HEADER>|<IMS-HEADER>|<DOCUMENT>)")
_DOCUMENT = re.compile(r"<DOCUMENT>(.*?)(?:</DOCUMENT>|(?=<DOCUMENT>)|\Z)", re.S)
_TYPE = re.compile(r"^\s*<TYPE>[ \t]*([^\s<]+)", re.M)
_TEXT = re.compile(r"<TEXT>(.*?)</TEXT>", re.S | re.I)
_HEADER_FIELD = re.compile(r"^[ \t]*([A-Z][A-Z0-9 ()&/-]*?):[ \t]*(\S[^\r\n]*?)[ \t]*\r?$", re.M)


def is_sgml(text: str) -> bool:
    """Whether ``text`` is an SGML full submission (not a bare HTML document)."""
    return bool(_SGML_START.match(text[:4096]))


def sgml_header(text: str) -> dict[str, str]:
    """First value of each ``KEY: value`` line of the SEC-HEADER (or IMS-HEADER)."""
    end = text.find("<DOCUMENT>")
    head = text[: end if end >= 0 else 20000]
    fields: dict[str, str] = {}
    for key, value in _HEADER_FIELD.findall(head):
        fields.setdefault(key.strip(), value.strip())
    return fields


def sgml_main_document(path: Path, text: str) -> tuple[str, str]:
    """(form type, <TEXT> content) of the submission's 10-K document."""
    if "<DOCUMENT>" not in text:
        raise FilingError(f"{path}: SGML submission without any <DOCUMENT>")
    if text.count("<DOCUMENT>") != text.count("</DOCUMENT>"):
        raise FilingError(f"{path}: malformed SGML (unbalanced <DOCUMENT>/</DOCUMENT>)")
    types: list[str] = []
    for match in _DOCUMENT.finditer(text):
        doc = match.group(1)
        type_match = _TYPE.search(doc)
        form = type_match.group(1).upper() if type_match else ""
        types.append(form or "?")
        if form not in FORM_TYPES:
            continue
        text_match = _TEXT.search(doc)
        if text_match is None:
            raise FilingError(f"{path}: malformed SGML ({form} document without <TEXT>…</TEXT>)")
        body = text_match.group(1)
        body = re.sub(r"</?(?:XBRL|XML)>", "", body, flags=re.I)
        if not body.strip():
            raise FilingError(f"{path}: {form} document has empty <TEXT>")
        return form, body
    raise FilingError(f"{path}: no 10-K document among the submission's documents "
                      f"({', '.join(types)})")


def looks_like_html(body: str) -> bool:
    """Whether a submission's document is HTML (else plain text, as older filings are)."""
    return bool(re.search(r"<(?:html|body|p|div|table|font|br)\b", body[:200000], re.I))
