"""A compiled graph's launch that writes its result into an argument's
storage (a compiled step's parameter update: the old buffer is donated to
the program) returns without waiting for the program: the old buffer is
destroyed once the launch is done (csrc/exec/retired.h). Destroying it at
once made the host wait for every such program (XLA's CPU plugin holds a
donated buffer until its execution ends). Values stay right through long
runs of such launches, and of eager in-place ops (which do not donate),
with no synchronize between them."""
import time

import torch

from torchtpu import _C

N = 2048  # a matmul of this size runs for tens of milliseconds or more: never inline, never done at once


def _capture(fn, args):
    _C.plan_capture_begin(True)
    out = fn(*args)
    plan, why = _C.plan_capture_end(list(args), [out], "test_inplace_launch")
    assert plan is not None, why
    return plan


def _still_running_after(launch):
    """Whether the work launched by `launch()` is still running when it returns."""
    torch.tpu.synchronize()
    launch()
    ev = torch.tpu.Event()
    ev.record()
    running = not ev.query()
    torch.tpu.synchronize()
    return running


def _inplace(p, a):
    p.add_(a @ a)
    return p


def test_a_plan_writing_an_argument_returns_before_its_program_is_done():
    torch.manual_seed(0)
    a = torch.randn(N, N).div_(N).to("tpu")
    p = torch.zeros(N, N).to("tpu")
    plan = _capture(_inplace, [p, a])
    _C.plan_run(plan, [p, a])  # the plan's executable is ready
    torch.tpu.synchronize()
    # a plan without an in-place result as the control: it never waited
    plan_new = _capture(lambda a: a @ a, [a])
    assert all(_still_running_after(lambda: _C.plan_run(plan_new, [a])) for _ in range(3))
    assert all(_still_running_after(lambda: _C.plan_run(plan, [p, a])) for _ in range(3))


def test_values_stay_right_through_many_inplace_launches_without_a_sync():
    torch.manual_seed(0)
    a_cpu = torch.randn(64, 64) / 64
    a = a_cpu.to("tpu")
    p = torch.zeros(64, 64, device="tpu")
    plan = _capture(_inplace, [p, a])  # the capture ran it once
    want = a_cpu @ a_cpu
    for _ in range(300):  # more than the in-flight ring's depth (256)
        _C.plan_run(plan, [p, a])
    for _ in range(300):  # eager in-place, Strict: the same path
        p.add_(a @ a)
    torch.testing.assert_close(p.cpu(), want * 601, rtol=1e-4, atol=1e-4)


def test_compiled_sgd_step_is_not_serialized_by_its_parameter_updates():
    """The compiled optimizer step's plan updates the parameter in place: it
    returns while its program still runs, and the update is right."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(N, N).div_(N).to("tpu"))
    w.grad = torch.zeros(N, N).to("tpu")
    opt = torch.optim.SGD([w], lr=1e-3)
    big_cpu = torch.randn(N, N) / N
    big = big_cpu.to("tpu")

    @torch.compile(backend="tpu")
    def step():
        w.grad.copy_(w @ big)  # a long program that reads the parameter...
        opt.step()             # ... and writes it, in one graph

    for _ in range(3):
        step()
    assert all(_still_running_after(step) for _ in range(3))
    before = w.detach().cpu()
    step()
    torch.testing.assert_close(w.detach().cpu(), before - 1e-3 * (before @ big_cpu), rtol=1e-5, atol=1e-5)
