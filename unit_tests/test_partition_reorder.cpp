// make_partition, A_p = P A Pᵀ, the drop, numeric updates, vector permutation and the stage's
// report, against dense serial references.
#include "catch_compat.hpp"
#include "core/generators.hpp"
#include "partition/metis.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <set>

using namespace fgdd;

namespace {

detail::Labeling labeling_of(std::vector<Ordinal> parts, Ordinal num_parts,
                             std::vector<Ordinal> keys = {}) {
  if (keys.empty()) {
    keys.resize(parts.size());
    std::iota(keys.begin(), keys.end(), 0);
  }
  return {num_parts, reference::to_device(parts), reference::to_device(keys)};
}

// Checks perm/iperm/offsets of p against the labels they came from.
void check_partition(const Partition& p, const std::vector<Ordinal>& labels) {
  const auto perm = reference::host_vector(p.perm);
  const auto iperm = reference::host_vector(p.iperm);
  const auto part = reference::host_vector(p.part_of_row);
  const auto& offsets = p.host_subdomain_offsets;
  REQUIRE(offsets.size() == std::size_t(p.num_subdomains) + 1);
  CHECK(offsets.front() == 0);
  CHECK(offsets.back() == Ordinal(labels.size()));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    CHECK(iperm[perm[i]] == Ordinal(i));  // perm ∘ iperm = identity
    CHECK(perm[iperm[i]] == Ordinal(i));
    const Ordinal s = part[i];
    CHECK(perm[i] >= offsets[s]);  // every row lands in its own subdomain's range
    CHECK(perm[i] < offsets[s + 1]);
  }
  for (Ordinal s = 0; s < p.num_subdomains; ++s) CHECK(offsets[s + 1] > offsets[s]);
  // Rows with equal labels share a subdomain and different labels do not.
  for (std::size_t i = 0; i + 1 < labels.size(); ++i)
    CHECK((labels[i] == labels[i + 1]) == (part[i] == part[i + 1]));
}

// Dense P A Pᵀ from the definition (A_p)(perm i, perm j) = A(i, j), block-expanded.
reference::DenseMatrix permuted_dense(const reference::DenseMatrix& A,
                                      const std::vector<Ordinal>& perm, int b) {
  reference::DenseMatrix P{A.n, std::vector<double>(A.a.size(), 0.0)};
  for (std::size_t i = 0; i < A.n; ++i)
    for (std::size_t j = 0; j < A.n; ++j)
      P(perm[i / b] * b + i % b, perm[j / b] * b + j % b) = A(i, j);
  return P;
}

}  // namespace

TEST_CASE("make_partition builds a consistent permutation", "[partition]") {
  SECTION("irregular labels with an empty label and one-row parts") {
    const std::vector<Ordinal> labels = {3, 0, 3, 1, 0, 3, 4, 0};  // label 2 is empty
    const Partition p = detail::make_partition(ExecSpace(), labeling_of(labels, 5));
    CHECK(p.num_subdomains == 4);
    check_partition(p, labels);
    // Within a subdomain rows keep the order of their keys (here the row index).
    const auto iperm = reference::host_vector(p.iperm);
    CHECK(iperm == std::vector<Ordinal>{1, 4, 7, 3, 0, 2, 5, 6});
  }
  SECTION("order keys decide the order inside a subdomain") {
    const Partition p =
        detail::make_partition(ExecSpace(), labeling_of({0, 0, 0, 1, 1}, 2, {7, 2, 5, 1, 0}));
    CHECK(reference::host_vector(p.iperm) == std::vector<Ordinal>{1, 2, 0, 4, 3});
  }
  SECTION("a single subdomain and a single row") {
    check_partition(detail::make_partition(ExecSpace(), labeling_of({0, 0, 0}, 1)), {0, 0, 0});
    check_partition(detail::make_partition(ExecSpace(), labeling_of({0}, 1)), {0});
  }
  SECTION("bad labels and repeated keys are rejected") {
    CHECK_THROWS_WITH(detail::make_partition(ExecSpace(), labeling_of({0, 2}, 2)),
                      FGDD_CONTAINS("row 1"));
    CHECK_THROWS_WITH(detail::make_partition(ExecSpace(), labeling_of({0, 0}, 1, {3, 3})),
                      FGDD_CONTAINS("repeats an order key"));
  }
  SECTION("results are identical across runs") {
    std::vector<Ordinal> labels(997);
    for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = (i * 7919) % 13;
    const Partition a = detail::make_partition(ExecSpace(), labeling_of(labels, 13));
    const Partition b = detail::make_partition(ExecSpace(), labeling_of(labels, 13));
    CHECK(reference::host_vector(a.perm) == reference::host_vector(b.perm));
    check_partition(a, labels);
  }
}

