"""``python -m evaluators.sample_app [--version v1|v2] [--port 8765] [--corpus PATH]``: the sample RAG
app on 127.0.0.1 until stopped (Ctrl-C or SIGTERM). Both versions are served (``/v1/ask``,
``/v2/ask``); ``--version`` picks the one ``/ask`` answers. ``--delay`` / ``--fail`` /
``--retry-after`` make it slow or flaky on purpose (see ``Faults``)."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any, Sequence

from .app import VERSIONS, SampleApp
from .corpus import load_corpus
from .server import Faults, make_server


def _fail(item: str) -> tuple[int, float]:
    status, sep, rate = item.partition("=")
    try:
        code, share = int(status), float(rate)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{item!r}: expected STATUS=SHARE, e.g. 503=0.1") from None
    if not sep or not 400 <= code <= 599 or not 0 <= share <= 1:
        raise argparse.ArgumentTypeError(f"{item!r}: expected STATUS=SHARE with a 4xx / 5xx status and a share in 0-1")
    return code, share


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evaluators.sample_app",
                                description="The sample RAG app (two versions, no key) on 127.0.0.1.")
    p.add_argument("--version", choices=VERSIONS, default="v1", help="the version /ask answers (default v1)")
    p.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free port; default 8765)")
    p.add_argument("--corpus", default=None, metavar="PATH",
                   help="a folder of Markdown files or a JSON Lines file of {id, text} (default: data/sample_docs)")
    p.add_argument("--delay", type=float, default=0.0, metavar="S", help="seconds added to every call")
    p.add_argument("--fail", action="append", type=_fail, default=[], metavar="STATUS=SHARE",
                   help="answer this share of calls with this status (repeatable, e.g. --fail 503=0.1)")
    p.add_argument("--retry-after", type=float, default=None, metavar="S", help="Retry-After of the failed calls")
    p.add_argument("--seed", type=int, default=0, help="seed of the injected failures")
    args = p.parse_args(argv)
    try:
        app = SampleApp(load_corpus(args.corpus))
        faults = Faults(args.delay, dict(args.fail), args.retry_after, args.seed)
        server = make_server(app, args.port, args.version, faults)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    def stop(*_: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    port = server.server_address[1]
    print(f"sample app: {len(app.passages)} passages; http://127.0.0.1:{port}/v1/ask and /v2/ask "
          f"(/ask = {args.version}); GET /health", flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if faults.injected:
            print(f"injected: {faults.injected}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
