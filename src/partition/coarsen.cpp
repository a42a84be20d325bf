// Heavy-edge matching and contraction on the device (multilevel coarsening, as in METIS's SHEM
// and the Jet partitioner), written so that the coarse graph depends only on the fine one.
#include "partition/coarsen.hpp"

#include <cstdint>
#include <string>

#include "core/device_arena.hpp"
#include "core/errors.hpp"
#include "core/exclusive_scan.hpp"
#include "core/group_by_key.hpp"
#include "core/huge_pages.hpp"
#include "core/kokkos_compat.hpp"
#include "partition/sorted_runs.hpp"

namespace fgdd::detail {
namespace coarsen {

using Policy = Kokkos::RangePolicy<ExecSpace>;
using OrdinalView = Kokkos::View<Ordinal*, DeviceType>;
using OffsetView = Kokkos::View<Offset*, DeviceType>;

constexpr Ordinal unmatched = -1;
// Each round matches at least the globally heaviest free edge; four rounds leave few matchable
// vertices on meshes, and every round costs a pass over the edges.
constexpr int matching_rounds = 4;

// The same value from both ends of {u, v}: ties between equally heavy edges break alike at u and
// at v, so the locally best edges are mutual choices instead of chains ("lowest index wins"
// would make every vertex of a path choose its left neighbour).
KOKKOS_INLINE_FUNCTION std::uint32_t edge_hash(Ordinal u, Ordinal v) {
  const std::uint32_t lo = std::uint32_t(u < v ? u : v), hi = std::uint32_t(u < v ? v : u);
  std::uint64_t x = (std::uint64_t(lo) << 32) | hi;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return std::uint32_t(x);
}

// Every free vertex names the free neighbour it ranks highest (unmatched if none fits). With
// all_free (the first round) match is not read: every vertex is free.
void choose_partners(const ExecSpace& space, const WeightedGraph& g, Ordinal max_weight,
                     const OrdinalView& match, const OrdinalView& choice, bool all_free) {
  const auto row_map = g.graph.row_map;
  const auto adjacency = g.graph.adjacency;
  const auto edge_weight = g.edge_weight;
  const auto vertex_weight = g.vertex_weight;
  Kokkos::parallel_for(
      "fgdd::partition::coarsen_choose", Policy(space, 0, g.num_vertices()),
      KOKKOS_LAMBDA(const Ordinal u) {
        Ordinal best = unmatched, best_edge = 0, best_pair = 0;
        std::uint32_t best_hash = 0;
        if (all_free || match(u) == unmatched) {
          for (Offset k = row_map(u); k < row_map(u + 1); ++k) {
            const Ordinal v = adjacency(k);
            const Ordinal pair = vertex_weight(u) + vertex_weight(v);
            if ((!all_free && match(v) != unmatched) || pair > max_weight) continue;
            const Ordinal w = edge_weight(k);
            const std::uint32_t h = edge_hash(u, v);
            const bool better =
                best == unmatched || w > best_edge ||
                (w == best_edge && (pair < best_pair || (pair == best_pair && h > best_hash)));
            if (better) best = v, best_edge = w, best_pair = pair, best_hash = h;
          }
        }
        choice(u) = best;
      });
}

// Mutual choices become matches. With all_free (the first round) every vertex's match is
// written, so match needs no initial fill.
void match_mutual_choices(const ExecSpace& space, Ordinal n, const OrdinalView& choice,
                          const OrdinalView& match, bool all_free) {
  Kokkos::parallel_for(
      "fgdd::partition::coarsen_match", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal u) {
        const Ordinal v = choice(u);
        if (v != unmatched && choice(v) == u)
          match(u) = v;
        else if (all_free)
          match(u) = unmatched;
      });
}

// How many vertices the rounds matched, into work.matched (on the device: nothing waits); also
// zeroes the leftover groups' counts and fill for pair_leftovers (n + 2 groups), saving launches.
void count_matched(const ExecSpace& space, Ordinal n, const OrdinalView& match,
                   const CoarsenWork& work) {
  const auto group_map = work.group_map;
  const auto group_fill = work.group_fill;
  Kokkos::parallel_reduce(
      "fgdd::partition::coarsen_count_matched", Policy(space, 0, n + 2),
      KOKKOS_LAMBDA(const Ordinal u, Ordinal& count) {
        group_map(u) = 0;
        group_fill(u) = 0;
        if (u < n) count += match(u) != unmatched ? 1 : 0;
      },
      work.matched);
}

// Free vertices left after the rounds pair with another free vertex of their group, in
// increasing index order within it: with two_hop, a vertex with neighbours joins the group of its
// heaviest neighbour (as METIS does: the leaves of a star, whose hub is taken, would otherwise
// never merge); a vertex without neighbours joins the group of the isolated (its placement costs
// no cut). The group rows are sorted by vertex, so the pairs do not depend on atomic order.
// work.group_map and work.group_fill are zero on entry (count_matched).
void pair_leftovers(const ExecSpace& space, const WeightedGraph& g, Ordinal max_weight,
                    const CoarsenWork& work, const OrdinalView& match) {
  const Ordinal n = g.num_vertices();
  const auto row_map = g.graph.row_map;
  const auto adjacency = g.graph.adjacency;
  const auto edge_weight = g.edge_weight;
  const auto vertex_weight = g.vertex_weight;
  const Ordinal isolated_group = n;
  const auto group = work.group;
  const auto matched = work.matched;
  const auto groups = Kokkos::make_pair(Ordinal(0), n + 2);
  const auto group_map = Kokkos::subview(work.group_map, groups);
  Kokkos::parallel_for(
      "fgdd::partition::coarsen_leftover_group", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal u) {
        // Two-hop pairs are not adjacent, so they are made only where direct matching stalled
        // (fewer than half of the vertices matched), as METIS does; on meshes they made parts
        // less compact.
        const bool two_hop = 2 * matched() < n;
        Ordinal h = unmatched, heaviest = 0;
        const bool isolated = row_map(u + 1) == row_map(u);
        if (match(u) == unmatched && (isolated || two_hop)) {
          h = isolated_group;
          for (Offset k = row_map(u); k < row_map(u + 1); ++k)
            if (h == isolated_group || edge_weight(k) > heaviest)
              h = adjacency(k), heaviest = edge_weight(k);
          Kokkos::atomic_add(&group_map(h), Offset(1));
        }
        group(u) = h;
      });
  exclusive_scan_on(space, "fgdd::partition::coarsen_leftover_scan", group_map);
  const auto members = work.members;
  const auto member_weights = work.member_weights;
  // unmatched is negative: vertices without a group stay out.
  group_by_key_into_zeroed_fill(
      space, "fgdd::partition::coarsen_leftover_list", n, group_map,
      Kokkos::subview(work.group_fill, groups), KOKKOS_LAMBDA(const Ordinal u) { return group(u); },
      KOKKOS_LAMBDA(const Ordinal u) { return u; },
      KOKKOS_LAMBDA(const Ordinal u) { return vertex_weight(u); }, members, member_weights);
  Kokkos::parallel_for(
      "fgdd::partition::coarsen_leftover_pair", Policy(space, 0, n + 1),
      KOKKOS_LAMBDA(const Ordinal h) {
        for (Offset k = group_map(h); k + 1 < group_map(h + 1); k += 2) {
          if (member_weights(k) + member_weights(k + 1) > max_weight) continue;
          match(members(k)) = members(k + 1);
          match(members(k + 1)) = members(k);
        }
      });
}

