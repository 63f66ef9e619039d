"""nn.LSTM / nn.GRU / LSTMCell / GRUCell on tpu (PyTorch's fused-cell path
for accelerators: _thnn_fused_lstm_cell, _thnn_fused_gru_cell and their
backwards, ops/rnn_cells.c): outputs, input and parameter gradients as on
CPU, in Strict and DeferAndFuse."""
import copy

import pytest
import torch

MODELS = {
    "lstm": (lambda: torch.nn.LSTM(8, 16, batch_first=True), (2, 5, 8)),
    "lstm_2layer_bidir": (lambda: torch.nn.LSTM(8, 16, num_layers=2, bidirectional=True), (5, 2, 8)),
    "lstm_no_bias": (lambda: torch.nn.LSTM(8, 16, bias=False), (5, 2, 8)),
    "gru": (lambda: torch.nn.GRU(8, 16, batch_first=True), (2, 5, 8)),
    "gru_2layer_bidir_no_bias": (lambda: torch.nn.GRU(8, 16, num_layers=2, bidirectional=True, bias=False), (5, 2, 8)),
    "lstm_cell": (lambda: torch.nn.LSTMCell(8, 16), (3, 8)),
    "gru_cell": (lambda: torch.nn.GRUCell(8, 16), (3, 8)),
}


def run(model, x, device):
    m = copy.deepcopy(model).to(device)
    xi = x.clone().to(device).requires_grad_()
    o = m(xi)
    out, state = (o[0], o[1]) if isinstance(o, tuple) else (o, None)
    loss = out.square().sum()
    if isinstance(state, tuple):
        loss = loss + sum(s.sum() for s in state)
    elif state is not None:
        loss = loss + state.sum()
    loss.backward()
    return [out.detach().cpu(), xi.grad.cpu()] + [p.grad.cpu() for p in m.parameters()]


@pytest.mark.parametrize("mode", ["strict", "defer_and_fuse"])
@pytest.mark.parametrize("name", list(MODELS))
def test_matches_cpu(name, mode):
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model, x = make(), torch.randn(*shape)
    want = run(model, x, "cpu")
    with torch.tpu.eager_mode(mode):
        got = run(model, x, "tpu")
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
