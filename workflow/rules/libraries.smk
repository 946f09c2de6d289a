# The MPI libraries: each installed (or found), its MPI_Allreduce timed at its default,
# with each algorithm forced, with the model's selection and with the clock's, and the
# closed loop's table and figure: what a library gains from our selection on this machine.


rule library:
    output:
        paths.LIBRARY,
    log:
        paths.log("libraries/{library}"),
    benchmark:
        paths.benchmark("library", "{library}")
    group:
        "setup"
    conda:
        ENV
    params:
        options=TARGETS.library_options,
    message:
        "library: install {wildcards.library}"
    shell:
        "collectives library --kind {wildcards.library} {params.options} --output {output}"
        " 2> {log}"


rule library_run:
    input:
        library=paths.LIBRARY,
    output:
        paths.TUNING,
    log:
        paths.log("tuning/{library}/{setting}/N{ranks}"),
    benchmark:
        paths.benchmark("library_run", "{library}/{setting}/N{ranks}")
    wildcard_constraints:
        setting=tuning.forced_pattern(),  # the compared settings run together, below
    priority: 100  # first, while no other job competes for the cores
    conda:
        ENV
    threads: all_cores  # a timing measurement: run it alone
    resources:
        runtime=repeated_runtime,
    params:
        repeat=TARGETS.bench_options,
        command=TARGETS.forced_command,
    message:
        "library_run: {wildcards.library} {wildcards.setting} N={wildcards.ranks}"
    shell:
        "collectives repeat {params.repeat} --what '{wildcards.library} {wildcards.setting}"
        " N={wildcards.ranks}' --output {output} -- {params.command} 2> {log}"


rule library_compare:
    input:
        library=paths.LIBRARY,
        model=lambda w: selection_file(w.library, "model"),
        clock=lambda w: selection_file(w.library, "clock"),
    output:
        default=compared_run("default"),
        model=compared_run("model"),
        clock=compared_run("clock"),
    log:
        paths.log("tuning/{library}/compared/N{ranks}"),
    benchmark:
        paths.benchmark("library_compare", "{library}/N{ranks}")
    priority: 100
    conda:
        ENV
    threads: all_cores  # a timing measurement: run it alone
    resources:
        runtime=lambda w: repeated_runtime(w) * len(tuning.SETTINGS),
    params:
        repeat=TARGETS.bench_options,
        commands=TARGETS.compared_commands,
    message:
        "library_compare: {wildcards.library} default, model and clock N={wildcards.ranks}"
    shell:
        "collectives repeat {params.repeat} --what '{wildcards.library} N={wildcards.ranks}'"
        " --output {output.default} --output {output.model} --output {output.clock}"
        " -- {params.commands} 2> {log}"


rule library_probe:
    input:
        library=paths.LIBRARY,
        selection=tuning_selection,
    output:
        paths.PROBE,
    log:
        paths.log("tuning/{library}/{setting}/N{ranks}.probe"),
    benchmark:
        paths.benchmark("library_probe", "{library}/{setting}/N{ranks}")
    group:
        "tuning"
    conda:
        ENV
    threads: all_cores  # N ranks of MPI
    params:
        setting=TARGETS.setting_options,
        switch=TARGETS.switch_option,
        elements=",".join(map(str, WALLCLOCK.elements)) if WALLCLOCK else "",
    message:
        "library_probe: {wildcards.library} {wildcards.setting} N={wildcards.ranks}"
    shell:
        "collectives mpiexec --library {input.library} --ranks {wildcards.ranks}"
        " {params.setting} -- probe --elements {params.elements} {params.switch} > {output}"
        " 2> {log}"


rule clock_selection:
    input:
        forced=TARGETS.tuning_runs([FORCED]),
        probes=TARGETS.tuning_runs([FORCED], paths.PROBE),
        libraries=[paths.library(name) for name in PLAN.libraries],
    output:
        table=paths.table("clock_selection.csv"),
        exports=[
            p
            for name in PLAN.libraries
            for p in paths.selection_files(paths.CLOCK, name)
        ],
    log:
        paths.log("clock_selection"),
    benchmark:
        paths.benchmark("clock_selection")
    priority: 1
    group:
        "tuning"
    conda:
        ENV
    params:
        runs=json.dumps(jobs.library_tuning_keys(PLAN, [FORCED])),
        dtype=PLAN.dtype,
        libraries=list(PLAN.libraries),  # the library of each file of output.exports
    message:
        "clock_selection: each library's fastest forced algorithm by size"
    script:
        "../scripts/clock_selection.py"


rule tuned_vs_default:
    input:
        runs=TARGETS.tuning_runs(),
        probes=TARGETS.tuning_probes(),
        model=paths.table("selection.csv"),
        clock=paths.table("clock_selection.csv"),
        libraries=[paths.library(name) for name in PLAN.libraries],
    output:
        table=paths.table("tuned_vs_default.csv"),
        summary=paths.table("tuned_vs_default.md"),
    log:
        paths.log("tuned_vs_default"),
    benchmark:
        paths.benchmark("tuned_vs_default")
    priority: 1
    group:
        "results"
    conda:
        ENV
    params:
        runs=json.dumps(jobs.library_tuning_keys(PLAN)),
        probes=json.dumps(jobs.library_tuning_keys(PLAN, ["model", "clock"])),
        fabrics=json.dumps(
            {name: TARGETS.model_fabric(name) for name in PLAN.libraries}
            if WALLCLOCK
            else {}
        ),
        dtype=PLAN.dtype,
    message:
        "tuned_vs_default: what each library gains from the selections"
    script:
        "../scripts/tuned_vs_default.py"
