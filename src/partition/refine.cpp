// Boundary refinement on the device: propose a move per boundary vertex, keep the moves that
// still gain once the higher-ranked neighbours have moved, admit them while no part overfills.
#include "partition/refine.hpp"

#include <cstdint>
#include <string>

#include "core/errors.hpp"
#include "core/exclusive_scan.hpp"
#include "core/group_by_key.hpp"
#include "core/huge_pages.hpp"
#include "core/kokkos_compat.hpp"

namespace fgdd::detail {
namespace refine {

using Policy = Kokkos::RangePolicy<ExecSpace>;
using OrdinalView = Kokkos::View<Ordinal*, DeviceType>;
using OffsetView = Kokkos::View<Offset*, DeviceType>;

constexpr Ordinal no_move = -1;
// Passes without a better cut before a level gives up (Jet uses a similar patience).
constexpr int refine_patience = 3;
// Passes run between two looks of the host at whether refinement is done (a wait each).
constexpr int passes_between_looks = 4;
// Vertices with more neighbours stay in their part and are not read: finding the parts among d
// neighbours costs d² / 2 comparisons, and one dense row (a well or a constraint coupled to
// every cell) took seconds per pass on a CPU core; even one read of it per pass is a long serial
// loop for one GPU thread. Such a vertex's move changes one vertex of its part.
constexpr Offset max_proposing_degree = 512;

void check_labels(const ExecSpace& space, const WeightedGraph& g, const OrdinalView& part,
                  Ordinal num_parts) {
  const Ordinal n = g.num_vertices();
  if (Ordinal(part.extent(0)) != n)
    throw InvalidInput("refine_labeling: the graph has " + std::to_string(n) +
                       " vertices but the labeling has " + std::to_string(part.extent(0)));
  Ordinal first_bad = n;
  Kokkos::parallel_reduce(
      "fgdd::partition::refine_check", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal u, Ordinal& first) {
        if ((part(u) < 0 || part(u) >= num_parts) && u < first) first = u;
      },
      Kokkos::Min<Ordinal>(first_bad));
  if (first_bad < n)
    throw InvalidInput("refine_labeling: vertex " + std::to_string(first_bad) +
                       " has a label outside [0, " + std::to_string(num_parts) + ")");
}

void weigh_parts(const ExecSpace& space, const WeightedGraph& g, const OrdinalView& part,
                 const OrdinalView& part_weight) {
  const auto vertex_weight = g.vertex_weight;
  Kokkos::deep_copy(space, part_weight, Ordinal(0));
  Kokkos::parallel_for(
      "fgdd::partition::refine_weigh", Policy(space, 0, g.num_vertices()),
      KOKKOS_LAMBDA(const Ordinal u) {
        Kokkos::atomic_add(&part_weight(part(u)), vertex_weight(u));
      });
}

// A vertex hash for thinning evictions (the same every run).
KOKKOS_INLINE_FUNCTION std::uint32_t vertex_hash(Ordinal u, int pass) {
  std::uint64_t x = (std::uint64_t(std::uint32_t(u)) << 32) | std::uint32_t(pass);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return std::uint32_t(x);
}

// Vertices with at most this many neighbours keep their neighbours' parts in registers while
// proposing (a 3-D stencil or a coarse graph's vertex; the rest read them as they go).
constexpr int cached_degree = 32;

struct BestMove {
  Ordinal own = 0;              // connection to the vertex's own part
  Ordinal best = no_move;       // the neighbouring part with room it is most connected to
  Ordinal best_connection = 0;  // and that connection
};

// For a vertex of weight w in part p whose i-th neighbour is in part part_at(i) through an edge
// of weight weight_at(i): its own-part connection and its best neighbouring part with room
// (ties: the smaller label); its cut edges are added to cut_sum.
template <class PartAt, class WeightAt>
KOKKOS_INLINE_FUNCTION BestMove best_move(int degree, Ordinal p, Ordinal w, const PartAt& part_at,
                                          const WeightAt& weight_at, const OrdinalView& part_weight,
                                          Ordinal max_part_weight, Offset& cut_sum) {
  BestMove move;
  for (int k = 0; k < degree; ++k) {
    const Ordinal q = part_at(k);
    if (q == p) {
      move.own += weight_at(k);
      continue;
    }
    cut_sum += Offset(weight_at(k));
    bool seen = false;
    for (int e = 0; e < k && !seen; ++e) seen = part_at(e) == q;
    if (seen || part_weight(q) + w > max_part_weight) continue;
    Ordinal connection = weight_at(k);
    for (int e = k + 1; e < degree; ++e)
      if (part_at(e) == q) connection += weight_at(e);
    if (connection > move.best_connection || (connection == move.best_connection && q < move.best))
      move.best = q, move.best_connection = connection;
  }
  return move;
}

// dest(u): among the neighbouring parts with room for u, the one u is most connected to (ties:
// the smaller label), when moving there loses little, or whatever it loses when u's own part is
// above the limit (an eviction); gain(u): the cut the move saves (may be negative);
// evictable(p): the weight of p's eviction candidates; state.cut: the cut of the current labeling,
// each edge counted from both ends (from one end where the other is above max_proposing_degree:
// the same objective every pass). Interior vertices cost one pass over their row; boundary
// vertices compare each neighbouring part once; vertices above max_proposing_degree propose
// nothing and cost nothing.
void propose_moves(const ExecSpace& space, const WeightedGraph& g, const OrdinalView& part,
                   const OrdinalView& part_weight, Ordinal max_part_weight, const OrdinalView& dest,
                   const OrdinalView& gain, const OrdinalView& evictable,
                   const RefineState& state) {
  const auto row_map = g.graph.row_map;
  const auto adjacency = g.graph.adjacency;
  const auto edge_weight = g.edge_weight;
  const auto vertex_weight = g.vertex_weight;
  const auto done = state.done;
  Kokkos::parallel_reduce(
      "fgdd::partition::refine_propose", Policy(space, 0, g.num_vertices()),
      KOKKOS_LAMBDA(const Ordinal u, Offset& cut_sum) {
        if (done() != 0) return;
        const Ordinal p = part(u), w = vertex_weight(u);
        const Offset begin = row_map(u), end = row_map(u + 1);
        if (end - begin > max_proposing_degree) {
          dest(u) = no_move;
          gain(u) = 0;
          return;
        }
        const int degree = int(end - begin);
        BestMove move;
        if (degree <= cached_degree) {
          // The neighbours' parts read once (two dependent loads each), not once per neighbour.
          Ordinal parts[cached_degree], weights[cached_degree];
          for (int i = 0; i < degree; ++i)
            parts[i] = part(adjacency(begin + i)), weights[i] = edge_weight(begin + i);
          move = best_move(
              degree, p, w, [&](int i) { return parts[i]; }, [&](int i) { return weights[i]; },
              part_weight, max_part_weight, cut_sum);
        } else {
          move = best_move(
              degree, p, w, [&](int i) { return part(adjacency(begin + i)); },
              [&](int i) { return edge_weight(begin + i); }, part_weight, max_part_weight, cut_sum);
        }
        const Ordinal own = move.own, best = move.best, best_connection = move.best_connection;
        // A move that loses up to a quarter of the own-part connection may still open the way
        // for its neighbours (Jet's negative-gain candidates); confirm_moves keeps only those
        // that do not lose once the higher-ranked moves are made.
        const bool evicts = best != no_move && part_weight(p) > max_part_weight;
        const bool moves = evicts || (best != no_move && 4 * best_connection > 3 * own);
        dest(u) = moves ? best : no_move;
        gain(u) = moves ? best_connection - own : 0;
        if (evicts) Kokkos::atomic_add(&evictable(p), w);
      },
      state.cut);
}

// Keeps u's move if it loses nothing after every proposing neighbour that outranks u has moved;
// an eviction is kept regardless of its gain, for a share of its part's candidates that covers
// the part's excess with a margin (hash-chosen, so a part does not shed its whole boundary).
// Counts the kept moves into each destination (arrivals: zero on entry). First copies the
// labeling into best when decide kept it (one launch fewer than a copy of its own).
void confirm_moves(const ExecSpace& space, const WeightedGraph& g, const OrdinalView& part,
                   const OrdinalView& part_weight, Ordinal max_part_weight,
                   const OrdinalView& evictable, int pass, const OrdinalView& dest,
                   const OrdinalView& gain, const OrdinalView& confirmed,
                   const OffsetView& arrivals, const OrdinalView& best, const RefineState& state) {
  const auto done = state.done;
  const auto copy_best = state.copy_best;
  const auto row_map = g.graph.row_map;
  const auto adjacency = g.graph.adjacency;
  const auto edge_weight = g.edge_weight;
  Kokkos::parallel_for(
      "fgdd::partition::refine_confirm", Policy(space, 0, g.num_vertices()),
      KOKKOS_LAMBDA(const Ordinal u) {
        if (copy_best() != 0) best(u) = part(u);
        const Ordinal to = dest(u);
        confirmed(u) = no_move;
        if (to == no_move || done() != 0) return;
        const Ordinal from = part(u);
        const Ordinal excess = part_weight(from) - max_part_weight;
        if (excess > 0) {
          const double share = 1.5 * double(excess) / double(evictable(from));
          if (double(vertex_hash(u, pass) % 1024) >= share * 1024) return;
        } else {
          Ordinal stay = 0, go = 0;
          for (Offset k = row_map(u); k < row_map(u + 1); ++k) {
            const Ordinal v = adjacency(k);
            const bool outranks =
                dest(v) != no_move && (gain(v) > gain(u) || (gain(v) == gain(u) && v < u));
            const Ordinal q = outranks ? dest(v) : part(v);
            if (q == from) stay += edge_weight(k);
            if (q == to) go += edge_weight(k);
          }
          if (go < stay) return;
        }
        confirmed(u) = to;
        Kokkos::atomic_add(&arrivals(to), Offset(1));
      });
}

// The per-part counters of a pass made ready for the next one in one launch: with admitted, the
// part weights brought up to date (arrivals admitted into filled, minus departures); evictable,
// departed, arrivals and fill zeroed (the next pass adds into them); the weight above the limit
// summed over the parts into state.over. arrivals and fill have num_parts + 1 entries.
void settle_parts(const ExecSpace& space, const OrdinalView& part_weight, const OrdinalView& filled,
                  const OrdinalView& departed, const OrdinalView& evictable,
                  const OffsetView& arrivals, const OffsetView& fill, Ordinal max_part_weight,
                  bool admitted, const RefineState& state) {
  const auto done = state.done;
  const Ordinal num_parts = Ordinal(part_weight.extent(0));
  Kokkos::parallel_reduce(
      "fgdd::partition::refine_settle", Policy(space, 0, num_parts + 1),
      KOKKOS_LAMBDA(const Ordinal q, Offset& sum) {
        arrivals(q) = 0;
        fill(q) = 0;
        if (q == num_parts) return;
        if (admitted) part_weight(q) = filled(q) - departed(q);
        departed(q) = 0;
        evictable(q) = 0;
        if (done() == 0 && part_weight(q) > max_part_weight)
          sum += Offset(part_weight(q) - max_part_weight);
      },
      state.over);
}

// The host loop's decision, on the device so that no pass waits for the host: keep the labeling
// as the best seen (copy_best) when it has less weight above the limit, or as much and a smaller
// cut; stop (done) when the last pass admitted no move, after refine_patience passes without a
// better labeling, or at a labeling with no excess and no cut (kept first).
void decide(const ExecSpace& space, const RefineState& state, int pass) {
  const RefineState s = state;
  Kokkos::parallel_for(
      "fgdd::partition::refine_decide", Policy(space, 0, 1), KOKKOS_LAMBDA(const int) {
        s.copy_best() = 0;
        if (s.done() != 0) return;
        if (pass > 0 && s.moved() == 0) {
          s.done() = 1;
          return;
        }
        const Offset over = s.over(), cut = s.cut();
        if (pass == 0 || over < s.best_over() || (over == s.best_over() && cut < s.best_cut())) {
          s.best_over() = over;
          s.best_cut() = cut;
          s.since_best() = 0;
          s.copy_best() = 1;
        } else if (++s.since_best() >= refine_patience) {
          s.done() = 1;
          return;
        }
        if (over == 0 && cut == 0) s.done() = 1;
      });
}

// Admits the confirmed moves into each part in increasing vertex order while the part stays
// within max_part_weight (departures are not counted, so no part can overfill whatever else is
// admitted), applies them, leaves each part's weight with its arrivals in filled and its
// departures in departed (integer sums: the same every run; settle_parts then updates
// part_weight) and counts the moves into state.moved. The moves are grouped by destination in
// rows sorted by vertex, so the admitted set does not depend on the order of the atomic slot
// claims. work.group_fill (as long as arrivals) and departed: zero on entry.
void admit_moves(const ExecSpace& space, const WeightedGraph& g, const OrdinalView& part,
                 const OrdinalView& part_weight, const OrdinalView& confirmed,
                 const OffsetView& arrivals, Ordinal max_part_weight, const RefineWork& work,
                 const OrdinalView& filled, const OrdinalView& departed, const RefineState& state) {
  const Ordinal n = g.num_vertices(), num_parts = Ordinal(part_weight.extent(0));
  const auto vertex_weight = g.vertex_weight;
  const auto mover_list = work.movers;
  const auto mover_weight_list = work.mover_weights;
  exclusive_scan_on(space, "fgdd::partition::refine_arrival_scan", arrivals);
  // no_move is negative: those vertices stay out of every group.
  group_by_key_into_zeroed_fill(
      space, "fgdd::partition::refine_group", n, arrivals,
      Kokkos::subview(work.group_fill, Kokkos::make_pair(Ordinal(0), num_parts + 1)),
      KOKKOS_LAMBDA(const Ordinal u) { return confirmed(u); },
      KOKKOS_LAMBDA(const Ordinal u) { return u; },
      KOKKOS_LAMBDA(const Ordinal u) { return vertex_weight(u); }, mover_list, mover_weight_list);
  Kokkos::parallel_reduce(
      "fgdd::partition::refine_admit", Policy(space, 0, num_parts),
      KOKKOS_LAMBDA(const Ordinal q, Offset& count) {
        Ordinal weight = part_weight(q);
        for (Offset k = arrivals(q); k < arrivals(q + 1); ++k) {
          if (weight + mover_weight_list(k) > max_part_weight) break;
          weight += mover_weight_list(k);
          const Ordinal u = mover_list(k);  // in this row only: its label is ours to change
          Kokkos::atomic_add(&departed(part(u)), mover_weight_list(k));
          part(u) = q;
          ++count;
        }
        filled(q) = weight;
      },
      state.moved);
}

// part takes the best labeling back; the vertices that end with another label than input gave
// are added to relabeled (through changed: nothing waits for the device).
void restore_best(const ExecSpace& space, const OrdinalView& input, const OrdinalView& best,
                  const OrdinalView& part, const Kokkos::View<Offset, DeviceType>& changed,
                  const Kokkos::View<Offset, DeviceType>& relabeled) {
  Kokkos::parallel_reduce(
      "fgdd::partition::refine_restore_best", Policy(space, 0, Ordinal(part.extent(0))),
      KOKKOS_LAMBDA(const Ordinal u, Offset& count) {
        part(u) = best(u);
        count += input(u) != best(u) ? 1 : 0;
      },
      changed);
  Kokkos::parallel_for(
      "fgdd::partition::refine_add_changed", Policy(space, 0, 1),
      KOKKOS_LAMBDA(const int) { relabeled() += changed(); });
}

}  // namespace refine

