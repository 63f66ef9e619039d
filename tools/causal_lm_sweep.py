"""Causal LMs from transformers' own config classes (tiny sizes, random
weights, no downloads) compiled with torch.compile(backend="tpu",
dynamic=True) and run at several sequence lengths: are the logits CPU
eager's at every length (issue 15 part 4; the seeds' measure is 834 of 839
causal LMs correct with SymInt)? Per model: the outcome (ok, mismatch, error
on tpu, not built: the model does not build or run on CPU at these sizes),
how its graphs ran (bounded: one plan per bucket; per size; op by op), and
why a graph is not bounded.

    .venv/bin/python tools/causal_lm_sweep.py [--models llama,gpt2,...] [--lengths 5,7,9,13,6] [--how dynamic|mark] [--batch 2] [--train] [--json out.json]

--train compares a training step instead: the loss (labels: the inputs) and every parameter's gradient.

Without --models every entry of transformers' causal-LM mapping is tried,
each model in a process of its own (killed past --timeout or --max-rss-gib:
outcome timeout or memory)."""
import argparse
import gc
import json
import subprocess
import sys
import time
import traceback

import torch

TINY = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, intermediate_size=64,
            vocab_size=128, max_position_embeddings=128, head_dim=16, n_embd=32, n_layer=2, n_head=2, n_positions=128,
            d_model=32, ffn_dim=64, moe_intermediate_size=32, num_experts=4, num_local_experts=4,
            num_experts_per_tok=2, n_routed_experts=4, pad_token_id=0, bos_token_id=1, eos_token_id=2,
            rotary_dim=8, use_cache=False, tie_word_embeddings=False)


def _build(name, drop=()):
    import transformers
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    kw = {k: v for k, v in TINY.items() if k not in drop}
    for _ in range(8):  # drop the tiny settings a config refuses (a read-only property, say)
        try:
            cfg = transformers.AutoConfig.for_model(name, **kw)
            break
        except (AttributeError, TypeError, ValueError) as e:
            bad = [k for k in kw if f"'{k}'" in str(e)]
            if not bad:
                raise
            for k in bad:
                del kw[k]
    cls = getattr(transformers, MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[name])
    torch.manual_seed(0)
    return cls(cfg).eval(), cls(cfg).eval()


def _graphs(old):
    from torchtpu import _compile

    seen = {}
    for g in gc.get_objects():
        if type(g) is _compile._Graph and id(g) not in old and g.sizes is not None:
            seen.setdefault(id(g.gm), g)
    return list(seen.values())


def _how(graphs):
    kinds, why = set(), set()
    for g in graphs:
        if g.why is not None:
            kinds.add("op by op")
            why.add(g.why[:120])
        elif any(k and k[0] == "bounded" for k in g.plans):
            kinds.add("bounded")
        elif g.plans:
            kinds.add("per size")
        if g.unbounded and g.sizes:
            why.add(g.unbounded[:120])
    return sorted(kinds), sorted(why)


def _step(model, x, train):
    """The logits, or with train the loss (labels: the inputs) and every parameter's gradient, zeros for
    one the loss does not use (eval mode: no dropout)."""
    if not train:
        with torch.no_grad():
            return [model(input_ids=x).logits]
    loss = model(input_ids=x, labels=x).loss
    params = [p for p in model.parameters() if p.requires_grad]
    # unused parameters: None in eager, zeros under torch.compile (AOTAutograd's, aot_eager's too)
    grads = torch.autograd.grad(loss, params, allow_unused=True, materialize_grads=True)
    return [loss.detach()] + list(grads)


