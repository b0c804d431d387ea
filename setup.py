"""Only here to ship ``flowtorch-oneflow-alias.pth`` (the opt-in FLOWTORCH_ONEFLOW_ALIAS=1 switch) into
site-packages; all metadata lives in setup.cfg."""

import os

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "flowtorch-oneflow-alias.pth"


class BuildPyWithPth(build_py):
    def run(self) -> None:
        super().run()
        self.copy_file(os.path.join("src", PTH), os.path.join(self.build_lib, PTH))


setup(cmdclass={"build_py": BuildPyWithPth})
