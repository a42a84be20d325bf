// Halos read straight from the neighbours' device memory (CUDA IPC), for ranks on one node whose
// MPI cannot take device pointers: each rank maps its neighbours' send buffers once and copies
// its ghosts from them over NVLink or PCIe, instead of device → host → MPI → host → device.
// The send buffers alternate between two, so one handshake per exchange (zero-byte messages:
// "my rows are packed") also tells a rank that its neighbours finished reading the other buffer.
// Construction, every fetch and destruction are collective among neighbours: a rank frees its
// buffers only after its neighbours closed their mappings of them (a handshake).
#pragma once

#include "mpi/communicator.hpp"
#include "mpi/distributed_matrix.hpp"

#include <vector>

namespace fgdd {

class PeerHalo {
 public:
  // Collective. Active only when every rank can take part: a CUDA build, all ranks on one node,
  // MPI without device pointers, FGDD_PEER_HALO not set to 0, and every IPC call succeeding;
  // otherwise inactive on every rank (the staged MPI path is used).
  PeerHalo(const Communicator& comm, const HaloPlan& plan, int block_size);
  ~PeerHalo();
  PeerHalo(const PeerHalo&) = delete;
  PeerHalo& operator=(const PeerHalo&) = delete;

  bool active() const noexcept { return active_; }

  // The buffer the next exchange packs this rank's send rows into (plan.num_send_rows() × b).
  Vector send_buffer() const;
  // Collective with the neighbours, after the packing finished: tells them this rank's rows
  // are packed, waits for theirs, and copies each neighbour's part into ghosts on space
  // (fenced on return). Then the other buffer is the next one to pack.
  void fetch(const ExecSpace& space, Vector ghosts);

 private:
  void release() noexcept;

  const Communicator& comm_;
  const HaloPlan& plan_;
  int block_size_;
  bool active_ = false;
  bool taking_part_ = false;  // buffers exchanged with the neighbours: release() meets them
  int parity_ = 0;
  double* buffers_[2] = {nullptr, nullptr};    // this rank's send buffers (device)
  std::vector<const double*> peer_buffers_[2];  // each neighbour's, mapped
  std::vector<Offset> peer_offsets_;            // where this rank's part starts in theirs
};

}  // namespace fgdd
