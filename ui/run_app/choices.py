"""The targets a visitor may run — the versions of an app, each a target (``evaluators.targets``):

* the **owner's**, from the targets file the owner setting ``RAG_EVAL_TARGETS`` names (secrets or
  environment), with the owner's policy: Python targets, ``${VAR}`` (read from the environment and
  the secrets at call time), any address;
* the **sample app's** two versions (``data/sample_targets``), served by this process on first use;
* the visitor's **own**, typed in a form or pasted as a target file, with the visitor's policy
  (:func:`visitor_policy`): never a Python target, no ``${VAR}``, the typed-URL rules (loopback and
  private ranges refused unless the owner allows them — loopback allowed when this server listens on
  loopback only, the dashboard on one's own computer; none at all with ``RAG_EVAL_TYPED_URLS=off``).
  Kept in this session's memory only (their header values too) and never shown back.

A refusal is shown in the library's words (which field, why, and the owner's switch when there is one).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import streamlit as st

from evaluators.net import typed_urls_allowed
from evaluators.targets import Target, TargetError, TargetPolicy, load_owner_targets, parse_text, target_from_dict

from .. import data as ud
from .. import resources
from . import sample


def visitor_policy() -> TargetPolicy:
    """The policy of a target typed here: the visitor's, told where this server listens (Streamlit's
    ``server.address``: loopback only lets typed loopback addresses through)."""
    return TargetPolicy.visitor(server_address=st.get_option("server.address"))


_TYPED = "run_app.typed"  # name -> Target typed by the visitor (memory only)
PICKED = "run_app.pick."  # + a choice's key: its box
_CLEAR = "run_app.clear_header"
_ADD_PICK = "run_app.add_pick"  # a target just added: picked on the next run (before its box is drawn)
SAMPLE_NOTES = {"v1": "the sample app, version 1 — BM25 retrieval, an extractive answer",
                "v2": "the sample app, version 2 — a regression to catch: weaker ranking, fewer passages, "
                      "some answers its passages do not support"}
DEFAULT_BODY = '{"question": "{question}"}'
SOURCE = "your target"


@dataclass(frozen=True)
class Choice:
    key: str
    #: "owner" / "sample" / "typed" (see the module doc)
    kind: str
    target: Target

    @property
    def name(self) -> str:
        return self.target.name

    def label(self) -> str:
        """The box's label (Markdown: the name in bold, what it calls escaped)."""
        if self.kind == "sample":
            return f"**{ud.md_escape(self.name)}** — {SAMPLE_NOTES.get(self.name, 'the sample app')}"
        who = "your app" if self.kind == "typed" else "this deployment's app"
        how = describe(self.target).replace("`", "'")
        return f"**{ud.md_escape(self.name)}** — {who}: `{how}`"


def describe(t: Target) -> str:
    """How a target is called, as its file writes it (``${VAR}`` names, never values; no header)."""
    if t.spec.http is None:
        return f"python: {t.spec.python}"
    return f"{t.spec.http.method} {t.spec.http.url}"


def owner_choices() -> tuple[list[Choice], str | None]:
    """The owner's targets, and why they could not be loaded (None: fine, or none named)."""
    try:
        found = load_owner_targets(secrets=resources.secrets())
    except TargetError as exc:
        return [], str(exc)
    return [Choice(f"owner:{t.name}", "owner", t) for t in found], None


def sample_choices() -> list[Choice]:
    return [Choice(f"sample:{t.name}", "sample", t) for t in sample.targets()]


def typed_choices() -> list[Choice]:
    return [Choice(f"typed:{n}", "typed", t) for n, t in st.session_state.get(_TYPED, {}).items()]


def pick(owner: list[Choice], owner_error: str | None) -> list[Choice]:
    """The targets section: a box per target (the owner's picked by default, else the sample app's),
    the form to add one's own; the targets picked, in the order shown."""
    if owner_error:
        st.error(f"This deployment's targets could not be loaded: {ud.md_escape(owner_error)}")
    everything = [*owner, *sample_choices(), *typed_choices()]
    defaults = {c.key for c in owner} or {c.key for c in everything if c.kind == "sample"}
    if (added := st.session_state.pop(_ADD_PICK, None)) is not None:  # (a widget's value is set before it)
        st.session_state[PICKED + added] = True
    st.markdown("**Versions of the app to run**", help="Each target is one version of the app: every question is "
                "put to each, and each one's answers become a run named after it. Two or more: Compare says which "
                "is better.")
    picked = []
    for c in everything:
        st.session_state.setdefault(PICKED + c.key, c.key in defaults)
        if st.checkbox(c.label(), key=PICKED + c.key):
            picked.append(c)
    if not owner:  # "the two versions are picked" only while they are what is picked (not beside one's own app)
        only_sample = {c.key for c in picked} == {c.key for c in everything if c.kind == "sample"}
        st.caption(("The sample app's two versions are picked: a" if only_sample else "The sample app (v1, v2) is a")
                   + " small RAG app over the sample's documents, served by this dashboard, no key needed. Add your "
                   "own app's address below (the owner of this dashboard can also list apps for everyone: "
                   "docs/targets.md).")
    _add_form(everything)
    return picked


