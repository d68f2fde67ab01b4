"""``encoder``: build the ONNX encoder and measure the backends now (a Docker image does it at build
time, so the first visitor does not wait), show what was chosen and why, or remake the reference
vectors the backends are checked against (needs the torch extra)."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from .common import UsageError


def add_parser(sub: Any) -> None:
    p = sub.add_parser("encoder", help="the embedded encoder: build / info / reference",
                       description="build: build the ONNX graphs and measure every installed backend on this "
                                   "machine (kept with the graphs; also happens at first use). info: the choice "
                                   "and its measurement. reference: remake the check vectors (torch extra).")
    p.add_argument("action", choices=("build", "info", "reference"))
    p.set_defaults(func=cmd_encoder)


def cmd_encoder(args: argparse.Namespace) -> int:
    from ..encoder import backends, embeddings

    if args.action == "reference":
        print(f"wrote {backends.write_reference()}")
        return 0
    t = time.perf_counter()
    try:
        choice = embeddings.choose()
        if args.action == "build":
            embeddings.load()  # the chosen model loads and passes its check here, not at the first visit
    except (RuntimeError, ImportError) as exc:  # no backend this install can run, or none passed its check
        raise UsageError(f"the encoder cannot run on this install: {exc}") from None
    if args.action == "build":
        print(f"encoder ready in {time.perf_counter() - t:.1f} s: {choice['backend']} ({choice['reason']})")
        print(f"graphs and measurement: {choice.get('folder', '-')}")
        return 0
    print(json.dumps({k: v for k, v in choice.items() if k != "tag"}, indent=2))
    return 0
