"""torchtpu.distributed: the c10d backend "tpu_dist" for device "tpu".

`import torchtpu` registers the backend (cheap: `import torch` has already
imported torch.distributed). Files, one job each:

- `_backend.py`: registration with c10d (name, devices, the creator).
- `_process_group.py`: the process group class (backend name, PREMUL_SUM).
- `_kernels.py`: PrivateUse1 kernels of the `c10d::*` ops (every collective).
- `_staging.py`: the host path: a tpu tensor staged through host memory over
  torch's gloo (dtype rules, copy back into the tpu tensor).
- `_work.py`: Work objects returned for tpu tensors.

Which path runs a collective is chosen per collective in `_kernels.PATHS`:
today every entry is the host path; a device path (one small StableHLO
collective program per collective, run by the PJRT plugin) replaces an entry
once the plugin can run collectives across processes.
"""
from ._backend import BACKEND_NAME, is_available, register  # noqa: F401
