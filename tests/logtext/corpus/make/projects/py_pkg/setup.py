from setuptools import setup

from pkgx.version import VERSION

setup(version=VERSION)