// Every round runs: a round that matches nothing leaves the choices of the next unchanged, so
// stopping early would only save launches, at the price of waiting for the count.
OrdinalView heavy_edge_matching(const ExecSpace& space, const WeightedGraph& g, Ordinal max_weight,
                                const CoarsenWork& work) {
  const Ordinal n = g.num_vertices();
  const auto vertices = Kokkos::make_pair(Ordinal(0), n);
  const auto match = Kokkos::subview(work.match, vertices);
  const auto choice = Kokkos::subview(work.choice, vertices);
  for (int round = 0; round < matching_rounds; ++round) {
    choose_partners(space, g, max_weight, match, choice, round == 0);
    match_mutual_choices(space, n, choice, match, round == 0);
  }
  count_matched(space, n, match, work);
  pair_leftovers(space, g, max_weight, work, match);
  return match;
}

// Coarse ids in the order of each pair's smaller vertex; returns the coarse vertex count and
// fills coarse_of_fine and, per coarse vertex, its smaller fine member.
Ordinal number_coarse_vertices(const ExecSpace& space, const OrdinalView& match,
                               const OrdinalView& coarse_of_fine, const OrdinalView& leader) {
  const Ordinal n = Ordinal(match.extent(0));
  Ordinal num_coarse = 0;
  Kokkos::parallel_scan(
      "fgdd::partition::coarsen_number", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal u, Ordinal& sum, const bool final) {
        const bool leads = match(u) == unmatched || u < match(u);
        if (final && leads) {
          coarse_of_fine(u) = sum;
          leader(sum) = u;
        }
        if (leads) ++sum;
      },
      num_coarse);
  Kokkos::parallel_for(
      "fgdd::partition::coarsen_map", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal u) {
        const Ordinal v = match(u);
        if (v != unmatched && v < u) coarse_of_fine(u) = coarse_of_fine(v);
      });
  return num_coarse;
}

