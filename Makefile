# torchtpu: `make demo` and `make test` do all the set-up themselves.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
CC     ?= gcc
# Op rows ({name, lowering, flags}) leave their optional fields (complex, size) zero: no field-initializer warning.
CFLAGS_CORE := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-missing-field-initializers -Icsrc -g
CORE_SRCS := $(shell find csrc -name '*.c' | sort)
CTEST_SRCS := $(filter-out tests/c/test_pjrt_fakeplugin.c,$(wildcard tests/c/test_*.c))
CTESTS := $(patsubst tests/c/%.c,build/%,$(CTEST_SRCS))
CTESTS_SAN := $(patsubst tests/c/%.c,build/san/%,$(CTEST_SRCS))
PLUGIN = $$($(PY) -c 'import torchtpu._plugin as p; print(p.default_plugin_path())')

.PHONY: all venv install demo test layers ctest ctest-san ctest-tsan pytest test-two-hosts bench opinfo opinfo-compile fuzz fuzz-graphs lm-sweep helion-probe clean

all: install

$(VENV)/.deps: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# torch pinned exactly: a looser spec could pull a multi-GB CUDA build.
	$(PIP) install -q torch==2.13.0 numpy pytest setuptools wheel
	$(PIP) install -q xla-cpu-pjrt==0.0.1
	touch $@

$(VENV)/.installed: $(VENV)/.deps setup.py
	$(PIP) install -q --no-build-isolation --no-deps -e .
	touch $@

# PyTorch's OpInfo database (torch.testing._internal) imports expecttest.
$(VENV)/.testdeps: $(VENV)/.deps
	$(PIP) install -q expecttest
	$(PIP) install -q "transformers==5.23.0"  # tests/python/test_hf_models.py (pulls no torch)
	$(PIP) install -q "jax==0.10.2" "jaxlib==0.10.2"  # tests/python/test_pallas.py (torch.tpu.pallas.jax_op; pulls no torch)
	touch $@

venv: $(VENV)/.deps

install: $(VENV)/.installed $(VENV)/.testdeps
	$(PY) setup.py -q build_ext --inplace

demo: install
	$(PY) examples/quickstart.py

# The core is compiled once per flavour (plain, ASan+UBSan, TSan) into
# objects that every C test of that flavour links; -MMD makes each object
# depend on the headers it includes.
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
TSAN_FLAGS := -fsanitize=thread
CORE_OBJS      := $(patsubst csrc/%.c,build/obj/plain/%.o,$(CORE_SRCS))
CORE_OBJS_SAN  := $(patsubst csrc/%.c,build/obj/san/%.o,$(CORE_SRCS))
CORE_OBJS_TSAN := $(patsubst csrc/%.c,build/obj/tsan/%.o,$(CORE_SRCS))

build/obj/plain/%.o: csrc/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -O1 -MMD -MP -c $< -o $@

build/obj/san/%.o: csrc/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -O1 $(SAN_FLAGS) -MMD -MP -c $< -o $@

# ThreadSanitizer over the tests that run threads of ours (the compile pool);
# tests/c/tsan.supp silences reports inside the uninstrumented XLA plugin.
build/obj/tsan/%.o: csrc/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -O1 $(TSAN_FLAGS) -MMD -MP -c $< -o $@

# The objects are kept between runs (make would delete them as intermediates).
.SECONDARY: $(CORE_OBJS) $(CORE_OBJS_SAN) $(CORE_OBJS_TSAN)

