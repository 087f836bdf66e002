"""Feeds that come from a started non-iterable data loader.

``DataLoader.from_generator(feed_list=..., iterable=False)`` (and ``PyReader``) register
themselves here on ``start()`` and leave on ``reset()``. ``Executor.run`` then takes the next
batch of a started loader whose feed variables are all data variables of the program being
run and that the caller did not feed explicitly; a loader at the end of its data raises
``core.EOFException`` from there. A loader offers ``feed_names`` and ``next_feed()`` (a dict
of name -> array, or ``EOFException``).
"""
import weakref

__all__ = ["attach", "detach", "pull_feeds"]

_started = []


def attach(loader):
    """Make ``loader`` feed the programs that declare its variables."""
    detach(loader)
    _started.append(weakref.ref(loader))


def detach(loader):
    _started[:] = [r for r in _started if r() is not None and r() is not loader]


def pull_feeds(program, feed):
    """``feed`` plus the next batch of the started loader that serves ``program``."""
    if not _started:
        return feed
    gb = program.global_block()
    chosen = None
    for ref in list(_started):
        loader = ref()
        if loader is None:
            _started.remove(ref)
            continue
        names = loader.feed_names
        if not names or any(n in feed for n in names):
            continue
        if all(getattr(gb._find_var_recursive(n), "is_data", False) for n in names):
            if chosen is not None:
                raise RuntimeError(f"Executor.run: two started data loaders feed the variables "
                                   f"{names}; reset() one of them")
            chosen = loader
    if chosen is None:
        return feed
    merged = dict(feed)
    merged.update(chosen.next_feed())
    return merged
