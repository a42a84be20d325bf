// What every benchmark driver shares: the device's name, timing over repeats after warm-up, the
// copy bandwidth the GB/s figures are compared with, problem loading, and result checks.
#pragma once

#include "core/generators.hpp"
#include "core/sparse_matrix.hpp"

#include <functional>
#include <string>

#ifndef FGDD_GIT_COMMIT
#define FGDD_GIT_COMMIT "unknown"
#endif

namespace fgdd::bench {

// The GPU's name on CUDA builds, "cpu" otherwise.
std::string device_name();

struct Timing {
  double min = 0, median = 0, max = 0;
};

// Runs run warmup times, then repeats times, each fenced and timed.
Timing time_it(const ExecSpace& space, int warmup, int repeats, const std::function<void()>& run);

// Read + write bandwidth of a device copy of copy_mb megabytes, best of the repeats, GB/s.
double copy_bandwidth(const ExecSpace& space, double copy_mb, int warmup, int repeats);

// max |x − reference| / max |reference| (or the absolute difference when reference is 0).
double max_relative_difference(ConstVector x, ConstVector reference);

// A generator spec (gen:...) or a Matrix Market file, which has no grid metadata.
GeneratedProblem load_problem(const std::string& source);

// The scalar CSR matrix with the same entries as A (A itself when it is CSR), for baselines
// that only take CSR. Built on the host.
SparseMatrix point_csr(const SparseMatrix& A);

}  // namespace fgdd::bench
