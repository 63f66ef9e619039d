"""Physical topology of a slice and `torch.tpu.topology_aware_mesh`.

A slice is a grid of chips with axes x, y, z (`TORCH_TPU_TOPOLOGY=2,2,1`).
Rank numbering (the simulated slice, and what we assume of a real one): rank
r lives in slice r // n (n = chips per slice) at local id i = r % n with
x = i % X, y = (i // X) % Y, z = i // (X * Y): x varies fastest, and a host
holds consecutive ids (TORCH_TPU_DEVICES_PER_HOST of them), so the first
chips along x are on one tray/host. Ranks placed otherwise: pass
device_coords (the layout is computed on chips, then renumbered).

The rule of topology_aware_mesh(mesh_shape), mesh dims ordered from least to
most communication:

1. DCN first: the slice count is spread over the LEADING (least
   communicating) mesh dims, each taking gcd(its size, slices left); a dim
   taking only part of it has its slice index as its slow digit.
2. ICI next, from the LAST (most communicating) mesh dim to the first: each
   dim takes the fastest physical axes still free, in order x, y, z: the
   stride-1, host-local chips first (an axis sharing no factor with the
   dim's size is passed over). A dim takes gcd(chips it still needs, chips
   left on the axis) from each axis in turn, so it may take whole axes and
   part of the next one; an axis may be shared (the later, heavier dim gets
   its stride-1 part). The chips of a dim always form a sub-grid.
3. Order within a dim (a ring wherever the chips allow one): a dim on one
   axis runs along it (a ring when the axis wraps around or has <= 2 chips);
   a dim spanning several axes runs a snake (boustrophedon: every step moves
   along one axis to the nearest chip the dim holds: one hop when the dim
   holds the stride-1 chips); if the snake's last chip is more than one hop
   from its first (no
   wraparound closes it) and the dim spans two axes of which one has an even
   count, the closed comb cycle is used instead (out along the first row,
   snaking over the rest, back along the first column): every step and the
   closing step are one hop.

Wraparound (torus links) per axis: given, or by default on axes whose size is
a multiple of 4 (TPU v4/v5p slices of whole 4x4x4 cubes are tori).
"""
import math
import os
import re

import torch


def parse_topology(text):
    """'2,2,1', '2x2x1' or '2×2×1' -> (2, 2, 1) (padded with 1s to three axes)."""
    parts = [p for p in re.split(r"[,x×\s]+", str(text).strip().lower()) if p]
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise ValueError(f"TORCH_TPU_TOPOLOGY={text!r}: expected 1 to 3 positive integers "
                         f"separated by ',' or 'x' (e.g. '2,2,1')")
    return dims + (1,) * (3 - len(dims))


def default_wraparound(topology):
    return tuple(a % 4 == 0 for a in topology)


def _world_size():
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_world_size()
    return int(os.environ.get("WORLD_SIZE", "0") or 0) or None


def _prod(xs):
    return math.prod(xs)


def _cut(sizes, parts_needed, free):
    """Takes `parts_needed` chips from the free capacity of the axes, fastest
    first. free: list of [axis, stride, left]; returns [(axis, stride, count)]."""
    parts = []
    need = parts_needed
    for slot in free:
        if need == 1:
            break
        axis, stride, left = slot
        if left == 1:
            continue
        g = math.gcd(need, left)
        if g == 1:
            continue  # an axis this dim cannot use
        parts.append((axis, stride, g))
        slot[1], slot[2] = stride * g, left // g
        need //= g
    if need != 1:
        raise ValueError(f"topology_aware_mesh: a mesh dim of {parts_needed} chips cannot be cut out of "
                         f"the free axes of slice {tuple(sizes)} (free x, y, z: "
                         f"{[s[2] for s in free]}); choose mesh sizes that divide the axes "
                         f"(e.g. a power of two on a power-of-two slice)")
    return parts


