#include "mpi/peer_halo.hpp"

#include "core/errors.hpp"
#include "mpi/peer_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace fgdd {
namespace {

#if defined(KOKKOS_ENABLE_CUDA)
constexpr int packed_tag = 73, closed_tag = 74, handle_tag = 75;

// Zero-byte messages to and from every neighbour: a rendezvous of the neighbours only.
void handshake(const Communicator& comm, const std::vector<int>& neighbors, int tag) {
  std::vector<MPI_Request> requests(2 * neighbors.size());
  for (std::size_t k = 0; k < neighbors.size(); ++k) {
    MPI_Irecv(nullptr, 0, MPI_BYTE, neighbors[k], tag, comm.get(), &requests[2 * k]);
    MPI_Isend(nullptr, 0, MPI_BYTE, neighbors[k], tag, comm.get(), &requests[2 * k + 1]);
  }
  MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

template <class Space>
cudaStream_t stream_of(const Space& space) {
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>)
    return space.cuda_stream();
  else
    return nullptr;
}

// What a rank tells each neighbour: its two send buffers and where that neighbour's rows start.
struct Exported {
  cudaIpcMemHandle_t handles[2];
  std::uint64_t offset = 0;
  int valid = 0;
};
#endif

}  // namespace

PeerHalo::PeerHalo(const Communicator& comm, const HaloPlan& plan, int block_size)
    : comm_(comm), plan_(plan), block_size_(block_size) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (!peer_access_wanted(comm, "FGDD_PEER_HALO")) return;
  taking_part_ = true;  // on every rank alike: release() then meets its neighbours
  const std::size_t count = std::max<std::size_t>(1, plan.num_send_rows() * block_size);
  Exported mine{};
  bool good = true;
  for (double*& buffer : buffers_) {
    void* p = nullptr;
    good = good && cudaMalloc(&p, count * sizeof(double)) == cudaSuccess;
    buffer = static_cast<double*>(p);
  }
  for (int i = 0; i < 2 && good; ++i)
    good = cudaIpcGetMemHandle(&mine.handles[i], buffers_[i]) == cudaSuccess;
  mine.valid = good ? 1 : 0;

  const std::size_t neighbors = plan.neighbors.size();
  std::vector<Exported> outgoing(neighbors, mine), incoming(neighbors);
  std::vector<MPI_Request> requests(2 * neighbors);
  for (std::size_t k = 0; k < neighbors; ++k) {
    outgoing[k].offset = plan.send_offsets[k];
    MPI_Irecv(&incoming[k], int(sizeof(Exported)), MPI_BYTE, plan.neighbors[k], handle_tag,
              comm.get(), &requests[2 * k]);
    MPI_Isend(&outgoing[k], int(sizeof(Exported)), MPI_BYTE, plan.neighbors[k], handle_tag,
              comm.get(), &requests[2 * k + 1]);
  }
  MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  for (std::size_t k = 0; k < neighbors; ++k) {
    peer_offsets_.push_back(incoming[k].offset);
    for (int i = 0; i < 2; ++i) {
      void* p = nullptr;
      good = good && incoming[k].valid &&
             cudaIpcOpenMemHandle(&p, incoming[k].handles[i], cudaIpcMemLazyEnablePeerAccess) ==
                 cudaSuccess;
      peer_buffers_[i].push_back(static_cast<const double*>(p));
    }
  }
  int all = good ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm.get());
  if (!all) {
    release();
    (void)cudaGetLastError();  // the failed call's error, so later checks do not see it
    return;
  }
  active_ = true;
#endif
}

PeerHalo::~PeerHalo() { release(); }

void PeerHalo::release() noexcept {
#if defined(KOKKOS_ENABLE_CUDA)
  if (!taking_part_) return;
  taking_part_ = false;
  for (auto& peers : peer_buffers_) {
    for (const double* p : peers)
      if (p) cudaIpcCloseMemHandle(const_cast<double*>(p));
    peers.clear();
  }
  // An exporter may free its buffers only after every importer closed them.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) handshake(comm_, plan_.neighbors, closed_tag);
  for (double*& buffer : buffers_) {
    if (buffer) cudaFree(buffer);
    buffer = nullptr;
  }
  active_ = false;
#endif
}

Vector PeerHalo::send_buffer() const {
  return Vector(buffers_[parity_], active_ ? std::max<std::size_t>(
                                                 1, plan_.num_send_rows() * block_size_)
                                           : 0);
}

void PeerHalo::fetch(const ExecSpace& space, Vector ghosts) {
#if defined(KOKKOS_ENABLE_CUDA)
  // Every neighbour packed this parity's buffer, and finished reading the other one.
  handshake(comm_, plan_.neighbors, packed_tag);
  const Offset b = block_size_;
  for (std::size_t k = 0; k < plan_.neighbors.size(); ++k) {
    const Offset rows = plan_.recv_offsets[k + 1] - plan_.recv_offsets[k];
    if (rows == 0) continue;
    if (cudaMemcpyAsync(ghosts.data() + plan_.recv_offsets[k] * b,
                        peer_buffers_[parity_][k] + peer_offsets_[k] * b,
                        rows * b * sizeof(double), cudaMemcpyDefault,
                        stream_of(space)) != cudaSuccess)
      throw Error("halo copy from rank " + std::to_string(plan_.neighbors[k]) + " failed: " +
                  cudaGetErrorString(cudaGetLastError()));
  }
  space.fence();
  parity_ = 1 - parity_;
#else
  (void)space;
  (void)ghosts;
#endif
}

}  // namespace fgdd
