#!/bin/bash
# torchtpu's tests against XLA's CUDA PJRT plugin (the jax-cuda13-pjrt wheel),
# on a Linux machine with an NVIDIA GPU whose python3 already holds torch and
# that wheel (nothing is installed: the device machine has no network).
#
#   tools/cuda_plugin_check.sh OUTDIR [PYTEST_SECONDS] [CPU_PLUGIN_SO]
#
# 1. builds the C tests and the extension in place (no pip: an entry-point
#    dist-info on PYTHONPATH lets `import torch` autoload torchtpu);
# 2. runs every C test on the CUDA plugin (one process each, in parallel);
# 3. runs the Python suite on the CUDA plugin for PYTEST_SECONDS (pytest-xdist,
#    the slowest files last), each test's outcome streamed to OUTDIR/pytest-cuda.log;
# 4. if CPU_PLUGIN_SO is given, reruns the tests that failed on the CUDA plugin
#    on XLA's CPU plugin with the same torch: a failure on both is the machine's
#    torch (not 2.13), a failure on CUDA only is the plugin's.
# The processes share the GPU: the client is created with preallocate=false
# (TORCH_TPU_PJRT_CLIENT_OPTIONS), not XLA's default of 75% of memory each.
set -u
OUT=${1:?OUTDIR}
BUDGET=${2:-240}
CPU_SO=${3:-}
PY=${PYTHON:-python3}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/summary.txt") 2>&1

nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"
$PY -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)'

# The plugin and the NVIDIA libraries it links (pip's nvidia/* packages).
PLUGIN=${CUDA_PLUGIN:-}
[ -n "$PLUGIN" ] || PLUGIN=$($PY - <<'PYEOF'
import glob, importlib.util, os
for name in ("jax_plugins.xla_cuda13", "jax_plugins.xla_cuda12"):
    try:
        spec = importlib.util.find_spec(name)
    except ImportError:
        spec = None
    for loc in (spec.submodule_search_locations or []) if spec else []:
        for f in sorted(glob.glob(os.path.join(loc, "*.so"))):
            print(f)
            raise SystemExit
PYEOF
)
[ -n "$PLUGIN" ] || { echo "no XLA CUDA PJRT plugin (jax-cuda13-pjrt) in $PY"; exit 2; }
NV=$($PY -c 'import glob, os, nvidia; print(":".join(sorted({os.path.dirname(p) for d in nvidia.__path__ for p in glob.glob(d + "/*/lib/*.so*")})))' 2>/dev/null)
export LD_LIBRARY_PATH=${NV}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "plugin: $PLUGIN"
export TORCH_TPU_PJRT_PLUGIN=$PLUGIN
export TORCH_TPU_PJRT_CLIENT_OPTIONS=${TORCH_TPU_PJRT_CLIENT_OPTIONS:-preallocate=false}
export TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=off TF_CPP_MIN_LOG_LEVEL=2

# 1. Build.
t0=$(date +%s)
CTESTS=$(ls tests/c/test_*.c | grep -v fakeplugin | sed 's|tests/c/\(.*\)\.c|build/\1|')
make -s -j"$JOBS" PY=$PY $CTESTS build/fakeplugin.so >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 3; }
$PY setup.py -q build_ext --inplace -j "$JOBS" >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 3; }
EP=$(mktemp -d)/ep
mkdir -p "$EP/torchtpu-0.1.0.dist-info"
printf 'Metadata-Version: 2.1\nName: torchtpu\nVersion: 0.1.0\n' >"$EP/torchtpu-0.1.0.dist-info/METADATA"
printf '[torch.backends]\ntpu = torchtpu:_autoload\n\n[torch_dynamo_backends]\ntpu = torchtpu._compile:backend\n' \
  >"$EP/torchtpu-0.1.0.dist-info/entry_points.txt"
export PYTHONPATH=$PWD:$EP${PYTHONPATH:+:$PYTHONPATH}
echo "built in $(( $(date +%s) - t0 )) s"

