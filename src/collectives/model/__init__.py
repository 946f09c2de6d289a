"""The model: pure functions of counts, traces and fabrics (no processes, no file I/O).

theory (closed-form counts), fabric (link classes and structure), fit (α, β from
measurements), replay (a trace's time on a fabric), cost (closed-form costs, winners,
crossovers, cost shape), crossing (the one interpolation rule for where the cheapest
algorithm changes), ladder (the models of growing detail that predict a timed run).
"""
