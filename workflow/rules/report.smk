# Stage 6, report: `snakemake --report results/report.html` gathers every figure marked
# with report() (captions in workflow/report/) under this description.


report: "../report/workflow.rst"
