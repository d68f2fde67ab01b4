"""Declined answers, by rule: does a sentence decline ("the documents do not say", "I don't know",
"I cannot find …", "there is no information about …"), and does an answer as a whole?

Contract: :func:`declines` says whether one sentence declines, in any language the sentencizer
splits (English, German, French, Spanish, Italian, Portuguese, Dutch, Russian, Chinese, Japanese,
Korean, Arabic, Hindi); a sentence that declines and then answers after all ("I do not have the exact
fee, but it is about 0.2 %") does not. :func:`answer_declines` says whether an answer declines as a
whole: at least one sentence declines and no other sentence states anything (the others are
pleasantries — "Sorry.", "I hope this helps" — or questions back). Pure: imports nothing of the
project, so the ``trace`` labeler (a declining sentence needs no support, in any of these languages) and
``evaluators.answers`` (the ``declined`` / ``over_refusal`` metrics) share one rule; the LLM methods also
take their labeler's ``declined`` label (:data:`DECLINED_KEY`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Sequence

#: The label an LLM labeler gives a declining response sentence (a special supporting key, like
#: ``general``): the sentence makes no claim.
DECLINED_KEY = "declined"

_EN = (
    # "the documents do not say / mention / contain …"; "the context does not provide …"
    r"\b(documents?|context|passages?|sources?|articles?|texts?|materials?|information (?:provided|given|available)|"
    r"search results?|records?|snippets?)\b[^.;]{0,80}?\b(do(?:es)? not|don'?t|doesn'?t|did not|didn'?t|"
    r"cannot|can'?t|fails? to|lacks?|contain no|make no|say nothing|mention nothing|have no)\b[^.;]{0,60}?"
    r"\b(mention|say|said|contain|include|provide|specify|state|discuss|address|cover|give|information|"
    r"details?|indicate|reference|answer|explain|describe)",
    # "there is no information about …", "I found no mention of …"
    r"\b(there is|there's|there are|there was|i found|i could find|i can find|i have found)\s+no\s+"
    r"(specific\s+|further\s+|additional\s+|relevant\s+|such\s+|clear\s+|detailed\s+)?"
    r"(information|mention|details?|data|reference|record|answer|indication)",
    r"^no (specific |relevant |further )?(information|details?|data) (is |are )?(available|provided|given|found)",
    # "I do not have (that / specific / enough / real-time) information / data / details"
    r"\bi (?:do not|don'?t|did not|didn'?t|neither|have no|haven'?t(?: got)?)\s*(?:have\s+)?(?:got\s+)?"
    r"(?:any\s+|much\s+|enough\s+|that\s+|this\s+|the\s+|such\s+|specific\s+|the specific\s+|the exact\s+|"
    r"exact\s+|real-time\s+|current\s+|further\s+|additional\s+|detailed\s+|a specific\s+|access to\s+|"
    r"sufficient\s+|reliable\s+|up-to-date\s+|precise\s+|particular\s+|relevant\s+){0,3}"
    r"(information|data|details?|knowledge|answer|figures?|numbers?|list|specifics|records?|"
    r"[a-z-]+(?: [a-z-]+)? to (recommend|suggest|share|offer))",
    r"\bi (?:do not|don'?t|did not) know\b",
    r"\bi neither have\b[^.;]{0,120}\bnor\b",
    r"^(?:i'?m |i am )?not sure\b",
    r"\b(i am|i'm|i was)\s+(?:sorry,?\s+(?:but\s+)?(?:i am\s+|i'm\s+)?)?(unable|not able)\s+to\s+"
    r"(answer|provide|find|determine|say|tell|confirm|assist|help|give|locate|advise|offer|share|respond)",
    r"\bi (?:cannot|can'?t|can not|could not|couldn'?t)\s+(?:currently\s+|really\s+)?"
    r"(answer|find|determine|provide|say|tell|confirm|assist|help|give|locate|advise|do that|offer|share|"
    r"respond|speak to|comment)",
    r"\bi('?m| am) not aware of\b",
    r"\b(not enough|insufficient|no sufficient) (information|data|details|context)\b",
    r"\b(is|are|was|were) not (mentioned|specified|provided|stated|available|included|given|covered|"
    r"addressed|described|discussed)\s+(in|by|within)\s+(the\s+)?(provided\s+|given\s+|available\s+|"
    r"retrieved\s+|supplied\s+)?(documents?|context|passages?|texts?|data|information|sources?|materials?)",
    r"\bnot (mentioned|specified|provided|stated|included|covered|addressed|given) (in|by) (the )?"
    r"(provided |given |available )?(documents?|context|passages?|text|data|information|sources?)",
    r"\b(unable|impossible) to (answer|determine|say|tell) (this|that|the question|from)\b",
    r"\bcannot be (answered|determined) (from|with|based on)\b",
)
_DE = (
    r"\bich wei(ß|ss) (es )?nicht\b",
    r"\b(dokumente?n?|unterlagen|quellen|texte?n?|kontext)\b[^.]{0,60}\b(enthalten|sagen|nennen|erwähnen|"
    r"geben|liefern|beschreiben)\b[^.]{0,40}\b(nichts|keine?n?|nicht)\b",
    r"\b(dazu|darüber|hierzu|hierüber)\b[^.]{0,40}\b(keine|nichts)\b[^.]{0,30}\b(informationen|angaben|"
    r"hinweise|daten|details)?",
    r"\b(ich habe|mir liegen|es gibt|es liegen|liegen mir)\b[^.]{0,20}\bkeine\b[^.]{0,30}\b(informationen|"
    r"angaben|daten|hinweise|details)\b",
    r"\bkeine (informationen|angaben|daten|hinweise) (dazu|darüber|vorhanden|verfügbar)\b",
    r"\bich kann\b[^.]{0,40}\bnicht (beantworten|sagen|finden|bestätigen)\b",
    r"\bnicht in den (dokumenten|unterlagen|quellen)\b",
)
_FR = (
    r"\bje ne (le )?sais pas\b",
    r"\b(documents?|textes?|sources?|passages?|contexte)\b[^.]{0,60}\bne\b[^.]{0,30}\b(disent|dit|mentionnent|"
    r"mentionne|précisent|précise|contiennent|contient|indiquent|indique|donnent|fournissent)\b[^.]{0,20}\b(pas|rien)\b",
    r"\bje n'?ai pas\b[^.]{0,30}\b(information|informations|données|détails|réponse)\b",
    r"\bil n'?y a (pas|aucune?)\b[^.]{0,30}\b(information|informations|données|mention|détails?)\b",
    r"\baucune (information|donnée|mention|précision)\b",
    r"\bje ne (peux|suis pas en mesure de) (pas )?(répondre|trouver|dire|confirmer)\b",
)
_ES = (
    r"\bno (lo )?sé\b",
    r"\b(documentos?|textos?|fuentes?|pasajes?|contexto)\b[^.]{0,60}\bno\b[^.]{0,20}\b(dicen|dice|mencionan|"
    r"menciona|especifican|especifica|contienen|contiene|indican|indica|proporcionan|proporciona)\b",
    r"\bno tengo\b[^.]{0,30}\b(información|datos|detalles|respuesta)\b",
    r"\bno (hay|existe|se encuentra|encontré)\b[^.]{0,20}\b(información|datos|mención|detalles)\b",
    r"\bninguna (información|mención)\b",
    r"\bno (puedo|soy capaz de) (responder|contestar|encontrar|confirmar|decir)\b",
)
_IT = (
    r"\bnon (lo )?so\b",
    r"\b(documenti|documento|testi|testo|fonti|fonte|contesto|passaggi)\b[^.]{0,60}\bnon\b[^.]{0,20}\b(dicono|dice|"
    r"menzionano|menziona|specificano|specifica|contengono|contiene|indicano|indica|forniscono|fornisce)\b",
    r"\bnon ho\b[^.]{0,30}\b(informazioni|informazione|dati|dettagli|risposta)\b",
    r"\bnon (ci sono|c'è|esistono|ho trovato)\b[^.]{0,20}\b(informazioni|dati|menzioni?|dettagli)\b",
    r"\bnessuna (informazione|menzione)\b",
    r"\bnon (posso|sono in grado di) (rispondere|trovare|confermare|dire)\b",
)
_PT = (
    r"\bnão sei\b",
    r"\b(documentos?|textos?|fontes?|passagens?|contexto)\b[^.]{0,60}\bnão\b[^.]{0,20}\b(dizem|diz|mencionam|"
    r"menciona|especificam|especifica|contêm|contém|indicam|indica|fornecem|fornece)\b",
    r"\bnão tenho\b[^.]{0,30}\b(informações|informação|dados|detalhes|resposta)\b",
    r"\bnão (há|existe|existem|encontrei)\b[^.]{0,20}\b(informações|informação|dados|menção|detalhes)\b",
    r"\bnenhuma (informação|menção)\b",
    r"\bnão (posso|consigo|sou capaz de) (responder|encontrar|confirmar|dizer)\b",
)
_NL = (
    r"\bik weet (het )?niet\b",
    r"\b(documenten|document|teksten|tekst|bronnen|bron|context)\b[^.]{0,60}\b(zeggen|zegt|vermelden|vermeldt|"
    r"bevatten|bevat|noemen|noemt|geven|geeft)\b[^.]{0,30}\b(niet|geen|niets)\b",
    r"\b(ik heb|er is|er zijn)\b[^.]{0,20}\bgeen\b[^.]{0,20}\b(informatie|gegevens|details)\b",
    r"\bik kan\b[^.]{0,30}\bniet (beantwoorden|vinden|zeggen|bevestigen)\b",
)
_RU = (
    r"\bя не знаю\b",
    r"(документ\w*|источник\w*|текст\w*|контекст\w*)[^.]{0,60}\bне\s+(содерж\w*|упомина\w*|говор\w*|указ\w*|"
    r"приводи\w*|да[её]т)",
    r"\b(в документах|в тексте|в источниках)\b[^.]{0,30}\bнет\b",
    r"\bу меня нет\b[^.]{0,30}(информаци\w*|данн\w*|сведени\w*)",
    r"\bнет (никакой )?(информации|данных|сведений)\b",
    r"\b(не могу|не удалось|невозможно) (ответить|найти|определить|сказать)\b",
)
_ZH = (
    r"我不知道", r"我不清楚",
    r"(文档|文件|资料|文本|上下文|来源)(中|里)?(没有|并未|未|并没有)(提到|提及|说明|包含|给出|涉及|记载)",
    r"(没有|并无|无)(相关|具体|足够)?(的)?(信息|资料|数据|说明)", r"(无法|不能)(回答|确定|找到|提供)",
    r"我(没有|并没有)(相关|这方面的|具体)?(的)?(信息|资料|数据)",
)
_JA = (
    r"(わかりません|分かりません|知りません|存じません)",
    r"(文書|資料|ドキュメント|テキスト|文脈)(に|には|では)[^。]{0,20}(記載|情報|言及|記述)(が|は)(ありません|ない|ございません)",
    r"(情報|データ|記載)(が|は)(ありません|見つかりません|ございません)",
    r"(回答|お答え)(でき|いたしかね)(ません|ます)",
)
_KO = (
    r"(모르겠습니다|모릅니다|모르겠어요)",
    r"(문서|자료|텍스트|문맥)(에|에는|에서는)[^.]{0,20}(정보|내용|언급)(가|이|은|는)?\s*(없습니다|없어요|없음)",
    r"(정보|데이터|내용)(가|이|는)\s*(없습니다|없어요)",
    r"(답변|대답)(할|드릴)\s*수\s*없습니다", r"알\s*수\s*없습니다",
)
_AR = (
    r"لا أعرف", r"لا أعلم", r"(لا|لم) (تذكر|تحتوي|تتضمن|تشير|تقدم) (الوثائق|المستندات|النصوص|المصادر)",
    r"(الوثائق|المستندات|النصوص|المصادر) (لا|لم) (تذكر|تحتوي|تتضمن|تشير|تقدم)",
    r"لا (توجد|يوجد) (أي )?(معلومات|بيانات)", r"ليس(ت)? لدي (أي )?(معلومات|بيانات)",
    r"لا (أستطيع|يمكنني) (الإجابة|الرد|تحديد)",
)
_HI = (
    r"मुझे (यह |इसका )?(नहीं पता|पता नहीं|ज्ञात नहीं)",
    r"(दस्तावेज़ों|दस्तावेजों|दस्तावेज़|दस्तावेज|स्रोतों|पाठ)\s*में[^।]{0,40}(जानकारी|उल्लेख|जिक्र)\s*नहीं",
    r"(कोई|इसकी|इस बारे में)\s*(भी\s*)?जानकारी\s*(उपलब्ध\s*)?नहीं",
    r"(उत्तर|जवाब) नहीं दे (सकता|सकती|सकते)",
)

#: Language -> its rules (the languages the sentencizer splits).
RULES: dict[str, tuple[re.Pattern[str], ...]] = {
    lang: tuple(re.compile(p, re.IGNORECASE) for p in pats)
    for lang, pats in (("en", _EN), ("de", _DE), ("fr", _FR), ("es", _ES), ("it", _IT), ("pt", _PT),
                       ("nl", _NL), ("ru", _RU), ("zh", _ZH), ("ja", _JA), ("ko", _KO), ("ar", _AR),
                       ("hi", _HI))
}
_ALL = tuple(rx for rules in RULES.values() for rx in rules)
#: Every rule needs one of these words (a negation, "unable", "sorry" …) in its language: a sentence with
#: none of them is not read by the rules at all (most answer sentences; the rules are slow to fail).
_CUE = re.compile(
    r"\b(?:not|no|n't|never|neither|nor|none|nothing|unable|cannot|can't|insufficient|impossible|unsure|fail\w*|"
    r"lack\w*|"
    r"nicht|kein\w*|nichts|ne|n'|pas|aucune?|rien|sé|ningun\w*|non|nessun\w*|não|nenhum\w*|niet|geen|"
    r"niets|не|нет|невозможно)\b|n't|不|没|无|未|な[いく]|ません|없|모르|수\s*없|لا|ليس|لم|नहीं",
    re.IGNORECASE)

#: After a declining clause, a contrast that goes on to answer ("…, but it is about 0.2 %").
_CONTRAST = re.compile(
    r"\b(but|however|though|although|yet|aber|jedoch|mais|cependant|pero|sin embargo|ma|però|mas|porém|maar|"
    r"но|однако)\b|但|不过|然而|しかし|ただし|하지만|그러나|لكن|लेकिन",
    re.IGNORECASE)
_WORD = re.compile(r"\w+", re.UNICODE)

#: Sentences that state nothing: apologies, thanks, offers of more help, wishes.
_NO_CLAIM = re.compile(
    r"^\W*(sorry|i'?m sorry|i am sorry|apologies|my apologies|i apologi[sz]e( for (any|the) confusion)?|"
    r"unfortunately|thanks?( you)?|you'?re welcome|i hope (this|that) helps|hope (this|that) helps|"
    r"let me know|please let me know|feel free|is there anything else|if you have (any )?(other|more|further) "
    r"questions|can i help (you )?with anything else|good luck|entschuldigung|es tut mir leid|leider|danke|"
    r"désolée?|je suis désolée?|merci|lo siento|perdón|gracias|mi dispiace|grazie|desculpe|sinto muito|obrigad[oa]|"
    r"het spijt me|sorry|dank je|извините|к сожалению|спасибо|抱歉|对不起|很抱歉|申し訳ありません|すみません|"
    r"죄송합니다|عذرا|آسف|माफ़ कीजिए|क्षमा करें)\b",
    re.IGNORECASE)


def _normal(text: str) -> str:
    t = text.replace("\u2019", "'").replace("\u2018", "'").replace("*", "").replace("_", " ")
    return re.sub(r"\s+", " ", t).strip()


@lru_cache(maxsize=8192)
def declining_match(text: str) -> re.Match[str] | None:
    """The first declining clause of ``text`` (any language), else None."""
    t = _normal(text)
    if not _CUE.search(t):
        return None
    for rx in _ALL:
        m = rx.search(t)
        if m:
            return m
    return None


@lru_cache(maxsize=8192)
def declines(text: str) -> bool:
    """Whether the sentence ``text`` declines to answer (says it does not know, or that the documents
    do not hold the answer) — and does not go on to answer after a "but" / "however"."""
    t = _normal(text)
    m = declining_match(t)
    if m is None:
        return False
    rest = t[m.end():]
    c = _CONTRAST.search(rest)
    if c is not None and len(_WORD.findall(rest[c.end():])) >= 4:
        return False  # "I don't have the exact fee, but it is about 0.2 % a year": it answers after all
    return True


@lru_cache(maxsize=8192)
def states_nothing(text: str) -> bool:
    """A sentence with no claim of its own: an apology, thanks, an offer of more help, or a question back."""
    t = _normal(text)
    if not _WORD.search(t):
        return True
    if t.rstrip().endswith(("?", "？", "؟")):
        return True
    m = _NO_CLAIM.match(t)
    return m is not None and len(_WORD.findall(t[m.end():])) <= 6


def declined_sentences(texts: Sequence[str]) -> list[bool]:
    """One verdict per sentence: does it decline?"""
    return [declines(t) for t in texts]


def answer_declines(texts: Sequence[str], declined: Iterable[bool] | None = None) -> bool:
    """Whether an answer (its sentences) declines as a whole: a sentence declines and every other one
    states nothing. ``declined``: the per-sentence verdicts when already known (e.g. an LLM's labels)."""
    flags = list(declined) if declined is not None else declined_sentences(texts)
    if not any(flags):
        return False
    return all(f or states_nothing(t) for t, f in zip(texts, flags))


__all__ = ["DECLINED_KEY", "RULES", "answer_declines", "declined_sentences", "declines", "declining_match",
           "states_nothing"]
