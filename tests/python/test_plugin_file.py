"""A bad file given as TORCH_TPU_PJRT_PLUGIN (truncated, empty, text, not
there, corrupt ELF) raises an error naming the file, what is wrong with it
and what to do, instead of faulting (SIGBUS) inside dlopen. Each case runs
in its own process: the plugin is chosen once per process, and a failure
here could kill it."""
import os
import signal
import struct
import subprocess
import sys

import pytest

from torchtpu import _plugin

_CHILD = r"""
import torch
try:
    torch.ones(1, device="tpu") + 1
except Exception as e:
    print(type(e).__name__ + ": " + str(e))
else:
    print("loaded")
"""


def _load(path):
    env = dict(os.environ, TORCH_TPU_PJRT_PLUGIN=str(path))
    p = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=300, env=env)
    if p.returncode < 0:
        pytest.fail(f"the process died of {signal.Signals(-p.returncode).name} loading {path}: {p.stderr[-1000:]}")
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout.strip().splitlines()[-1]


def _expect_refused(path, *words):
    out = _load(path)
    assert out.startswith("RuntimeError: "), out
    assert f"'{path}'" in out, out  # names the file
    assert "TORCH_TPU_PJRT_PLUGIN" in out, out  # says what to do
    for w in words:
        assert w in out, (w, out)
    return out


def _real_plugin():
    path = _plugin.default_plugin_path()
    if path is None:
        pytest.fail("the default PJRT plugin (xla-cpu-pjrt) is not installed")
    return path


def _elf_header(machine=62, cls=2, phnum=1, phoff=64, shoff=0, shnum=0):
    ident = b"\x7fELF" + bytes([cls, 1, 1, 0]) + bytes(8)
    return ident + struct.pack("<HHIQQQIHHHHHH", 3, machine, 1, 0, phoff, shoff, 0, 64, 56, phnum, 64, shnum, 0)


def _phdr(offset, filesz, ptype=1):
    return struct.pack("<IIQQQQQQ", ptype, 5, offset, 0, 0, filesz, filesz, 0x1000)


def test_truncated_copy(tmp_path):
    src = _real_plugin()
    bad = tmp_path / "truncated.so"
    with open(src, "rb") as f:
        bad.write_bytes(f.read(2 << 20))  # the first 2 MiB of a ~250 MiB library
    _expect_refused(bad, "(2097152 bytes)", "past the end of the file", "truncated or corrupt")
    assert _load(src) == "loaded"  # the check refuses the copy, not the library


def test_copy_missing_only_its_tail(tmp_path):
    src = _real_plugin()
    bad = tmp_path / "short_tail.so"
    size = os.path.getsize(src)
    with open(src, "rb") as f, open(bad, "wb") as o:
        while f.tell() < size - 100:
            o.write(f.read(min(64 << 20, size - 100 - f.tell())))
    _expect_refused(bad, "section header table reaches past the end of the file")


def test_zero_byte_file(tmp_path):
    bad = tmp_path / "empty.so"
    bad.write_bytes(b"")
    _expect_refused(bad, "(0 bytes)", "the file is empty")


def test_text_file(tmp_path):
    bad = tmp_path / "notes.so"
    bad.write_text("this is not a shared library\n" * 40)
    _expect_refused(bad, "does not start with the ELF magic bytes")


def test_nonexistent_path(tmp_path):
    _expect_refused(tmp_path / "no_such_plugin.so", "does not exist")


def test_file_ending_inside_the_elf_header(tmp_path):
    bad = tmp_path / "header.so"
    bad.write_bytes(_elf_header()[:40])
    _expect_refused(bad, "ends inside its ELF header")


def test_segment_past_the_end(tmp_path):
    bad = tmp_path / "segment.so"
    bad.write_bytes(_elf_header() + _phdr(0, 1 << 30) + bytes(64))
    _expect_refused(bad, "program header 0 (a loadable segment)", "past the end of the file")


def test_program_headers_past_the_end(tmp_path):
    bad = tmp_path / "phdrs.so"
    bad.write_bytes(_elf_header(phnum=1000) + _phdr(0, 64))
    _expect_refused(bad, "program header table reaches past the end of the file")


def test_other_machine_and_class(tmp_path):
    arm = tmp_path / "arm.so"
    arm.write_bytes(_elf_header(machine=183) + _phdr(0, 64))
    _expect_refused(arm, "built for another machine")
    elf32 = tmp_path / "elf32.so"
    elf32.write_bytes(_elf_header(cls=1) + _phdr(0, 64))
    _expect_refused(elf32, "not a 64-bit ELF file")


def test_default_plugin_path_is_none_without_the_cpu_plugin_package(monkeypatch):
    # TORCH_TPU_PJRT_PLUGIN names another plugin on machines without
    # xla-cpu-pjrt: discovery must not raise ModuleNotFoundError for the
    # missing parent package (seen with XLA's CUDA plugin).
    from torchtpu import _plugin

    monkeypatch.setattr(_plugin, "_CPU_PLUGIN", ("torchtpu_no_such_package", "plugin", "plugin.so"))
    assert _plugin.default_plugin_path() is None
