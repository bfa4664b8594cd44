"""What setup.cfg cannot say: a built package carries the top-level fixtures/ as mocksrv/defaults.

fixtures/ stays the one place the defaults are edited; an editable install reads them there.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithDefaults(build_py):
    """Copy fixtures/*.yaml into the built package, beside the code that loads them, into a package
    built afresh."""

    def run(self) -> None:
        if not self.editable_mode:
            # pip builds in the source tree, into the build/lib of the build before: a module or a
            # fixture removed since would ship again.
            shutil.rmtree(Path(self.build_lib, "mocksrv"), ignore_errors=True)
        super().run()
        if self.editable_mode:
            return
        sources = sorted(Path("fixtures").glob("*.yaml"))
        if not sources:
            raise FileNotFoundError("fixtures/*.yaml: the default fixtures are missing from the source")
        target = Path(self.build_lib, "mocksrv", "defaults")
        target.mkdir(parents=True, exist_ok=True)
        for source in sources:
            shutil.copyfile(source, target / source.name)


setup(cmdclass={"build_py": BuildWithDefaults})
