#!/usr/bin/env python3
"""The window's fonts (ui/src/fonts/*.woff2), made from the fonts the PDF reports embed
(crates/pitwatch-report/fonts/), so the window shows every script a report can: Noto Sans for
Latin, Greek, Cyrillic and Vietnamese, WenQuanYi Micro Hei for Chinese, Japanese and Korean.

Each is the report's font unchanged but repackaged as WOFF2 (Brotli-compressed, every glyph kept):
of the WenQuanYi collection (.ttc) only its first face, WenQuanYi Micro Hei, as a web font is one
face. Run it again only when a report's font changes:

    python3 -m venv /tmp/fonts && /tmp/fonts/bin/pip install fonttools brotli
    /tmp/fonts/bin/python scripts/ui-fonts.py
"""

from pathlib import Path

from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "crates/pitwatch-report/fonts"
OUT = ROOT / "ui/src/fonts"


def woff2(font: TTFont, name: str) -> None:
    # The source's own date, not today's: the same input makes the same file.
    font.recalcTimestamp = False
    font.flavor = "woff2"
    target = OUT / f"{name}.woff2"
    font.save(target)
    print(f"{target.relative_to(ROOT)}: {target.stat().st_size} bytes")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in ["NotoSans-Regular", "NotoSans-Bold"]:
        woff2(TTFont(SOURCE / f"{name}.ttf"), name)
    collection = TTCollection(SOURCE / "wqy-microhei.ttc")
    woff2(collection.fonts[0], "wqy-microhei")


if __name__ == "__main__":
    main()
