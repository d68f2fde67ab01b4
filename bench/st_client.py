"""A Streamlit visitor without a browser: the app's own websocket protocol, spoken from Python.

``bench/concurrency.py --clients protocol`` uses it to stand in for visitors whose browsers run on
their own machines (as on a Space): the server does exactly the work it does for a browser — one
session per visitor, script reruns for every page switch and widget, the file upload endpoint,
the auto-reruns of the progress fragment every 2 s — but nothing is rendered on this machine.

Only what the bench needs: open a session, upload a file into the uploader, click a button by its
label, switch pages, run the fragments' auto-reruns, and read which headings / texts / metrics
the last rerun produced. Protocol as in streamlit 1.67 (``streamlit/proto``): BackMsg
``rerun_script`` (ClientState) and ``file_urls_request``; ForwardMsg ``new_session``, ``delta``,
``auto_rerun``, ``script_finished``, ``file_urls_response``.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import requests
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.Common_pb2 import FileURLsRequest, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates
from websockets.sync.client import connect


@dataclass
class Rerun:
    """What one script run showed: widgets by label, headings, texts, metrics."""

    buttons: dict[str, str] = field(default_factory=dict)  # label -> widget id
    uploaders: dict[str, Any] = field(default_factory=dict)  # label -> FileUploader proto
    checkboxes: dict[str, str] = field(default_factory=dict)  # label -> widget id (checkboxes, toggles)
    text_inputs: dict[str, str] = field(default_factory=dict)  # label -> widget id
    #: widget id -> the fragment it was drawn in ("" = the page)
    fragment_of: dict[str, str] = field(default_factory=dict)
    headings: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    metrics: dict[str, str] = field(default_factory=dict)
    #: exceptions the page showed (``st.exception`` or an uncaught error in the script): "Type: message"
    exceptions: list[str] = field(default_factory=list)
    finished: bool = False


class Visitor:
    """One visitor's session over the websocket; thread-safe for one caller plus its reader."""

    def __init__(self, url: str, timeout: float = 120.0, query: str = "",
                 cookies: dict[str, str] | None = None) -> None:
        self.base = url.rstrip("/")
        self.timeout = timeout
        #: The address bar's query string (e.g. ``share=<run>.<signature>``).
        self.query = query
        self.http = requests.Session()
        # the XSRF cookie (as a browser gets it with the page); uploads send it back as a header
        self.http.get(self.base + "/_stcore/health", timeout=30).raise_for_status()
        self.xsrf = self.http.cookies.get("_streamlit_xsrf") or ""
        ws_url = self.base.replace("http://", "ws://") + "/_stcore/stream"
        # ``cookies``: those the browser connects with (e.g. ``{"rag_eval_u": token}``, the history
        # token ui/state.py keeps in a cookie: the same visitor as before)
        jar = {**({"_streamlit_xsrf": self.xsrf} if self.xsrf else {}), **(cookies or {})}
        cookie = "; ".join(f"{k}={v}" for k, v in jar.items()) or None
        self.ws = connect(ws_url, subprotocols=["streamlit", self.xsrf] if self.xsrf else ["streamlit"],
                          max_size=None, open_timeout=30, origin=self.base,
                          additional_headers={"Cookie": cookie} if cookie else None)
        self.session_id = ""
        self.pages: dict[str, str] = {}  # url path -> page script hash
        self.page_hash = ""
        self.widgets: dict[str, WidgetState] = {}
        self.fragments: dict[str, float] = {}  # fragment id -> run_every seconds
        self.last = Rerun()
        self._cv = threading.Condition()
        self._file_urls: dict[str, Any] = {}
        self._closed = False
        self._fragment_run = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # -- receiving
    def _read(self) -> None:
        try:
            for raw in self.ws:
                msg = ForwardMsg()
                msg.ParseFromString(raw if isinstance(raw, bytes) else raw.encode())
                self._handle(msg)
        except Exception:  # noqa: BLE001 - the socket closed
            pass
        with self._cv:
            self._closed = True
            self._cv.notify_all()

    def _handle(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        with self._cv:
            if kind == "new_session":
                ns = msg.new_session
                self.session_id = ns.initialize.session_id or self.session_id
                self.page_hash = ns.page_script_hash or self.page_hash
            elif kind == "navigation":  # a run of the whole app (also one the server started: a
                self.fragments.clear()  # switch_page, a fragment's st.rerun) re-announces its fragments
                for p in msg.navigation.app_pages:
                    self.pages[p.url_pathname or ""] = p.page_script_hash
                self.page_hash = msg.navigation.page_script_hash or self.page_hash
            elif kind == "delta":
                self._element(msg)
            elif kind == "auto_rerun":
                self.fragments[msg.auto_rerun.fragment_id] = float(msg.auto_rerun.interval)
            elif kind == "stop_auto_rerun":
                self.fragments.pop(msg.stop_auto_rerun.fragment_id, None)
            elif kind == "file_urls_response":
                self._file_urls[msg.file_urls_response.response_id] = msg.file_urls_response
            elif kind == "script_finished":
                # A page run cut short for another (st.switch_page, st.rerun) is followed by that one:
                # wait for it. A fragment run cut short by the whole app's rerun (a run ended) is over
                # for the fragment: the app's rerun is what the next page switch sees.
                if msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN or self._fragment_run:
                    self.last.finished = True
            self._cv.notify_all()

    def _element(self, msg: ForwardMsg) -> None:
        d = msg.delta
        if d.WhichOneof("type") != "new_element":
            return
        el = d.new_element
        t = el.WhichOneof("type")
        if t in ("button", "checkbox", "text_input"):
            self.last.fragment_of[getattr(el, t).id] = msg.delta.fragment_id
        if t == "button":
            self.last.buttons[el.button.label] = el.button.id
        elif t == "checkbox":
            self.last.checkboxes[el.checkbox.label] = el.checkbox.id
        elif t == "text_input":
            self.last.text_inputs[el.text_input.label] = el.text_input.id
        elif t == "file_uploader":
            self.last.uploaders[el.file_uploader.label] = el.file_uploader
        elif t == "heading":
            self.last.headings.append(el.heading.body)
        elif t == "markdown":
            self.last.texts.append(el.markdown.body)
        elif t == "metric":
            self.last.metrics[el.metric.label] = el.metric.body
        elif t == "alert":
            self.last.texts.append(el.alert.body)
        elif t == "html":
            self.last.texts.append(el.html.body)
        elif t == "exception":
            self.last.exceptions.append(f"{el.exception.type}: {el.exception.message}")

    # -- sending
    def _send(self, back: BackMsg) -> None:
        self.ws.send(back.SerializeToString())

    def rerun(self, page_hash: str | None = None, triggers: dict[str, Any] | None = None,
              fragment_id: str = "", wait: bool = True) -> Rerun:
        """Run the script (a page switch when ``page_hash`` differs); ``triggers``: widget id ->
        WidgetState for this run only (a button click). Returns what the run showed."""
        cs = ClientState(page_script_hash=page_hash or self.page_hash, fragment_id=fragment_id,
                         is_auto_rerun=bool(fragment_id), query_string=self.query)
        states = dict(self.widgets)
        for wid, st in (triggers or {}).items():
            states[wid] = st
        cs.widget_states.CopyFrom(WidgetStates(widgets=list(states.values())))
        with self._cv:
            self._fragment_run = bool(fragment_id)
            if not fragment_id:
                self.last = Rerun()
                self.fragments.clear()  # a full run re-announces its fragments
            else:
                self.last.finished = False
        self._send(BackMsg(rerun_script=cs))
        if wait:
            self.wait_finished()
        return self.last

    def wait_finished(self, timeout: float | None = None) -> None:
        end = time.monotonic() + (timeout or self.timeout)
        with self._cv:
            while not self.last.finished:
                if self._closed:
                    raise ConnectionError("the server closed the session")
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError("the script run did not finish")
                self._cv.wait(min(left, 1.0))

    default_page = "start"  # app.py's default st.Page

    def goto(self, url_path: str) -> Rerun:
        if url_path not in self.pages and url_path == self.default_page:
            url_path = ""  # the default page is also served at "/"
        if url_path not in self.pages:
            raise KeyError(f"no page {url_path!r}; pages: {sorted(self.pages)}")
        self.page_hash = self.pages[url_path]
        return self.rerun(self.page_hash)

    def click(self, label_prefix: str) -> Rerun:
        wid = next((w for label, w in self.last.buttons.items() if label.startswith(label_prefix)), None)
        if wid is None:
            raise KeyError(f"no button {label_prefix!r}; buttons: {sorted(self.last.buttons)}")
        return self.rerun(triggers={wid: WidgetState(id=wid, trigger_value=True)})

    def set_text(self, label_prefix: str, value: str) -> Rerun:
        """Type ``value`` into a text input (kept, as a browser keeps it)."""
        wid = next((w for label, w in self.last.text_inputs.items() if label.startswith(label_prefix)), None)
        if wid is None:
            raise KeyError(f"no text input {label_prefix!r}; inputs: {sorted(self.last.text_inputs)}")
        self.widgets[wid] = WidgetState(id=wid, string_value=value)
        return self.rerun()

    def set_toggle(self, label_prefix: str, on: bool) -> Rerun:
        """Set a checkbox or a toggle (kept across reruns)."""
        wid = next((w for label, w in self.last.checkboxes.items() if label.startswith(label_prefix)), None)
        if wid is None:
            raise KeyError(f"no checkbox / toggle {label_prefix!r}; found: {sorted(self.last.checkboxes)}")
        self.widgets[wid] = WidgetState(id=wid, bool_value=on)
        return self.rerun()

    def upload(self, label_prefix: str, name: str, data: bytes) -> Rerun:
        up = next((u for label, u in self.last.uploaders.items() if label.startswith(label_prefix)), None)
        if up is None:
            raise KeyError(f"no uploader {label_prefix!r}; uploaders: {sorted(self.last.uploaders)}")
        req_id = uuid.uuid4().hex
        self._send(BackMsg(file_urls_request=FileURLsRequest(
            request_id=req_id, file_names=[name], session_id=self.session_id)))
        end = time.monotonic() + self.timeout
        with self._cv:
            while req_id not in self._file_urls:
                if time.monotonic() > end:
                    raise TimeoutError("no upload URL from the server")
                self._cv.wait(1.0)
            urls = self._file_urls.pop(req_id).file_urls[0]
        upload_url = urls.upload_url if urls.upload_url.startswith("http") else self.base + urls.upload_url
        resp = self.http.put(upload_url, files={"file": (name, data)}, timeout=self.timeout,
                             headers={"X-Xsrftoken": self.xsrf, "Origin": self.base})
        resp.raise_for_status()
        state = WidgetState(id=up.id)
        state.file_uploader_state_value.uploaded_file_info.append(
            UploadedFileInfo(name=name, size=len(data), file_id=urls.file_id, file_urls=urls))
        self.widgets[up.id] = state  # an uploader keeps its value across reruns
        return self.rerun()

    def tick_fragments(self, timeout: float = 30.0) -> None:
        """Auto-rerun every fragment that asked for it (what the browser does on its timer). A
        fragment the server no longer has (a full rerun replaced it) never answers: it is dropped."""
        for fid in list(self.fragments):
            self.rerun(fragment_id=fid, wait=False)
            try:
                self.wait_finished(timeout)
            except TimeoutError:
                with self._cv:
                    self.fragments.pop(fid, None)

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:  # noqa: BLE001
            pass