def one(name, lengths, tol, how="dynamic", batch=2, train=False):
    from torchtpu import _compile

    ids = [torch.randint(3, 128, (batch, n), generator=torch.Generator().manual_seed(n)) for n in lengths]
    for drop in ((), ("head_dim",), ("head_dim", "num_key_value_heads")):  # head sizes some models derive
        try:
            ref, dev = _build(name, drop)
            dev.load_state_dict(ref.state_dict())
            want = [_step(ref, x, train) for x in ids]
            break
        except Exception as e:  # the model itself: not ours to count
            built = {"model": name, "outcome": "not built", "error": f"{type(e).__name__}: {str(e)[:200]}"}
    else:
        return built
    torch._dynamo.reset()
    old = {id(g) for g in gc.get_objects() if type(g) is _compile._Graph}
    t = time.perf_counter()
    try:
        f = torch.compile(dev.to("tpu"), backend="tpu", dynamic=True if how == "dynamic" else None)
        worst = scaled = 0.0
        for x, ws in zip(ids, want):
            x = x.to("tpu")
            if how == "mark":  # the sequence dim alone symbolic (the batch stays static)
                torch._dynamo.mark_dynamic(x, 1)
            gots = _step(f, x, train)
            if len(gots) != len(ws):
                raise RuntimeError(f"{len(gots) - 1} gradients on tpu, {len(ws) - 1} on CPU")
            for got, w in zip(gots, ws):
                d = (got.cpu() - w).abs().max().item()
                worst = max(worst, d)
                # float32 rounding grows with the logits' size (cpmant's reach 19: CPU itself is 1.3e-4 from
                # float64 there), so the difference is compared at the logits' scale
                scaled = max(scaled, d / max(1.0, w.abs().max().item()))
        outcome = "ok" if scaled <= tol else "mismatch"
        res = {"model": name, "outcome": outcome, "max_abs_diff": worst, "scaled_diff": scaled}
    except Exception as e:
        res = {"model": name, "outcome": "error", "error": f"{type(e).__name__}: {str(e)[:300]}",
               "where": traceback.format_exc().splitlines()[-3][:200]}
    res["seconds"] = round(time.perf_counter() - t, 1)
    res["graphs"], res["why"] = _how(_graphs(old))
    return res


def _rss_bytes(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _run_child(name, a):
    """One model in a process of its own, killed past --timeout seconds or
    --max-rss-gib of resident memory (a config's defaults can be huge)."""
    cmd = [sys.executable, __file__, "--child", name, "--lengths", a.lengths, "--tol", str(a.tol), "--how", a.how, "--batch", str(a.batch)]
    cmd += ["--train"] if a.train else []
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0, limit = time.monotonic(), a.max_rss_gib * 2 ** 30
    killed = None
    while p.poll() is None:
        if time.monotonic() - t0 > a.timeout:
            killed = {"outcome": "timeout", "error": f"over {a.timeout} s"}
        elif _rss_bytes(p.pid) > limit:
            killed = {"outcome": "memory", "error": f"over {a.max_rss_gib} GiB resident"}
        if killed:
            p.kill()
            break
        time.sleep(0.2)
    out, err = p.communicate()
    if killed:
        return {"model": name, "graphs": [], "why": [], **killed}
    line = [x for x in out.splitlines() if x.startswith("RES ")]
    if not line:
        return {"model": name, "outcome": "error", "error": f"exit {p.returncode}: {err.strip()[-300:]}",
                "graphs": [], "why": []}
    return json.loads(line[-1][4:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="")
    ap.add_argument("--lengths", default="5,7,9,13,6")
    ap.add_argument("--tol", type=float, default=1e-4, help="largest |tpu - CPU| / max(1, largest |logit|)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per model")
    ap.add_argument("--max-rss-gib", type=float, default=8.0, help="resident memory per model")
    ap.add_argument("--how", default="dynamic", choices=("dynamic", "mark"),
                    help="dynamic: torch.compile(dynamic=True), every dim symbolic; mark: mark_dynamic on the sequence dim")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--train", action="store_true",
                    help="compare the loss (labels: the inputs) and every parameter's gradient, not the logits")
    ap.add_argument("--json", default="")
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    a = ap.parse_args()
    lengths = [int(n) for n in a.lengths.split(",")]
    if a.child:
        import torchtpu  # noqa: F401
        import transformers

        transformers.logging.set_verbosity_error()
        print("RES " + json.dumps(one(a.child, lengths, a.tol, a.how, a.batch, a.train)), flush=True)
        return 0
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    names = a.models.split(",") if a.models else sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)
    results = []
    for name in names:
        r = _run_child(name, a)
        results.append(r)
        extra = r.get("error", "") if r["outcome"] != "ok" else f"{r['max_abs_diff']:.1e}"
        print(f"{name:28s} {r['outcome']:9s} {','.join(r.get('graphs', [])):18s} {extra}", flush=True)
        for w in r.get("why", []):
            print(f"{'':28s}   {w}", flush=True)
    counts = {}
    for r in results:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    built = len(results) - counts.get("not built", 0)
    print(f"\n{counts.get('ok', 0)} of {built} built models match CPU at lengths {lengths}; {counts}")
    bounded = sum(1 for r in results if r.get("graphs") == ["bounded"])
    print(f"all graphs bounded: {bounded}; some graph per size: "
          f"{sum(1 for r in results if 'per size' in r.get('graphs', []))}; "
          f"some graph op by op: {sum(1 for r in results if 'op by op' in r.get('graphs', []))}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
