// Typed MPI transfers for setup: broadcasts of small arrays and the root's scatter of
// contiguous slices of large host arrays (chunked, so slices beyond 2³¹ elements work).
#pragma once

#include "core/types.hpp"
#include "dist/communicator.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace fgdd {

template <class T>
using HostCopy = Kokkos::View<T*, Kokkos::HostSpace>;

// A host copy of a device array (the root's source for scatter_ranges).
template <class View>
HostCopy<typename View::non_const_value_type> host_copy(const View& device) {
  HostCopy<typename View::non_const_value_type> host(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::dist::host_copy"), device.extent(0));
  Kokkos::deep_copy(host, device);
  return host;
}

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  if constexpr (std::is_same_v<T, int>) return MPI_INT;
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, int> ||
                    (std::is_unsigned_v<T> && sizeof(T) == 8),
                "no MPI type for this element type");
  return MPI_UINT64_T;
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

// Rank r receives whole[starts[r], ends[r]) from the root, which passes whole (others
// nullptr); count is the caller's own slice length.
template <class T>
std::vector<T> scatter_ranges(const Communicator& comm, const T* whole,
                              const std::vector<Offset>& starts, const std::vector<Offset>& ends,
                              Offset count) {
  constexpr Offset chunk = Offset(1) << 28;
  std::vector<T> mine(count);
  if (comm.is_root()) {
    for (int r = 1; r < comm.size(); ++r)
      for (Offset at = starts[r]; at < ends[r]; at += chunk)
        MPI_Send(whole + at, int(std::min(chunk, ends[r] - at)), mpi_type<T>(), r, 0, comm.get());
    std::copy(whole + starts[0], whole + ends[0], mine.begin());
  } else {
    for (Offset at = 0; at < count; at += chunk)
      MPI_Recv(mine.data() + at, int(std::min(chunk, count - at)), mpi_type<T>(), 0, 0, comm.get(),
               MPI_STATUS_IGNORE);
  }
  return mine;
}

// The reverse of scatter_ranges: the root receives every rank's slice into
// whole[starts[r], ends[r]) (other ranks pass nullptr for whole).
template <class T>
void gather_ranges(const Communicator& comm, const std::vector<T>& mine, T* whole,
                   const std::vector<Offset>& starts, const std::vector<Offset>& ends) {
  constexpr Offset chunk = Offset(1) << 28;
  if (comm.is_root()) {
    std::copy(mine.begin(), mine.end(), whole + starts[0]);
    for (int r = 1; r < comm.size(); ++r)
      for (Offset at = starts[r]; at < ends[r]; at += chunk)
        MPI_Recv(whole + at, int(std::min(chunk, ends[r] - at)), mpi_type<T>(), r, 1, comm.get(),
                 MPI_STATUS_IGNORE);
  } else {
    for (Offset at = 0; at < mine.size(); at += chunk)
      MPI_Send(mine.data() + at, int(std::min(chunk, Offset(mine.size()) - at)), mpi_type<T>(), 0,
               1, comm.get());
  }
}

}  // namespace fgdd
