"""A guess of a text's language, offline and without a model: the script first (CJK, Cyrillic,
Arabic, Greek, Devanagari...), then for Latin script the share of each language's most common short
words. Good enough to tell the LLM generator which language to write in and the offline generator
which texts it cannot handle (it writes English); "" when unsure.

Contract: ``guess_language(text) -> str`` (ISO 639-1 code or ""), ``LANGUAGE_NAMES[code]``.
"""

from __future__ import annotations

import re

LANGUAGE_NAMES = {
    "en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "sv": "Swedish", "pl": "Polish", "zh": "Chinese", "ja": "Japanese", "ko": "Korean",
    "ru": "Russian", "uk": "Ukrainian", "ar": "Arabic", "he": "Hebrew", "el": "Greek", "hi": "Hindi",
    "th": "Thai",
}

_STOPWORDS = {
    "en": "the of and to in is that for it with as was on are be by this from or an which not have at",
    "de": "der die und das ist nicht mit den von zu ein eine auf für sich dem des im werden wird auch",
    "fr": "le la les et des est une pour que dans qui pas sur au du avec sont par ce il elle aux",
    "es": "el la los las que y en es del una para por con se al lo como más pero sus son",
    "it": "il di che la per una sono con non gli del della le dei nel alla anche come più è",
    "pt": "o a os as de que e do da em um uma para com não por se na no ao mais são",
    "nl": "de het een en van is dat op te in zijn met voor niet die er aan ook als",
    "sv": "och att det som en är på av för med till den har inte om ett var jag",
    "pl": "i w na z się nie do to że jest o jak po co ale od są przez dla",
}
_SETS = {k: set(v.split()) for k, v in _STOPWORDS.items()}
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


_SCRIPTS = {
    "ja": re.compile(r"[\u3040-\u30ff]"), "ko": re.compile(r"[\uac00-\ud7af\u1100-\u11ff]"),
    "zh": re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]"), "cyrillic": re.compile(r"[\u0400-\u04ff]"),
    "ar": re.compile(r"[\u0600-\u06ff]"), "he": re.compile(r"[\u0590-\u05ff]"), "el": re.compile(r"[\u0370-\u03ff]"),
    "hi": re.compile(r"[\u0900-\u097f]"), "th": re.compile(r"[\u0e00-\u0e7f]"),
    "latin": re.compile(r"[A-Za-z\u00c0-\u024f]"),
}


def guess_language(text: str, sample_chars: int = 6000) -> str:
    """ISO 639-1 code of the language ``text`` is most likely in; "" when it cannot tell."""
    sample = text[:sample_chars]
    scripts = {k: len(rx.findall(sample)) for k, rx in _SCRIPTS.items()}
    script, n = max(scripts.items(), key=lambda kv: kv[1])
    if not n:
        return ""
    if script == "zh" and scripts["ja"] > 0.05 * n:
        return "ja"  # Japanese text mixes kana with kanji
    if script == "cyrillic":
        return "uk" if re.search(r"[іїєґ]", sample.lower()) else "ru"
    if script != "latin":
        return script
    words = [w.lower() for w in _WORD.findall(sample)]
    if len(words) < 5:
        return ""
    scores = {lang: sum(w in s for w in words) / len(words) for lang, s in _SETS.items()}
    best = max(scores, key=lambda k: scores[k])
    runner = max((v for k, v in scores.items() if k != best), default=0.0)
    if scores[best] < 0.08 or scores[best] < 1.3 * runner:
        return ""
    return best


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code or "the passage's language")