TEST_CASE("reorder_and_drop equals P A Pᵀ and its block diagonal", "[partition]") {
  const auto [block_rows, block_size] =
      GENERATE(table<Ordinal, int>({{1, 1}, {37, 1}, {64, 1}, {29, 2}, {31, 3}, {11, 4}}));
  const Ordinal num_parts = GENERATE(1, 3, 7);
  // Scattered labels, or consecutive ones: the identity permutation, whose A_p is A itself.
  const bool consecutive = GENERATE(false, true);
  CAPTURE(block_rows, block_size, num_parts, consecutive);
  const SparseMatrix A =
      make_matrix(reference::random_matrix(block_rows, block_size, 4, 77u + block_rows));
  std::vector<Ordinal> labels(block_rows);
  for (Ordinal i = 0; i < block_rows; ++i)
    labels[i] = consecutive ? Ordinal(std::int64_t(i) * num_parts / block_rows)
                            : Ordinal((i * 31 + 5) % num_parts);
  const Partition p = detail::make_partition(ExecSpace(), labeling_of(labels, num_parts));
  const ReorderedSystem system = reorder_and_drop(ExecSpace(), A, p);

  const auto dense = reference::to_dense(A);
  const auto perm = reference::host_vector(p.perm);
  const auto expected = permuted_dense(dense, perm, block_size);
  CHECK(reference::to_dense(system.permuted).a == expected.a);
  // The identity (consecutive labels, one part, one row) shares A's arrays; any other order
  // has its own.
  std::vector<Ordinal> rows(perm.size());
  std::iota(rows.begin(), rows.end(), Ordinal(0));
  CHECK((system.permuted.values().data() == A.values().data()) == (perm == rows));
  // The dropped matrix keeps exactly the entries whose block row and column share a subdomain.
  const auto part = reference::host_vector(p.part_of_row);
  const auto iperm = reference::host_vector(p.iperm);
  const auto dropped = reference::to_dense(system.dropped);
  for (std::size_t i = 0; i < expected.n; ++i)
    for (std::size_t j = 0; j < expected.n; ++j) {
      const bool same = part[iperm[i / block_size]] == part[iperm[j / block_size]];
      CHECK(dropped(i, j) == (same ? expected(i, j) : 0.0));
    }
  // Columns are sorted and unique in every row of both matrices.
  for (const SparseMatrix* M : {&system.permuted, &system.dropped}) {
    const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), M->row_map());
    const auto cols = reference::host_vector(M->col_ind());
    for (Ordinal r = 0; r < block_rows; ++r)
      for (Offset k = rows(r) + 1; k < rows(r + 1); ++k) CHECK(cols[k - 1] < cols[k]);
  }
}

TEST_CASE("update_values refills with new values and refuses another pattern", "[partition]") {
  auto arrays = reference::random_matrix(40, 2, 3, 5u);
  const SparseMatrix A = make_matrix(arrays);
  std::vector<Ordinal> labels(40);
  for (Ordinal i = 0; i < 40; ++i) labels[i] = i / 9;
  const Partition p = detail::make_partition(ExecSpace(), labeling_of(labels, 5));
  ReorderedSystem system = reorder_and_drop(ExecSpace(), A, p);

  for (auto& v : arrays.values) v = 2 * v + 1;
  const SparseMatrix A_new = make_matrix(arrays);
  update_values(ExecSpace(), A_new, system);
  const ReorderedSystem fresh = reorder_and_drop(ExecSpace(), A_new, p);
  CHECK(reference::to_dense(system.permuted).a == reference::to_dense(fresh.permuted).a);
  CHECK(reference::to_dense(system.dropped).a == reference::to_dense(fresh.dropped).a);
  // Consecutive labels: A_p is now A_new itself, and A kept its values.
  CHECK(system.permuted.values().data() == A_new.values().data());
  CHECK(reference::to_dense(A).a ==
        reference::to_dense(make_matrix(reference::random_matrix(40, 2, 3, 5u))).a);

  // Same size and entry count, one off-diagonal block of row 5 moved to an unused column.
  auto moved = arrays;
  const auto row_begin = moved.col_ind.begin() + moved.row_map[5];
  const auto row_end = moved.col_ind.begin() + moved.row_map[6];
  const auto off_diagonal = std::find_if(row_begin, row_end, [](Ordinal c) { return c != 5; });
  REQUIRE(off_diagonal != row_end);
  Ordinal unused = 0;
  while (std::find(row_begin, row_end, unused) != row_end) ++unused;
  *off_diagonal = unused;
  CHECK_THROWS_WITH(update_values(ExecSpace(), make_matrix(moved), system),
                    FGDD_CONTAINS("first at block row 5"));
  const SparseMatrix wrong_size = make_matrix(reference::random_matrix(41, 2, 3, 5u));
  CHECK_THROWS_AS(update_values(ExecSpace(), wrong_size, system), InvalidInput);
}

