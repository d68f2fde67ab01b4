"""(research, not kept) A "conversation topic" part for the standalone rule: does ranking the words
brought by how many earlier turns repeat them — or drawing them from every earlier user turn, not
only the previous one — lift the held-out nDCG@5 gain?

    python -m bench.research.conversations_topic        # ~17 min on 2 shared cores; writes the result

The rule (``evaluators.conversations.standalone``) is extended here, not in the product, with
``topic``: 0 = as shipped; 1 = after the answer's words, the candidates repeated by the most earlier
turns (user and agent, by lemma) first; 2 = the same, with candidates also taken from every earlier
user turn (newest first) after the previous one's. The grid of ``bench/conversations_grid.py`` gets
this third dimension (6,912 rules); the choice is made exactly as there (leave-one-collection-out,
the smaller of the MiniLM and standard-BM25 gains), for the grid without the part and with it.

Result (``bench/research/results/conversations_topic.json``, 2026-11-27, AMD EPYC AVX2, 2 shared
cores): held out, without the part MiniLM +0.056, BM25 +0.050; with it MiniLM +0.057, BM25 +0.044 —
chosen on fiqa, the part is picked (topic 2) and does worse on ibmcloud. Not kept.
"""

from __future__ import annotations

import dataclasses
import json
from functools import lru_cache
from typing import Any

from evaluators.conversations.standalone import (
    Rule,
    content_words,
    exchanges_of,
    lacks_subject,
    names_a_thing,
    proper_names,
    word_key,
    word_rank,
    words,
)


@dataclasses.dataclass(frozen=True)
class TopicRule(Rule):
    #: 0 off; 1 candidates ordered by how many earlier turns repeat them (after the answer's words);
    #: 2 as 1, candidates also from every earlier user turn
    topic: int = 0


@lru_cache(maxsize=None)
def _standalone(question: str, exchanges: tuple[tuple[str, str], ...], rule: Rule) -> str:
    topic = getattr(rule, "topic", 0)
    if not exchanges or not lacks_subject(question, rule.short):
        return question
    previous = _standalone(exchanges[-1][0], exchanges[:-1], rule)
    have = {word_key(w, rule.lemmas) for w in words(question)}
    sources = [previous] + ([u for u, _ in exchanges[:-1]][::-1] if topic == 2 else [])
    candidates: list[str] = []
    for src in sources:
        names = proper_names(src) if rule.nouns else set()
        for w in content_words(src):
            k = word_key(w, rule.lemmas)
            if k in have or (rule.nouns and not names_a_thing(w) and w not in names) or word_rank(w) < rule.common:
                continue
            have.add(k)
            candidates.append(w)
    answered = {word_key(w, rule.lemmas) for w in words(exchanges[-1][1])} if rule.echo else set()
    turns = [{word_key(w, rule.lemmas) for w in words(t)} for ex in exchanges for t in ex if t]

    def repeated(w: str) -> int:
        return sum(1 for t in turns if word_key(w, rule.lemmas) in t) if topic else 0

    order = sorted(range(len(candidates)), key=lambda i: (
        word_key(candidates[i], rule.lemmas) not in answered, -repeated(candidates[i]),
        -word_rank(candidates[i]) if rule.rarest_first else 0, i))
    keep = set(order[:rule.words_for(question)])
    added = [w for i, w in enumerate(candidates) if i in keep]
    return f"{question.rstrip()} ({' '.join(added)})" if added else question


def main() -> int:
    import bench.conversations_grid as G
    from bench.conversations_bench import Rankers, load_retrieval, ndcg5, paired_gain, turns_of
    from bench.results_file import RESULTS
    from bench.shared_data import SHARED_DIR

    def text(q: dict[str, Any], rule: Rule) -> str:
        return _standalone(q["question"], exchanges_of(turns_of(q["history"])), rule)

    G.RULE = TopicRule()
    G.GRID = {**G.GRID, "topic": (0, 1, 2)}
    G.FAMILIES = {"grid_2304": {"topic": (0,)}, "with_topic": {}}
    G.CRITERIA = {"minilm_and_bm25": ("minilm", "bm25")}
    qs = load_retrieval("mtrag_retrieval_dev_questions.jsonl")
    rk = Rankers(load_retrieval("mtrag_retrieval_dev_corpus.jsonl"))
    openings = {q["history"][0]["text"].strip().lower() for q in qs if q["history"]}
    oq, oc = G.human_dev_retrieval(SHARED_DIR / "mtrag_human_dev.jsonl", openings)
    other = Rankers(oc)
    out = G.grid(qs, lambda a, t, r: ndcg5(a, rk.run(a, t, r)), text, paired_gain, ("minilm", "bm25"),
                 (oq, lambda a, t, r: ndcg5(a, other.run(a, t, r))))
    keep = {k: {"held_out": {r: v["held_out"][r]["gain_over_last_turn"] for r in v["held_out"]},
                "leave_one_collection_out": {c: x["rule"] for c, x in v["leave_one_collection_out"].items()},
                "chosen_on_mtrag_human_dev": v["chosen_on_mtrag_human_dev"]} for k, v in out["choices"].items()}
    path = RESULTS.parent / "research" / "results" / "conversations_topic.json"
    path.write_text(json.dumps(keep, indent=1, default=str) + "\n", encoding="utf-8")
    print(json.dumps(keep, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
