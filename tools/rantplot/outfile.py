# SPDX-License-Identifier: GPL-2.0-or-later
"""The files rant-plot writes (the pictures, the HTML page, --dump-data),
by the rules rant keeps for its own outputs (src/base/outfile.c):

- a link in a sticky, world-writable folder (/tmp) owned by neither this
  user nor the folder's owner is never followed, anywhere on the way
  (the kernel's protected_symlinks rule, applied whatever the sysctl
  says): a root rant-plot does not write through a link another user
  planted;
- a file is written whole: into a temporary beside it (NAME.rant-plot-
  PID-XXXXXX, created new, never through a link), renamed over the name;
  a link that passes is followed to the file it names, which is replaced
  and the link stays (rant's --follow-links; rant-plot wrote through its
  links before and has no option against it);
- a target that is no regular file (/dev/null, a FIFO) is written as a
  stream.

A new sweep picture goes beside an old one (fresh_path), never over it.
"""

import contextlib
import os
import stat
import tempfile

import numpy as np

from .draw import plt_module
from .runs import InputError

MAX_HOPS = 40       # links followed, as the kernel


def link_trusted(path, st):
    """May a link at path (lstat st) be followed: not in a sticky,
    world-writable folder unless this user or the folder's owner owns it.
    InputError naming the link when not."""
    folder = os.path.dirname(path) or "."
    try:
        d = os.stat(folder)
    except OSError:
        return
    if d.st_mode & stat.S_ISVTX and d.st_mode & stat.S_IWOTH and \
            st.st_uid not in (os.geteuid(), d.st_uid):
        raise InputError(f"{path} is a symbolic link owned by uid {st.st_uid} in the "
                         f"sticky, world-writable directory {folder}, which another "
                         "user may have planted: rant-plot never follows such a link "
                         "(the kernel's protected_symlinks rule); remove it or write "
                         "elsewhere")


def check_folders(path):
    """Every folder named on the way to path that is a link: trusted
    (InputError naming the first that is not)."""
    parts = path.split(os.sep)
    for i in range(len(parts) - 1):
        pre = os.sep.join(parts[:i + 1])
        if not pre:
            continue
        try:
            st = os.lstat(pre)
        except OSError:
            return
        if stat.S_ISLNK(st.st_mode):
            link_trusted(pre, st)


def check_links(path):
    """The chain of links from path, each trusted, and the folders on the
    way of each: True when path is a link at all."""
    check_folders(path)
    cur, is_link = path, False
    for _ in range(MAX_HOPS):
        try:
            st = os.lstat(cur)
        except OSError:
            return is_link
        if not stat.S_ISLNK(st.st_mode):
            return is_link
        is_link = True
        link_trusted(cur, st)
        nxt = os.path.join(os.path.dirname(cur), os.readlink(cur))
        check_folders(nxt)
        cur = nxt
    raise InputError(f"{path}: too many levels of symbolic links")


def make_folder(path):
    """The folder path made where missing (as os.makedirs), none of the
    links on its way planted."""
    check_folders(os.path.join(path, "x"))
    os.makedirs(path, exist_ok=True)


@contextlib.contextmanager
def output(path, mode="w"):
    """A file object to write path by the rules above ("w" text in
    UTF-8, "wb" bytes); the file appears whole when the block ends, and
    not at all when it raises."""
    via_link = check_links(path)
    target = os.path.realpath(path) if via_link else path
    try:
        st = os.stat(target)
    except OSError:
        st = None
    if st and stat.S_ISDIR(st.st_mode):
        raise InputError(f"cannot write {path}: it is a directory: name a file")
    if st and not stat.S_ISREG(st.st_mode):
        fd = os.open(target, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC |
                     (0 if via_link else os.O_NOFOLLOW))
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
            yield f
        return
    folder, name = os.path.split(target)
    fd, tmp = tempfile.mkstemp(prefix=f"{name}.rant-plot-{os.getpid()}-",
                               dir=folder or ".")
    try:
        um = os.umask(0)
        os.umask(um)
        os.fchmod(fd, 0o666 & ~um)
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
            yield f
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def save(fig, path, opts):
    """The figure into path (or a file object: the HTML page's pictures)."""
    fmt = "svg" if opts.svg else "png"
    try:
        if isinstance(path, str):
            with output(path, "wb") as f:
                fig.savefig(f, dpi=100, format=fmt)
        else:
            fig.savefig(path, dpi=100, format=fmt)
    finally:
        plt_module().close(fig)
    return path


def to_json(obj):
    """numpy arrays and numbers in --dump-data."""
    if isinstance(obj, (np.ndarray, np.generic)):
        return obj.tolist()
    raise TypeError(f"{type(obj).__name__} is not JSON")


def write_whole(path, text):
    with output(path) as f:
        f.write(text)


def fresh_path(path):
    """path, or path-2, path-3 ... when a file (or a link, even one to
    nothing) is there already: a plot never overwrites a file this call
    did not make."""
    base, ext = os.path.splitext(path)
    n = 1
    while os.path.lexists(path):
        n += 1
        path = f"{base}-{n}{ext}"
    return path
