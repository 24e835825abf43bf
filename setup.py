"""The build hook of the Python package (the metadata is in pyproject.toml).

Building the package runs `make BUILD/libweft.so` in this source tree (BUILD
is $WEFT_BUILD, default build: an existing build is reused) and copies the
library into the package as weft/libweft.so, where weft/_lib.py looks first.
The wheel is therefore tagged for this platform (py3-none-<platform>: the
library is loaded with ctypes, so any Python 3 of the platform runs it).
setuptools' own build files go to build/pip, beside make's (the metadata to
python/weft.egg-info, which git ignores).
"""

import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(ROOT, "include", "weft.h")) as fh:
        text = fh.read()
    return ".".join(
        re.search(r"^#define WF_VERSION_%s\s+(\d+)" % part, text, re.M).group(1)
        for part in ("MAJOR", "MINOR", "PATCH")
    )


class build_py_with_lib(build_py):
    """build_py, then make libweft.so and put it in the package."""

    def run(self):
        super().run()
        build = os.environ.get("WEFT_BUILD", "build")
        lib = os.path.join(build, "libweft.so")
        make = os.environ.get("MAKE", "make")
        self.announce("weft: %s -C %s BUILD=%s %s" % (make, ROOT, build, lib), level=2)
        subprocess.check_call([make, "-C", ROOT, "BUILD=" + build, lib])
        if getattr(self, "editable_mode", False):
            return  # an editable install finds build/libweft.so of this tree
        dest = os.path.join(self.build_lib, "weft", "libweft.so")
        self.mkpath(os.path.dirname(dest))
        # the file itself, not the links of the build directory
        shutil.copyfile(os.path.realpath(os.path.join(ROOT, lib)), dest)
        os.chmod(dest, 0o755)


class BinaryDistribution(Distribution):
    """A package with a shared library inside: not a pure-Python wheel."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": build_py_with_lib}
try:
    from setuptools.command.bdist_wheel import bdist_wheel  # setuptools >= 70.1
except ImportError:
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        bdist_wheel = None
if bdist_wheel is not None:

    class bdist_wheel_any_python(bdist_wheel):
        """Tag py3-none-<platform>: ctypes, no CPython extension module."""

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    cmdclass["bdist_wheel"] = bdist_wheel_any_python

setup(
    version=version(),
    cmdclass=cmdclass,
    distclass=BinaryDistribution,
    options={
        "build": {"build_base": os.path.join("build", "pip")},
    },
)
