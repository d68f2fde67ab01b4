"""An OpenAI-compatible RAG server (FastAPI): ``POST /v1/chat/completions`` answers a chat
completion — with ``stream: true`` as server-sent chunks, ``data: [DONE]`` at the end — and adds the
passages it retrieved as ``sources`` (``[{id, text, score}]``; in the first chunk when streaming).
Two versions by model name: ``rag-k1`` retrieves 1 passage, ``rag-k4`` 4. Offline: the "model"
answers with the first sentence of the best passage; word-count embeddings stand in for an
embedding model. When ``RAG_APP_KEY`` is set, a request must carry ``Authorization: Bearer <it>``.

    RAG_APP_KEY=... python docs/examples/targets/openai_app.py --port 8000
"""

from __future__ import annotations

import json
import os
import time
import uuid
from typing import Any, Iterator

from example_corpus import first_sentence, passages, serve, word_vector
from fastapi import FastAPI, Header
from fastapi.responses import JSONResponse, StreamingResponse
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from pydantic import BaseModel

MODELS = {"rag-k1": 1, "rag-k4": 4}
PASSAGES = passages()
VECTORS = [word_vector(f"{p.title}\n{p.text}") for p in PASSAGES]


class Message(BaseModel):
    role: str
    content: str


class ChatRequest(BaseModel):
    model: str
    messages: list[Message]
    stream: bool = False
    stream_options: dict[str, Any] | None = None


def search(query: str, k: int) -> list[dict[str, Any]]:
    q = word_vector(query)
    scored = sorted(((sum(a * b for a, b in zip(q, v)), i) for i, v in enumerate(VECTORS)), key=lambda x: (-x[0], x[1]))
    return [{"id": PASSAGES[i].id, "text": PASSAGES[i].text, "score": round(s, 6)} for s, i in scored[:k] if s > 0]


app = FastAPI(title="OpenAI-compatible RAG example")


@app.post("/v1/chat/completions", response_model=None)
def chat(req: ChatRequest, authorization: str | None = Header(None)) -> Any:
    key = os.environ.get("RAG_APP_KEY")
    if key and authorization != f"Bearer {key}":
        return JSONResponse({"error": {"message": "invalid API key", "type": "invalid_request_error"}}, 401)
    if req.model not in MODELS:
        return JSONResponse({"error": {"message": f"no model {req.model!r}", "type": "invalid_request_error"}}, 404)
    question = next((m.content for m in reversed(req.messages) if m.role == "user"), "")
    sources = search(question, MODELS[req.model])
    answer = first_sentence(sources[0]["text"]) if sources else "I do not know."
    usage = {"prompt_tokens": len(question.split()), "completion_tokens": len(answer.split()),
             "total_tokens": len(question.split()) + len(answer.split())}
    ident, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
    if not req.stream:
        completion = ChatCompletion(id=ident, object="chat.completion", created=created, model=req.model,
                                    choices=[{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": answer}}], usage=usage)
        return {**completion.model_dump(exclude_none=True), "sources": sources}

    def chunks() -> Iterator[str]:
        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
            c = ChatCompletionChunk(id=ident, object="chat.completion.chunk", created=created, model=req.model,
                                    choices=[{"index": 0, "delta": delta, "finish_reason": finish}])
            return f"data: {json.dumps({**c.model_dump(exclude_none=True), **extra})}\n\n"

        yield chunk({"role": "assistant", "content": ""}, sources=sources)
        for i, word in enumerate(answer.split(" ")):
            yield chunk({"content": word if i == 0 else " " + word})
        yield chunk({}, "stop")
        if (req.stream_options or {}).get("include_usage"):
            c = ChatCompletionChunk(id=ident, object="chat.completion.chunk", created=created, model=req.model,
                                    choices=[], usage=usage)
            yield f"data: {json.dumps(c.model_dump(exclude_none=True))}\n\n"
        yield "data: [DONE]\n\n"

    return StreamingResponse(chunks(), media_type="text/event-stream")


if __name__ == "__main__":
    serve(app)
