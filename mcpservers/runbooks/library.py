"""Runbook library: Markdown files loaded from folders, ranked for a symptom text with BM25.

A runbook is `<slug>.md` (slug: lowercase letters, digits, dashes); its title is the first `# ` heading.
Later folders override earlier ones slug by slug, so a scenario can refine a bundled runbook.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")
_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "with",
        "we",
        "our",
        "not",
        "no",
        "do",
        "does",
        "did",
        "but",
        "if",
        "then",
        "than",
        "so",
        "when",
        "while",
        "into",
        "out",
        "up",
    ]
)
TITLE_WEIGHT = 3  # a title term counts as this many body occurrences
K1 = 1.2
B = 0.75


class RunbookError(Exception):
    """A runbook folder or file that cannot be used; the message names the path."""


def tokens(text: str) -> list[str]:
    """Lowercase word tokens without stopwords, with a plural "s" removed ("timeouts" → "timeout")."""
    out = []
    for word in _WORD.findall(text.lower()):
        if word in _STOPWORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return out


@dataclass(frozen=True)
class Runbook:
    slug: str
    title: str
    text: str
    source: str
    terms: Counter[str] = field(compare=False, repr=False, default_factory=Counter)

    @property
    def uri(self) -> str:
        return f"runbook://{self.slug}"

    @property
    def summary(self) -> str:
        """The first paragraph after the title, as a one-line description."""
        for block in self.text.split("\n\n"):
            block = block.strip()
            if block and not block.startswith("#"):
                return " ".join(block.split())[:300]
        return self.title


def load_runbook(path: Path) -> Runbook:
    slug = path.stem
    if not SLUG.match(slug):
        raise RunbookError(
            f"{path}: file name must be <slug>.md with a slug of lowercase letters, digits and dashes"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RunbookError(f"{path}: cannot read: {exc}") from exc
    title = next(
        (line[2:].strip() for line in text.splitlines() if line.startswith("# ")),
        slug.replace("-", " "),
    )
    terms = Counter(tokens(title) * TITLE_WEIGHT + tokens(text))
    return Runbook(slug=slug, title=title, text=text, source=str(path), terms=terms)


def load_folders(folders: list[Path]) -> dict[str, Runbook]:
    """slug → runbook over all folders, later folders winning.

    Raises:
        RunbookError: a folder is missing, or a file in it is unusable.
    """
    library: dict[str, Runbook] = {}
    for folder in folders:
        if not folder.is_dir():
            raise RunbookError(f"{folder}: not a directory")
        for path in sorted(folder.glob("*.md")):
            runbook = load_runbook(path)
            library[runbook.slug] = runbook
    return library


@dataclass(frozen=True)
class Match:
    runbook: Runbook
    score: float
    matched: list[str]


def search(library: dict[str, Runbook], text: str) -> list[Match]:
    """Runbooks ranked by BM25 against `text`, best first; ties broken by slug, so results are stable."""
    query = set(tokens(text))
    if not library or not query:
        return []
    docs = list(library.values())
    n = len(docs)
    avg_len = sum(sum(d.terms.values()) for d in docs) / n
    matches = []
    for doc in docs:
        length = sum(doc.terms.values())
        score = 0.0
        matched = []
        for term in sorted(query):
            tf = doc.terms.get(term, 0)
            if not tf:
                continue
            df = sum(1 for d in docs if term in d.terms)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg_len))
            matched.append(term)
        if score > 0:
            matches.append(Match(doc, score, matched))
    return sorted(matches, key=lambda m: (-m.score, m.runbook.slug))


def snippet(runbook: Runbook, matched: list[str], limit: int = 240) -> str:
    """The body line sharing most terms with the query."""
    wanted = set(matched)
    best, best_hits = "", 0
    for line in runbook.text.splitlines():
        if line.startswith("# "):
            continue
        hits = len(wanted & set(tokens(line)))
        if hits > best_hits:
            best, best_hits = line.strip(), hits
    best = best or runbook.summary
    return best if len(best) <= limit else best[: limit - 1] + "…"
