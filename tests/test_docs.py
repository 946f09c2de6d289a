"""The user documentation: a front page of at most 12 KB, links that resolve, no notes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from collectives.study import claims

REPO = Path(__file__).resolve().parents[1]
USER_DOCS = [REPO / "README.md", REPO / "config/README.md", REPO / "profiles/slurm/README.md",
             *sorted((REPO / "docs").glob("*.md"))]  # fmt: skip
LINK = re.compile(r"\]\(([^)\s]+)\)")
DEVELOPMENT_NOTES = re.compile(r"\bissue \d|\btarget (met|missed)|\bthis session\b|\bTODO\b", re.I)


def anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings."""
    found = set()
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            text = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return found


def test_the_readme_is_a_front_page():
    assert len((REPO / "README.md").read_bytes()) <= 12_000
    text = (REPO / "README.md").read_text()
    for section in ("## Quick start", "## Extend it", "## Documentation", "## Layout"):
        assert section in text


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_link_resolves(doc):
    for target in LINK.findall(doc.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        resolved = (doc.parent / path).resolve() if path else doc
        assert resolved.exists(), f"{doc.name}: {target}"
        if anchor and resolved.suffix == ".md":
            assert anchor in anchors(resolved), f"{doc.name}: {target}"


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_user_docs_hold_no_development_notes(doc):
    assert not DEVELOPMENT_NOTES.findall(doc.read_text())


def test_every_claim_is_stated_on_a_page_and_every_marker_names_one():
    pages = {str(p.relative_to(REPO)): p.read_text() for p in [REPO / "README.md",
             *sorted((REPO / "docs").glob("*.md"))]}  # fmt: skip
    markers = claims.find_markers(pages)  # a marker naming no claim raises here
    numbers = [m for m in markers if isinstance(m, claims.Marker)]
    assert {m.name for m in numbers} == set(claims.CLAIMS)
    assert {m.name for m in markers if isinstance(m, claims.TableMarker)} == set(
        claims.TABLE_CLAIMS
    )
    for marker in numbers:  # each page's unit is one of its claim's quantity
        claims.unit_scale(claims.CLAIMS[marker.name], marker.unit, marker.page)
