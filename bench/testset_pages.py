"""A test set from crawled pages, offline: 12 of MTRAG-UN's web pages written as 3 .txt (the crawler's
dump, menus and footer included), 3 .md, 2 .html (in their site's chrome), 2 .pdf (that HTML printed
by Chromium) and 2 .docx; 40 questions; the goals of issue 54 over five seeds.

    python -m bench.testset_pages [--seeds 0 1 2 3 4] [--read-seed 0] [--write testset_pages]

Goals checked per seed: exactly 40 questions; 12 of 12 files used; every reference context found in
its file and every reference answer inside its contexts (``evaluators.testset.checks``); no two
questions with word Jaccard ≥ 0.8; no question containing its answer; at least 38 of 40 phrased as
questions (a question word or an auxiliary first, "?" last); **specific**: BM25 (Lucene's English
analysis and formula, ``bench.bm25_standard``) over the whole corpus of 405 passages, the question
as the query, puts the passage its file was made of in the top 5 for at least 70 % of questions.
Speed: one fresh process (``python -m evaluators testset``) per seed, its CPU time (the encoder's
graph is built once per machine, as the image does). The 40 questions of ``--read-seed`` are written
beside their passages (``bench/results/<name>_questions.md``) to be read by a person.
Skips when the shared data is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import machine
from bench.pages_data import CORPUS, corpus_rows, write_seed
from bench.results_file import RESULTS, write_result

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "testset_pages"
_QWORDS = frozenset("what when where who whom whose which why how is are was were do does did can could will would "
                    "should shall may might must has have had".split())


def phrased_as_question(q: str) -> bool:
    first = re.findall(r"[A-Za-z']+", q)
    return bool(first) and first[0].lower() in _QWORDS and q.rstrip().endswith("?")


def jaccard(a: str, b: str) -> float:
    wa, wb = set(re.findall(r"\w+", a.lower())), set(re.findall(r"\w+", b.lower()))
    return len(wa & wb) / max(1, len(wa | wb))


def run_cli(folder: Path, out: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAG_EVAL_")}
    env.update({"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "RAG_EVAL_EMBED_CACHE": str(OUT / "embed_cache")})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load0 = os.getloadavg()
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "evaluators", "testset", str(folder), "--n", "40", "--out", str(out),
                           "--no-progress"], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"testset failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return {"wall_s": round(wall, 2),
            "cpu_s": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 2),
            "load": [round(x, 2) for x in load0], "stderr": proc.stderr.strip().splitlines()[-12:]}


def goals(rows: list[dict[str, Any]], corpus: Any, picked: list[dict[str, Any]], bm25: Any,
          ids: list[str]) -> dict[str, Any]:
    from evaluators.testset.checks import problems

    by_file = {p["file"]: p for p in picked}
    found = [p for p in problems(rows, corpus, 40) if "near-duplicates" not in p]
    pairs = [(jaccard(a["question"], b["question"]), a["question"], b["question"])
             for i, a in enumerate(rows) for b in rows[i + 1:]]
    close = [p for p in pairs if p[0] >= 0.8]
    holds = [r["id"] for r in rows if r["ground_truth"].lower().strip(" .") in r["question"].lower()]
    phrased = sum(phrased_as_question(r["question"]) for r in rows)
    ranks = []
    for r in rows:
        want = by_file[r["metadata"]["source"]]["id"]
        order = (-bm25.scores(r["question"])).argsort()
        ranks.append(int(list(order).index(ids.index(want))) + 1)
    top5 = sum(k <= 5 for k in ranks)
    return {"rows": len(rows), "files_used": len({r["metadata"]["source"] for r in rows}),
            "problems": found, "jaccard_ge_0.8": [f"{a} / {b}" for _, a, b in close],
            "max_jaccard": round(max((p[0] for p in pairs), default=0.0), 3), "holds_answer": holds,
            "phrased_as_questions": phrased, "bm25_top5": top5, "bm25_top5_share": round(top5 / max(1, len(rows)), 3),
            "ranks": ranks,
            "met": {"exactly_40": len(rows) == 40, "all_12_files": len({r["metadata"]["source"] for r in rows}) == 12,
                    "references_found": not found, "no_jaccard_0.8": not close, "none_holds_answer": not holds,
                    "phrased_38": phrased >= 38, "specific_70": top5 >= 0.7 * 40}}


def read_file(rows: list[dict[str, Any]], picked: list[dict[str, Any]], ranks: list[int], seed: int,
              full: bool = True) -> str:
    """The questions beside their passages (``full``: with the page's text, for bench/out only — the
    shared data is not copied into the project; the committed file keeps 300 characters of context)."""
    by_file = {p["file"]: p for p in picked}
    out = [f"# The 40 questions of seed {seed}, beside their passages\n",
           "Each: the question, the reference answer, its kind, the BM25 rank of its page's passage among "
           "405, the file, and the passage (the reference context) as read from the file.\n"]
    for r, rank in zip(rows, ranks):
        m = r["metadata"]
        ctx = " ".join(" / ".join(r["reference_contexts"]).split())
        keep = 700 if full else 300
        page = (f"<details><summary>page {by_file[m['source']]['id']}</summary>\n\n"
                f"{by_file[m['source']]['text'][:1500]}\n\n</details>\n") if full else \
            f"page: `{by_file[m['source']]['id']}` (in ../shared/data)\n"
        out.append(f"## {r['id']} · {m['source']} · {m.get('fact', m.get('question_type'))} · BM25 rank {rank}\n\n"
                   f"**Q:** {r['question']}  \n**A:** {r['ground_truth']}  \n"
                   f"**section:** {m.get('section', '')}  \n"
                   f"**context:** {ctx[:keep]}{'…' if len(ctx) > keep else ''}\n\n" + page)
    return "\n".join(out)


_GERMAN = ("Die Berliner Mauer fiel am 9. November 1989, als die Grenzübergänge geöffnet wurden. Die Stadt war 28 "
           "Jahre lang geteilt, und die Menschen konnten nicht frei reisen. Der Abriss der Mauer begann im Juni 1990 "
           "und dauerte bis 1992. Heute ist nur noch ein kleiner Teil der Mauer erhalten, der an die Teilung der "
           "Stadt erinnert und von vielen Besuchern besichtigt wird.")


def bad_inputs(seed: int, folder: Path) -> dict[str, Any]:
    """The seed's 12 pages with four bad files beside them: a page that is only a menu, a 200-page PDF
    (Chromium), a page in German, 5 MB on one line. Each must be named with its reason (or a note), the
    rest used."""
    from evaluators.documents import read_documents
    from evaluators.testing.crawled_pages import Page, page_html
    from evaluators.testing.document_files import print_pdf
    from evaluators.testset import make_testset

    (folder / "menu-only.html").write_text(page_html(Page("menu-only", "", ""), "landmarks"), encoding="utf-8")
    (folder / "german.md").write_text("# Die Berliner Mauer\n\n" + _GERMAN + "\n", encoding="utf-8")
    line = "The quick brown fox jumps over the lazy dog at 5 p.m. every day. "
    five_mb = 5 * 1024 * 1024
    (folder / "one-line.txt").write_text((line * (five_mb // len(line) + 1))[:five_mb], encoding="utf-8")
    rows = corpus_rows()
    paras = "".join(f"<h2>Part {i + 1}</h2><p>{rows[i % len(rows)]['text'][:1800]}</p><div style='page-break-after:"
                    "always'></div>" for i in range(200))
    src = folder / ".long.print.html"
    src.write_text(f"<!doctype html><html><body>{paras}</body></html>", encoding="utf-8")
    t = time.perf_counter()
    print_pdf(src, folder / "long-200-pages.pdf", timeout=600)
    printed = time.perf_counter() - t
    src.unlink()
    t = time.process_time()
    corpus = read_documents([folder])
    read_cpu = time.process_time() - t
    made = make_testset(corpus, 40, seed=seed)
    long = next((d for d in corpus.documents if d.name == "long-200-pages.pdf"), None)
    return {"skipped": [str(s) for s in corpus.skipped], "notes": list(made.notes), "summary": made.summary(),
            "rows": len(made.rows), "files_used": len({r["metadata"]["source"] for r in made.rows}),
            "from_the_200_page_pdf": sum(r["metadata"]["source"] == "long-200-pages.pdf" for r in made.rows),
            "pdf_passages": len(long.passages) if long else 0, "read_cpu_s": round(read_cpu, 2),
            "print_s": round(printed, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2, 3, 4])
    ap.add_argument("--read-seed", type=int, default=0)
    ap.add_argument("--no-cli", action="store_true", help="in-process only (no timed CLI run)")
    ap.add_argument("--bad", action="store_true", help="also the bad inputs beside the first seed's pages")
    ap.add_argument("--write", default=None, metavar="NAME")
    args = ap.parse_args(argv)
    if not CORPUS.is_file():
        print(f"skipped: {CORPUS} is absent")
        return 0
    from bench.bm25_standard import BM25
    from evaluators.documents import read_documents
    from evaluators.testset import make_testset

    rows_all = corpus_rows()
    ids = [r["id"] for r in rows_all]
    bm25 = BM25([r["text"] for r in rows_all])
    result: dict[str, Any] = {"what": __doc__.splitlines()[0], "cpu": machine.cpu_shared(), "cores": os.cpu_count(),
                              "seeds": {}}
    for seed in args.seeds:
        folder, picked = write_seed(seed, OUT)
        t = time.process_time()
        corpus = read_documents([folder])
        made = make_testset(corpus, 40, seed=seed)
        in_process = time.process_time() - t
        rows = [dict(r) for r in made.rows]
        g = goals(rows, corpus, picked, bm25, ids)
        g["in_process_cpu_s"] = round(in_process, 2)
        g["summary"] = made.summary()
        g["notes"] = list(made.notes)
        g["skipped"] = [str(s) for s in made.skipped]
        g["kinds"] = {k: sum(r["metadata"].get("fact") == k for r in rows)
                      for k in sorted({str(r["metadata"].get("fact")) for r in rows})}
        if not args.no_cli:
            g["cli"] = run_cli(folder, OUT / f"seed{seed}.jsonl")
        result["seeds"][str(seed)] = g
        print(f"seed {seed}: {g['rows']} rows, {g['files_used']} files, phrased {g['phrased_as_questions']}, "
              f"bm25 top5 {g['bm25_top5']}/40, max jaccard {g['max_jaccard']}, problems {len(g['problems'])}, "
              f"holds {len(g['holds_answer'])}, cpu {g.get('cli', {}).get('cpu_s')} s "
              f"(in-process {g['in_process_cpu_s']})",
              flush=True)
        if seed == args.read_seed:
            OUT.mkdir(parents=True, exist_ok=True)
            (OUT / f"questions_seed{seed}.md").write_text(read_file(rows, picked, g["ranks"], seed), encoding="utf-8")
            if args.write:
                (RESULTS / f"{args.write}_questions.md").write_text(read_file(rows, picked, g["ranks"], seed, False),
                                                                     encoding="utf-8")
    if args.bad:
        folder, _ = write_seed(args.seeds[0], OUT / "bad")
        result["bad_inputs"] = bad_inputs(args.seeds[0], folder)
        print(json.dumps(result["bad_inputs"], indent=1))
    seeds = result["seeds"].values()
    result["all_met"] = {k: all(s["met"][k] for s in seeds) for k in next(iter(seeds))["met"]}
    result["bm25_top5_mean"] = round(sum(s["bm25_top5_share"] for s in seeds) / len(result["seeds"]), 3)
    print(json.dumps(result["all_met"]), result["bm25_top5_mean"])
    if args.write:
        print(write_result(args.write, result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
