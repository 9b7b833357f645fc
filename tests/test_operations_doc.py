"""docs/operations.md agrees with the source: every environment variable of agentops/settings.py
and the launcher is in its reference with a description, the reference and the registry section
are what `python -m scripts.settings_doc --write` makes, and the guide is linked from README.md."""

import re
import subprocess
import sys

from scripts import settings_doc

DOC = settings_doc.DOC.read_text(encoding="utf-8")
# A second, cruder reader of the settings module than the script's AST walk: any quoted upper-case
# name handed to an environment read.
_READ = re.compile(
    r"""(?:environ\.get|\benv\.get|env_bool|env_list|getenv)\(\s*["']([A-Z][A-Z0-9_]*)["']"""
    r"""|environ\[\s*["']([A-Z][A-Z0-9_]*)["']\s*\]"""
)


def _section(begin: str, end: str) -> str:
    return DOC.split(begin, 1)[1].split(end, 1)[0]


def _documented() -> set[str]:
    section = _section(settings_doc.BEGIN, settings_doc.END)
    return set(re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", section, re.M))


def test_every_variable_the_settings_read_is_documented():
    names = {
        a or b
        for a, b in _READ.findall(settings_doc.SETTINGS.read_text(encoding="utf-8"))
    }
    assert len(names) > 40  # the crude reader does find them
    assert sorted(names - _documented()) == [], (
        "missing from docs/operations.md: python -m scripts.settings_doc --write"
    )


def test_every_variable_the_launcher_and_commands_read_is_documented():
    names = set()
    for path in settings_doc.PROCESS_SOURCES:
        names |= {a or b for a, b in _READ.findall(path.read_text(encoding="utf-8"))}
    assert {"AGENTOPS_DATA_DIR", "WORKER_CONCURRENCY"} <= names
    assert sorted(names - _documented()) == []


def test_the_generated_sections_are_up_to_date():
    assert settings_doc.updated_doc(DOC) == DOC, (
        "docs/operations.md is out of date: python -m scripts.settings_doc --write"
    )
    result = subprocess.run(
        [sys.executable, "-m", "scripts.settings_doc", "--check"],
        cwd=settings_doc.ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_every_variable_has_a_description():
    assert settings_doc.undescribed() == [], (
        "write a comment above it in agentops/settings.py, or a note in scripts/settings_doc.py"
    )
    # A row's note may be empty only in a table under a group comment (the paragraph before it).
    chunks = _section(settings_doc.BEGIN, settings_doc.END).strip().split("\n\n")
    tables = 0
    for index, chunk in enumerate(chunks):
        if not chunk.startswith("| Variable"):
            continue
        tables += 1
        notes = re.findall(r"^\| `[A-Z0-9_]+` \|[^|]*\|[^|]*\|(.*)\|$", chunk, re.M)
        if not all(note.strip() for note in notes):
            assert index > 0 and not chunks[index - 1].startswith("|"), chunk
    assert tables > 10


def test_the_reader_finds_every_form_of_read():
    source = """
import os
# Group comment.
A = int(os.environ.get("A_INT", "3"))
B = env_bool("B_BOOL", default=True)
C = env_list("C_LIST", "x,y")
D = os.environ.get("D_OR") or str(BASE_DIR / "var" / "d")

E = {
    "opts": {
        # Its own comment.
        "e": os.environ.get("E_NESTED") or None,
    }
}
F = float(os.environ.get("F_EXPR", str(1 << 20)))
G = os.environ["G_REQUIRED"]
"""
    groups = settings_doc.settings_groups(source)
    found = {v.name: v for g in groups for v in g.variables}
    assert list(found) == [
        "A_INT",
        "B_BOOL",
        "C_LIST",
        "D_OR",
        "E_NESTED",
        "F_EXPR",
        "G_REQUIRED",
    ]
    assert (found["A_INT"].type, found["A_INT"].default) == ("int", "3")
    assert (found["B_BOOL"].type, found["B_BOOL"].default) == ("bool", "on")
    assert (found["C_LIST"].type, found["C_LIST"].default) == ("list", "x,y")
    assert found["D_OR"].default == "BASE_DIR/var/d"
    assert found["E_NESTED"].own_comment == "Its own comment."
    assert (found["F_EXPR"].type, found["F_EXPR"].default) == ("float", "1048576")
    assert found["G_REQUIRED"].default == "(required)"
    # The comment covers the statements right below it, up to the blank line.
    assert [g.comment for g in groups] == ["Group comment.", ""]
    assert [v.name for v in groups[0].variables] == [
        "A_INT",
        "B_BOOL",
        "C_LIST",
        "D_OR",
    ]
    # Without a comment above or a note, a variable is reported; a comment of its own counts.
    missing = set(
        settings_doc.undescribed(source + 'H = os.environ.get("H_NEW", "")\n')
    )
    assert {"F_EXPR", "G_REQUIRED", "H_NEW"} <= missing
    assert not {"A_INT", "B_BOOL", "C_LIST", "D_OR", "E_NESTED"} & missing


def test_registry_section_is_the_registry_module_docstring():
    section = _section(settings_doc.REGISTRY_BEGIN, settings_doc.REGISTRY_END)
    assert "```toml" in section
    assert 'auth_env = "METRICS_MCP_TOKEN"' in section
    assert "RegistryError" in section


def test_readme_links_the_guide():
    readme = (settings_doc.ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/operations.md" in readme