# A first look: the device as torch sees it, and the quickstart example.
$PY -c 'import torch, torchtpu; x = torch.ones(2, device="tpu"); print((x + 1).cpu(), torchtpu._C.runtime_info())' 2>&1 | tail -3
timeout 120 $PY examples/quickstart.py >"$OUT/quickstart.log" 2>&1; echo "quickstart rc=$? (tail:)"; tail -4 "$OUT/quickstart.log"

# 2. C tests, one process each.
t0=$(date +%s)
run_c() {
  local t=$1
  if TT_FAKE_PJRT_PLUGIN=build/fakeplugin.so timeout 120 "$t" >"$OUT/c.$(basename "$t").log" 2>&1; then
    echo "PASS $t $(tail -1 "$OUT/c.$(basename "$t").log")"
  else
    echo "FAIL($?) $t $(tail -1 "$OUT/c.$(basename "$t").log")"
  fi
}
export -f run_c; export OUT
printf '%s\n' $CTESTS | xargs -P "$JOBS" -I{} bash -c 'run_c {}' | sort >"$OUT/ctest-cuda.txt"
cat "$OUT/ctest-cuda.txt"
echo "C tests: $(grep -c ^PASS "$OUT/ctest-cuda.txt") passed, $(grep -c ^FAIL "$OUT/ctest-cuda.txt") failed, $(( $(date +%s) - t0 )) s"
for f in $(grep ^FAIL "$OUT/ctest-cuda.txt" | awk '{print $2}'); do
  echo "--- $f"; grep -E "^FAIL|failed" "$OUT/c.$(basename "$f").log" | head -8
done

# 3. The Python suite, the files that take longest here last.
LAST="test_hf_models test_opinfo_subset test_fuzz_fast test_dist test_fsdp test_fork test_threads test_spmd_handshake test_opt_level test_tier3_default test_tiered_compile test_cache_tiers test_pallas"
FILES=$(ls tests/python/test_*.py | grep -v -E "/($(echo $LAST | tr ' ' '|'))\.py$"; for f in $LAST; do echo tests/python/$f.py; done)
t0=$(date +%s)
timeout -s INT "$BUDGET" $PY -m pytest -p no:cacheprovider -n "$JOBS" --dist load -v -rN --timeout 120 \
  $FILES >"$OUT/pytest-cuda.log" 2>&1
echo "pytest on CUDA: rc=$?, $(( $(date +%s) - t0 )) s; outcomes:"
grep -oE "(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) tests/python/[^ ]+" "$OUT/pytest-cuda.log" | sort -u >"$OUT/outcomes-cuda.txt"
awk '{print $1}' "$OUT/outcomes-cuda.txt" | sort | uniq -c
awk '$1!="PASSED"{split($2,a,"::"); print $1, a[1]}' "$OUT/outcomes-cuda.txt" | sort | uniq -c | sort -rn | head -40

# 4. The CUDA failures again on the CPU plugin (same torch).
if [ -n "$CPU_SO" ] && grep -qE "^(FAILED|ERROR) " "$OUT/outcomes-cuda.txt"; then
  grep -E "^(FAILED|ERROR) " "$OUT/outcomes-cuda.txt" | awk '{print $2}' >"$OUT/failed-cuda.txt"
  TORCH_TPU_PJRT_PLUGIN=$CPU_SO TORCH_TPU_PJRT_CLIENT_OPTIONS= timeout -s INT 120 $PY -m pytest -p no:cacheprovider \
    -n "$JOBS" -v -rN --timeout 120 "@$OUT/failed-cuda.txt" >"$OUT/pytest-cpu-control.log" 2>&1
  grep -oE "(PASSED|FAILED|ERROR) tests/python/[^ ]+" "$OUT/pytest-cpu-control.log" | sort -u >"$OUT/outcomes-cpu-control.txt"
  echo "the CUDA failures on the CPU plugin (same torch):"; awk '{print $1}' "$OUT/outcomes-cpu-control.txt" | sort | uniq -c
  echo "failing on CUDA only, by file:"
  awk '$1=="PASSED"{split($2,a,"::"); print a[1]}' "$OUT/outcomes-cpu-control.txt" | sort | uniq -c | sort -rn
fi
