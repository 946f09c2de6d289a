"""The double binary tree's trees: NCCL's, as src/graph/trees.cc draws them, and on nodes."""

from __future__ import annotations

import pytest

from collectives.algorithms.double_binary_tree import binary_tree, node_tree, tree_links
from collectives.model.topology import Topology

# trees.cc's drawings, parent by node: the binary tree of 14, the mirror of 12, the shift of 13.
DRAWN = {
    (14, 0): [None, 2, 4, 2, 8, 6, 4, 6, 0, 10, 12, 10, 8, 12],
    (12, 1): [1, 3, 1, 11, 5, 7, 5, 3, 9, 7, 9, None],
    (13, 1): [9, None, 3, 5, 3, 9, 7, 5, 7, 1, 11, 0, 11],
}


@pytest.mark.parametrize(("count", "tree"), DRAWN)
def test_the_trees_are_those_trees_cc_draws(count, tree):
    assert [node_tree(count, node, tree)[0] for node in range(count)] == DRAWN[count, tree]


@pytest.mark.parametrize("count", range(1, 40))
def test_each_tree_spans_the_nodes_and_a_node_is_interior_in_at_most_one(count):
    for tree in (0, 1):
        links = [node_tree(count, node, tree) for node in range(count)]
        assert sum(parent is None for parent, _ in links) == 1
        assert all(len(children) <= 2 for _, children in links)
        for node, (_, children) in enumerate(links):
            assert all(links[child][0] == node for child in children)
    both = [n for n in range(count) if node_tree(count, n, 0)[1] and node_tree(count, n, 1)[1]]
    assert both == ([0] if count % 2 and count > 1 else [])  # the shift's one exception
    assert binary_tree(count, 0)[1] == ([1 << (count - 1).bit_length() - 1] if count > 1 else [])


def test_on_nodes_a_chain_hangs_below_each_node_first_rank():
    nodes = Topology(3)
    assert [tree_links(rank, 9, nodes, 0) for rank in range(9)] == [
        (None, [1, 6]), (0, [2]), (1, []),
        (6, [4]), (3, [5]), (4, []),
        (0, [7, 3]), (6, [8]), (7, []),
    ]  # fmt: skip
    assert tree_links(0, 9, nodes, 1) == (3, [1, 6])  # three nodes: the shift's exception
