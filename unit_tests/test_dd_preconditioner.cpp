// DdIluPreconditioner: after update_values the applies use the new factors (the solves keep the
// factor blocks in their own edge order and must notice the refactor), for every apply kernel;
// and what factor_precision auto picks.
#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "precond/dd_ilu_preconditioner.hpp"
#include "partition/partition_matrix.hpp"
#include "reference/dense.hpp"
#include "reference/random_matrix.hpp"

#include <memory>
#include <string>

using namespace fgdd;

namespace {

// The matrix cut in its own order into subdomains of 12 block rows.
PartitionedMatrix natural_subdomains(const HostMatrixArrays& arrays) {
  PartitionOptions options;
  options.partitioner = Partitioner::Natural;
  options.subdomain_rows = 12 * arrays.block_size;
  return partition_matrix(ExecSpace(), make_matrix(arrays), GridInfo{}, options);
}

}  // namespace

TEST_CASE("DD preconditioner applies the refactored values", "[trsv][dd]") {
  const auto kernels = apply_kernel_names.values();
  const ApplyKernel kernel = GENERATE_REF(from_range(kernels.begin(), kernels.end()));
  const int block_size = GENERATE(1, 3);
  CAPTURE(to_string(kernel), block_size);
  auto arrays = reference::random_matrix(50, block_size, 4, 12u);
  PartitionedMatrix dd = natural_subdomains(arrays);
  DdIluOptions options;
  options.apply = kernel;
  DdIluPreconditioner M(ExecSpace(), dd.system.dropped, dd.partition, options);
  const auto r = reference::to_device(reference::random_vector(dd.system.dropped.num_rows(), 4u));
  Vector before("before", r.extent(0)), after("after", r.extent(0)), fresh("fresh", r.extent(0));
  M.apply(ExecSpace(), r, before);

  for (auto& v : arrays.values) v = 0.5 * v + 0.125;
  update_values(ExecSpace(), make_matrix(arrays), dd.system);
  M.update_values(ExecSpace(), dd.system.dropped);
  M.apply(ExecSpace(), r, after);
  const DdIluPreconditioner rebuilt(ExecSpace(), dd.system.dropped, dd.partition, options);
  rebuilt.apply(ExecSpace(), r, fresh);
  const auto got = reference::to_host(after), expected = reference::to_host(fresh);
  CHECK(got != reference::to_host(before));
  // Same factors, same kernel: the results agree up to the summation order of the atomics
  // (deterministic kernels: bitwise). 1e-12 relative to the largest entry covers a few
  // roundings.
  double scale = 0;
  for (double v : expected) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    if (apply_kernel_names.has(resolve_auto(kernel), deterministic_kernel))
      CHECK(got[i] == expected[i]);
    else
      CHECK(got[i] == FGDD_CATCH_APPROX(expected[i]).margin(1e-12 * scale));
  }
}

TEST_CASE("factor_precision auto: float on CPUs; on GPUs float for 3x3 blocks and up",
          "[dd][float]") {
  for (const int b : {1, 2, 3, 4}) {
    CAPTURE(b);
    const FactorPrecisionChoice cpu = resolve_factor_precision(FactorPrecision::Auto, b, true);
    CHECK(cpu.precision == FactorPrecision::Float);
    CHECK(cpu.reason.find("CPU backend") != std::string::npos);
    const FactorPrecisionChoice gpu = resolve_factor_precision(FactorPrecision::Auto, b, false);
    CHECK(gpu.precision == (b >= 3 ? FactorPrecision::Float : FactorPrecision::Double));
  }
  CHECK(resolve_factor_precision(FactorPrecision::Auto, 4, false).reason.find("4x4") !=
        std::string::npos);
  // The build's own backend decides by default, and auto is the default.
  CHECK(resolve_factor_precision(FactorPrecision::Auto, 1).precision ==
        resolve_factor_precision(FactorPrecision::Auto, 1, host_memory).precision);
  CHECK(DdIluOptions().factor_precision == FactorPrecision::Auto);
  // A precision the user names is kept, without a reason.
  const FactorPrecisionChoice named = resolve_factor_precision(FactorPrecision::Float, 1);
  CHECK(named.precision == FactorPrecision::Float);
  CHECK(named.reason.empty());
}