-include $(wildcard build/obj/*/*/*.d build/*.d build/san/*.d build/tsan/*.d)

build/%: tests/c/%.c $(CORE_OBJS) $(wildcard tests/c/*.h)
	@mkdir -p build
	$(CC) $(CFLAGS_CORE) -O1 -MMD -MP $< $(CORE_OBJS) -o $@ -ldl -lpthread -lm

build/san/%: tests/c/%.c $(CORE_OBJS_SAN) $(wildcard tests/c/*.h)
	@mkdir -p build/san
	$(CC) $(CFLAGS_CORE) -O1 -MMD -MP $(SAN_FLAGS) $< $(CORE_OBJS_SAN) -o $@ -ldl -lpthread -lm

build/tsan/%: tests/c/%.c $(CORE_OBJS_TSAN) $(wildcard tests/c/*.h)
	@mkdir -p build/tsan
	$(CC) $(CFLAGS_CORE) -O1 -MMD -MP $(TSAN_FLAGS) $< $(CORE_OBJS_TSAN) -o $@ -ldl -lpthread -lm

build/fakeplugin.so: tests/c/test_pjrt_fakeplugin.c
	@mkdir -p build
	$(CC) -std=c11 -shared -fPIC -Icsrc $< -o $@

ctest: install $(CTESTS) build/fakeplugin.so
	@for t in $(CTESTS); do echo "== $$t"; TORCH_TPU_PJRT_PLUGIN=$(PLUGIN) TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=off TT_FAKE_PJRT_PLUGIN=build/fakeplugin.so $$t 2>build/$$(basename $$t).stderr || { cat build/$$(basename $$t).stderr | tail -20; exit 1; }; done

ctest-san: install $(CTESTS_SAN) build/fakeplugin.so
	@for t in $(CTESTS_SAN); do echo "== $$t (ASan+UBSan)"; LSAN_OPTIONS=suppressions=$(CURDIR)/tests/c/lsan.supp TORCH_TPU_PJRT_PLUGIN=$(PLUGIN) TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=off TT_FAKE_PJRT_PLUGIN=build/fakeplugin.so $$t 2>build/san/$$(basename $$t).stderr || { cat build/san/$$(basename $$t).stderr | tail -30; exit 1; }; done

CTESTS_TSAN := build/tsan/test_async build/tsan/test_engine_lock build/tsan/test_engines build/tsan/test_tiered
ctest-tsan: install $(CTESTS_TSAN)
	@for t in $(CTESTS_TSAN); do echo "== $$t (TSan)"; TSAN_OPTIONS=suppressions=$(CURDIR)/tests/c/tsan.supp TORCH_TPU_PJRT_PLUGIN=$(PLUGIN) TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=off $$t 2>$$t.stderr || { tail -40 $$t.stderr; exit 1; }; done

pytest: install $(VENV)/.testdeps
	$(PY) -m pytest -q -x tests/python

# The core's layering rules and its engine-object rule (DESIGN.md).
layers:
	$(PYTHON) tools/check_layers.py csrc

test: layers ctest ctest-san ctest-tsan pytest

# DDP across two network namespaces (two "hosts", torchrun --nnodes=2); needs root
# for ip netns, so not part of make test; fails (never skips) without it.
test-two-hosts: install $(VENV)/.testdeps
	$(PY) -m pytest -q tests/two_hosts

# Every OpInfo entry on tpu vs CPU -> docs/op_coverage.md (see tools/opinfo.py).
opinfo: install $(VENV)/.testdeps
	$(PY) tools/opinfo.py --jobs 2

# The same entries under torch.compile(backend="tpu") vs CPU eager (forward; backward in float32)
# -> docs/op_coverage_compile.md (tools/opinfo.py --compile).
opinfo-compile: install $(VENV)/.testdeps
	$(PY) tools/opinfo.py --compile --jobs 2

# Differential fuzzer (tools/fuzz): 3 seeds x 7000 random calls, CPU vs tpu -> build/fuzz/report.md.
fuzz: install
	$(PY) -m tools.fuzz --seeds 1,2,3 --calls 7000 --batch 400 --jobs 2

# Graph fuzzer (tools/graph_fuzz): random programs (views, in-place writes, broadcasting) on CPU vs tpu in
# Strict, DeferAndFuse and torch.compile (capture and replay) -> build/graph_fuzz/report.md.
fuzz-graphs: install
	$(PY) -m tools.graph_fuzz --seeds 1,2,3,4,5 --programs 200
	$(PY) -m tools.graph_fuzz --seeds 6,7 --programs 100 --statements 25 --out build/graph_fuzz/long

# transformers' causal LMs compiled with dynamic=True vs CPU across lengths -> build/causal_lm_sweep.json.
lm-sweep: install $(VENV)/.testdeps
	mkdir -p build && $(PY) tools/causal_lm_sweep.py --json build/causal_lm_sweep.json

# Helion's @helion.kernel(backend="pallas") called directly on tpu tensors (examples/pallas_probes.py).
# Helion is not a dependency: install it apart with pip install --no-deps --target $(HELION_PATH) helion==1.5.1.
HELION_PATH ?= /tmp/helion_pkgs
helion-probe: install $(VENV)/.testdeps
	PYTHONPATH=$(HELION_PATH) $(PY) examples/pallas_probes.py

bench: install
	$(PY) bench/bench_overhead.py
	$(PY) bench/bench_engine.py

clean:
	rm -rf build torchtpu/*.so *.egg-info
