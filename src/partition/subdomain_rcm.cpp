#include "partition/subdomain_rcm.hpp"

#include <string>

#include "partition/cuthill_mckee.hpp"

namespace fgdd::detail {

namespace {

// Subdomain s's diagonal block as a graph: vertex t is the subdomain's row at position t
// (partition order), its neighbours the subdomain's other rows its entries name.
struct SubdomainNeighbours {
  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  Kokkos::View<Ordinal*, DeviceType> perm, iperm;
  Ordinal first, m;

  template <class Visit>
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal t, const Visit& visit) const {
    const Ordinal r = iperm(first + t);
    for (Offset k = row_map(r); k < row_map(r + 1); ++k) {
      const Ordinal j = perm(col_ind(k)) - first;
      if (j >= 0 && j < m && j != t) visit(j);
    }
  }
};

// One thread per subdomain; subdomain s keeps its work in [first, first + m) of degree, mark and
// queue.
struct SubdomainRcmKernel {
  SparseMatrix::RowMap row_map;
  SparseMatrix::ColumnIndices col_ind;
  Kokkos::View<Ordinal*, DeviceType> perm, iperm, offsets;
  Kokkos::View<Ordinal*, DeviceType> new_perm, new_iperm;
  Kokkos::View<Ordinal*, DeviceType> degree, mark, queue;

  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal s) const {
    const Ordinal first = offsets(s), m = offsets(s + 1) - first;
    const CuthillMcKee<SubdomainNeighbours> order{{row_map, col_ind, perm, iperm, first, m},
                                                  m,
                                                  degree.data() + first,
                                                  mark.data() + first,
                                                  queue.data() + first};
    order.order();
    for (Ordinal q = 0; q < m; ++q) {
      const Ordinal r = iperm(first + queue(first + q)), position = first + m - 1 - q;
      new_perm(r) = position;
      new_iperm(position) = r;
    }
  }
};

}  // namespace

Partition order_rows_by_rcm(const ExecSpace& space, const SparseMatrix& A,
                            const Partition& partition) {
  const Ordinal n = partition.num_block_rows();
  using OrdinalView = Kokkos::View<Ordinal*, DeviceType>;
  const auto scratch = [&](const char* label) {
    return OrdinalView(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  };
  Partition ordered = with_new_row_order(partition);
  if (partition.num_subdomains == 0) return ordered;
  const SubdomainRcmKernel kernel{A.row_map(),
                                  A.col_ind(),
                                  partition.perm,
                                  partition.iperm,
                                  partition.subdomain_offsets,
                                  ordered.perm,
                                  ordered.iperm,
                                  scratch("fgdd::partition::rcm_degree"),
                                  OrdinalView("fgdd::partition::rcm_mark", n),
                                  scratch("fgdd::partition::rcm_queue")};
  Kokkos::parallel_for("fgdd::partition::subdomain_rcm",
                       Kokkos::RangePolicy<ExecSpace>(space, 0, partition.num_subdomains), kernel);
  return ordered;
}

}  // namespace fgdd::detail