TEST_CASE("factor_precision auto applies what the precision it picked applies, and falls back "
          "to double for factors beyond float's range",
          "[dd][float]") {
  const int block_size = GENERATE(1, 3);
  CAPTURE(block_size);
  auto arrays = reference::random_matrix(50, block_size, 4, 12u);
  PartitionedMatrix dd = natural_subdomains(arrays);
  const auto preconditioner = [&](FactorPrecision precision) {
    DdIluOptions options;
    options.factor_precision = precision;
    return std::make_unique<DdIluPreconditioner>(ExecSpace(), dd.system.dropped, dd.partition,
                                                 options);
  };
  const auto r = reference::to_device(reference::random_vector(dd.system.dropped.num_rows(), 4u));
  const auto apply = [&](const DdIluPreconditioner& M) {
    Vector z("z", r.extent(0));
    M.apply(ExecSpace(), r, z);
    return reference::to_host(z);
  };
  const auto automatic = preconditioner(FactorPrecision::Auto);
  const FactorPrecision picked =
      resolve_factor_precision(FactorPrecision::Auto, block_size).precision;
  CHECK(automatic->factor_precision().precision == picked);
  CHECK(automatic->name().find("auto") != std::string::npos);
  // The default apply kernel is deterministic: the same bits as the named precision.
  CHECK(apply(*automatic) == apply(*preconditioner(picked)));

  // All values times 1e-40: L and U keep their size, D⁻¹ grows to about 1e40, past float's
  // largest value (3.4e38). Auto then reads double, on refactorization as in a new setup.
  for (auto& v : arrays.values) v *= 1e-40;
  update_values(ExecSpace(), make_matrix(arrays), dd.system);
  automatic->update_values(ExecSpace(), dd.system.dropped);
  const auto fresh = preconditioner(FactorPrecision::Auto);
  const auto twice = apply(*preconditioner(FactorPrecision::Double));
  for (const DdIluPreconditioner* M : {automatic.get(), fresh.get()}) {
    CHECK(M->factor_precision().precision == FactorPrecision::Double);
    if (picked == FactorPrecision::Float)
      CHECK(M->name().find("do not fit float") != std::string::npos);
    CHECK(apply(*M) == twice);
  }
  CHECK_THROWS_AS(preconditioner(FactorPrecision::Float), ZeroPivot);
}

TEST_CASE("DD preconditioner on deferred dropped values refactors from A_p", "[trsv][dd]") {
  // The solver's setup: dropped's values never filled, the factorization reads A_p's runs, and
  // a refactorization must be handed A_p (the dropped-only form refuses).
  auto arrays = reference::random_matrix(50, 1, 4, 21u);
  PartitionOptions partition_options;
  partition_options.partitioner = Partitioner::Natural;
  partition_options.subdomain_rows = 12;
  PartitionedMatrix dd =
      partition_matrix(ExecSpace(), make_matrix(arrays), GridInfo{}, Coordinates(),
                       partition_options, DroppedValues::Deferred);
  DdIluOptions options;
  options.factor.factor_in_place = true;
  DdIluPreconditioner M(ExecSpace(), dd.system.dropped, dd.partition, options,
                        dd.system.dropped_runs());
  for (auto& v : arrays.values) v = 0.5 * v + 0.125;
  update_values(ExecSpace(), make_matrix(arrays), dd.system);
  CHECK_THROWS_AS(M.update_values(ExecSpace(), dd.system.dropped), InvalidInput);
  M.update_values(ExecSpace(), dd.system.permuted, dd.system.dropped);

  PartitionedMatrix copied = natural_subdomains(arrays);
  const DdIluPreconditioner fresh(ExecSpace(), copied.system.dropped, copied.partition, options);
  const auto r = reference::to_device(reference::random_vector(arrays.num_block_rows, 4u));
  Vector z("z", r.extent(0)), expected("expected", r.extent(0));
  M.apply(ExecSpace(), r, z);
  fresh.apply(ExecSpace(), r, expected);
  // Same factors, same kernel: bitwise where it is deterministic, else to a few roundings.
  const auto got = reference::to_host(z), want = reference::to_host(expected);
  double scale = 0;
  for (double v : want) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    if (apply_kernel_names.has(resolve_auto(options.apply), deterministic_kernel))
      CHECK(got[i] == want[i]);
    else
      CHECK(got[i] == FGDD_CATCH_APPROX(want[i]).margin(1e-12 * scale));
  }
}
