"""The study's figures, drawn from the pipeline's tables: one module per figure, each
with a draw() that returns the figure and the data it plots (style.Plot)."""