RefineWork::RefineWork(Ordinal max_vertices, Ordinal max_parts)
    : dest(uninitialized_view<Ordinal>("fgdd::partition::refine_dest", max_vertices)),
      gain(uninitialized_view<Ordinal>("fgdd::partition::refine_gain", max_vertices)),
      confirmed(uninitialized_view<Ordinal>("fgdd::partition::refine_confirmed", max_vertices)),
      input(uninitialized_view<Ordinal>("fgdd::partition::refine_input", max_vertices)),
      best(uninitialized_view<Ordinal>("fgdd::partition::refine_best", max_vertices)),
      movers(uninitialized_view<Ordinal>("fgdd::partition::refine_movers", max_vertices)),
      mover_weights(
          uninitialized_view<Ordinal>("fgdd::partition::refine_mover_weights", max_vertices)),
      part_weight(uninitialized_view<Ordinal>("fgdd::partition::refine_part_weight", max_parts)),
      evictable(uninitialized_view<Ordinal>("fgdd::partition::refine_evictable", max_parts)),
      filled(uninitialized_view<Ordinal>("fgdd::partition::refine_filled", max_parts)),
      departed(uninitialized_view<Ordinal>("fgdd::partition::refine_departed", max_parts)),
      arrivals(uninitialized_view<Offset>("fgdd::partition::refine_arrivals", max_parts + 1)),
      group_fill(uninitialized_view<Offset>("fgdd::partition::refine_group_fill", max_parts + 1)),
      changed("fgdd::partition::refine_changed"),
      relabeled("fgdd::partition::refine_relabeled"),
      state{Kokkos::View<Offset, DeviceType>("fgdd::partition::refine_over"),
            Kokkos::View<Offset, DeviceType>("fgdd::partition::refine_cut"),
            Kokkos::View<Offset, DeviceType>("fgdd::partition::refine_moved"),
            Kokkos::View<Offset, DeviceType>("fgdd::partition::refine_best_over"),
            Kokkos::View<Offset, DeviceType>("fgdd::partition::refine_best_cut"),
            Kokkos::View<int, DeviceType>("fgdd::partition::refine_since_best"),
            Kokkos::View<int, DeviceType>("fgdd::partition::refine_copy_best"),
            Kokkos::View<int, DeviceType>("fgdd::partition::refine_done")} {}

