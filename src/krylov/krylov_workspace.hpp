// The vectors a Krylov method works in, kept between solves: the first solve of a size allocates
// them and the next ones reuse them. An application solving one pattern thousands of times then
// pays no allocation per solve: on CPUs each fresh allocation is first-touched page by page, on
// GPUs it is a device allocation and a fill. A reused vector holds what the last solve left, so a
// method takes from here only vectors it writes before it reads them. In host memory the vectors
// are slices of one slab of huge pages (core/huge_pages.hpp): a vector of 100K rows alone would
// stay in 4 KB pages, and first-touching them took up to a quarter of a short solve on the CI
// machine.
#pragma once

#include "core/types.hpp"

#include <map>
#include <string>

namespace fgdd {

class KrylovWorkspace {
 public:
  using Basis = Kokkos::View<Scalar**, Kokkos::LayoutLeft, DeviceType>;

  // The vector named `label` with n entries: the kept one when it has n entries, otherwise a new
  // one, not initialized.
  Vector vector(const std::string& label, Offset n);

  // The n × columns GMRES basis, the same way.
  Basis basis(Offset n, int columns);

  // Bytes held (in host memory the whole slab, its untouched spare slots included).
  Offset bytes() const noexcept;

  // Sets every entry held to value: what a reused vector may hold, for the tests that prove the
  // methods never read a vector before writing it (they fill with NaN).
  void fill(const ExecSpace& space, Scalar value);

 private:
  std::map<std::string, Vector> vectors_;
  Basis basis_;
  // Host memory: room for slab_slots vectors of slab_rows_ entries; slab_used_ entries handed
  // out. A slice is never handed out twice, so no two labels share memory.
  static constexpr Offset slab_slots = 16;
  Vector slab_;
  Offset slab_rows_ = 0;
  Offset slab_used_ = 0;
  Vector allocate(const std::string& label, Offset n);
};

}  // namespace fgdd
