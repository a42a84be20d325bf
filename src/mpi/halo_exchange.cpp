#include "mpi/halo_exchange.hpp"

#include "core/kokkos_compat.hpp"

namespace fgdd {
namespace {

constexpr int forward_tag = 71, reverse_tag = 72;

}  // namespace

HaloExchange::HaloExchange(const Communicator& comm, const HaloPlan& plan, int block_size)
    : comm_(comm),
      plan_(plan),
      block_size_(block_size),
      halo_space_(detail::concurrent_instance(ExecSpace())),
      peer_(std::make_unique<PeerHalo>(comm, plan, block_size)),
      send_buffer_("fgdd::mpi::send_buffer", plan.num_send_rows() * block_size) {
  if (!comm.device_pointers_ok()) {
    host_send_ = decltype(host_send_)("fgdd::mpi::host_send", send_buffer_.extent(0));
    host_ghosts_ =
        decltype(host_ghosts_)("fgdd::mpi::host_ghosts", plan.num_ghosts() * block_size);
  }
}

void HaloExchange::post(void* receive_base, const void* send_base,
                        const std::vector<Offset>& receive_offsets,
                        const std::vector<Offset>& send_offsets, int tag) {
  const Offset b = block_size_;
  requests_.clear();
  for (std::size_t k = 0; k < plan_.neighbors.size(); ++k) {
    const int count = int((receive_offsets[k + 1] - receive_offsets[k]) * b);
    if (count == 0) continue;
    requests_.emplace_back();
    MPI_Irecv(static_cast<Scalar*>(receive_base) + receive_offsets[k] * b, count, MPI_DOUBLE,
              plan_.neighbors[k], tag, comm_.get(), &requests_.back());
  }
  for (std::size_t k = 0; k < plan_.neighbors.size(); ++k) {
    const int count = int((send_offsets[k + 1] - send_offsets[k]) * b);
    if (count == 0) continue;
    requests_.emplace_back();
    MPI_Isend(static_cast<const Scalar*>(send_base) + send_offsets[k] * b, count, MPI_DOUBLE,
              plan_.neighbors[k], tag, comm_.get(), &requests_.back());
  }
}

void HaloExchange::wait() {
  MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  requests_.clear();
}

void HaloExchange::start_forward(const ExecSpace& space, ConstVector x) {
  space.fence();  // x is written; halo_space_ has no other way to wait for space
  const auto rows = plan_.send_rows;
  const auto buffer = peer_->active() ? peer_->send_buffer() : send_buffer_;
  const Offset b = block_size_;
  Kokkos::parallel_for(
      "fgdd::mpi::pack_halo",
      Kokkos::RangePolicy<ExecSpace>(halo_space_, 0, plan_.num_send_rows() * b),
      KOKKOS_LAMBDA(const Offset k) { buffer(k) = x(Offset(rows(k / b)) * b + k % b); });
  if (!comm_.device_pointers_ok() && !peer_->active())
    Kokkos::deep_copy(halo_space_, host_send_, buffer);
}

void HaloExchange::finish_forward(Vector ghosts) {
  const bool direct = comm_.device_pointers_ok();
  halo_space_.fence();  // the neighbours or MPI read the packed rows next
  if (peer_->active()) {
    peer_->fetch(halo_space_, ghosts);
    return;
  }
  post(direct ? ghosts.data() : host_ghosts_.data(),
       direct ? send_buffer_.data() : host_send_.data(), plan_.recv_offsets, plan_.send_offsets,
       forward_tag);
  wait();
  if (!direct) {
    Kokkos::deep_copy(halo_space_, ghosts, host_ghosts_);
    halo_space_.fence();  // kernels launched on space next read the ghosts
  }
}

void HaloExchange::start_reverse(const ExecSpace& space, ConstVector ghost_sums) {
  const bool direct = comm_.device_pointers_ok();
  if (!direct) Kokkos::deep_copy(space, host_ghosts_, ghost_sums);
  space.fence();
  post(direct ? send_buffer_.data() : host_send_.data(),
       direct ? ghost_sums.data() : host_ghosts_.data(), plan_.send_offsets, plan_.recv_offsets,
       reverse_tag);
}

void HaloExchange::finish_reverse_add(const ExecSpace& space, Vector y) {
  wait();
  if (!comm_.device_pointers_ok()) Kokkos::deep_copy(space, send_buffer_, host_send_);
  const auto rows = plan_.send_rows;
  const auto buffer = send_buffer_;
  const Offset b = block_size_;
  // A row sent to several neighbours gets a contribution from each: atomics.
  Kokkos::parallel_for(
      "fgdd::mpi::unpack_add_halo", Kokkos::RangePolicy<ExecSpace>(space, 0, buffer.extent(0)),
      KOKKOS_LAMBDA(const Offset k) {
        Kokkos::atomic_add(&y(Offset(rows(k / b)) * b + k % b), buffer(k));
      });
}

}  // namespace fgdd
