"""Reading documents (evaluators.documents): every kind through its real reader (PDFs printed by
Chromium, Word files written by python-docx), passages as exact slices with stable ids, and every
bad input named with its reason while the readable files are still used."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from evaluators.documents import (
    Corpus,
    DocumentsError,
    UnreadableDocument,
    chunk,
    document_from_bytes,
    guess_language,
    read_documents,
    read_uploaded,
)
from evaluators.testing.document_files import (
    write_binary_txt,
    write_documents,
    write_encrypted_pdf,
    write_huge_file,
    write_scanned_pdf,
)

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DOCS = ROOT / "data" / "sample_docs"

PARAGRAPHS = {
    "apollo": ["Apollo 11 landed on the Moon on 20 July 1969. Neil Armstrong and Buzz Aldrin walked on the lunar "
               "surface, while Michael Collins remained in lunar orbit aboard the command module Columbia.",
               "The lunar module was named Eagle."],
    "router": ["Press and hold the RESET button on the back panel for 10 seconds, until the power LED blinks amber.",
               "The AX3000 supports WPA3 and can be managed from the mobile app."],
    "postgres": ["The PostgreSQL container listens on port 5432 by default.",
                 "Set the PGPORT environment variable to change the port."],
    "reef": ["The Great Barrier Reef stretches for more than 2,300 kilometres along the coast of Queensland. "
             "Tourism on the reef supports around 64,000 jobs in the region. " * 3,
             "Coral bleaching happens when corals under stress expel the symbiotic algae living in their tissues."],
    "wall": ["The Berlin Wall fell on 9 November 1989, when East German authorities opened the border crossings.",
             "German reunification was formally completed on 3 October 1990."],
}


@pytest.fixture(scope="module")
def kinds_dir(tmp_path_factory) -> Path:
    """One document of each kind: txt, md, html, pdf (Chromium; the long paragraph wraps), docx."""
    folder = tmp_path_factory.mktemp("kinds")
    write_documents(PARAGRAPHS, folder)
    return folder


def _squash(text: str) -> str:
    return " ".join(text.split())


def test_every_kind_is_read_by_its_reader_and_cut_into_exact_passages(kinds_dir):
    corpus = read_documents([kinds_dir])
    assert not corpus.skipped
    by_kind = {d.kind: d for d in corpus.documents}
    assert set(by_kind) == {"text", "markdown", "html", "pdf", "docx"}
    for name, paragraphs in PARAGRAPHS.items():
        doc = next(d for d in corpus.documents if d.name.startswith(name + "."))
        for p in paragraphs:  # every paragraph's words are in the document, in order
            assert _squash(p) in _squash(doc.text), (doc.name, p)
        for i, passage in enumerate(doc.passages, 1):
            assert passage.id == f"{doc.name}#{i}" and passage.source == doc.name and passage.index == i
            assert doc.text[passage.start:passage.end] == passage.text
        assert doc.language == "en"
    # the title is a heading, not a passage: it names the section
    md = next(d for d in corpus.documents if d.kind == "markdown")
    assert all(p.section for p in md.passages) and not any(p.text.startswith("#") for p in md.passages)


def test_a_pdfs_wrapped_lines_are_joined_back_into_paragraphs(kinds_dir):
    pdf = next(d for d in read_documents([kinds_dir]).documents if d.kind == "pdf")
    long_para = max(PARAGRAPHS[pdf.name.split(".")[0]], key=len)
    assert any(_squash(long_para) in _squash(p.text) for p in pdf.passages)
    assert pdf.name == "reef.pdf"
    assert "\n" not in max(pdf.passages, key=lambda p: len(p.text)).text  # a paragraph, not a printed line each


def test_the_sample_documents_give_back_exactly_the_samples_passages():
    corpus = read_documents([SAMPLE_DOCS])
    texts = {p.text for p in corpus.passages}
    sample = [json.loads(line) for line in (ROOT / "data" / "sample_rag.jsonl").read_text().splitlines()]
    documents = {d for row in sample for d in row.get("documents") or []}
    assert documents and documents <= texts
    assert len(corpus.documents) == 15 and corpus.document("apollo-11.md").passages[1].id == "apollo-11.md#2"


def test_bad_inputs_are_named_with_the_reason_and_the_readable_files_still_used(kinds_dir, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    write_scanned_pdf(bad / "scan.pdf")
    write_encrypted_pdf(next(kinds_dir.glob("*.pdf")), bad / "locked.pdf")
    write_huge_file(bad / "huge.pdf")
    write_binary_txt(bad / "photo.txt")
    (bad / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    (bad / "notes.xlsx").write_bytes(b"PK\x03\x04")
    (bad / "empty.md").write_text("   \n\n", encoding="utf-8")
    (bad / "good.md").write_text("# Good\n\nThe lunar module was named Eagle in July 1969.\n", encoding="utf-8")
    t = time.perf_counter()
    corpus = read_documents([bad])
    assert time.perf_counter() - t < 30
    assert [d.name for d in corpus.documents] == ["good.md"]
    why = {s.name: s.reason for s in corpus.skipped}
    assert "no text layer" in why["scan.pdf"] and "OCR" in why["scan.pdf"]
    assert "encrypted with a password" in why["locked.pdf"]
    assert "200 MB" in why["huge.pdf"] and "without reading" in why["huge.pdf"]
    assert "PNG image" in why["photo.txt"]
    assert "not a readable Word .docx file" in why["broken.docx"]
    assert ".xlsx" in why["notes.xlsx"] and "not a kind read here" in why["notes.xlsx"]
    assert "empty" in why["empty.md"]


def test_nothing_readable_is_an_error_that_lists_what_was_looked_at(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DocumentsError, match="an empty folder"):
        read_documents([empty])
    write_binary_txt(tmp_path / "x.txt")
    with pytest.raises(DocumentsError, match=r"x\.txt: this is a PNG image"):
        read_documents([tmp_path / "x.txt"])
    with pytest.raises(DocumentsError, match="no such file"):
        read_documents([tmp_path / "missing"])
    with pytest.raises(DocumentsError, match="no documents given"):
        read_documents([])


def test_binary_data_under_a_text_name_without_a_known_signature():
    with pytest.raises(UnreadableDocument, match="binary data"):
        document_from_bytes("data.txt", bytes(range(256)) * 40)
    doc = document_from_bytes("latin.txt", "Caf\xe9 cr\xe8me is served at 9 o'clock every day.".encode("cp1252"))
    assert "Café crème" in doc.text and doc.notes == ("not UTF-8: read as Windows-1252",)


def test_uploads_are_read_like_files_and_names_kept_unique():
    files = [("faq.md", b"# FAQ\n\nThe port is 5432 for the default database."),
             ("other/faq.md", b"Another paragraph about the port 8080 of the proxy."),
             ("scan.pdf", b"%PDF-1.4 garbage")]
    corpus = read_uploaded(files)
    assert isinstance(corpus, Corpus)
    assert [d.name for d in corpus.documents] == ["faq.md", "other/faq.md"]
    assert corpus.skipped and corpus.skipped[0].name == "scan.pdf" and "not a readable PDF" in corpus.skipped[0].reason


def test_same_file_names_in_two_folders_get_their_folder_in_front(tmp_path):
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "guide.md").write_text(f"Guide {sub} says the port is 80{sub == 'a'}.", encoding="utf-8")
    names = sorted(d.name for d in read_documents([tmp_path / "a", tmp_path / "b"]).documents)
    assert names == ["a/guide.md", "b/guide.md"]
    assert [p.id for p in read_documents([tmp_path]).passages] == ["a/guide.md#1", "b/guide.md#1"]


def test_chunking_rule():
    text = ("# Setup\n\nInstall the package first. It takes a minute.\n\nSteps:\n\n- one item\n\n- two item\n\n"
            "all done.\n\n" + "A long sentence about the cluster and its nodes. " * 40)
    ps = chunk(text, "s.md", max_chars=400)
    assert ps[0].text == "Install the package first. It takes a minute." and ps[0].section == "Setup"
    assert ps[1].text == "Steps:\n\n- one item\n\n- two item\n\nall done."  # intro + items + fragment joined
    long = ps[2:]
    assert len(long) >= 5 and all(len(p.text) <= 400 for p in long)
    assert all(p.text.endswith(".") for p in long)  # cut between sentences
    assert all(text[p.start:p.end] == p.text for p in ps)
    assert [p.index for p in ps] == list(range(1, len(ps) + 1))


def test_language_guess():
    assert guess_language("The tower was built in 1889 and it is the most visited monument of the world.") == "en"
    assert guess_language("Die Mauer fiel am 9. November 1989 und die Grenze wurde für alle geöffnet, das ist") == "de"
    assert guess_language("La tour a été construite pour l'Exposition universelle de 1889 et elle est le") == "fr"
    assert guess_language("東京は日本の首都です。ひらがなとカタカナ") == "ja"
    assert guess_language("12 34 56") == ""