Offset refine_labeling(const ExecSpace& space, const WeightedGraph& graph,
                       const Kokkos::View<Ordinal*, DeviceType>& part, Ordinal num_parts,
                       Ordinal max_part_weight, int max_passes) {
  refine::check_labels(space, graph, part, num_parts);
  RefineWork work(graph.num_vertices(), num_parts);
  refine_labeling(space, graph, part, num_parts, max_part_weight, max_passes, work);
  Offset relabeled = 0;
  Kokkos::deep_copy(relabeled, work.relabeled);
  return relabeled;
}

void refine_labeling(const ExecSpace& space, const WeightedGraph& graph,
                     const Kokkos::View<Ordinal*, DeviceType>& part, Ordinal num_parts,
                     Ordinal max_part_weight, int max_passes, const RefineWork& work) {
  const Ordinal n = graph.num_vertices();
  const auto vertices = Kokkos::make_pair(Ordinal(0), n);
  const auto parts = Kokkos::make_pair(Ordinal(0), num_parts);
  const auto dest = Kokkos::subview(work.dest, vertices);
  const auto gain = Kokkos::subview(work.gain, vertices);
  const auto confirmed = Kokkos::subview(work.confirmed, vertices);
  const auto input = Kokkos::subview(work.input, vertices);
  const auto best = Kokkos::subview(work.best, vertices);
  const auto part_weight = Kokkos::subview(work.part_weight, parts);
  const auto evictable = Kokkos::subview(work.evictable, parts);
  const auto filled = Kokkos::subview(work.filled, parts);
  const auto departed = Kokkos::subview(work.departed, parts);
  const auto per_part_plus_one = Kokkos::make_pair(Ordinal(0), num_parts + 1);
  const auto arrivals = Kokkos::subview(work.arrivals, per_part_plus_one);
  const auto fill = Kokkos::subview(work.group_fill, per_part_plus_one);
  Kokkos::deep_copy(space, input, part);
  Kokkos::deep_copy(space, best, part);
  // Moves that lose nothing let the cut wander over plateaus, so the best labeling seen is kept
  // (least weight above the limit, then smallest cut) and a level ends after refine_patience
  // passes without a better one. The part weights are counted once, then kept up to date by
  // admit_moves and settle_parts. The passes wait for nothing: refine::decide stops them on the
  // device (later kernels then return at once), and the host looks only every few passes
  // whether to go on.
  const RefineState& state = work.state;
  Kokkos::deep_copy(space, state.done, 0);
  refine::weigh_parts(space, graph, part, part_weight);
  refine::settle_parts(space, part_weight, filled, departed, evictable, arrivals, fill,
                       max_part_weight, false, state);
  for (int pass = 0; pass < max_passes; ++pass) {
    if (pass > 0 && pass % refine::passes_between_looks == 0) {
      int done = 0;
      Kokkos::deep_copy(done, state.done);
      if (done != 0) break;
    }
    refine::propose_moves(space, graph, part, part_weight, max_part_weight, dest, gain, evictable,
                          state);
    refine::decide(space, state, pass);
    refine::confirm_moves(space, graph, part, part_weight, max_part_weight, evictable, pass, dest,
                          gain, confirmed, arrivals, best, state);
    refine::admit_moves(space, graph, part, part_weight, confirmed, arrivals, max_part_weight, work,
                        filled, departed, state);
    refine::settle_parts(space, part_weight, filled, departed, evictable, arrivals, fill,
                         max_part_weight, true, state);
  }
  refine::restore_best(space, input, best, part, work.changed, work.relabeled);
}

}  // namespace fgdd::detail
