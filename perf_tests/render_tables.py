#!/usr/bin/env python3
"""Turns the JSON lines of fgdd's benchmarks and fgdd-solve --json reports into the markdown
tables of docs/PERFORMANCE.md. Usage: render_tables.py FILE.jsonl... > tables.md"""
import json
import math
import re
import sys


def rows_of(paths):
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    yield json.loads(line)


def partition_table(records):
    out = ["| matrix | rows | b | partitioner | cap | subdomains | rows/subdomain min/avg/max "
           "| nnz | nnz after drop | dropped % | partition s | reorder+drop s |",
           "|---|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in records:
        out.append(f"| {r['matrix']} | {r['rows']:,} | {r['block_size']} | {r['partitioner']} "
                   f"| {r['cap_rows']:,} | {r['subdomains']:,} "
                   f"| {r['rows_min']:,} / {r['rows_avg']:,.0f} / {r['rows_max']:,} "
                   f"| {r['nnz']:,} | {r['nnz_after_drop']:,} | {r['dropped_percent']:.2f} "
                   f"| {r['partition_seconds']:.4f} | {r['reorder_seconds']:.4f} |")
    return "\n".join(out)


def solve_table(records):
    out = ["| matrix | rows | solver | preconditioner | partitioner | subdomains | dropped % | iterations "
           "| setup s | solve s | ms / iteration | relative true residual | status |",
           "|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in records:
        # Generator descriptions end in ", NXxNYxNZ grid, ..."; keep the problem's name.
        name = re.split(r", \d+x\d+x\d+ grid", r["matrix"])[0]
        per_iteration = 1e3 * r["solve_seconds"] / max(r["iterations"], 1)
        out.append(f"| {name} | {r['rows']:,} | {r['solver']} | {r['precond']} | {r['partitioner']} "
                   f"| {r['subdomains']:,} | {100 * r['dropped_fraction']:.2f} | {r['iterations']} "
                   f"| {r.get('setup_seconds', 0):.4f} | {r['solve_seconds']:.4f} | {per_iteration:.3f} "
                   f"| {r['relative_true_residual']:.2e} | {r['status']} |")
    return "\n".join(out)


def read_table(records):
    out = ["| file MB | nnz | parse MB/s | parse + validate on device MB/s | target MB/s |",
           "|---:|---:|---:|---:|---:|"]
    for r in records:
        out.append(f"| {r['file_mb']:.0f} | {r['nnz']:,} | {r['parse_mb_per_s']:.0f} "
                   f"| {r['full_mb_per_s']:.0f} | {r['target_mb_per_s']} |")
    return "\n".join(out)


def factor_table(records):
    out = ["| matrix | rows | b | partitioner | subdomains | factored nnz | symbolic ms "
           "| numeric refactor ms (best) | Kokkos-Kernels spiluk setup ms | spiluk numeric ms (best) "
           "| speedup |",
           "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in records:
        out.append(f"| {r['matrix']} | {r['rows']:,} | {r['block_size']} | {r['partitioner']} "
                   f"| {r['subdomains']:,} | {r['nnz_factored']:,} "
                   f"| {1e3 * r['symbolic_seconds']:.2f} | {1e3 * r['numeric_seconds_min']:.1f} "
                   + (f"| {1e3 * r['kk_spiluk_setup_seconds']:.1f} "
                      f"| {1e3 * r['kk_spiluk_numeric_seconds_min']:.1f} "
                      f"| {r['kk_spiluk_numeric_seconds_min'] / r['numeric_seconds_min']:.1f}x |"
                      if r.get("kk_spiluk_numeric_seconds_min", -1) > 0 else "| — | — | — |"))
    return "\n".join(out)


# apply_bench names its columns after fgdd's kernel tables: "lower_<kernel>" for the triangular
# solves, the apply kernel's name for applies, and these prefixes for everything else. New
# kernels therefore appear here without an edit.
NOT_APPLY_KERNELS = ("lower_", "apply_transpose", "global_", "block_jacobi", "kk_")


def lower_kernels(record):
    return [k for k in record["kernels"] if k.startswith("lower_")]


def apply_kernels(record):
    return [k for k in record["kernels"] if not k.startswith(NOT_APPLY_KERNELS)]


def kernel_table(records, names, baselines):
    """One row per matrix: ms (GB/s, % of copy) per kernel, then the speedup of the fastest
    kernel over each baseline."""
    header = ["matrix", "rows", "b", "subdomains", "levels L/U"] + names + \
        [f"speedup vs {b}" for b in baselines]
    out = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for r in records:
        k = r["kernels"]
        cells = [r["matrix"], f"{r['rows']:,}", str(r["block_size"]), f"{r['subdomains']:,}",
                 f"{r['lower_levels_max']}/{r['upper_levels_max']}"]
        for name in names:
            t = k[name]
            cells.append(f"{1e3 * t['min_s']:.3f} ms ({t['gb_per_s']:.0f} GB/s, "
                         f"{t['percent_of_copy']:.0f}%)")
        best = min(k[name]["min_s"] for name in names)
        cells += [f"{k[b]['min_s'] / best:.1f}x" if b in k else "—" for b in baselines]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def apply_tables(records):
    context = records[0]
    head = (f"Device {context['device']}, backend {context['backend']}, commit {context['commit']}; "
            f"measured copy bandwidth {context['copy_gb_per_s']:.0f} GB/s; best of "
            f"{context['repeats']} after warm-up; every kernel verified: "
            f"{all(r['verified'] for r in records)}.")
    lower = kernel_table(records, lower_kernels(records[0]), [])
    baselines = ["kk_sptrsv_global", "kk_sptrsv_dd", "global_ilu0_levels"]
    if any("kk_cusparse_global" in r["kernels"] for r in records):
        baselines.insert(1, "kk_cusparse_global")
    apply = kernel_table(records, apply_kernels(records[0]), baselines)
    with_vendor = [r for r in records if "kk_sptrsv_dd" in r["kernels"]]
    vendor = kernel_table(with_vendor, [b for b in baselines
                                        if with_vendor and b in with_vendor[0]["kernels"]], [])
    return (f"{head}\n\nLower triangular solve with the pivots, T = L + D (paper Table 5.2 analog; dag_ec_lds_ud solves T = L·D, the scaling deferred):\n\n{lower}\n\n"
            f"Preconditioner apply z = U⁻¹D⁻¹L⁻¹r (paper Table 5.3 analog). Baselines (vendor: "
            f"{context.get('vendor', 'none')}): the vendor's ILU0 solves on the undropped A_p "
            f"(kk_sptrsv_global) and on the same dropped matrix (kk_sptrsv_dd, checked equal to "
            f"fgdd's result), and fgdd's exact global ILU0 applied level by level; — where the "
            f"vendor path needs CSR or did not fit:\n\n{apply}\n\n"
            f"The baselines themselves:\n\n{vendor}")


def geometric_mean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def versus_cusparse(r):
    """fgdd dag_ec time to solution against the vendor ILU0 with cuSPARSE's SpSV, '' if absent."""
    cu = r["configs"].get("vendor_ilu0_cusparse", {"skipped": 1})
    ec = r["configs"]["fgdd_dag_ec_ILDU0_fused"]
    if "skipped" in cu or cu.get("status") != "converged":
        return ""
    return f"{cu['time_to_solution_s'] / ec['time_to_solution_s']:.1f}x"


def gmres_cell(r, key):
    """GMRES iterations / ms of one configuration of a Kronecker record, — if it did not run."""
    g = r.get("gmres", {}).get(key)
    return f"{g['iterations']} / {1e3 * g['seconds']:.1f}" if g else "—"


def kronecker_tables(records):
    """kronecker-gmres-multi-gpu.txt Figs. 14-15 analog on one GPU: the fused operator apply
    against s separate SpMVs of M and of L."""
    context = records[0]
    out = [f"Device {context['device']}, commit {context['commit']}; {context['scheme']} tableau, "
           f"{context['mass']} mass matrix, tau = {context['tau']}; T_Kx is one apply of "
           f"(A⊗M + τB⊗L) on merged vectors, in ms, best of the repeats; fused: one kernel, the "
           f"stage combination after the product; paper order: X Aᵀ, X (τB)ᵀ first (Eq. 4), then one "
           f"fused product; baseline: s SpMVs of M and s of L (Kokkos-Kernels) and the combination. "
           f"GMRES(30) to 1e-6 from x0 = 0: iterations / ms, without a preconditioner and with the "
           f"stage DD ILDU0. Every apply verified against the baseline: "
           f"{all(r['verified'] for r in records)}.", "",
           "| problem | N | b | s | T_Kx fused | T_Kx paper order | T_Kx baseline | speedup "
           "| GFLOP/s fused | % of copy bandwidth | GMRES fused | GMRES baseline "
           "| GMRES fused + stage DD |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in records:
        out.append(f"| {r['problem']} | {r['n']:,} | {r['block_size']} | {r['s']} "
                   f"| {1e3 * r['t_kx_fused_s']:.3f} | {1e3 * r['t_kx_paper_s']:.3f} "
                   f"| {1e3 * r['t_kx_baseline_s']:.3f} | {r['speedup_vs_baseline']:.2f}x "
                   f"| {r['gflops_fused']:.0f} | {100 * r['fraction_of_copy']:.0f} "
                   f"| {gmres_cell(r, 'fused_none')} | {gmres_cell(r, 'baseline_none')} "
                   f"| {gmres_cell(r, 'fused_stage_dd')} |")
    for label, chosen in (("s = 1", [r for r in records if r["s"] == 1]),
                          ("s ≥ 2", [r for r in records if r["s"] >= 2])):
        if chosen:
            mean = geometric_mean([r["speedup_vs_baseline"] for r in chosen])
            out.append(f"| geometric mean, {label} | | | | | | | {mean:.2f}x | | | | | |")
    return "\n".join(out)


def dist_kronecker_tables(records):
    """Figs. 13-15 analog on 1, 2, ... GPUs: one merged halo message per neighbour against 2s."""
    context = records[0]
    one_rank = {(r["problem"], r["mass"], r["s"]): r for r in records if r["ranks"] == 1}
    out = [f"Device {context['device']}, commit {context['commit']}, one MPI rank per GPU, "
           f"GPU-aware MPI: {context['gpu_aware_mpi']}; times in ms, the slowest rank's, best of the "
           f"repeats; T_c is the halo exchange alone (fused: all s columns in one message per "
           f"neighbour; baseline: one per column and matrix); strong scaling is T_Kx fused on one "
           f"rank over T_Kx fused on P ranks; GMRES(30) with the stage DD ILDU0: iterations / ms. "
           f"Every apply verified: {all(r['verified'] for r in records)}.", "",
           "| problem | N | s | ranks | messages fused / baseline | T_Kx fused | T_Kx baseline "
           "| speedup | T_c fused | T_c baseline | GFLOP/s fused | % of roofline "
           "| strong scaling | GMRES fused + stage DD | GMRES baseline + stage DD |",
           "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in sorted(records, key=lambda r: (r["problem"], r["s"], r["ranks"])):
        base = one_rank.get((r["problem"], r["mass"], r["s"]))
        scaling = f"{base['t_kx_fused_s'] / r['t_kx_fused_s']:.2f}x" if base else "—"
        out.append(f"| {r['problem']} | {r['n']:,} | {r['s']} | {r['ranks']} "
                   f"| {r['messages_per_apply_fused']} / {r['messages_per_apply_baseline']} "
                   f"| {1e3 * r['t_kx_fused_s']:.3f} | {1e3 * r['t_kx_baseline_s']:.3f} "
                   f"| {r['speedup']:.2f}x | {1e3 * r['t_c_fused_s']:.3f} "
                   f"| {1e3 * r['t_c_baseline_s']:.3f} | {r['gflops_fused']:.0f} "
                   f"| {100 * r['fraction_of_roofline']:.0f} | {scaling} "
                   f"| {gmres_cell(r, 'fused_stage_dd')} | {gmres_cell(r, 'baseline_stage_dd')} |")
    return "\n".join(out)


def bicgstab_tables(records):
    """Paper Tables 5.5 / 5.6 analog: vendor ILU0 (no DD) against fgdd's DD ILDU0 kernels."""
    context = records[0]
    def cell(c, key, scale=1.0, fmt="{:.1f}"):
        return "—" if "skipped" in c else fmt.format(scale * c[key])
    out = [f"Device {context['device']}, backend {context['backend']}, commit {context['commit']}; "
           f"BiCGSTAB, b = 1, x0 = 0, relative tolerance {context['tol']:.0e}; times in ms, best of "
           f"the repeats; every run verified: {all(r['verified'] for r in records)}. Setup is the "
           f"pattern work done once (fgdd: partition + reorder + factor + levels; vendor: spiluk and "
           f"sptrsv symbolic + numeric); TTS (time to solution) is setup + solve; a repeated solve "
           f"is refactor + solve, what an application pays per new set of values.", "",
           "| matrix | rows | dropped % | vendor it | vendor setup | vendor refactor | vendor solve "
           "| vendor TTS | dag_ec it | dag_ec setup | dag_ec refactor | dag_ec solve | dag_ec TTS "
           "| dag_vc solve | dag_vc TTS | Jacobi it / solve | cuSPARSE it / solve | cuSPARSE TTS "
           "| speedup time to solution | speedup TTS vs cuSPARSE | speedup repeated solve "
           "| iteration growth |",
           "|---|" + "---:|" * 21]
    for r in records:
        c = r["configs"]
        v, ec, vc, j = (c["vendor_ilu0"], c["fgdd_dag_ec_ILDU0_fused"],
                        c["fgdd_dag_vc_ILDU0_fused"], c["block_jacobi"])
        cu = c.get("vendor_ilu0_cusparse", {"skipped": 1})
        speed = lambda key: f"{r[key]:.1f}x" if r[key] > 0 else "—"
        out.append(
            f"| {r['matrix']} | {r['rows']:,} | {r['dropped_percent']:.2f} "
            f"| {cell(v, 'iterations', fmt='{:.0f}')} | {cell(v, 'setup_s', 1e3)} "
            f"| {cell(v, 'refactor_s', 1e3)} | {cell(v, 'solve_s', 1e3)} "
            f"| {cell(v, 'time_to_solution_s', 1e3)} "
            f"| {ec['iterations']} | {1e3 * ec['setup_s']:.1f} | {1e3 * ec['refactor_s']:.2f} "
            f"| {1e3 * ec['solve_s']:.1f} | {1e3 * ec['time_to_solution_s']:.1f} "
            f"| {1e3 * vc['solve_s']:.1f} | {1e3 * vc['time_to_solution_s']:.1f} "
            f"| {j['iterations']} / {1e3 * j['solve_s']:.1f} "
            f"| {cell(cu, 'iterations', fmt='{:.0f}')} / {cell(cu, 'solve_s', 1e3)} "
            f"| {cell(cu, 'time_to_solution_s', 1e3)} "
            f"| {speed('speedup_tts_ec_vs_vendor')} | {versus_cusparse(r) or '—'} "
            f"| {speed('speedup_repeat_ec_vs_vendor')} | {speed('iteration_growth_dd_vs_vendor')} |")
    tts = geometric_mean([r["speedup_tts_ec_vs_vendor"] for r in records])
    tts_cusparse = geometric_mean([float(versus_cusparse(r)[:-1]) for r in records
                                   if versus_cusparse(r)])
    rep = geometric_mean([r["speedup_repeat_ec_vs_vendor"] for r in records])
    growth = geometric_mean([r["iteration_growth_dd_vs_vendor"] for r in records])
    versus = "—" if math.isnan(tts_cusparse) else f"{tts_cusparse:.1f}x"
    out.append("| geometric mean |" + " |" * 17 + f" {tts:.1f}x | {versus} | {rep:.1f}x "
               f"| {growth:.2f}x |")
    return "\n".join(out)


def sweep_tables(records):
    """Subdomain-size sweep: what larger subdomains save in dropped couplings and iterations
    against what they cost in setup and apply, per matrix."""
    ran = [r for r in records if "skipped" not in r]
    context = ran[0] if ran else records[0]
    best = {}
    for r in ran:
        if r["verified"]:
            key = (r["device"], r["backend"], r["matrix"])
            best[key] = min(best.get(key, math.inf), r["time_to_solution_s"])
    out = [f"Device {context['device']}, backend {context['backend']}, commit {context['commit']}; "
           f"DD ILDU0 applied by {context['kernel']}; BiCGSTAB, b = 1, x0 = 0, relative tolerance "
           f"{context['tol']:.0e}; times in ms, best of {context['repeats']} after warm-up (setup "
           f"once); every run verified: {all(r['verified'] for r in ran)}. Subdomain rows is the "
           f"cap the partitioner worked with (max: the team-scratch maximum, the CPU default; "
           f"the GPU default is 1,500). "
           f"TTS (time to solution) is setup + solve; the best per matrix in bold.", "",
           "| matrix | rows | subdomain rows | subdomains | dropped % | iterations | apply ms "
           "| setup ms | solve ms | TTS ms |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in ran:
        cap = f"{r['cap_rows']:,}" + (" (max)" if r["cap_rows"] == r["scratch_max_rows"] else "")
        tts = f"{1e3 * r['time_to_solution_s']:.1f}"
        if r["verified"] and r["time_to_solution_s"] == best.get((r["device"], r["backend"],
                                                                  r["matrix"])):
            tts = f"**{tts}**"
        iterations = str(r["iterations"]) + ("" if r["verified"] else f" ({r['status']})")
        out.append(f"| {r['matrix']} | {r['rows']:,} | {cap} | {r['subdomains']:,} "
                   f"| {r['dropped_percent']:.2f} | {iterations} | {1e3 * r['apply_s']:.3f} "
                   f"| {1e3 * r['setup_s']:.1f} | {1e3 * r['solve_s']:.1f} | {tts} |")
    for r in records:
        if "skipped" in r:
            out.append(f"\n{r['matrix']} at {r['subdomain_rows_requested']:,} rows skipped: "
                       f"{r['skipped']}")
    return "\n".join(out)


def dist_tables(records):
    """Strong scaling over MPI ranks: each problem's times against its one-rank run."""
    ok = [r for r in records if "skipped" not in r]
    one_rank = {r["matrix"]: r for r in ok if r["ranks"] == 1}
    context = ok[0] if ok else records[0]
    out = [f"Backend {context.get('backend', '?')}, commit {context.get('commit', '?')}, GPU-aware "
           f"MPI: {context.get('gpu_aware_mpi', '?')}; the slowest rank's time, best of "
           f"{context.get('repeats', '?')}.", "",
           "| matrix | rows | ranks | subdomains | ghost block rows | DD apply ms | apply speedup "
           "| SpMV + halo ms | BiCGSTAB it | solve s | solve speedup |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in sorted(ok, key=lambda r: (r["matrix"], r["ranks"])):
        base = one_rank.get(r["matrix"])
        apply_speedup = f"{base['apply_s'] / r['apply_s']:.2f}x" if base else "—"
        solve_speedup = f"{base['solve_s'] / r['solve_s']:.2f}x" if base else "—"
        out.append(f"| {r['matrix']} | {r['rows']:,.0f} | {r['ranks']} | {r['subdomains']:,.0f} "
                   f"| {r['ghost_block_rows']:,.0f} | {1e3 * r['apply_s']:.3f} | {apply_speedup} "
                   f"| {1e3 * r['spmv_s']:.3f} | {r['iterations']} | {r['solve_s']:.3f} "
                   f"| {solve_speedup} |")
    for r in records:
        if "skipped" in r:
            out.append(f"\n{r['matrix']} on {r['ranks']} ranks skipped: {r['skipped']}")
    return "\n".join(out)


def jacobi_tables(records):
    """Residual of the lower triangular system vs global Jacobi iterations per overlap, and the
    outer BiCGSTAB with Jacobi triangular solves against exact ones."""
    trsv = [r for r in records if r["benchmark"] == "jacobi_trsv"]
    solves = [r for r in records if r["benchmark"] == "jacobi_trsv_bicgstab"]
    out = []
    if trsv:
        n = len(trsv[0]["lower_residual_by_iteration"])
        shown = [k for k in (1, 2, 4, 6, 8, 10) if k <= n]
        out += [f"Device {trsv[0]['device']}, backend {trsv[0]['backend']}, commit "
                f"{trsv[0]['commit']}; global ILU0 factors in RCM ordering, asynchronous "
                f"schedule, {trsv[0]['sweeps']} sweeps, {trsv[0]['block_rows']} block rows per team; "
                "relative residual ‖r − L x_k‖/‖r‖ after k global iterations.", "",
                "| matrix | rows | overlap | teams | " +
                " | ".join(f"k = {k}" for k in shown) + " | ms / iteration |",
                "|---|---:|---:|---:|" + "---:|" * len(shown) + "---:|"]
        for r in trsv:
            res = r["lower_residual_by_iteration"]
            out.append(f"| {r['matrix']} | {r['rows']:,} | {100 * r['overlap']:.0f} % | "
                       f"{r['teams']:,} | " + " | ".join(f"{res[k - 1]:.1e}" for k in shown) +
                       f" | {1e3 * r['seconds_per_iteration']:.3f} |")
    if solves:
        names = list(solves[0]["solvers"].keys())
        out += ["", "BiCGSTAB (b = 1, tolerance 1e-8): iterations / solve ms.", "",
                "| matrix | rows | " + " | ".join(names) + " |",
                "|---|---:|" + "---:|" * len(names)]
        for r in solves:
            cells = [f"{r['solvers'][k]['iterations']} / {1e3 * r['solvers'][k]['solve_s']:.1f}"
                     for k in names]
            out.append(f"| {r['matrix']} | {r['rows']:,} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def struct_tables(records):
    """structilu-structured-grid.txt Figs. 7 / 9 analog: the structured exact ILU(0) per stencil
    and DoF against general ILU0 on the same matrix (fgdd's global ILU0, Kokkos-Kernels sptrsv,
    cuSPARSE)."""
    ran = [r for r in records if "skipped" not in r]
    context = ran[0] if ran else records[0]

    def solve_ms(r, name):
        b = r["baselines"].get(name, {})
        return b["solve"]["min_s"] if "solve" in b else None

    def ms(seconds):
        return "—" if seconds is None else f"{1e3 * seconds:.3f}"

    def speedup(seconds, struct):
        return "—" if seconds is None else f"{seconds / struct:.2f}x"

    out = [f"Device {context['device']}, backend {context['backend']}, commit {context['commit']}; "
           f"measured copy bandwidth "
           f"{context.get('copy_gb_per_s', 0):.0f} GB/s; times in ms, best of "
           f"{context.get('repeats', '?')} after warm-up; solve is the lower then the upper sweep "
           f"(the preconditioner apply; tiles: tile {context.get('tile', '?')}); baselines run on the same matrix (fgdd's global ILU0 on "
           f"the BSR, Kokkos-Kernels spiluk(0) + sptrsv and cuSPARSE on its scalar CSR), — where "
           f"absent or skipped; every struct apply verified against the global ILU0 apply: "
           f"{all(r['verified'] for r in ran)}.", "",
           "| stencil | DoF | schedule | rows | levels | struct factor ms (GB/s, GFLOP/s) "
           "| struct solve ms (GB/s, % copy) | global ILU0 solve ms | KK sptrsv ms | cuSPARSE ms "
           "| speedup vs global ILU0 | speedup vs KK sptrsv | speedup vs cuSPARSE |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in ran:
        f, s = r["phases"]["factor"], r["phases"]["solve"]
        times = [solve_ms(r, name) for name in ("global_ilu0", "kk_sptrsv", "kk_cusparse")]
        schedule = r.get('schedule', 'levels')
        if schedule == "tiles":
            schedule += f" ({r.get('layout', 'grid')})"
        if "factor_lanes" in r:  # the factorization's launch (StructFactorLaunch), since 29575fc
            schedule += (f"; factor {r['factor_schedule']}, {r['factor_lanes']} lanes"
                         f" × {r['factor_team_threads']}")
        out.append(f"| {r['stencil']} | {r['dof']} | {schedule} | {r['rows']:,} "
                   f"| {r['levels']} "
                   f"| {1e3 * f['min_s']:.3f} ({f['gb_per_s']:.0f}, {f['gflops']:.1f}) "
                   f"| {1e3 * s['min_s']:.3f} ({s['gb_per_s']:.0f}, {s['percent_of_copy']:.0f}%) "
                   f"| " + " | ".join(ms(t) for t in times) + " | " +
                   " | ".join(speedup(t, s["min_s"]) for t in times) + " |")
    for r in records:
        if "skipped" in r:
            out.append(f"\n{r['stencil']} DoF {r['dof']} skipped: {r['skipped']}")
    return "\n".join(out)


def setup_tables(records):
    """Issue 33: setup from Matrix Market files per partitioner next to the vendor ILU0 in the
    same run, with the iterations against METIS's and the peak memory per stored entry."""
    ran = [r for r in records if "skipped" not in r]
    context = ran[0] if ran else records[0]
    metis = {r["matrix"]: r["iterations"] for r in ran
             if r.get("partitioner") == "metis" and r.get("status") == "converged"}

    def ms(seconds):
        return f"{1e3 * seconds:.1f}"

    def vendor_cells(r):
        v = r.get("vendor")
        if not v or "skipped" in v:
            return ["—"] * 3
        return [ms(v["setup_s"]), f"{v['iterations']} / {ms(v['solve_s'])}",
                ms(v["time_to_solution_s"])]

    vendor_names = sorted({r["vendor"]["name"] for r in ran if "vendor" in r})
    tolerances = sorted({r.get("tol", 1e-8) for r in ran})
    tolerance = (f"{tolerances[0]:.0e}" if len(tolerances) == 1
                 else "as given after the matrix name")
    out = [f"Device {context['device']}, backend {context['backend']}, commit {context['commit']}; "
           f"matrices read from Matrix Market files (no grid metadata); fgdd::Solver (DD ILDU0) "
           f"BiCGSTAB, relative tolerance {tolerance}; times in ms, best of "
           f"{context.get('repeats', '?')}; setup = partition + reorder/drop + factorization and "
           f"level sets; TTS (time to solution) = setup + solve; vendor: "
           f"{', '.join(vendor_names) or 'none'} (Kokkos-Kernels spiluk + triangular solves, no "
           f"DD; setup = symbolic + numeric + solve analysis) on the same matrix in the same run. "
           f"it vs METIS: iterations over METIS's on the same matrix (goal: at most 1.1). Peak "
           f"memory: live bytes of Kokkos allocations in the default memory space per stored "
           f"entry of A (A and b included; scalar CSR takes about 12-13).", "",
           "| matrix | rows | partitioner | subdomains | dropped % | setup | partition "
           "| reorder + drop | factor + levels | it / solve | TTS | it vs METIS | status "
           "| vendor setup | vendor it / solve | vendor TTS | setup vs vendor "
           "| peak B/entry setup / solve |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in ran:
        name = r["partitioner"]
        if r.get("partitioner_used", name) != name:
            name += f" ({r['partitioner_used']})"
        solved = "iterations" in r
        growth = (f"{r['iterations'] / metis[r['matrix']]:.2f}"
                  if solved and metis.get(r["matrix"]) else "—")
        ratio = r.get("setup_ratio_vs_vendor", -1)
        matrix = r["matrix"].rsplit("/", 1)[-1]
        if len(tolerances) > 1:
            matrix += f" (tol {r.get('tol', 1e-8):.0e})"
        cells = [matrix, f"{r['rows']:,}", name, f"{r['subdomains']:,}",
                 f"{r['dropped_percent']:.2f}", ms(r["setup_s"]), ms(r["partition_s"]),
                 ms(r["reorder_s"]), ms(r["factor_levels_s"]),
                 f"{r['iterations']} / {ms(r['solve_s'])}" if solved else "—",
                 ms(r["time_to_solution_s"]) if solved else "—", growth, r["status"]]
        cells += vendor_cells(r)
        cells += [f"{ratio:.2f}x" if ratio > 0 else "—",
                  f"{r['setup_peak_bytes_per_entry']:.0f} / {r['solve_peak_bytes_per_entry']:.0f}"
                  if "solve_peak_bytes_per_entry" in r else "—"]
        out.append("| " + " | ".join(cells) + " |")
    for r in records:
        if "skipped" in r:
            out.append(f"\n{r['matrix'].rsplit('/', 1)[-1]}: {r['partitioner']} skipped: "
                       f"{r['skipped']}")
    return "\n".join(out)


def main():
    records = list(rows_of(sys.argv[1:]))
    partition = [r for r in records if r.get("benchmark") == "partition"]
    reads = [r for r in records if r.get("benchmark") == "matrix_market_read"]
    factors = [r for r in records if r.get("benchmark") == "factor_subdomain_ildu0"]
    solves = [r for r in records if "iterations" in r and "benchmark" not in r]
    applies = [r for r in records if r.get("benchmark") == "dd_apply"]
    bicgstab = [r for r in records if r.get("benchmark") == "bicgstab_solve"]
    scaling = [r for r in records if r.get("benchmark") == "dist_scaling"]
    jacobi = [r for r in records if r.get("benchmark", "").startswith("jacobi_trsv")]
    sweep = [r for r in records if r.get("benchmark") == "subdomain_sweep"]
    kronecker = [r for r in records if r.get("bench") == "kronecker"]
    dist_kronecker = [r for r in records if r.get("bench") == "dist_kronecker"]
    structured = [r for r in records if r.get("benchmark") == "struct_ilu"]
    setup = [r for r in records if r.get("benchmark") == "setup_from_file"]
    for title, table, items in (("Partitioning (paper Table 5.4 analog)", partition_table, partition),
                                ("fgdd-solve end to end (partitioned ordering)", solve_table, solves),
                                ("Matrix Market read", read_table, reads),
                                ("Subdomain ILDU0 factorization", factor_table, factors),
                                ("Subdomain triangular solves and the DD apply", apply_tables, applies),
                                ("BiCGSTAB time to solution against the vendor ILU0 (paper Tables 5.5/5.6 analog)",
                                 bicgstab_tables, bicgstab),
                                ("Subdomain size sweep: dropped couplings and iterations against "
                                 "apply and setup cost", sweep_tables, sweep),
                                ("Multi-rank scaling", dist_tables, scaling),
                                ("Jacobi triangular solves with directed overlap", jacobi_tables,
                                 jacobi),
                                ("Kronecker-form operator against s separate SpMVs",
                                 kronecker_tables, kronecker),
                                ("Distributed Kronecker operator: one merged halo message",
                                 dist_kronecker_tables, dist_kronecker),
                                ("Structured-grid exact ILU(0) against general ILU0 "
                                 "(structilu-structured-grid.txt Figs. 7/9 analog)", struct_tables,
                                 structured),
                                ("Setup from files per partitioner against the vendor ILU0 "
                                 "(issue 33)", setup_tables, setup)):
        if items:
            print(f"### {title}\n\n{table(items)}\n")


if __name__ == "__main__":
    main()
