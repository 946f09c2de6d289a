"""One figure of the study, from its row of the table of figures (figures.smk): its PNG,
PDF and the CSV of what it plots."""

import sys

sys.stderr = open(snakemake.log[0], "w")
# seaborn imports SciPy (0.9 s of a figure job's 2 s of imports) for its KDE and clustering
# alone, and does without it: no figure draws either, so a figure job leaves it unloaded.
sys.modules["scipy"] = None

from collectives.study.figures import draw_figure, style

inputs = {
    name: [files] if isinstance(files, str) else list(files)
    for name, files in snakemake.input.items()
}
params = snakemake.params
plot = draw_figure(params.module, inputs, params.kinds, params.arguments)
style.save(plot, *snakemake.output)
