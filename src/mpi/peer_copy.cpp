#include "mpi/peer_copy.hpp"

#include "core/types.hpp"

#include <cstdlib>
#include <string>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace fgdd {

bool peer_access_wanted(const Communicator& comm, const char* off_switch) {
#if defined(KOKKOS_ENABLE_CUDA)
  constexpr bool cuda_memory = std::is_same_v<ExecSpace::memory_space, Kokkos::CudaSpace>;
#else
  constexpr bool cuda_memory = false;
#endif
  if (comm.size() < 2 || !cuda_memory) return false;  // the same on every rank
  // Collective, so every rank splits before any rank's own settings can say no.
  MPI_Comm node;
  MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node);
  int node_ranks = 0;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  const char* setting = std::getenv(off_switch);
  int want = node_ranks == comm.size() && !(setting && std::string(setting) == "0") &&
             !comm.device_pointers_ok();
  MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_MIN, comm.get());
  return want == 1;
}

#if defined(KOKKOS_ENABLE_CUDA)
namespace {

// What a receiving rank tells the root: a buffer of its own that the root may write.
struct Receiver {
  cudaIpcMemHandle_t handle;
  int valid = 0;
};

}  // namespace
#endif

bool peer_scatter_bytes(const Communicator& comm, const void* whole,
                        const std::vector<std::uint64_t>& starts,
                        const std::vector<std::uint64_t>& lengths, std::uint64_t my_bytes,
                        void* mine) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (!peer_access_wanted(comm, "FGDD_PEER_SCATTER")) return false;
  // A buffer of its own (cudaMalloc, so that IPC may map it; Kokkos' allocations start after
  // a header) receives the root's bytes, then goes into mine on this device.
  void* staging = nullptr;
  Receiver me{};
  if (!comm.is_root() && my_bytes > 0 &&
      cudaMalloc(&staging, my_bytes) == cudaSuccess &&
      cudaIpcGetMemHandle(&me.handle, staging) == cudaSuccess)
    me.valid = 1;
  if (comm.is_root() || my_bytes == 0) me.valid = 1;  // nothing to map
  std::vector<Receiver> receivers(comm.is_root() ? comm.size() : 0);
  MPI_Gather(&me, int(sizeof(Receiver)), MPI_BYTE, receivers.data(), int(sizeof(Receiver)),
             MPI_BYTE, 0, comm.get());
  int ok = 1;
  if (comm.is_root()) {
    for (int r = 1; r < comm.size() && ok; ++r) {
      if (!receivers[r].valid) ok = 0;
      if (!ok || lengths[r] == 0) continue;
      void* peer = nullptr;
      ok = cudaIpcOpenMemHandle(&peer, receivers[r].handle, cudaIpcMemLazyEnablePeerAccess) ==
                   cudaSuccess &&
               cudaMemcpy(peer, static_cast<const char*>(whole) + starts[r], lengths[r],
                          cudaMemcpyDefault) == cudaSuccess &&
               cudaDeviceSynchronize() == cudaSuccess;
      if (peer) ok = cudaIpcCloseMemHandle(peer) == cudaSuccess && ok;
    }
  }
  // After this the root holds no mapping: each rank may free its buffer.
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm.get());
  if (ok && staging)
    ok = cudaMemcpy(mine, staging, my_bytes, cudaMemcpyDefault) == cudaSuccess &&
         cudaDeviceSynchronize() == cudaSuccess;
  if (staging) cudaFree(staging);
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm.get());
  if (!ok) (void)cudaGetLastError();  // the failed call's error, so later checks do not see it
  return ok == 1;
#else
  (void)comm;
  (void)whole;
  (void)starts;
  (void)lengths;
  (void)my_bytes;
  (void)mine;
  return false;
#endif
}

}  // namespace fgdd
