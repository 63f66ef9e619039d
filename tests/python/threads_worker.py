"""Run by test_threads.py in a subprocess (a crash must not take pytest down):
N threads each do a fixed mix of tpu ops (creation, arithmetic, views,
in-place, .item(), .cpu(), host uploads) on their own tensors and on one
shared tensor, and replay the same ops on CPU; prints one JSON line."""
import json
import sys
import threading

import torch
import torchtpu  # noqa: F401


def step_ops(x, k, dev):
    """One iteration of the mix on device `dev`: returns the values to compare."""
    a = torch.arange(16.0, device=dev).reshape(4, 4)           # creation
    y = x * 2 + a.repeat(2, 2) - k                              # arithmetic
    v = y[1:7, ::2].t()                                         # views
    v.mul_(0.5).add_(1)                                         # in-place through a view
    z = torch.where(y > 0, y.exp().clamp(max=10), y.abs())      # more arithmetic
    s = z.sum(dim=0)
    y[0].copy_(torch.full((8,), float(k)))                      # host upload into a view
    m = (y @ z.t()).mean().item()                               # .item()
    w = torch.cat([s, y[:, 3]]).cpu()                           # .cpu()
    return m, w, y


def worker(tid, iters, shared, errors, mismatches):
    try:
        g = torch.Generator().manual_seed(1000 + tid)
        xc = torch.randn(8, 8, generator=g)
        xt = xc.to("tpu")
        for k in range(iters):
            mt, wt, yt = step_ops(xt, k, "tpu")
            mc, wc, yc = step_ops(xc, k, "cpu")
            shared.add_(1)                                        # shared tensor, no lock of ours
            if abs(mt - mc) > 1e-4 * max(1.0, abs(mc)) or not torch.allclose(wt, wc, rtol=1e-5, atol=1e-5) \
                    or not torch.allclose(yt.cpu(), yc, rtol=1e-5, atol=1e-5):
                mismatches.append((tid, k))
            xt, xc = yt * 0.5, yc * 0.5
    except Exception as e:  # noqa: BLE001 -- reported to the test
        errors.append(f"thread {tid}: {type(e).__name__}: {e}")


def main():
    mode, nthreads, iters, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    torch.tpu.set_eager_mode(mode)
    errors, mismatches, shared_ok = [], [], 0
    for _ in range(repeats):
        shared = torch.zeros(4, device="tpu")
        ts = [threading.Thread(target=worker, args=(i, iters, shared, errors, mismatches)) for i in range(nthreads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        shared_ok += int(torch.equal(shared.cpu(), torch.full((4,), float(nthreads * iters))))
    print(json.dumps({"errors": errors[:5], "nerrors": len(errors), "mismatches": mismatches[:5],
                      "nmismatches": len(mismatches), "shared_ok": shared_ok, "repeats": repeats}))


if __name__ == "__main__":
    main()
