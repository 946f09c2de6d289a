"""The study: the pipeline's tables and figures, from records and fabrics.

paths (the results/ layout), config (what the config means), fabrics (fabric entries and
measurement files), aggregate (records into tables), selection, workloads, validation,
markdown, and the figures package.
"""
