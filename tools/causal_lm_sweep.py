"""Causal LMs from transformers' own config classes (tiny sizes, random
weights, no downloads) compiled with torch.compile(backend="tpu",
dynamic=True) and run at several sequence lengths: are the logits CPU
eager's at every length (issue 15 part 4; the seeds' measure is 834 of 839
causal LMs correct with SymInt)? Per model: the outcome (ok, mismatch, error
on tpu, not built: the model does not build or run on CPU at these sizes),
how its graphs ran (bounded: one plan per bucket; per size; op by op), and
why a graph is not bounded; timeout: the model ran past --timeout.

    .venv/bin/python tools/causal_lm_sweep.py [--models llama,gpt2,...] [--lengths 5,7,9,13,6] [--json out.json]

Without --models every entry of transformers' causal-LM mapping is tried,
one after another in this process (Dynamo reset between models)."""
import argparse
import gc
import json
import signal
import sys
import time
import traceback

import torch

TINY = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, intermediate_size=64,
            vocab_size=128, max_position_embeddings=128, head_dim=16, n_embd=32, n_layer=2, n_head=2, n_positions=128,
            d_model=32, ffn_dim=64, moe_intermediate_size=32, num_experts=4, num_local_experts=4,
            num_experts_per_tok=2, n_routed_experts=4, pad_token_id=0, bos_token_id=1, eos_token_id=2,
            rotary_dim=8, use_cache=False, tie_word_embeddings=False)


class Timeout(BaseException):  # not caught by the per-model handlers
    pass


def _alarm(signum, frame):
    raise Timeout()


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


def one(name, lengths, tol):
    from torchtpu import _compile

    ids = [torch.randint(3, 128, (2, n), generator=torch.Generator().manual_seed(n)) for n in lengths]
    for drop in ((), ("head_dim",), ("head_dim", "num_key_value_heads")):  # head sizes some models derive
        try:
            ref, dev = _build(name, drop)
            dev.load_state_dict(ref.state_dict())
            with torch.no_grad():
                want = [ref(input_ids=x).logits for x in ids]
            break
        except Exception as e:  # the model itself: not ours to count
            built = {"model": name, "outcome": "not built", "error": f"{type(e).__name__}: {str(e)[:200]}"}
    else:
        return built
    torch._dynamo.reset()
    old = {id(g) for g in gc.get_objects() if type(g) is _compile._Graph}
    t = time.perf_counter()
    try:
        f = torch.compile(dev.to("tpu"), backend="tpu", dynamic=True)
        worst = 0.0
        with torch.no_grad():
            for x, w in zip(ids, want):
                got = f(input_ids=x.to("tpu")).logits.cpu()
                worst = max(worst, (got - w).abs().max().item())
        outcome = "ok" if worst <= tol else "mismatch"
        res = {"model": name, "outcome": outcome, "max_abs_diff": worst}
    except Exception as e:
        res = {"model": name, "outcome": "error", "error": f"{type(e).__name__}: {str(e)[:300]}",
               "where": traceback.format_exc().splitlines()[-3][:200]}
    res["seconds"] = round(time.perf_counter() - t, 1)
    res["graphs"], res["why"] = _how(_graphs(old))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="")
    ap.add_argument("--lengths", default="5,7,9,13,6")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per model")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    import torchtpu  # noqa: F401
    import transformers

    transformers.logging.set_verbosity_error()
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    names = a.models.split(",") if a.models else sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)
    lengths = [int(n) for n in a.lengths.split(",")]
    signal.signal(signal.SIGALRM, _alarm)
    results = []
    for name in names:
        signal.alarm(a.timeout)
        try:
            r = one(name, lengths, a.tol)
        except Timeout:
            r = {"model": name, "outcome": "timeout", "error": f"over {a.timeout} s", "graphs": [], "why": []}
        finally:
            signal.alarm(0)
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
