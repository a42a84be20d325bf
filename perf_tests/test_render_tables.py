#!/usr/bin/env python3
"""render_tables.py's setup table (issue 33): one row per partitioner that ran, iterations
against METIS's on the same matrix, the vendor's cells, and the partitioners that were skipped."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render_tables  # noqa: E402

HEADER = {"benchmark": "setup_from_file", "commit": "abc1234", "backend": "Cuda",
          "device": "NVIDIA H100", "tol": 1e-8, "repeats": 3}
VENDOR = {"name": "vendor_ilu0_cusparse", "setup_s": 0.1, "iterations": 47, "solve_s": 0.19,
          "time_to_solution_s": 0.29, "status": "converged"}


def record(partitioner, iterations, setup_s, used=None, matrix="/data/cd128_scrambled_1.mtx"):
    return dict(HEADER, matrix=matrix, rows=2097152, partitioner=partitioner,
                partitioner_used=used or partitioner, subdomains=1400, dropped_percent=12.5,
                setup_s=setup_s, partition_s=setup_s / 2, reorder_s=setup_s / 4,
                factor_levels_s=setup_s / 4, iterations=iterations, solve_s=0.05,
                time_to_solution_s=setup_s + 0.05, status="converged",
                setup_peak_bytes_per_entry=120.4, solve_peak_bytes_per_entry=95.6, vendor=VENDOR,
                setup_ratio_vs_vendor=setup_s / 0.1)


class SetupTable(unittest.TestCase):
    def setUp(self):
        self.records = [record("auto", 62, 5.53, used="metis"), record("metis", 62, 5.5),
                        record("natural", 90, 0.01),
                        dict(HEADER, matrix="/data/cd128_scrambled_1.mtx", rows=2097152,
                             partitioner="geometric", skipped="needs grid metadata")]
        self.table = render_tables.setup_tables(self.records)
        self.rows = [line for line in self.table.splitlines() if line.startswith("| cd128")]

    def test_one_row_per_partitioner_that_ran(self):
        self.assertEqual(len(self.rows), 3)
        self.assertIn("| auto (metis) |", self.rows[0])

    def test_iterations_against_metis(self):
        self.assertIn("| 90 / 50.0 | 60.0 | 1.45 | converged |", self.rows[2])
        self.assertIn("| 62 / 50.0 | 5550.0 | 1.00 |", self.rows[1])

    def test_vendor_cells_and_ratio(self):
        self.assertIn("| 100.0 | 47 / 190.0 | 290.0 | 55.00x | 120 / 96 |", self.rows[1])
        self.assertIn("vendor_ilu0_cusparse", self.table)

    def test_tolerance_per_matrix_when_they_differ(self):
        self.assertIn("relative tolerance 1e-08;", self.table)
        mixed = self.records + [dict(record("metis", 500, 2.4, matrix="/data/spe10.mtx"),
                                     tol=1e-6)]
        table = render_tables.setup_tables(mixed)
        self.assertIn("| spe10.mtx (tol 1e-06) |", table)
        self.assertIn("| cd128_scrambled_1.mtx (tol 1e-08) |", table)

    def test_skipped_partitioners_are_listed(self):
        self.assertIn("cd128_scrambled_1.mtx: geometric skipped: needs grid metadata", self.table)

    def test_main_renders_the_setup_section_from_json_lines(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write("".join(json.dumps(r) + "\n" for r in self.records))
        try:
            output = subprocess.run([sys.executable, render_tables.__file__, f.name],
                                    capture_output=True, text=True, check=True).stdout
        finally:
            os.unlink(f.name)
        self.assertIn("### Setup from files per partitioner", output)
        self.assertIn(self.rows[2], output)


if __name__ == "__main__":
    unittest.main()