TEST_CASE("permute_vector and unpermute_vector are inverse", "[partition]") {
  const int block_size = GENERATE(1, 3);
  std::vector<Ordinal> labels = {2, 0, 1, 0, 2, 1, 1};
  const Partition p = detail::make_partition(ExecSpace(), labeling_of(labels, 3));
  const auto x = reference::random_vector(7 * block_size, 4u);
  Vector permuted("permuted", x.size()), back("back", x.size());
  permute_vector(ExecSpace(), p, block_size, reference::to_device(x), permuted);
  unpermute_vector(ExecSpace(), p, block_size, permuted, back);
  CHECK(reference::to_host(back) == x);
  const auto perm = reference::host_vector(p.perm);
  const auto xp = reference::to_host(permuted);
  for (std::size_t i = 0; i < x.size(); ++i)
    CHECK(xp[perm[i / block_size] * block_size + i % block_size] == x[i]);
  Vector wrong("wrong", x.size() + 1);
  CHECK_THROWS_AS(permute_vector(ExecSpace(), p, block_size, wrong, permuted), DimensionMismatch);
}

TEST_CASE("partition options: subdomain size from team scratch and threads", "[partition]") {
  const Offset largest = max_subdomain_rows(1);
  CHECK(largest == Offset(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0)) / sizeof(double));
  CHECK(max_subdomain_rows(3) % 3 == 0);
  // The default: on GPUs 1,500 rows, or an even split into concurrency() / 512 subdomains when
  // that is smaller (at least 256 rows), in whole blocks and at most the maximum; on CPUs every
  // row with one thread, else 1.06 × an even share per thread (METIS's slack), in whole blocks.
  constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  const Offset threads = Offset(ExecSpace().concurrency());
  for (const int b : {1, 3, 7}) {
    for (const Offset rows :
         {Offset(b), Offset(7 * b), Offset(100'003) / b * b, Offset(900'001) / b * b,
          Offset(50'000'000) / b * b}) {
      const Offset block_rows = rows / b;
      const Offset share = threads == 1 ? block_rows
                                        : (block_rows * 106 + threads * 100 - 1) / (threads * 100);
      const Offset wanted = std::max(threads / 512, Offset(1));
      const Offset even = std::clamp((rows + wanted - 1) / wanted, Offset(256), Offset(1500));
      const Offset expected =
          gpu ? std::min(max_subdomain_rows(b), std::max(even - even % b, Offset(b))) : share * b;
      CHECK(default_subdomain_rows(b, rows) == expected);
      // METIS then makes one part per thread.
      if (!gpu && block_rows >= 1000)
        CHECK(detail::metis_num_parts(Ordinal(block_rows), Ordinal(share)) == Ordinal(threads));
    }
  }
  PartitionOptions options;
  CHECK(options.subdomain_block_rows(1, 9'999) == Ordinal(default_subdomain_rows(1, 9'999)));
  CHECK(options.subdomain_block_rows(3, 9'999) == Ordinal(default_subdomain_rows(3, 9'999) / 3));
  options.subdomain_rows = largest;
  CHECK(options.subdomain_block_rows(1, 9'999) == Ordinal(largest));
  // Beyond level-0 scratch: refused on GPUs (slow), level-1 host memory on CPUs.
  options.subdomain_rows = largest + 1;
  if (gpu)
    CHECK_THROWS_WITH(options.validate(1), FGDD_CONTAINS("exceeds what team scratch holds"));
  else
    CHECK(options.subdomain_block_rows(1, 9'999) == Ordinal(largest + 1));
  options.subdomain_rows = 2;
  CHECK_THROWS_WITH(options.validate(3), FGDD_CONTAINS("at least the block size"));
  CHECK(parse_partitioner("rcm") == Partitioner::Rcm);
  CHECK_THROWS_WITH(parse_partitioner("kway"), FGDD_CONTAINS(partitioner_names.joined()));
}

TEST_CASE("partition_matrix: geometric drop count of a 7-point Laplacian", "[partition]") {
  // 12³ grid, 64-row cap: 3×3×3 cubes of 4³. Each of the 2 interior planes per axis cuts
  // 12² couplings in each direction: dropped = 3 axes × 2 planes × 144 × 2 = 1,728 entries.
  const GeneratedProblem problem = laplace7(12, 12, 12);
  PartitionOptions options;
  options.partitioner = Partitioner::Geometric;
  options.subdomain_rows = 64;
  const PartitionedMatrix result =
      partition_matrix(ExecSpace(), problem.matrix, problem.grid, options);
  const PartitionReport& report = result.report;
  CHECK(report.partitioner == Partitioner::Geometric);
  CHECK(report.num_subdomains == 27);
  CHECK(report.min_rows == 64);
  CHECK(report.max_rows == 64);
  CHECK(report.entries == problem.matrix.num_entries());
  CHECK(report.entries - report.entries_after_drop == 1728);
  CHECK(report.dropped_fraction == FGDD_CATCH_APPROX(1728.0 / report.entries));
}

TEST_CASE("partition_matrix: every partitioner on CSR and BSR, Auto resolution, bad input",
          "[partition]") {
  const GeneratedProblem lap = laplace7(9, 7, 5);
  const GeneratedProblem bsr = multicomponent_bsr3(5);
  for (const GeneratedProblem* problem : {&lap, &bsr}) {
    // Each partitioner of the table gets what its traits ask for (auto is checked below).
    const Coordinates points = grid_coordinates(ExecSpace(), problem->grid);
    for (const Partitioner partitioner : partitioner_names.values()) {
      const auto needs = [&](unsigned trait) { return partitioner_names.has(partitioner, trait); };
#ifndef FGDD_HAVE_METIS
      if (needs(needs_metis)) continue;
#endif
      if (needs(resolves_to_another)) continue;
      CAPTURE(problem->description, to_string(partitioner));
      PartitionOptions options;
      options.partitioner = partitioner;
      options.subdomain_rows = 48;
      const PartitionedMatrix r = partition_matrix(
          ExecSpace(), problem->matrix, needs(needs_coordinates) ? GridInfo{} : problem->grid,
          needs(needs_coordinates) ? points : Coordinates(), options);
      CHECK(r.report.max_rows <= 48);
      CHECK(r.report.min_rows >= 1);
      CHECK(r.report.entries_after_drop < r.report.entries);
      const int b = problem->matrix.block_size();
      const auto perm = reference::host_vector(r.partition.perm);
      CHECK(reference::to_dense(r.system.permuted).a ==
            permuted_dense(reference::to_dense(problem->matrix), perm, b).a);
    }
  }
  PartitionOptions automatic;
  automatic.subdomain_rows = 48;
  CHECK(partition_matrix(ExecSpace(), lap.matrix, lap.grid, automatic).report.partitioner ==
        Partitioner::Geometric);
  const Partitioner without_grid =
      partition_matrix(ExecSpace(), lap.matrix, GridInfo{}, automatic).report.partitioner;
  // Without a grid, at this cap (7 subdomains): METIS on CPU backends, the device-side
  // multilevel partitioner on GPUs (and wherever METIS is not built in).
  constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
#ifdef FGDD_HAVE_METIS
  CHECK(without_grid == (gpu ? Partitioner::Multilevel : Partitioner::Metis));
  PartitionOptions metis = automatic;
  metis.partitioner = Partitioner::Metis;
  CHECK_THAT(partition_matrix(ExecSpace(), lap.matrix, GridInfo{}, metis).report.steps,
             FGDD_CONTAINS("weighted by coupling strength"));
#else
  CHECK(without_grid == Partitioner::Multilevel);
#endif
  // Two to four subdomains on a CPU backend: RCM slabs (one cross-section a boundary), whatever
  // is built in; five (315 rows at 63 a subdomain) go back to the graph partitioner.
  for (const Ordinal rows : {63, 79, 158, 314}) {
    CAPTURE(rows);
    PartitionOptions few = automatic;
    few.subdomain_rows = rows;
    const PartitionReport report =
        partition_matrix(ExecSpace(), lap.matrix, GridInfo{}, few).report;
    if (gpu || rows == 63) {
      CHECK(report.partitioner == without_grid);
    } else {
      CHECK(report.partitioner == Partitioner::Rcm);
      CHECK_THAT(report.reason, FGDD_CONTAINS("RCM slabs"));
      CHECK(Offset(report.num_subdomains) == (lap.matrix.num_rows() + rows - 1) / rows);
    }
  }
  // The row order auto resolves to: RCM inside the geometric boxes on a CPU backend (rows in
  // grid order there), the partitioner's inside METIS's or multilevel's parts, on GPUs (the
  // solvers ask for levels there) and in one subdomain.
  const auto order_with = [&](Partitioner partitioner, const GridInfo& grid, Ordinal rows) {
    PartitionOptions options = automatic;
    options.partitioner = partitioner;
    options.subdomain_rows = rows;
    return partition_matrix(ExecSpace(), lap.matrix, grid, options).report;
  };
  const PartitionReport boxes = order_with(Partitioner::Geometric, lap.grid, 48);
  CHECK(boxes.row_order == (gpu ? SubdomainRowOrder::Partitioner : SubdomainRowOrder::Rcm));
  CHECK((boxes.steps.find("reverse Cuthill-McKee") != std::string::npos) == !gpu);
  CHECK(order_with(Partitioner::Multilevel, GridInfo{}, 48).row_order ==
        SubdomainRowOrder::Partitioner);
  CHECK(order_with(Partitioner::Geometric, lap.grid, lap.matrix.num_rows()).row_order ==
        SubdomainRowOrder::Partitioner);
  // A cap that holds every row: one subdomain in the caller's order, nothing dropped, without
  // running a graph partitioner (the report says so); rcm still orders the rows.
  for (const GeneratedProblem* problem : {&lap, &bsr}) {
    std::vector<Partitioner> graph = {Partitioner::Auto, Partitioner::Natural};
#ifdef FGDD_HAVE_METIS
    graph.push_back(Partitioner::Metis);
#endif
    graph.push_back(Partitioner::Multilevel);
    for (const Partitioner partitioner : graph) {
      CAPTURE(problem->description, to_string(partitioner));
      PartitionOptions whole;
      whole.partitioner = partitioner;
      whole.subdomain_rows = problem->matrix.num_rows();
      const PartitionedMatrix r = partition_matrix(ExecSpace(), problem->matrix, GridInfo{}, whole);
      CHECK(r.report.num_subdomains == 1);
      CHECK(r.report.partitioner == Partitioner::Natural);
      if (partitioner != Partitioner::Natural)
        CHECK_THAT(r.report.reason, FGDD_CONTAINS("one subdomain holds every row"));
      CHECK(r.report.entries_after_drop == r.report.entries);
      CHECK(r.system.dropped.values().data() == r.system.permuted.values().data());
      const auto perm = reference::host_vector(r.partition.perm);
      for (std::size_t i = 0; i < perm.size(); ++i) CHECK(perm[i] == Ordinal(i));
    }
    PartitionOptions rcm;
    rcm.partitioner = Partitioner::Rcm;
    rcm.subdomain_rows = problem->matrix.num_rows();
    CHECK(partition_matrix(ExecSpace(), problem->matrix, GridInfo{}, rcm).report.partitioner ==
          Partitioner::Rcm);
  }
  PartitionOptions geometric;
  geometric.partitioner = Partitioner::Geometric;
  CHECK_THROWS_WITH(partition_matrix(ExecSpace(), lap.matrix, GridInfo{}, geometric),
                    FGDD_CONTAINS("grid metadata"));
  CHECK_THROWS_WITH(partition_matrix(ExecSpace(), lap.matrix, GridInfo{9, 7, 4}, geometric),
                    FGDD_CONTAINS("315"));
}
