"""Sphinx configuration of evosoko's user's guide.

    python -m sphinx -W --keep-going -E -b html docs build/docs    # as .ci/checks builds it

Pages are Markdown (MyST); the API reference is generated from the docstrings (autodoc), the
configuration reference from the pydantic models (``_ext/config_keys.py``). Nothing is fetched
from the network: the build works offline.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "evosoko"
author = "the evosoko developers"
copyright = "the evosoko developers"

extensions = ["myst_parser", "sphinx.ext.autodoc", "config_keys"]

root_doc = "index"
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
templates_path: list[str] = []

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = False

html_theme = "furo"
html_title = "evosoko"
html_static_path: list[str] = []
html_show_sourcelink = False
