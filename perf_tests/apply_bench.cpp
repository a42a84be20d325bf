// Paper Tables 5.2 / 5.3 analogs: the subdomain triangular-solve kernels (lower, unit diagonal)
// and the preconditioner apply kernels on the generated suite, against the exact global ILU0
// apply (level-set scheduling over the whole matrix, what vendor ILU0 solves do) and block
// Jacobi. Times are min / median / max over the repeats after warm-up; GB/s from a byte model
// (below) and its percentage of the device copy bandwidth this program measures first. Every
// kernel's result is checked against the vertex-centric one. One JSON line per matrix.
#include "core/errors.hpp"
#include "core/generators.hpp"
#include "factor/subdomain_ilu0.hpp"
#include "precond/block_jacobi.hpp"
#include "precond/global_ilu_preconditioner.hpp"
#include "partition/partition_matrix.hpp"
#include "trsv/subdomain_trsv.hpp"

#include "bench_common.hpp"
#include "kk_ilu0_baseline.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

using namespace fgdd;

struct Options {
  std::vector<std::string> problems = {"gen:lap7:160", "gen:bsr3:96", "gen:reservoir",
                                       "gen:convdiff:128", "gen:lap27:100"};
  Offset subdomain_rows = 0;
  Partitioner partitioner = Partitioner::Auto;
  SubdomainRowOrder row_order = bench::subdomain_row_order("auto");
  int repeats = 20;
  int warmup = 3;
  double copy_mb = 1024;
  std::vector<int> team_sizes;  // fixed team sizes the fused level kernels also run with
};

