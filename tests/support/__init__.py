"""What the tests share: grids and fabrics of the model tests, runs, traces, the workflow's
scratch copies, the figure checkers, readers of the exported selection files. No test module
imports another; they all import from here."""
