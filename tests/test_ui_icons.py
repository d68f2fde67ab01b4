"""No emoji in what the dashboard writes: an emoji is drawn with the browser's fonts, and where none
has it (no emoji font: a bare Linux desktop, this machine's Chromium) it shows as an empty box. Icons
are Streamlit's Material icons (``:material/…:``, a font Streamlit ships), a text symbol every common
font has (→ ✓ ✗ ⚠ ℹ), or the tab's SVG (``ui.layout.PAGE_ICON``). Read from the source with ``ast``:
every string constant of ``app.py``, ``pages/`` and ``ui/``. In Chromium: the screenshots of
``tests/test_e2e_narrow_nav.py`` and the other browser tests."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Emoji a browser draws in colour by default (Unicode's Emoji_Presentation: the pictographs from
#: U+1F000, and these in the BMP), the media symbols (⏩ … ⏺, in no common text font) and the emoji
#: variation selector U+FE0F.
_BMP_EMOJI = {0x231A, 0x231B, *range(0x23E9, 0x23FB), 0x25FD, 0x25FE, 0x2614, 0x2615, *range(0x2648, 0x2654), 0x267F,
              0x2693, 0x26A1, 0x26AA, 0x26AB, 0x26BD, 0x26BE, 0x26C4, 0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2,
              0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705, 0x270A, 0x270B, 0x2728, 0x274C, 0x274E, 0x2753, 0x2754,
              0x2755, 0x2757, 0x2795, 0x2796, 0x2797, 0x27B0, 0x27BF, 0x2B1B, 0x2B1C, 0x2B50, 0x2B55, 0xFE0F}


def is_emoji(ch: str) -> bool:
    cp = ord(ch)
    return 0x1F000 <= cp <= 0x1FAFF or cp in _BMP_EMOJI


def emoji_in_source(path: Path) -> list[str]:
    """``file:line: 'text'`` of each string constant of ``path`` holding an emoji."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    return [f"{name}:{node.lineno}: {node.value[:60]!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and any(map(is_emoji, node.value))]


def test_the_dashboard_writes_no_emoji():
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]
    assert len(files) > 30
    found = [hit for f in files for hit in emoji_in_source(f)]
    assert not found, "emoji show as empty boxes without an emoji font; use :material/…: icons:\n" + "\n".join(found)


def test_the_check_sees_an_emoji_and_passes_text_symbols(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('A = "🔎 Inspect"\nB = "⚠️ two"\nC = "⏳ running"\nD = "→ ✓ ✗ ⚠ ℹ ← ↗ ✎ :material/info:"\n',
                      encoding="utf-8")
    found = emoji_in_source(sample)
    assert [f.split(":")[1] for f in found] == ["1", "2", "3"], found
