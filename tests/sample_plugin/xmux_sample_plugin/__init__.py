"""A sample xmux pass plugin: the ``xdsl.universe`` entry point of its pyproject.toml names
``UNIVERSE``, whose factories import a pass's module only when a pipeline names the pass."""

from xdsl.universe import Universe


def _div_to_mul():  # noqa: ANN202 - a factory of the pass class
    from xmux_sample_plugin.div_to_mul import DivToMul

    return DivToMul


def _tag_kernels():  # noqa: ANN202
    from xmux_sample_plugin.tag_kernels import TagKernels

    return TagKernels


UNIVERSE = Universe(all_passes={"div-to-mul": _div_to_mul, "tag-kernels": _tag_kernels})
