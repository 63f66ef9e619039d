"""A backward started from a tpu tensor runs on the calling thread
(torchtpu/_backward.py): no hand-off to autograd's device worker thread and
back. Hooks see the caller's thread; the thread's own multithreading
setting is put back; reentrant checkpointing, torch.autograd.grad, threads
of their own and a CPU loss (PyTorch's threads) keep working."""
import threading

import torch
import torch.utils.checkpoint


def _hooked(device):
    seen = []
    x = torch.randn(4, 3, device=device, requires_grad=True)
    y = (x * 2).sin()
    y.register_hook(lambda g: seen.append(threading.get_ident()))
    return x, y, seen


def test_tpu_backward_runs_on_the_calling_thread():
    x, y, seen = _hooked("tpu")
    y.sum().backward()
    assert seen == [threading.get_ident()]
    torch.testing.assert_close(x.grad.cpu(), (2 * (x.detach() * 2).cos()).cpu(), atol=1e-6, rtol=1e-6)
    x, y, seen = _hooked("tpu")
    (g,) = torch.autograd.grad(y.sum(), [x])
    assert seen == [threading.get_ident()]
    assert torch._C._is_multithreading_enabled()  # put back


def test_a_cpu_loss_keeps_autograds_threads_and_values():
    x = torch.randn(4, 3, device="tpu", requires_grad=True)
    seen = []
    y = (x * 2).sin()
    y.register_hook(lambda g: seen.append(threading.get_ident()))
    y.cpu().sum().backward()  # the loss is a CPU tensor: PyTorch's threads as before
    assert len(seen) == 1 and seen[0] != threading.get_ident()
    torch.testing.assert_close(x.grad.cpu(), (2 * (x.detach() * 2).cos()).cpu(), atol=1e-6, rtol=1e-6)


def test_the_threads_own_setting_is_kept():
    with torch.autograd.set_multithreading_enabled(False):
        x, y, seen = _hooked("tpu")
        y.sum().backward()
        assert not torch._C._is_multithreading_enabled()
    assert torch._C._is_multithreading_enabled()


def test_reentrant_checkpoint_and_errors_restore_the_setting():
    lin = torch.nn.Linear(5, 5).to("tpu")
    x = torch.randn(3, 5, device="tpu", requires_grad=True)
    out = torch.utils.checkpoint.checkpoint(lambda t: lin(t).relu(), x, use_reentrant=True)
    out.sum().backward()
    xc = x.detach().cpu().requires_grad_()
    linc = torch.nn.Linear(5, 5)
    linc.load_state_dict({k: v.cpu() for k, v in lin.state_dict().items()})
    linc(xc).relu().sum().backward()
    torch.testing.assert_close(x.grad.cpu(), xc.grad, atol=1e-5, rtol=1e-5)
    y = x * 2
    y.sum().backward()
    try:
        y.sum().backward()  # the graph is freed: PyTorch's error, setting put back
        raise AssertionError("expected an error")
    except RuntimeError as e:
        assert "second time" in str(e)
    assert torch._C._is_multithreading_enabled()


def test_threads_of_their_own():
    errors, results = [], {}

    def work(i):
        try:
            x, y, seen = _hooked("tpu")
            y.sum().backward()
            results[i] = seen == [threading.get_ident()] and x.grad is not None
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors and all(results.values()) and len(results) == 4
