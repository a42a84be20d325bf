#!/usr/bin/env python3
"""Turns the JSON lines of fgdd's benchmarks and fgdd-solve --json reports into the markdown
tables of docs/PERFORMANCE.md. Usage: render_tables.py FILE.jsonl... > tables.md"""
import json
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


LOWER_KERNELS = ["lower_spin_loop_lds", "lower_dag_ec_no_lds", "lower_dag_ec_lds", "lower_dag_vc_lds",
                 "lower_dag_ec_lds_ud"]
APPLY_KERNELS = ["dag_ec_ILD_U0", "dag_vc_ILDU0_fused", "dag_ec_ILDU0_fused", "apply_transpose"]


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
    lower = kernel_table(records, [k for k in LOWER_KERNELS if k in records[0]["kernels"]], [])
    apply = kernel_table(records, APPLY_KERNELS[:3],
                         ["kk_sptrsv_global", "kk_sptrsv_dd", "global_ilu0_levels"])
    vendor = kernel_table([r for r in records if "kk_sptrsv_dd" in r["kernels"]],
                          ["kk_sptrsv_global", "kk_sptrsv_dd", "global_ilu0_levels"], [])
    return (f"{head}\n\nLower triangular solve with the pivots, T = L + D (paper Table 5.2 analog; dag_ec_lds_ud solves T = L·D, the scaling deferred):\n\n{lower}\n\n"
            f"Preconditioner apply z = U⁻¹D⁻¹L⁻¹r (paper Table 5.3 analog). Baselines: "
            f"{context.get('vendor', 'none')} on the undropped A_p (kk_sptrsv_global) and on the same "
            f"dropped matrix (kk_sptrsv_dd, checked equal to fgdd's result), and fgdd's exact global "
            f"ILU0 applied level by level; — where the vendor path needs CSR:\n\n{apply}\n\n"
            f"The baselines themselves:\n\n{vendor}")


def main():
    records = list(rows_of(sys.argv[1:]))
    partition = [r for r in records if r.get("benchmark") == "partition"]
    reads = [r for r in records if r.get("benchmark") == "matrix_market_read"]
    factors = [r for r in records if r.get("benchmark") == "factor_subdomain_ildu0"]
    solves = [r for r in records if "iterations" in r and "benchmark" not in r]
    applies = [r for r in records if r.get("benchmark") == "dd_apply"]
    for title, table, items in (("Partitioning (paper Table 5.4 analog)", partition_table, partition),
                                ("fgdd-solve end to end (partitioned ordering)", solve_table, solves),
                                ("Matrix Market read", read_table, reads),
                                ("Subdomain ILDU0 factorization", factor_table, factors),
                                ("Subdomain triangular solves and the DD apply", apply_tables, applies)):
        if items:
            print(f"### {title}\n\n{table(items)}\n")


if __name__ == "__main__":
    main()