// The coarse graph: both members' arcs mapped to coarse ids, sorted, self loops dropped and
// parallel arcs merged with their weights summed (integer sums: order-independent).
WeightedGraph contract(const ExecSpace& space, const WeightedGraph& fine, Ordinal num_coarse,
                       const OrdinalView& match, const OrdinalView& coarse_of_fine,
                       const OrdinalView& leader, const CoarsenWork& work, DeviceArena* arena) {
  const auto row_map = fine.graph.row_map;
  const auto adjacency = fine.graph.adjacency;
  const auto edge_weight = fine.edge_weight;
  const auto vertex_weight = fine.vertex_weight;

  WeightedGraph coarse;
  coarse.graph.num_vertices = num_coarse;
  coarse.vertex_weight =
      take_or_allocate<Ordinal>(arena, "fgdd::partition::coarse_vwgt", std::size_t(num_coarse));
  const auto coarse_vertex_weight = coarse.vertex_weight;
  const auto candidate_map =
      Kokkos::subview(work.candidate_map, Kokkos::make_pair(Ordinal(0), num_coarse + 1));
  Kokkos::parallel_for(
      "fgdd::partition::coarsen_count", Policy(space, 0, num_coarse + 1),
      KOKKOS_LAMBDA(const Ordinal c) {
        if (c == num_coarse) {
          candidate_map(c) = 0;  // the scan leaves the candidate total here
          return;
        }
        const Ordinal u = leader(c), v = match(u);
        Offset arcs = row_map(u + 1) - row_map(u);
        Ordinal weight = vertex_weight(u);
        if (v != unmatched) arcs += row_map(v + 1) - row_map(v), weight += vertex_weight(v);
        candidate_map(c) = arcs;
        coarse_vertex_weight(c) = weight;
      });
  // Every fine arc is a candidate of its end's coarse vertex.
  exclusive_scan_on(space, "fgdd::partition::coarsen_candidate_scan", candidate_map);
  const auto arcs_of_fine = Kokkos::make_pair(Offset(0), Offset(fine.graph.adjacency.extent(0)));
  const auto candidates = Kokkos::subview(work.candidates, arcs_of_fine);
  const auto candidate_weights = Kokkos::subview(work.candidate_weights, arcs_of_fine);
  Kokkos::parallel_for(
      "fgdd::partition::coarsen_gather", Policy(space, 0, num_coarse),
      KOKKOS_LAMBDA(const Ordinal c) {
        Offset out = candidate_map(c);
        const Ordinal members[2] = {leader(c), match(leader(c))};
        for (const Ordinal m : members) {
          if (m == unmatched) continue;
          for (Offset k = row_map(m); k < row_map(m + 1); ++k, ++out) {
            candidates(out) = coarse_of_fine(adjacency(k));
            candidate_weights(out) = edge_weight(k);
          }
        }
      });
  sort_crs_rows_on(space, candidate_map, candidates, candidate_weights);

  // Self loops (both ends in one coarse vertex) dropped, parallel arcs merged.
  const SortedRuns arcs = merge_sorted_runs(space, "fgdd::partition::coarse_arcs", candidate_map,
                                            candidates, candidate_weights, true, arena);
  coarse.graph.row_map = arcs.offsets;
  coarse.graph.adjacency = arcs.keys;
  coarse.edge_weight = arcs.weights;
  return coarse;
}

}  // namespace coarsen

