"""Crash-safe file creation: every byte :mod:`core.serialization` writes goes through here.

:class:`atomic_write` replaces one file atomically (temporary name in the target directory,
fsync, rename, fsync of the directory); :func:`write_new_file` creates a file that must not
exist yet (the files of a new directory-save generation) and fsyncs it."""
import os
import secrets

__all__ = ["atomic_write", "fsync_dir", "write_new_file"]


def fsync_dir(dirname):
    try:
        fd = os.open(dirname or ".", os.O_RDONLY)
    except OSError:  # platforms without directory handles (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class atomic_write:
    """Context manager: a binary file object on a temporary name next to ``path``; on a clean
    exit it is flushed, fsynced and renamed over ``path``; on an error it is removed."""

    def __init__(self, path):
        self.path = os.fspath(path)
        head, tail = os.path.split(self.path)
        self.tmp = os.path.join(head, f".{tail}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
        self.file = None

    def __enter__(self):
        self.file = open(self.tmp, "xb")
        return self.file

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.file.flush()
                os.fsync(self.file.fileno())
                self.file.close()
                os.replace(self.tmp, self.path)
                fsync_dir(os.path.dirname(self.path))
                return False
        except BaseException:
            _discard(self.file, self.tmp)
            raise
        _discard(self.file, self.tmp)
        return False


def _discard(fileobj, path):
    for step in (fileobj.close, lambda: os.unlink(path)):
        try:
            step()
        except OSError:
            pass


def write_new_file(path, write):
    """Create ``path`` (it must not exist), fill it with ``write(f)``, fsync; return its size."""
    with open(path, "xb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
        return f.tell()
