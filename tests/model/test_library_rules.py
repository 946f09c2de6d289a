"""The libraries' decision rules, spot-checked at their edges."""

from __future__ import annotations

import pytest

from collectives.model import library_rules


@pytest.mark.parametrize(
    ("ranks", "nbytes", "itemsize", "expected"),
    [
        (8, 2048, 8, "recursive_doubling"),
        (8, 2049, 8, "rabenseifner"),
        (64, 2**20, 8, "rabenseifner"),
        (1024, 8184, 8, "recursive_doubling"),  # 1023 elements < 1024 = pof2: RD
        (1024, 8192, 8, "rabenseifner"),
        (3, 4096, 4, "rabenseifner"),
    ],
)
def test_mpich_classic_rule(ranks, nbytes, itemsize, expected):
    assert library_rules.mpich_classic(ranks, nbytes, itemsize) == expected


@pytest.mark.parametrize(
    ("ranks", "nbytes", "expected"),
    [
        (2, 4, "ring"), (2, 4000, "recursive_doubling"), (2, 5000, "ring"),
        (3, 10000, "recursive_doubling"), (3, 20000, "ring"), (2, 100_000, "segmented_ring"),
        (2, 262144, "rabenseifner"), (4, 15, "ring"), (4, 8191, "recursive_doubling"),
        (8, 8192, "rabenseifner"), (16, 63, "segmented_ring"), (16, 4095, "recursive_doubling"),
        (32, 127, "segmented_ring"), (32, 128, "rabenseifner"), (64, 262143, "recursive_doubling"),
        (128, 1000, "nonoverlapping"), (256, 4096, "rabenseifner"),
        (512, 10000, "recursive_doubling"), (2048, 3000, "segmented_ring"),
        (4096, 20000, "recursive_doubling"), (4096, 32768, "rabenseifner"),
    ],
)  # fmt: skip
def test_open_mpi_fixed_rule(ranks, nbytes, expected):
    """Spot checks of coll_tuned_decision_fixed.c (commutative allreduce), at the edges."""
    assert library_rules.open_mpi_fixed(ranks, nbytes) == expected


@pytest.mark.parametrize(
    ("ranks", "nbytes", "itemsize", "expected"),
    [
        (16, 9999, 4, "recursive_doubling"),  # below 10000 bytes
        (16, 10000, 4, "ring"),
        (16, 16 << 20, 4, "ring"),  # N MiB: one segment per rank
        (16, (16 << 20) + 4, 4, "segmented_ring"),
        (4096, 12000, 4, "nonoverlapping"),  # 3000 elements, fewer than ranks
    ],
)
def test_open_mpi_4_0_rule(ranks, nbytes, itemsize, expected):
    assert library_rules.open_mpi_4_0(ranks, nbytes, itemsize) == expected


def test_library_choice_speaks_our_names():
    assert library_rules.library_choice("openmpi-4.0", 16, 1 << 25, 4) == "ring"
    assert library_rules.library_choice("openmpi-4.1", 128, 1000, 4) == "binomial_tree"
    assert library_rules.library_choice("openmpi-4.1", 16, 8, 4) == "recursive_doubling"  # 2 < N
    assert library_rules.library_choice("openmpi-4.1", 64, 1 << 20, 4) == "rabenseifner"
    assert library_rules.library_choice("mpich-classic", 8, 8, 8) == "recursive_doubling"
    with pytest.raises(KeyError, match=r"known: openmpi-4\.0"):
        library_rules.library_choice("lam-6.5", 8, 8, 8)
