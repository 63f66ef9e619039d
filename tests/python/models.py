"""Small models used by the training tests, the example and the benchmarks."""
import torch
from torch import nn


def mlp():
    return nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 10))


def cnn():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10),
    )


class TransformerBlock(nn.Module):
    """Embedding, one pre-norm encoder block (SDPA math path), LM head."""

    def __init__(self, vocab=50, d=32, heads=4, ff=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.block = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True, norm_first=True, activation="gelu")
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, tokens):
        return self.head(self.norm(self.block(self.emb(tokens))))


def batch(kind, seed=0, n=8):
    g = torch.Generator().manual_seed(seed)
    if kind == "mlp":
        return torch.randn(n, 32, generator=g), torch.randint(0, 10, (n,), generator=g)
    if kind == "cnn":
        return torch.randn(n, 3, 16, 16, generator=g), torch.randint(0, 10, (n,), generator=g)
    tokens = torch.randint(0, 50, (n, 12), generator=g)
    return tokens, torch.roll(tokens, -1, dims=1)


def make(kind):
    return {"mlp": mlp, "cnn": cnn, "transformer": TransformerBlock}[kind]()


def loss_fn(kind, out, target):
    if kind == "transformer":
        return nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), target.reshape(-1))
    return nn.functional.cross_entropy(out, target)
