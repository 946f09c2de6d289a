"""The arena: shared working buffers, first fit, returned when no view is left."""

from __future__ import annotations

import gc

import numpy as np

from collectives.transport.queue.arena import ALIGN, Arena
from collectives.transport.queue.links import shared_array


def test_buffers_fit_first_return_when_unreferenced_and_are_found_by_address():
    region = shared_array(4 * ALIGN, np.uint8)
    arena = Arena(region)
    first = arena.empty(ALIGN // 8, np.float64)
    second = arena.empty(2 * ALIGN // 8, np.float64)
    assert arena.offset_of(first) == 0 and arena.offset_of(second) == ALIGN
    assert arena.offset_of(second[3:]) == ALIGN + 24
    assert arena.offset_of(np.zeros(4)) is None
    assert arena.empty(2 * ALIGN // 8, np.float64) is None  # full: one line left
    view = first[1:]
    del first
    gc.collect()
    last = arena.empty(ALIGN // 8, np.float64)
    assert arena.offset_of(last) == 3 * ALIGN  # not 0: a view keeps its buffer
    del view, second, last
    gc.collect()
    whole = arena.empty(4 * ALIGN // 8, np.float64)  # freed ranges merged again
    assert whole is not None and arena.offset_of(whole) == 0
    whole[:] = 7.0
    assert np.all(region.view(np.float64) == 7.0)


def test_an_empty_region_lends_nothing():
    assert Arena(shared_array((1, 0), np.uint8)[0]).empty(1, np.float64) is None
