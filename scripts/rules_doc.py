"""Write the rules section of docs/engine.md from the engine's rules table (reasoning/layered/rules.py).

    python -m scripts.rules_doc          rewrite the section between the markers
    python -m scripts.rules_doc --check  exit 1 when the doc's section is not the table's

tests/reasoning/test_rules.py fails when the doc and the table disagree.
"""

import argparse
import sys
from pathlib import Path

from reasoning.layered.rules import CLASSES, RULES, Rule

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "engine.md"
BEGIN = "<!-- rules table: written by `python -m scripts.rules_doc` from reasoning/layered/rules.py -->"
END = "<!-- end of rules table -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _row(rule: Rule) -> str:
    layers = ", ".join(f"`{layer}`" for layer in rule.layers) or "—"
    classes = ", ".join(str(c) for c in rule.classes) or "—"
    return (
        f"| `{rule.id}` | {rule.stage} | {layers} | {classes} | `{rule.where}` | "
        f"{_cell(rule.statement)} |"
    )


def section() -> str:
    """The generated section: the table's rules in order, then the legend of the classes."""
    lines = [
        BEGIN,
        "",
        "| Rule | Stage | Layers | Classes | Function | Statement |",
        "| --- | --- | --- | --- | --- | --- |",
        *(_row(rule) for rule in RULES),
        "",
        "Classes (issue 21's kinds of miss): "
        + "; ".join(f"{n} {text}" for n, text in CLASSES.items())
        + ".",
        "",
        END,
    ]
    return "\n".join(lines)


def current(text: str) -> str | None:
    """The doc's section between the markers, markers included; None when they are missing."""
    if BEGIN not in text or END not in text:
        return None
    start = text.index(BEGIN)
    return text[start : text.index(END, start) + len(END)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    text = DOC.read_text(encoding="utf-8")
    found = current(text)
    if found is None:
        sys.stderr.write(f"{DOC}: the rules table's markers are missing\n")
        return 1
    if args.check:
        return 0 if found == section() else 1
    DOC.write_text(text.replace(found, section()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
