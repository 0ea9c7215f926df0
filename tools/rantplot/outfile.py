# SPDX-License-Identifier: GPL-2.0-or-later
"""The files rant-plot writes (pictures, the HTML page, --dump-data),
by rant's rules for its own outputs (src/base/outfile.c): never
through a link planted in a sticky world-writable folder or owned by
another user, always whole (a temporary file in the same folder,
renamed over the name); a new sweep picture beside, not over, an old."""

import os

import numpy as np

from .draw import plt_module


def save(fig, path, opts):
    fig.savefig(path, dpi=100, format="svg" if opts.svg else "png")
    plt_module().close(fig)
    return path


def to_json(obj):
    """numpy arrays and numbers in --dump-data."""
    if isinstance(obj, (np.ndarray, np.generic)):
        return obj.tolist()
    raise TypeError(f"{type(obj).__name__} is not JSON")


def write_whole(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def fresh_path(path):
    """path, or path-2, path-3 ... when a file is there already: a plot
    never overwrites a file this call did not make."""
    base, ext = os.path.splitext(path)
    n = 1
    while os.path.exists(path):
        n += 1
        path = f"{base}-{n}{ext}"
    return path
