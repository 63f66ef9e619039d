"""Builds torchtpu._C: the C11 core (csrc/) plus its CPython binding (bindings/)."""
import glob

from setuptools import Extension, setup

sources = sorted(glob.glob("csrc/**/*.c", recursive=True)) + sorted(glob.glob("bindings/*.c"))
# a changed header rebuilds the extension (without this, objects compiled against an older struct survive)
headers = sorted(glob.glob("csrc/**/*.h", recursive=True)) + sorted(glob.glob("csrc/**/*.def", recursive=True)) + sorted(glob.glob("bindings/*.h"))

setup(
    ext_modules=[
        Extension(
            "torchtpu._C",
            sources=sources,
            depends=headers,
            include_dirs=["csrc", "bindings"],
            extra_compile_args=["-std=c11", "-D_GNU_SOURCE", "-O2", "-Wall", "-Wno-missing-field-initializers",
                                "-Werror=implicit-function-declaration", "-Werror=int-conversion"],
            libraries=["dl", "pthread", "m"],
        )
    ]
)
