"""The all-reduce algorithms: one module each, with one function allreduce(comm, x, **parameters).

Each is written against collectives.comm.Communicator only (as MPICH keeps one algorithm per
file in src/mpi/coll/allreduce/), and its module docstring ends with its textbook Cost:
line. collectives.registry lists them with their theory, labels and library names.
"""
