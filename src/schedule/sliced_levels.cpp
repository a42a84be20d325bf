#include "schedule/sliced_levels.hpp"

#include "core/huge_pages.hpp"

namespace fgdd {

namespace {

using Policy = Kokkos::TeamPolicy<ExecSpace>;

constexpr Offset padding = ~Offset(0);

// Calls body(slot, p, e) for every padded entry of the levels base .. base + count - 1 of a
// subdomain team, the entries of a level spread over the team's threads: slot is the padded
// entry's index, p the position of its row, e its edge (SubdomainLevels' edge index) or padding.
template <class Body>
KOKKOS_INLINE_FUNCTION void for_each_padded_entry(const Policy::member_type& team,
                                                  const SubdomainLevels& levels,
                                                  const SlicedLevels& sliced, Ordinal base,
                                                  Ordinal count, const Body& body) {
  for (Ordinal L = base; L < base + count; ++L) {
    const Ordinal first = levels.level_ptr(L), R = levels.level_ptr(L + 1) - first;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Offset(R) * sliced.width(L)),
                         [&](const Offset k) {
                           const Offset q = k / R;
                           const Ordinal p = first + Ordinal(k - q * R);
                           const Offset begin = levels.row_edge_begin(p);
                           body(sliced.slice_ptr(L) + k, p,
                                q < levels.row_edge_end(p) - begin ? begin + q : padding);
                         });
  }
}

template <class V>
void gather_values(const ExecSpace& space, const SubdomainLevels& levels,
                   const SlicedLevels& sliced, const Partition& partition,
                   const SparseMatrix& factors,
                   const Kokkos::View<Offset*, DeviceType>& diag_position,
                   const Kokkos::View<V*, DeviceType>& out) {
  const auto offsets = partition.subdomain_offsets;
  const auto values = factors.values();
  const auto row_map = factors.row_map();
  const int bb = factors.block_size() * factors.block_size();
  Kokkos::parallel_for(
      "fgdd::trsv::gather_sliced_values", Policy(space, partition.num_subdomains, Kokkos::AUTO),
      KOKKOS_LAMBDA(const Policy::member_type& team) {
        const Ordinal s = team.league_rank();
        for_each_padded_entry(
            team, levels, sliced, offsets(s) + s, levels.num_levels(s),
            [&](Offset slot, Ordinal p, Offset e) {
              const bool real = e != padding;
              const Offset from = real ? edge_entry(levels, row_map, diag_position, p, e) * bb : 0;
              for (int j = 0; j < bb; ++j) out(slot * bb + j) = real ? V(values(from + j)) : V(0);
            });
      });
}

}  // namespace

SlicedLevels build_sliced_levels(const ExecSpace& space, const SubdomainLevels& levels,
                                 const Partition& partition) {
  Kokkos::Timer timer;
  const Ordinal num_subdomains = partition.num_subdomains;
  const std::size_t slots = levels.level_ptr.extent(0);
  SlicedLevels sliced;
  if (num_subdomains == 0) return sliced;
  sliced.slice_ptr = Kokkos::View<Offset*, DeviceType>("fgdd::trsv::slice_ptr", slots);
  sliced.width = Kokkos::View<Ordinal*, DeviceType>("fgdd::trsv::slice_width", slots);
  const auto offsets = partition.subdomain_offsets;
  const auto slice_ptr = sliced.slice_ptr;
  const auto width = sliced.width;
  // Widths per level, then each subdomain's slice offsets from its own start and its total.
  Kokkos::View<Offset*, DeviceType> totals("fgdd::trsv::slice_totals", num_subdomains);
  Kokkos::parallel_for(
      "fgdd::trsv::slice_widths", Policy(space, num_subdomains, Kokkos::AUTO),
      KOKKOS_LAMBDA(const Policy::member_type& team) {
        const Ordinal s = team.league_rank(), base = offsets(s) + s;
        const Ordinal count = levels.num_levels(s);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const Ordinal l) {
          Ordinal longest = 0;
          for (Ordinal p = levels.level_ptr(base + l); p < levels.level_ptr(base + l + 1); ++p) {
            const Ordinal length = Ordinal(levels.row_edge_end(p) - levels.row_edge_begin(p));
            if (length > longest) longest = length;
          }
          width(base + l) = longest;
        });
        team.team_barrier();
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          Offset at = 0;
          for (Ordinal l = 0; l < count; ++l) {
            slice_ptr(base + l) = at;
            at += Offset(levels.level_ptr(base + l + 1) - levels.level_ptr(base + l)) *
                  width(base + l);
          }
          slice_ptr(base + count) = at;
          totals(s) = at;
        });
      });
  Offset total = 0;
  Kokkos::parallel_scan(
      "fgdd::trsv::slice_starts", Kokkos::RangePolicy<ExecSpace>(space, 0, num_subdomains),
      KOKKOS_LAMBDA(const Ordinal s, Offset& sum, const bool final) {
        const Offset mine = totals(s);
        if (final) totals(s) = sum;
        sum += mine;
      },
      total);
  Kokkos::parallel_for(
      "fgdd::trsv::slice_offsets", Policy(space, num_subdomains, Kokkos::AUTO),
      KOKKOS_LAMBDA(const Policy::member_type& team) {
        const Ordinal s = team.league_rank(), base = offsets(s) + s;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, levels.num_levels(s) + 1),
                             [&](const Ordinal l) { slice_ptr(base + l) += totals(s); });
      });
  sliced.num_entries = total;
  sliced.col = detail::uninitialized_view<Ordinal>("fgdd::trsv::slice_col", std::size_t(total));
  const auto col = sliced.col;
  Kokkos::parallel_for(
      "fgdd::trsv::slice_columns", Policy(space, num_subdomains, Kokkos::AUTO),
      KOKKOS_LAMBDA(const Policy::member_type& team) {
        const Ordinal s = team.league_rank(), first = offsets(s);
        for_each_padded_entry(team, levels, sliced, first + s, levels.num_levels(s),
                              [&](Offset slot, Ordinal, Offset e) {
                                col(slot) = e != padding ? levels.edge_col(e) - first : -1;
                              });
      });
  space.fence();
  sliced.seconds = timer.seconds();
  return sliced;
}

void gather_sliced_values(const ExecSpace& space, const SubdomainLevels& levels,
                          const SlicedLevels& sliced, const Partition& partition,
                          const SparseMatrix& factors,
                          const Kokkos::View<Offset*, DeviceType>& diag_position,
                          const Kokkos::View<Scalar*, DeviceType>& out) {
  gather_values(space, levels, sliced, partition, factors, diag_position, out);
}

void gather_sliced_values(const ExecSpace& space, const SubdomainLevels& levels,
                          const SlicedLevels& sliced, const Partition& partition,
                          const SparseMatrix& factors,
                          const Kokkos::View<Offset*, DeviceType>& diag_position,
                          const Kokkos::View<float*, DeviceType>& out) {
  gather_values(space, levels, sliced, partition, factors, diag_position, out);
}

}  // namespace fgdd