int benchmark_main(int argc, char* argv[]) {
  Options options;
  bench::CommandLine("fgdd_apply_bench",
                     "Subdomain triangular solves and preconditioner applies against global ILU0, "
                     "block Jacobi and the vendor (Tables 5.2 / 5.3).")
      .repeated("--matrix", &options.problems, "gen:SPEC|FILE.mtx", "a problem")
      .option("--subdomain-rows", &options.subdomain_rows, "N",
              "scalar rows per subdomain at most; 0: the default")
      .custom("--partitioner", partitioner_names.joined(), to_string(options.partitioner),
              "how subdomains are cut",
              [&](const std::string& name) { options.partitioner = parse_partitioner(name); })
      .custom("--subdomain-order", subdomain_row_order_names.joined(), "auto",
              bench::subdomain_order_help, bench::subdomain_order_parser(&options.row_order))
      .at_least("--repeats", &options.repeats, 1, "R", "timed runs per kernel")
      .at_least("--warmup", &options.warmup, 0, "W", "untimed runs before them")
      .at_least("--copy-mb", &options.copy_mb, 1.0, "MB", "size of the copy-bandwidth reference")
      .list("--team-sizes", &options.team_sizes, "T,T,...",
            "also run the fused level kernels with T threads a team, as KERNEL@T")
      .parse(argc, argv);
  const ExecSpace space;
  const double copy_gbs =
      bench::copy_bandwidth(space, options.copy_mb, options.warmup, options.repeats);
  const std::string device = bench::device_name();
  std::fprintf(stderr, "copy bandwidth %.0f GB/s on %s\n", copy_gbs, device.c_str());

  for (const std::string& spec : options.problems) {
    std::fprintf(stderr, "%s: setup ...\n", spec.c_str());
    const GeneratedProblem problem = bench::load_problem(spec);
    PartitionOptions partition_options;
    partition_options.subdomain_rows = options.subdomain_rows;
    partition_options.partitioner = options.partitioner;
    partition_options.row_order = options.row_order;
    const PartitionedMatrix dd =
        partition_matrix(space, problem.matrix, problem.grid, partition_options);
    const SparseMatrix& dropped = dd.system.dropped;
    SubdomainIlu0 ilu(space, dropped, dd.partition, FactorOptions{});
    const SubdomainTrsv trsv(space, ilu);
    const bench::Timing refactor = bench::time_it(space, options.warmup, options.repeats,
                                                  [&] { ilu.numeric(space, dropped); });
    GlobalIluOptions global_options;
    const GlobalIluPreconditioner global(space, dd.system.permuted, global_options);
    GlobalIluOptions sync_free_options;
    sync_free_options.kernel = GlobalRowKernel::SyncFree;
    const GlobalIluPreconditioner sync_free(space, dd.system.permuted, sync_free_options);
    const BlockJacobi jacobi(dd.system.permuted);

    const Offset n = dropped.num_rows();
    const int b = dropped.block_size();
    const double block_bytes = double(b) * b * sizeof(Scalar);
    const Offset block_rows = dropped.num_block_rows();
    const Offset off_diagonal = dropped.num_block_entries() - block_rows;
    // Byte model: every off-diagonal factor block and its edge row/column indices read once,
    // D⁻¹ read once, r read and z written once. A lower solve touches its triangle only.
    const double vectors = 2.0 * n * sizeof(Scalar);
    Offset lower_entries = 0;
    const auto diag = ilu.diag_position();
    const auto row_map = dropped.row_map();
    Kokkos::parallel_reduce(
        "fgdd::bench::lower_entries", Kokkos::RangePolicy<ExecSpace>(space, 0, block_rows),
        KOKKOS_LAMBDA(const Offset i, Offset& sum) { sum += diag(i) - row_map(i); }, lower_entries);
    const double apply_bytes =
        off_diagonal * (block_bytes + 8) + block_rows * block_bytes + vectors;
    const double lower_bytes = lower_entries * (block_bytes + 8) + vectors;

    Vector r("fgdd::bench::r", n), z("fgdd::bench::z", n), reference("fgdd::bench::reference", n);
    Kokkos::Random_XorShift64_Pool<ExecSpace> pool(2026);
    Kokkos::fill_random(r, pool, -1.0, 1.0);

    bench::JsonObject kernels;
    bool verified = true;
    const auto record = [&](const std::string& name, double bytes, const std::function<void()>& run,
                            ConstVector check_against, double tolerance = 1e-10) {
      const bench::Timing t = bench::time_it(space, options.warmup, options.repeats, run);
      const double gbs = bytes / t.min / 1e9;
      if (check_against.extent(0) > 0) {
        // Only the summation order differs between kernels of one operator; 1e-10 relative to
        // max |z| is loose for these diagonally dominant factors (the unit tests check each
        // kernel against backward-error bounds). Float factors differ by their rounding.
        const double difference = bench::max_relative_difference(z, check_against);
        if (!(difference <= tolerance)) {
          verified = false;
          std::fprintf(stderr, "  %s differs from the reference by %.3e\n", name.c_str(),
                       difference);
        }
      }
      bench::JsonObject kernel;
      kernel.add("min_s", t.min, bench::scientific(6))
          .add("median_s", t.median, bench::scientific(6))
          .add("max_s", t.max, bench::scientific(6))
          .add("gb_per_s", gbs, bench::fixed(1))
          .add("percent_of_copy", 100 * gbs / copy_gbs, bench::fixed(1));
      kernels.add(name, kernel);
      std::fprintf(stderr, "  %-22s %9.3f ms  %7.1f GB/s\n", name.c_str(), 1e3 * t.min, gbs);
    };

    // Lower triangular solves (Table 5.2 analog): T = L + D, each against dag_vc_lds; and the
    // paper's dag_ec_lds_ud, the unit solve with the D⁻¹ scaling deferred (T = L·D, checked by
    // the unit tests).
    trsv.solve(space, Triangle::Lower, Diagonal::Pivots, TriangularKernel::DagVcLds, r, reference);
    // Every kernel of the name table (dag_ec_lds_ud solves with L·D: below).
    for (const TriangularKernel kernel : triangular_kernel_names.values())
      if (kernel != TriangularKernel::DagEcLdsUd)
        record(
            "lower_" + to_string(kernel), lower_bytes + block_rows * block_bytes,
            [&] { trsv.solve(space, Triangle::Lower, Diagonal::Pivots, kernel, r, z); }, reference);
    record(
        "lower_dag_ec_lds_ud", lower_bytes + block_rows * block_bytes,
        [&] {
          trsv.solve(space, Triangle::Lower, Diagonal::Pivots, TriangularKernel::DagEcLdsUd, r, z);
        },
        Vector());
    // Preconditioner applies (Table 5.3 analog), each against dag_vc_ILDU0_fused.
    // Then the same applies reading float factors ("float_*", FactorPrecision::Float): half the
    // value bytes; against the double apply to 1e-5 relative, about 100 float roundings of these
    // diagonally dominant factors (the unit tests check them against the rounded factors).
    trsv.apply(space, ApplyKernel::DagVcIlduFused, r, reference);
    const SubdomainTrsv single(space, ilu, 0, FactorPrecision::Float);
    const double single_bytes =
        off_diagonal * (block_bytes / 2 + 8) + block_rows * block_bytes / 2 + vectors;
    struct Precision {
      const char* prefix;
      const SubdomainTrsv& applier;
      double bytes, tolerance;
    };
    for (const Precision& p : {Precision{"", trsv, apply_bytes, 1e-10},
                               Precision{"float_", single, single_bytes, 1e-5}})
      for (const ApplyKernel kernel : apply_kernel_names.values())
        if (kernel != ApplyKernel::Auto)
          record(
              p.prefix + to_string(kernel), p.bytes,
              [&] { p.applier.apply(space, kernel, r, z); }, reference, p.tolerance);
    // The level kernels at fixed team sizes (the team size Kokkos picks is not always best).
    for (const int team_size : options.team_sizes) {
      const SubdomainTrsv sized(space, ilu, team_size);
      for (const ApplyKernel kernel :
           {ApplyKernel::DagEcIlduFused, ApplyKernel::DagVcIlduFused,
            ApplyKernel::DagEcOrderedIlduFused, ApplyKernel::DagVcSlicedIlduFused})
        record(
            to_string(kernel) + "@" + std::to_string(team_size), apply_bytes,
            [&] { sized.apply(space, kernel, r, z); }, reference);
    }
    record(
        "apply_transpose", apply_bytes,
        [&] { trsv.apply_transpose(space, ApplyKernel::DagEcIlduFused, r, z); }, Vector());
    record(
        "apply_transpose_row_order", apply_bytes,
        [&] { trsv.apply_transpose(space, ApplyKernel::RowOrderFused, r, z); }, Vector());
    // Baselines: the exact global ILU0 of the undropped matrix, level-scheduled, and Jacobi.
    const double global_bytes =
        (dd.system.permuted.num_block_entries() - block_rows) * (block_bytes + 8) +
        block_rows * block_bytes + vectors;
    Vector global_reference("fgdd::bench::global_reference", n);
    global.apply(space, r, global_reference);
    record(
        "global_ilu0_levels", global_bytes, [&] { global.apply(space, r, z); }, Vector());
    // Spinning on dependencies needs the GPU's many resident teams; on CPU threads one apply
    // takes seconds (16.7 s for lap7 160³ on 16 cores), so it is measured on GPUs only.
    if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible)
      record(
          "global_ilu0_sync_free", global_bytes, [&] { sync_free.apply(space, r, z); },
          global_reference);
    record(
        "block_jacobi", block_rows * block_bytes + vectors, [&] { jacobi.apply(space, r, z); },
        Vector());
    // Vendor baselines (CSR only): Kokkos-Kernels spiluk + level-set sptrsv on the same dropped
    // matrix (the same M: checked against fgdd's apply) and on the undropped A_p.
    std::string vendor = "skipped: Kokkos-Kernels sptrsv is CSR-only here";
    if (b == 1) {
      Vector work("fgdd::bench::work", n);
      // Each baseline on its own: one that does not fit (spiluk's host work space on the dropped
      // matrix's wide levels) leaves the others.
      std::vector<std::string> ran, refused;
      const auto baseline = [&](const char* name, const SparseMatrix& A, bench::VendorTrsv trsv,
                                double bytes, Vector check) {
        try {
          bench::KkIlu0 ilu(A, trsv);
          ilu.numeric();
          space.fence();
          record(
              name, bytes, [&] { ilu.apply(r, work, z); }, check);
          ran.push_back(name);
        } catch (const std::exception& error) {  // e.g. its factors do not fit the memory
          std::fprintf(stderr, "  vendor baseline %s skipped: %s\n", name, error.what());
          refused.push_back(name);
        }
      };
      // The same M as fgdd's apply (checked against it), then the undropped A_p.
      baseline("kk_sptrsv_dd", dropped, bench::VendorTrsv::LevelSets, apply_bytes, reference);
      baseline("kk_sptrsv_global", dd.system.permuted, bench::VendorTrsv::LevelSets, global_bytes,
               Vector());
      if (bench::kk_cusparse_available)
        baseline("kk_cusparse_global", dd.system.permuted, bench::VendorTrsv::CuSparse,
                 global_bytes, Vector());
      vendor = "Kokkos-Kernels spiluk(0) + sptrsv SEQLVLSCHD_TP1" +
               std::string(bench::kk_cusparse_available ? " and cuSPARSE SpSV" : "") +
               (ran.empty() ? "" : "; ran: " + join(ran)) +
               (refused.empty() ? "" : "; skipped (see stderr): " + join(refused));
    }
    bench::JsonObject line = bench::report_header("dd_apply");
    line.add("matrix", spec)
        .add("rows", std::size_t(n))
        .add("block_size", b)
        .add("entries", std::size_t(dropped.num_entries()))
        .add("partitioner", to_string(dd.report.partitioner))
        .add("subdomain_order", subdomain_row_order_names.name(dd.report.row_order))
        .add("subdomains", dd.report.num_subdomains)
        .add("subdomain_rows_max", std::size_t(dd.report.max_rows))
        .add("dropped_percent", 100 * dd.report.dropped_fraction, bench::fixed(2))
        .add("lower_levels_max", trsv.levels(space, Triangle::Lower).max_levels)
        .add("upper_levels_max", trsv.levels(space, Triangle::Upper).max_levels)
        .add("level_entries_mean", trsv.mean_level_entries(space), bench::fixed(1))
        .add("sliced_padding", trsv.sliced_padding(), bench::fixed(3))
        .add("global_levels", int(global.factorization().lower_levels().num_levels))
        .add("level_build_s", trsv.level_seconds(), bench::fixed(6))
        .add("refactor_min_s", refactor.min, bench::fixed(6))
        .add("copy_gb_per_s", copy_gbs, bench::fixed(1))
        .add("repeats", options.repeats)
        .add("vendor", vendor)
        .add("kernels", kernels)
        .add("verified", verified);
    bench::print_line(line);
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