def _snake(counts):
    """Boustrophedon over mixed-radix digits (fastest first): each step changes one digit by 1."""
    n = _prod(counts)
    out = []
    for j in range(n):
        digits, below = [], 1
        for c in counts:
            raw = (j // below) % c
            below *= c
            digits.append(c - 1 - raw if (j // below) % 2 else raw)
        out.append(tuple(digits))
    return out


def _comb(a, b):
    """A closed cycle over an a x b grid (b even, a >= 2): out along row 0,
    snake over columns 1..a-1 row by row, back along column 0."""
    cyc = [(0, 0)]
    for y in range(b):
        xs = range(1, a) if y % 2 == 0 else range(a - 1, 0, -1)
        cyc += [(x, y) for x in xs]
    cyc += [(0, y) for y in range(b - 1, 0, -1)]
    return cyc


def _hops(p, q, topology, wrap):
    d = 0
    for a, (u, v) in enumerate(zip(p, q)):
        k = abs(u - v)
        d += min(k, topology[a] - k) if wrap[a] else k
    return d


def _dim_order(parts, topology, wrap):
    """Physical offsets (x, y, z) of each index of one mesh dim, in ring order."""
    counts = [c for _, _, c in parts]

    def coords(digits):
        xyz = [0, 0, 0]
        for (axis, stride, _), d in zip(parts, digits):
            xyz[axis] += stride * d
        return tuple(xyz)

    if len(parts) <= 1:
        order = [(i,) for i in range(counts[0] if counts else 1)]
    else:
        order = _snake(counts)
        closing = _hops(coords(order[-1]), coords(order[0]), topology, wrap)
        if closing > 1 and len(parts) == 2:
            a, b = counts
            if b % 2 == 0 and a >= 2:
                order = _comb(a, b)
            elif a % 2 == 0 and b >= 2:
                order = [(x, y) for y, x in _comb(b, a)]
    return [coords(d) for d in order]


def topology_aware_mesh(mesh_shape, topology=None, num_slices=None, wraparound=None, world_size=None,
                        device_coords=None):
    """The rank tensor (int64, shape `mesh_shape`) to pass as
    `DeviceMesh("tpu", mesh=..., mesh_dim_names=..., preserve_rank_order=True)`.

    mesh_shape: sizes ordered from least to most communication (e.g. (dp, tp)).
    topology: one slice's chip grid, (2, 2, 1) or "2,2,1"; default
    TORCH_TPU_TOPOLOGY, else the simulated slice of the launch environment.
    num_slices: slices joined over DCN; default world_size // chips per slice.
    wraparound: per axis (x, y, z) whether it is a torus ring; default: axes
    whose size is a multiple of 4. world_size: default the process group's,
    else WORLD_SIZE, else prod(mesh_shape). device_coords: where each rank's
    chip is, one (x, y, z) or (x, y, z, slice) per rank (what a TPU reports
    for its device), when ranks are not numbered x-fastest slice by slice.

    The rule (module docstring of torchtpu.distributed._topology, README
    "Launch environment and topology-aware meshes"): leading dims take the
    slices (DCN), the last dim takes the fastest contiguous ICI chips (x
    first, host-local), each dim in ring order where the chips allow one.
    """
    shape = tuple(int(s) for s in (mesh_shape if isinstance(mesh_shape, (tuple, list, torch.Size)) else (mesh_shape,)))
    if not shape or any(s < 1 for s in shape):
        raise ValueError(f"topology_aware_mesh: mesh_shape={mesh_shape!r} must be positive sizes")
    total = _prod(shape)
    if world_size is None:
        world_size = _world_size() or total
    if total != world_size:
        raise ValueError(f"topology_aware_mesh: mesh_shape {shape} has {total} ranks, the world has "
                         f"{world_size}")
    if topology is None:
        from ._launch import launch_env

        topology = launch_env(world_size if num_slices is None else world_size // num_slices)["TORCH_TPU_TOPOLOGY"]
    topo = parse_topology(",".join(map(str, topology))) if not isinstance(topology, str) else parse_topology(topology)
    per_slice = _prod(topo)
    if num_slices is None:
        if world_size % per_slice:
            raise ValueError(f"topology_aware_mesh: world size {world_size} is not a whole number of slices "
                             f"of topology {topo} ({per_slice} chips each)")
        num_slices = world_size // per_slice
    if num_slices * per_slice != world_size:
        raise ValueError(f"topology_aware_mesh: {num_slices} slice(s) of {topo} make "
                         f"{num_slices * per_slice} ranks, the world has {world_size}")
    wrap = default_wraparound(topo) if wraparound is None else tuple(bool(w) for w in wraparound) + (False,) * (3 - len(wraparound))

    # 1. DCN: slices over the leading dims
    dcn, left = [], num_slices
    for s in shape:
        g = math.gcd(s, left)
        dcn.append(g)
        left //= g
    if left != 1:
        raise ValueError(f"topology_aware_mesh: {num_slices} slices cannot be spread over the dims of "
                         f"mesh_shape {shape}")
    ici = [s // d for s, d in zip(shape, dcn)]
    # 2. ICI: last dim first, fastest axes first
    free = [[a, 1, topo[a]] for a in range(3)]
    offsets = [None] * len(shape)
    for i in reversed(range(len(shape))):
        offsets[i] = _dim_order(_cut(topo, ici[i], free), topo, wrap)
    # 3. ranks: slice digit (dcn digits, first dim slowest) and local id
    X, Y = topo[0], topo[1]
    out = torch.empty(shape, dtype=torch.int64)
    flat = out.view(-1)
    for n, idx in enumerate(_positions(shape)):
        slice_id, xyz = 0, [0, 0, 0]
        for i, j in enumerate(idx):
            sd, ij = divmod(j, ici[i])
            slice_id = slice_id * dcn[i] + sd
            for a, v in enumerate(offsets[i][ij]):
                xyz[a] += v
        flat[n] = slice_id * per_slice + xyz[0] + X * (xyz[1] + Y * xyz[2])
    if device_coords is not None:
        out = _renumber(out, device_coords, topo, num_slices)
    return out


def _renumber(layout, device_coords, topo, num_slices):
    """The layout is in our numbering (slice, then x fastest); device_coords
    says which rank holds each chip."""
    X, Y = topo[0], topo[1]
    per_slice = _prod(topo)
    coords = [tuple(int(v) for v in c) for c in device_coords]
    if len(coords) != per_slice * num_slices:
        raise ValueError(f"topology_aware_mesh: device_coords lists {len(coords)} ranks, the world has "
                         f"{per_slice * num_slices}")
    rank_of = {}
    for rank, c in enumerate(coords):
        if len(c) not in (3, 4):
            raise ValueError(f"topology_aware_mesh: device_coords[{rank}]={c}: expected (x, y, z) or (x, y, z, slice)")
        x, y, z = c[:3]
        sl = c[3] if len(c) == 4 else 0
        if not (0 <= x < topo[0] and 0 <= y < topo[1] and 0 <= z < topo[2] and 0 <= sl < num_slices):
            raise ValueError(f"topology_aware_mesh: device_coords[{rank}]={c} is outside {num_slices} slice(s) "
                             f"of {topo}")
        key = sl * per_slice + x + X * (y + Y * z)
        if key in rank_of:
            raise ValueError(f"topology_aware_mesh: ranks {rank_of[key]} and {rank} have the same chip {c}")
        rank_of[key] = rank
    return layout.clone().apply_(lambda k: rank_of[k])


def _positions(shape):
    total = _prod(shape)
    for n in range(total):
        idx, rest = [], n
        for s in reversed(shape):
            idx.append(rest % s)
            rest //= s
        yield tuple(reversed(idx))