CoarsenWork::CoarsenWork(Ordinal max_vertices, Offset max_arcs)
    : match(uninitialized_view<Ordinal>("fgdd::partition::match", max_vertices)),
      choice(uninitialized_view<Ordinal>("fgdd::partition::choice", max_vertices)),
      leader(uninitialized_view<Ordinal>("fgdd::partition::coarse_leader", max_vertices)),
      group(uninitialized_view<Ordinal>("fgdd::partition::leftover_group", max_vertices)),
      members(uninitialized_view<Ordinal>("fgdd::partition::leftover_members", max_vertices)),
      member_weights(
          uninitialized_view<Ordinal>("fgdd::partition::leftover_weights", max_vertices)),
      candidates(uninitialized_view<Ordinal>("fgdd::partition::coarse_candidates", max_arcs)),
      candidate_weights(
          uninitialized_view<Ordinal>("fgdd::partition::coarse_candidate_wgts", max_arcs)),
      group_map(
          uninitialized_view<Offset>("fgdd::partition::leftover_group_map", max_vertices + 2)),
      group_fill(uninitialized_view<Offset>("fgdd::partition::leftover_fill", max_vertices + 2)),
      candidate_map(
          uninitialized_view<Offset>("fgdd::partition::coarse_candidate_map", max_vertices + 1)),
      matched("fgdd::partition::matched") {}

CoarseLevel coarsen_by_matching(const ExecSpace& space, const WeightedGraph& fine,
                                Ordinal max_vertex_weight) {
  const CoarsenWork work(fine.num_vertices(), Offset(fine.graph.adjacency.extent(0)));
  return coarsen_by_matching(space, fine, max_vertex_weight, work, nullptr);
}

CoarseLevel coarsen_by_matching(const ExecSpace& space, const WeightedGraph& fine,
                                Ordinal max_vertex_weight, const CoarsenWork& work,
                                DeviceArena* arena) {
  if (max_vertex_weight < 1)
    throw InvalidInput("coarsen_by_matching: max_vertex_weight must be >= 1, got " +
                       std::to_string(max_vertex_weight));
  const Ordinal n = fine.num_vertices();
  const auto match = coarsen::heavy_edge_matching(space, fine, max_vertex_weight, work);
  CoarseLevel level;
  level.coarse_of_fine =
      take_or_allocate<Ordinal>(arena, "fgdd::partition::coarse_of_fine", std::size_t(n));
  const auto leader = Kokkos::subview(work.leader, Kokkos::make_pair(Ordinal(0), n));
  const Ordinal num_coarse =
      coarsen::number_coarse_vertices(space, match, level.coarse_of_fine, leader);
  level.coarse =
      coarsen::contract(space, fine, num_coarse, match, level.coarse_of_fine, leader, work, arena);
  return level;
}

}  // namespace fgdd::detail
