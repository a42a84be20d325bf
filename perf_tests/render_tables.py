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
    out = ["| matrix | rows | partitioner | subdomains | dropped % | iterations | solve s "
           "| ms / iteration | relative true residual | status |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in records:
        # Generator descriptions end in ", NXxNYxNZ grid, ..."; keep the problem's name.
        name = re.split(r", \d+x\d+x\d+ grid", r["matrix"])[0]
        per_iteration = 1e3 * r["solve_seconds"] / max(r["iterations"], 1)
        out.append(f"| {name} | {r['rows']:,} | {r['partitioner']} | {r['subdomains']:,} "
                   f"| {100 * r['dropped_fraction']:.2f} | {r['iterations']} "
                   f"| {r['solve_seconds']:.4f} | {per_iteration:.3f} "
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
           "| numeric refactor ms (best) |",
           "|---|---:|---:|---|---:|---:|---:|---:|"]
    for r in records:
        out.append(f"| {r['matrix']} | {r['rows']:,} | {r['block_size']} | {r['partitioner']} "
                   f"| {r['subdomains']:,} | {r['nnz_factored']:,} "
                   f"| {1e3 * r['symbolic_seconds']:.2f} | {1e3 * r['numeric_seconds_min']:.1f} |")
    return "\n".join(out)


def main():
    records = list(rows_of(sys.argv[1:]))
    partition = [r for r in records if r.get("benchmark") == "partition"]
    reads = [r for r in records if r.get("benchmark") == "matrix_market_read"]
    factors = [r for r in records if r.get("benchmark") == "factor_subdomain_ildu0"]
    solves = [r for r in records if "iterations" in r and "benchmark" not in r]
    for title, table, items in (("Partitioning (paper Table 5.4 analog)", partition_table, partition),
                                ("BiCGSTAB + block Jacobi in the partitioned ordering", solve_table, solves),
                                ("Matrix Market read", read_table, reads),
                                ("Subdomain ILDU0 factorization", factor_table, factors)):
        if items:
            print(f"### {title}\n\n{table(items)}\n")


if __name__ == "__main__":
    main()
