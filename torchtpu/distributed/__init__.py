"""torchtpu.distributed: the c10d backend "tpu_dist" for device "tpu".

`import torchtpu` registers the backend (cheap: `import torch` has already
imported torch.distributed). Files, one job each:

- `_backend.py`: registration with c10d (name, devices, the creator).
- `_process_group.py`: the process group class (backend name, PREMUL_SUM, split_group).
- `_kernels.py`: PrivateUse1 kernels of the `c10d::*` ops (every collective).
- `_staging.py`: the host path: a tpu tensor staged through host memory over
  torch's gloo (dtype rules, copy back into the tpu tensor).
- `_work.py`: Work objects returned for tpu tensors.
- `_lifetime.py`: tensors given to gloo, held until its threads let go (a hang otherwise).
- `_launch.py`: the launch environment (TORCH_TPU_TOPOLOGY,
  TORCH_TPU_SLICEBUILDER_ADDRESSES, TORCH_TPU_DEVICES_PER_HOST),
  `set_tpu_launch_env()`, and `python -m torch.tpu.distributed` (`__main__.py`).
- `_topology.py`: `topology_aware_mesh` (torch.tpu.topology_aware_mesh).
- `_mesh_compat.py`: DeviceMesh's `preserve_rank_order=` keyword.
- `_handshake.py`: `@torch.tpu.spmd_safe` and the compilation handshake of
  graphs with collectives (TORCH_TPU_SPMD_HANDSHAKE_STAGE).

`torch.tpu.distributed` is this module (registered in sys.modules under that
name too, so `python -m torch.tpu.distributed` runs `__main__.py`).

Which path runs a collective is chosen per collective in `_kernels.PATHS`:
today every entry is the host path; a device path (one small StableHLO
collective program per collective, run by the PJRT plugin) replaces an entry
once the plugin can run collectives across processes.
"""
from ._backend import BACKEND_NAME, is_available, register  # noqa: F401
from ._launch import launch_env, set_tpu_launch_env  # noqa: F401
from ._topology import topology_aware_mesh  # noqa: F401
from ._handshake import spmd_safe  # noqa: F401
