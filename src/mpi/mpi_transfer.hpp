// Typed MPI transfers for setup: broadcasts of small arrays, all-to-alls, the root's scatter of
// contiguous slices of large host or device arrays (chunked, so slices beyond 2³¹ elements
// work), and the host/device copies around them.
#pragma once

#include "core/host_copy.hpp"
#include "core/types.hpp"
#include "mpi/communicator.hpp"
#include "mpi/peer_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace fgdd {

template <class T>
using HostCopy = Kokkos::View<T*, Kokkos::HostSpace>;

// A host copy of a device array (the root's source for scatter_ranges).
template <class View>
HostCopy<typename View::non_const_value_type> host_copy(const View& device) {
  HostCopy<typename View::non_const_value_type> host(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::mpi::host_copy"), device.extent(0));
  Kokkos::deep_copy(host, device);
  return host;
}

// Host/device copies of setup arrays and of the scattered parts of vectors (what gather_ranges
// sends).
using detail::to_device;
using detail::to_host_vector;

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  if constexpr (std::is_same_v<T, int>) return MPI_INT;
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, int> ||
                    (std::is_unsigned_v<T> && sizeof(T) == 8),
                "no MPI type for this element type");
  return MPI_UINT64_T;
}

// Collective. How many elements this rank receives from each rank, given how many it sends to
// each (one MPI_Alltoall).
inline std::vector<int> receive_counts(const Communicator& comm,
                                       const std::vector<int>& send_counts) {
  std::vector<int> received(send_counts.size());
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, received.data(), 1, MPI_INT, comm.get());
  return received;
}

// Collective. sent holds, rank after rank, send_counts[r] elements for rank r; the result holds,
// rank after rank, recv_counts[r] elements from rank r (receive_counts of send_counts).
template <class T>
std::vector<T> all_to_all(const Communicator& comm, const std::vector<T>& sent,
                          const std::vector<int>& send_counts,
                          const std::vector<int>& recv_counts) {
  std::vector<int> send_displs(send_counts.size() + 1, 0), recv_displs(recv_counts.size() + 1, 0);
  for (std::size_t r = 0; r < send_counts.size(); ++r) {
    send_displs[r + 1] = send_displs[r] + send_counts[r];
    recv_displs[r + 1] = recv_displs[r] + recv_counts[r];
  }
  std::vector<T> received(recv_displs.back());
  MPI_Alltoallv(sent.data(), send_counts.data(), send_displs.data(), mpi_type<T>(), received.data(),
                recv_counts.data(), recv_displs.data(), mpi_type<T>(), comm.get());
  return received;
}

inline void broadcast(const Communicator& comm, int& value) {
  MPI_Bcast(&value, 1, MPI_INT, 0, comm.get());
}

template <class T>
void broadcast(const Communicator& comm, std::vector<T>& values) {
  std::uint64_t length = values.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, 0, comm.get());
  values.resize(length);
  MPI_Bcast(values.data(), int(length), mpi_type<T>(), 0, comm.get());
}

// Point-to-point transfers of any length, in chunks MPI's int counts can hold (tag 0 for
// scatters, 1 for gathers).
template <class T>
void send_chunks(const Communicator& comm, const T* data, Offset length, int to, int tag) {
  constexpr Offset chunk = Offset(1) << 28;
  for (Offset at = 0; at < length; at += chunk)
    MPI_Send(data + at, int(std::min(chunk, length - at)), mpi_type<T>(), to, tag, comm.get());
}
template <class T>
void receive_chunks(const Communicator& comm, T* data, Offset length, int from, int tag) {
  constexpr Offset chunk = Offset(1) << 28;
  for (Offset at = 0; at < length; at += chunk)
    MPI_Recv(data + at, int(std::min(chunk, length - at)), mpi_type<T>(), from, tag, comm.get(),
             MPI_STATUS_IGNORE);
}

// Rank r receives whole[starts[r], ends[r]) from the root, which passes whole (others
// nullptr); count is the caller's own slice length.
template <class T>
std::vector<T> scatter_ranges(const Communicator& comm, const T* whole,
                              const std::vector<Offset>& starts, const std::vector<Offset>& ends,
                              Offset count) {
  std::vector<T> mine(count);
  if (comm.is_root()) {
    for (int r = 1; r < comm.size(); ++r)
      send_chunks(comm, whole + starts[r], ends[r] - starts[r], r, 0);
    std::copy(whole + starts[0], whole + ends[0], mine.begin());
  } else {
    receive_chunks(comm, mine.data(), count, 0, 0);
  }
  return mine;
}

// The same from the root's device array (others pass an empty view), into device memory. The
// root's own slice never leaves the device; the others' go straight from and to device memory
// where MPI takes its pointers (host backends, GPU-aware MPI), else from device to device
// where the ranks share a node (peer_copy.hpp), else through host copies.
template <class View>
Kokkos::View<typename View::non_const_value_type*, DeviceType> scatter_device_ranges(
    const Communicator& comm, const View& whole, const std::vector<Offset>& starts,
    const std::vector<Offset>& ends, Offset count, const std::string& label) {
  using T = typename View::non_const_value_type;
  const bool direct = comm.device_pointers_ok();
  Kokkos::View<T*, DeviceType> mine(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                    count);
  if (comm.is_root()) ExecSpace().fence();  // kernels wrote whole; MPI or peers read it next
  if (!direct) {
    std::vector<std::uint64_t> byte_starts, byte_lengths;
    for (std::size_t r = 0; comm.is_root() && r < starts.size(); ++r) {
      byte_starts.push_back(std::uint64_t(starts[r]) * sizeof(T));
      byte_lengths.push_back(std::uint64_t(ends[r] - starts[r]) * sizeof(T));
    }
    if (peer_scatter_bytes(comm, comm.is_root() ? whole.data() : nullptr, byte_starts,
                           byte_lengths, std::uint64_t(count) * sizeof(T), mine.data())) {
      if (comm.is_root())
        Kokkos::deep_copy(mine, Kokkos::subview(whole, std::make_pair(starts[0], ends[0])));
      return mine;
    }
  }
  if (comm.is_root()) {
    for (int r = 1; r < comm.size(); ++r) {
      const auto part = Kokkos::subview(whole, std::make_pair(starts[r], ends[r]));
      if (direct) {
        send_chunks(comm, part.data(), part.extent(0), r, 0);
      } else {
        const HostCopy<T> staged = host_copy(part);
        send_chunks(comm, staged.data(), staged.extent(0), r, 0);
      }
    }
    Kokkos::deep_copy(mine, Kokkos::subview(whole, std::make_pair(starts[0], ends[0])));
  } else if (direct) {
    receive_chunks(comm, mine.data(), count, 0, 0);
  } else {
    HostCopy<T> received(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), count);
    receive_chunks(comm, received.data(), count, 0, 0);
    Kokkos::deep_copy(mine, received);
  }
  return mine;
}

// The reverse of scatter_ranges: the root receives every rank's slice into
// whole[starts[r], ends[r]) (other ranks pass nullptr for whole).
template <class T>
void gather_ranges(const Communicator& comm, const std::vector<T>& mine, T* whole,
                   const std::vector<Offset>& starts, const std::vector<Offset>& ends) {
  if (comm.is_root()) {
    std::copy(mine.begin(), mine.end(), whole + starts[0]);
    for (int r = 1; r < comm.size(); ++r)
      receive_chunks(comm, whole + starts[r], ends[r] - starts[r], r, 1);
  } else {
    send_chunks(comm, mine.data(), Offset(mine.size()), 0, 1);
  }
}

}  // namespace fgdd
