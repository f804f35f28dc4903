"""The optional C scan kernels (memory/_kernels.c); everything else is in pyproject.toml.

Optional: without a C compiler the install goes on and retrieval uses SimSIMD's int8 scan.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "mindstream.memory._kernels",
            ["memory/_kernels.c"],
            optional=True,
            extra_compile_args=["-O3"],
        )
    ]
)
