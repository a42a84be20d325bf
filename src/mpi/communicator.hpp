// The MPI communicator fgdd's distributed layer works on: rank, size, global sums, whether MPI
// can read device memory, and one rule for errors: a failure on any rank becomes the same
// exception on every rank, so no rank waits forever for a partner that gave up.
#pragma once

#include "core/types.hpp"

#include <mpi.h>

#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace fgdd {

class Communicator {
 public:
  // Does not take ownership; MPI must be initialized and stay so while this is used.
  explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD);

  MPI_Comm get() const noexcept { return comm_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  bool is_root() const noexcept { return rank_ == 0; }

  // values[0..count) summed over the ranks, in place.
  void sum(double* values, int count) const;
  double max(double value) const;

  // True when MPI may be handed device pointers of fgdd's memory space: always for host
  // memory; for CUDA/HIP memory when Open MPI reports CUDA/ROCm support at run time. The
  // environment variable FGDD_GPU_AWARE_MPI=0/1 overrides the detection.
  bool device_pointers_ok() const noexcept { return device_pointers_ok_; }

  // Collective: runs step on every rank. If it throws on any rank, every rank throws the
  // error of the lowest failing rank, with the same type (fgdd's error classes) and message.
  void run_collectively(const std::function<void()>& step) const;

  // Collective: every rank passes its settings as "key=value" items (what names them, e.g.
  // "solver options"). Unless every rank's items equal the root's, every rank throws the same
  // InvalidInput naming the lowest differing rank and the first item that differs: ranks given
  // different options would otherwise wait on each other forever.
  void require_same_on_all_ranks(const std::vector<std::string>& items,
                                 const std::string& what) const;

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  bool device_pointers_ok_ = true;
};

// For errors outside any collective step (a bug, an exhausted device): prints the message
// with the rank and calls MPI_Abort, so mpirun ends every rank instead of hanging.
[[noreturn]] void abort_all_ranks(const Communicator& comm, const std::exception& error);

}  // namespace fgdd
