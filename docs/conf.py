"""Sphinx configuration: the user guide (docs/guide/), the API reference generated from the
docstrings (docs/api/, autodoc + napoleon) and the pass and dialect pages, all markdown read
by myst-parser. Built by ``make docs`` with warnings as errors (docs/architecture.md,
"Documentation")."""

from __future__ import annotations

import os

project = "xmux"
author = "the xmux authors"
copyright = "the xmux authors"  # noqa: A001 - Sphinx's name

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
# the contributors' pages are part of the site; generated scripts and build output are not
exclude_patterns = ["_build", "**/__pycache__"]

myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3  # links to a section, e.g. writing-passes.md#timing
# a page's first heading is its title; later ones may start at any level (generated pages)
suppress_warnings = ["myst.header"]

autodoc_default_options = {"show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# the docstrings use ``double backticks`` for code; a single-backtick span is code, not a
# cross-reference to resolve
default_role = "code"

html_theme = "alabaster"
html_title = "xmux"

# kernels are not launched while the reference is built: importing xmux loads no runtime
os.environ.setdefault("XMUX_NUM_THREADS", "1")


def setup(app: object) -> None:
    """An ``mlir`` lexer for Pygments (which has none): comments, SSA values, symbols, types."""
    from pygments.lexer import RegexLexer
    from pygments.token import Comment, Keyword, Name, Number, Operator, String, Text

    class MlirLexer(RegexLexer):
        name = "MLIR"
        aliases = ["mlir"]
        tokens = {
            "root": [
                (r"//.*?$", Comment.Single),
                (r'"(\\.|[^"\\])*"', String),
                (r"%[\w.$#-]+", Name.Variable),
                (r"@[\w.$-]+", Name.Function),
                (r"\^[\w.$-]+", Name.Label),
                (r"[!#][\w.]+", Keyword.Type),
                (r"\b(i\d+|f16|bf16|f32|f64|index|memref|vector|tensor)\b", Keyword.Type),
                (r"\b[a-z_]+\.[\w.]+\b", Name.Builtin),
                (r"-?\d+(\.\d+)?([eE][-+]?\d+)?", Number),
                (r"[=:,<>(){}\[\]*+-]", Operator),
                (r"\s+", Text),
                (r".", Text),
            ]
        }

    app.add_lexer("mlir", MlirLexer)  # type: ignore[attr-defined]
