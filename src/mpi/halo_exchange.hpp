// Moves a HaloPlan's data: forward (owners send rows of x, neighbours receive ghosts) for
// y = A x, and reverse (ghost contributions go back and are added at the owner) for y = Aᵀ x.
// Buffers are packed and unpacked by device kernels; MPI gets device pointers when it can
// read them (Communicator::device_pointers_ok); otherwise ranks on one node read each other's
// packed rows directly (PeerHalo, CUDA), and host copies go through MPI where neither works.
#pragma once

#include "mpi/communicator.hpp"
#include "mpi/distributed_matrix.hpp"
#include "mpi/peer_halo.hpp"

#include <memory>
#include <vector>

namespace fgdd {

// Host staging memory for MPI without GPU support: pinned where the backend has it, so the
// device copies run at link speed; pageable copies of large halos are too slow to hide behind
// the local product
// (measured: docs/PERFORMANCE_HISTORY.md, "Measurements behind code choices").
#if defined(KOKKOS_ENABLE_CUDA)
using HaloStagingSpace = Kokkos::CudaHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_HIP)
using HaloStagingSpace = Kokkos::HIPHostPinnedSpace;
#else
using HaloStagingSpace = Kokkos::HostSpace;
#endif

class HaloExchange {
 public:
  HaloExchange(const Communicator& comm, const HaloPlan& plan, int block_size);

  // Forward: start_forward waits for space's work (which wrote x) and packs x's send rows (and
  // copies them to the host staging) on a concurrent instance; finish_forward sends them,
  // waits for the ghosts and leaves them in ghosts (plan.num_ghosts() × b entries), ready for
  // kernels launched on space after it returns. Local work launched on space in between runs
  // beside the packing, the copies and the messages.
  void start_forward(const ExecSpace& space, ConstVector x);
  void finish_forward(Vector ghosts);

  // Whether forward halos are read from the neighbours' device memory (PeerHalo).
  bool peer_to_peer() const noexcept { return peer_->active(); }

  // Reverse: sends ghost_sums to the ghosts' owners, who add them into y at the send rows.
  void start_reverse(const ExecSpace& space, ConstVector ghost_sums);
  void finish_reverse_add(const ExecSpace& space, Vector y);

 private:
  void post(void* receive_base, const void* send_base, const std::vector<Offset>& receive_offsets,
            const std::vector<Offset>& send_offsets, int tag);
  void wait();

  const Communicator& comm_;
  const HaloPlan& plan_;
  int block_size_;
  ExecSpace halo_space_;  // packs and stages forward halos beside the local product
  std::unique_ptr<PeerHalo> peer_;  // forward halos between ranks on one node, if active
  Vector send_buffer_;  // plan.num_send_rows() × b: packed rows, or received contributions
  // Staging without GPU-aware MPI. Copies into them are stream-ordered; each start_* fences
  // before MPI reads them, so a copy from the previous exchange is done before they are reused.
  Kokkos::View<Scalar*, HaloStagingSpace> host_send_, host_ghosts_;
  std::vector<MPI_Request> requests_;
};

}  // namespace fgdd