def _add_form(taken: list[Choice]) -> None:
    if added := st.session_state.pop("run_app.added", None):
        st.success(f"Added “{ud.md_escape(added)}” and picked it (above).")
    with st.expander("Add your own app (an address you type)"):
        if not typed_urls_allowed():
            st.info("This deployment calls no address typed here (its owner set RAG_EVAL_TYPED_URLS=off): "
                    "run the targets listed above.")
            return
        st.caption("Your app is called by this server: a public address (loopback and private ranges are "
                   "refused unless the owner allows them; loopback is allowed when this dashboard listens on "
                   "loopback only), never a Python function, no ${VAR}. A header you "
                   "type (a token) stays in this browser session's memory and is never shown or stored.")
        if st.session_state.pop(_CLEAR, False):  # (set before the fields are drawn)
            st.session_state["run_app.f.header_value"] = st.session_state["run_app.f.yaml"] = ""
        how = st.radio("Describe it with", ["a form", "a target file (YAML or JSON)"], key="run_app.add_how",
                       horizontal=True)
        try:
            data = _form() if how == "a form" else _pasted()
        except ValueError as exc:
            st.error(ud.md_escape(str(exc)))
            return
        if data is None:
            return
        try:
            target = target_from_dict(data, SOURCE, visitor_policy(), default_name="my-app")
        except TargetError as exc:
            st.error(f"Not added — {ud.md_escape(str(exc))}")
            return
        clash = next((c for c in taken if c.name == target.name and c.kind != "typed"), None)
        if clash is not None:
            st.error(f"Not added — the name “{ud.md_escape(target.name)}” is taken by "
                     f"{'the sample app' if clash.kind == 'sample' else 'a target of this deployment'}: "
                     "give yours another name.")
            return
        st.session_state.setdefault(_TYPED, {})[target.name] = target
        st.session_state[_CLEAR] = True  # a header value typed leaves its field (and the page) at once
        st.session_state[_ADD_PICK] = f"typed:{target.name}"
        st.session_state["run_app.added"] = target.name
        st.rerun()


def _form() -> dict[str, Any] | None:
    c1, c2 = st.columns([1, 3])
    name = c1.text_input("Name", key="run_app.f.name", placeholder="my-app")
    url = c2.text_input("Address (URL)", key="run_app.f.url", placeholder="https://my-app.example.com/ask")
    c1, c2 = st.columns([1, 3])
    method = c1.selectbox("Method", ["POST", "GET"], key="run_app.f.method")
    body = c2.text_input("Request body (JSON; {question} is filled in)", key="run_app.f.body", value=DEFAULT_BODY,
                         help="Any column of the question file can be filled in: {question}, {id}, {history} …")
    c1, c2, c3, c4 = st.columns(4)
    answer = c1.text_input("Answer at", key="run_app.f.answer", value="answer",
                           help="JMESPath of the answer in the app's JSON reply")
    contexts = c2.text_input("Passages at", key="run_app.f.contexts", value="sources[*].text",
                             help="JMESPath of the retrieved passages (empty: none)")
    ids = c3.text_input("Passage ids at", key="run_app.f.ids", value="sources[*].id",
                        help="JMESPath of their ids (empty: none; scores retrieval by id)")
    usage = c4.text_input("Token usage at", key="run_app.f.usage", value="usage", help="JMESPath (empty: none)")
    c1, c2 = st.columns(2)
    header = c1.text_input("Header (optional)", key="run_app.f.header", placeholder="Authorization")
    value = c2.text_input("Header value", key="run_app.f.header_value", type="password",
                          placeholder="Bearer …", help="Kept in this session's memory only, never shown or stored.")
    if not st.button("Add this app", key="run_app.f.add"):
        return None
    if not url.strip():
        raise ValueError("Not added — give the app's address (URL).")
    http: dict[str, Any] = {"url": url.strip(), "method": method}
    if method != "GET":
        try:
            http["body"] = json.loads(body) if body.strip() else None
        except ValueError:
            raise ValueError('Not added — the request body is not JSON (e.g. {"question": "{question}"}).') from None
    else:
        http["query"] = {"question": "{question}"}
    if header.strip():
        http["headers"] = {header.strip(): value}
    out: dict[str, Any] = {"http": http, "answer": answer.strip() or None}
    for k, v in (("name", name), ("contexts", contexts), ("context_ids", ids), ("usage", usage)):
        if v.strip():
            out[k] = v.strip()
    return out


def _pasted() -> Any:
    text = st.text_area("Target file", key="run_app.f.yaml", height=180,
                        placeholder="name: v3\nhttp:\n  url: https://my-app.example.com/ask\n  body: {question: "
                                    "\"{question}\"}\nanswer: answer\ncontexts: sources[*].text")
    if not st.button("Add this app", key="run_app.f.add_yaml"):
        return None
    if not text.strip():
        raise ValueError("Not added — paste a target file (docs/targets.md describes its fields).")
    try:
        return parse_text(text, "your target.yaml")
    except TargetError as exc:
        raise ValueError(f"Not added — {exc}") from None
