"""A first generate() on tiny causal LMs (random weights, from transformers'
config classes) vs the second call in the same process (issue 15, part 5):
every new token's KV length is new, so a first call compiles per length
unless eager buckets (torch.tpu.set_eager_buckets) let programs serve a
bucket. Prints first/second wall time, programs compiled by each, and
whether the greedy tokens equal CPU's. --bucket-min gives the buckets'
least capacity for small tensors (TORCH_TPU_EAGER_BUCKET_MIN; 1: every
power of two a bucket, the mechanism before the least capacity).

    .venv/bin/python bench/bench_kv_generate.py [--tokens 64] [--models gpt2,llama] [--buckets 0,1] [--bucket-min 1,128]
        [--models gpt2,llama,bloom,falcon,stablelm,...]  (names other than gpt2/llama: tools/causal_lm_sweep.py's
        tiny configs, 128 positions: keep --tokens <= 100)
        [--batch 2]  (rows after the first left-padded by 2: the attention mask path of padded batches)

Each (model, buckets) row runs in a fresh process, tiers 2 and 3 off.
"""
import argparse
import json
import os
import subprocess
import sys
import time


def build(name):
    import torch
    import transformers as tf

    torch.manual_seed(0)
    if name == "gpt2":
        cfg = tf.GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=128, n_positions=256)
        model = tf.GPT2LMHeadModel(cfg)
    elif name == "llama":
        cfg = tf.LlamaConfig(num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, hidden_size=32,
                             intermediate_size=64, vocab_size=128, max_position_embeddings=256)
        model = tf.LlamaForCausalLM(cfg)
    else:  # any other causal LM, from tools/causal_lm_sweep.py's tiny config (max 128 positions)
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
        from causal_lm_sweep import _build
        model = _build(name)[0]  # its config says use_cache=False: generate() is told otherwise
    model.config._attn_implementation = "eager"
    return model.eval()


def child(name, tokens, buckets, batch=1):
    os.environ["TORCH_TPU_TIER2_COMPILATION_CACHE"] = "0"
    os.environ["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"] = "off"
    import torch
    import torchtpu  # noqa: F401

    torch.tpu.set_eager_mode("strict")
    torch.tpu.set_eager_buckets(bool(buckets))
    model = build(name)
    ids = torch.randint(0, 128, (batch, 5), generator=torch.Generator().manual_seed(1))
    mask = torch.ones_like(ids)
    mask[1:, :2] = 0  # rows after the first left-padded by 2
    kw = dict(max_new_tokens=tokens, do_sample=False, pad_token_id=0, use_cache=True)
    with torch.no_grad():
        ref = model.generate(ids, attention_mask=mask, **kw)
        model.to("tpu")
        out = {}
        for call in ("first", "second"):
            before = torch.tpu.cache_stats()["misses"]
            t0 = time.perf_counter()
            got = model.generate(ids.to("tpu"), attention_mask=mask.to("tpu"), **kw).cpu()
            out[call] = time.perf_counter() - t0
            torch.tpu.synchronize()
            out[call + "_programs"] = torch.tpu.cache_stats()["misses"] - before
        out["same_tokens"] = bool(torch.equal(got, ref))
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--models", default="gpt2,llama")
    ap.add_argument("--buckets", default="0,1")
    ap.add_argument("--bucket-min", default="128", help="comma list of least capacities (rows with buckets on)")
    ap.add_argument("--batch", type=int, default=1, help="rows; rows after the first are left-padded by 2")
    ap.add_argument("--child", nargs=4)
    a = ap.parse_args()
    if a.child:
        child(a.child[0], int(a.child[1]), int(a.child[2]), int(a.child[3]))
        return
    print(f"generate(max_new_tokens={a.tokens}), batch {a.batch}, Strict, fresh process per row, tiers 2/3 off")
    print(f"{'model':10} {'buckets':>7} {'least':>5} {'first s':>8} {'programs':>8} {'second s':>8} {'programs':>8} "
          f"{'ratio':>6} CPU's tokens")
    rows = [(b, m) for b in a.buckets.split(",") for m in (a.bucket_min.split(",") if b != "0" else ["-"])]
    for name in a.models.split(","):
        for b, m in rows:
            env = dict(os.environ)
            if m != "-":
                env["TORCH_TPU_EAGER_BUCKET_MIN"] = m
            p = subprocess.run([sys.executable, __file__, "--tokens", str(a.tokens), "--child", name, str(a.tokens), b,
                                str(a.batch)],
                               capture_output=True, text=True, check=False, env=env)
            if p.returncode:
                print(f"{name} buckets={b} least={m}: failed: {p.stderr[-1500:]}")
                continue
            r = json.loads(p.stdout.strip().splitlines()[-1])
            print(f"{name:10} {b:>7} {m:>5} {r['first']:8.2f} {r['first_programs']:8d} {r['second']:8.2f} "
                  f"{r['second_programs']:8d} {r['first'] / r['second']:6.1f} {r['same_tokens']}")


if __name__ == "__main__":
    main()
