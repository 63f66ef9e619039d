"""Trains a small model on device "tpu" and prints the loss per step, the
PJRT plugin that ran it, and the compile cache counters."""
import torch

torch.manual_seed(0)
x = torch.randn(64, 128, device="tpu")
y = torch.randint(0, 10, (64,), device="tpu")
model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.GELU(), torch.nn.Linear(256, 10)).to("tpu")
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

for step in range(10):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print(f"step {step:2d}  loss {loss.item():.4f}")

info = torch.tpu.runtime_info()
print(f"device: {x.device}  plugin: {info['plugin_path']}")
print(f"platform: {info['platform_name']} {info['platform_version']}  PJRT API {info['pjrt_api_version']}  kind: {info['device_kind']}")
print(f"cache: {torch.tpu.cache_stats()}")
