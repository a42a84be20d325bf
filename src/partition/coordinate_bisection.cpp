// Recursive coordinate bisection, one depth at a time on the device. The kd-tree construction
// trick: every axis keeps its own list of the rows sorted along it, grouped by segment; a cut
// splits each list stably, so the lists stay sorted and no depth sorts again. The host keeps the
// segment table (one entry per segment) and reads back each depth's split sizes.
#include "partition/coordinate_bisection.hpp"

#include "core/errors.hpp"
#include "core/host_copy.hpp"
#include "core/kokkos_compat.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fgdd::detail {
namespace bisection {

using Policy = Kokkos::RangePolicy<ExecSpace>;
using OrdinalView = Kokkos::View<Ordinal*, DeviceType>;
using PointView = Coordinates::View;

constexpr int max_dimension = 3;
// No candidate split found yet.
constexpr std::int64_t no_split = INT64_MAX;

// The order in which a sort compares coordinates: axis[0] first, then axis[1], ...
struct AxisPriority {
  int axis[max_dimension] = {0, 1, 2};
};

// A row with its coordinates in the order of an AxisPriority.
struct SortPoint {
  Scalar key[max_dimension];
  Ordinal row;
};

struct SortPointLess {
  int dimension;
  KOKKOS_INLINE_FUNCTION bool operator()(const SortPoint& a, const SortPoint& b) const {
    for (int k = 0; k < dimension; ++k) {
      if (a.key[k] < b.key[k]) return true;
      if (b.key[k] < a.key[k]) return false;
    }
    return a.row < b.row;  // distinct keys: the sorted order is unique
  }
};

// The rows sorted by their coordinates in priority order, then by row; distinct keys make the
// order unique, whatever the sort does.
OrdinalView sorted_by(const ExecSpace& space, const PointView& x, const AxisPriority priority) {
  const Ordinal n = Ordinal(x.extent(0));
  const int d = int(x.extent(1));
  Kokkos::View<SortPoint*, DeviceType> points(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcb_sort_points"), n);
  Kokkos::parallel_for(
      "fgdd::partition::rcb_sort_keys", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal i) {
        SortPoint p;
        for (int k = 0; k < max_dimension; ++k) p.key[k] = k < d ? x(i, priority.axis[k]) : 0;
        p.row = i;
        points(i) = p;
      });
  // The bitonic sort runs on the default instance.
  space.fence();
  bitonic_sort<ExecSpace>(points, SortPointLess{d});
  ExecSpace().fence();
  OrdinalView order(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcb_order"),
                    n);
  Kokkos::parallel_for(
      "fgdd::partition::rcb_sorted_rows", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal p) { order(p) = points(p).row; });
  return order;
}

// A cut axis's list breaks ties by the other axes from the last down, so the last axis's list is
// the lexicographic order.
AxisPriority along(int axis, int d) {
  AxisPriority priority;
  priority.axis[0] = axis;
  int k = 1;
  for (int b = d - 1; b >= 0; --b)
    if (b != axis) priority.axis[k++] = b;
  return priority;
}

// The segments of one depth, in position order: segment s holds positions [begin, begin + size)
// of every axis list and is to get `parts` parts.
struct Segment {
  Ordinal begin = 0, size = 0, parts = 1;
};

// Each segment of k > 1 parts gives ceil(k/2) of them to its first `left` rows (chosen on the
// device) and the rest to the others. One part keeps its rows.
std::vector<Segment> next_depth(const std::vector<Segment>& segments,
                                const std::vector<Ordinal>& left) {
  std::vector<Segment> next;
  next.reserve(2 * segments.size());
  for (std::size_t k = 0; k < segments.size(); ++k) {
    const Segment& s = segments[k];
    if (s.parts == 1) {
      next.push_back(s);
      continue;
    }
    const Ordinal left_parts = (s.parts + 1) / 2;
    next.push_back({s.begin, left[k], left_parts});
    next.push_back({s.begin + left[k], s.size - left[k], s.parts - left_parts});
  }
  return next;
}

// The device arrays one depth reads: begin (with n appended) and parts per segment.
struct DepthTable {
  OrdinalView begin, parts;
  Ordinal count = 0;
};

DepthTable depth_table(const std::vector<Segment>& segments, Ordinal n) {
  std::vector<Ordinal> begin, parts;
  for (const Segment& s : segments) {
    begin.push_back(s.begin);
    parts.push_back(s.parts);
  }
  begin.push_back(n);
  DepthTable table;
  table.begin = to_device(begin, "fgdd::partition::rcb_segment_begin");
  table.parts = to_device(parts, "fgdd::partition::rcb_segment_parts");
  table.count = Ordinal(segments.size());
  return table;
}

// The segment holding position p: the last s with begin(s) <= p (segments are never empty).
KOKKOS_INLINE_FUNCTION Ordinal segment_of(const OrdinalView& begin, Ordinal count, Ordinal p) {
  Ordinal lo = 0, hi = count - 1;
  while (lo < hi) {
    const Ordinal mid = lo + (hi - lo + 1) / 2;
    if (begin(mid) <= p)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

struct AxisLists {
  OrdinalView axis[max_dimension];
};

// The rows a segment of `size` rows and `parts` > 1 parts may give its left half (ceil(parts/2)
// parts): the proportional target, and the range that keeps k <= s <= k·cap on both sides,
// narrowed to half the segment's slack (k·cap − s) around the target, so a half that moves its
// cut to a plane boundary leaves its children slack for theirs.
struct SplitRange {
  Ordinal target, lo, hi;
};
KOKKOS_INLINE_FUNCTION SplitRange split_range(Ordinal size, Ordinal parts, Ordinal cap) {
  const std::int64_t left_parts = (parts + 1) / 2, right_parts = parts - left_parts;
  const std::int64_t target = std::int64_t(size) * left_parts / parts;
  const std::int64_t window = (std::int64_t(parts) * cap - size) / 2;
  // Plain comparisons: std::max is not callable on every device.
  std::int64_t lo = target - window, hi = target + window;
  if (lo < left_parts) lo = left_parts;
  if (lo < size - right_parts * cap) lo = size - right_parts * cap;
  if (hi > left_parts * cap) hi = left_parts * cap;
  if (hi > size - right_parts) hi = size - right_parts;
  return {Ordinal(target), Ordinal(lo), Ordinal(hi)};
}

// One depth: each segment picks the longest edge of its bounding box (the ends of its sorted
// lists) and the split nearest its proportional target where that coordinate changes, so cuts
// between grid planes stay whole; then every list is split stably. Returns the left rows.
std::vector<Ordinal> cut_depth(const ExecSpace& space, const PointView& x, const DepthTable& table,
                               Ordinal cap, AxisLists& lists, AxisLists& spare) {
  const Ordinal n = Ordinal(x.extent(0));
  const int d = int(x.extent(1));
  const Ordinal count = table.count;
  const auto begin = table.begin;
  const auto parts = table.parts;
  const AxisLists sorted = lists;

  OrdinalView cut_axis(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcb_cut_axis"), count);
  // best_split(s): (distance to the target) << 32 | left rows, the smallest over candidates.
  Kokkos::View<std::int64_t*, DeviceType> best_split(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcb_best_split"), count);
  Kokkos::parallel_for(
      "fgdd::partition::rcb_choose_axis", Policy(space, 0, count), KOKKOS_LAMBDA(const Ordinal s) {
        const Ordinal first = begin(s), last = begin(s + 1) - 1;
        int best_axis = 0;
        Scalar best = -1;
        for (int a = 0; a < d; ++a) {
          const Scalar extent = x(sorted.axis[a](last), a) - x(sorted.axis[a](first), a);
          // >= : ties go to the higher axis.
          if (extent >= best) {
            best = extent;
            best_axis = a;
          }
        }
        cut_axis(s) = best_axis;
        best_split(s) = no_split;
      });

  OrdinalView segment(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcb_segment"), n);
  // Candidates: positions where the cut coordinate changes. The minimum does not depend on the
  // order the atomic updates come in.
  Kokkos::parallel_for(
      "fgdd::partition::rcb_candidates", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal p) {
        const Ordinal s = segment_of(begin, count, p);
        segment(p) = s;
        const Ordinal first = begin(s), size = begin(s + 1) - first, r = p - first;
        if (parts(s) == 1 || r == 0) return;
        const SplitRange range = split_range(size, parts(s), cap);
        if (r < range.lo || r > range.hi) return;
        const int a = cut_axis(s);
        if (!(x(sorted.axis[a](p - 1), a) < x(sorted.axis[a](p), a))) return;
        const std::int64_t distance = r > range.target ? r - range.target : range.target - r;
        Kokkos::atomic_fetch_min(&best_split(s), (distance << 32) | std::int64_t(r));
      });
  OrdinalView left(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcb_left"),
                   count);
  Kokkos::parallel_for(
      "fgdd::partition::rcb_choose_split", Policy(space, 0, count), KOKKOS_LAMBDA(const Ordinal s) {
        const Ordinal size = begin(s + 1) - begin(s);
        if (parts(s) == 1) {
          left(s) = size;
        } else if (best_split(s) == no_split) {
          left(s) = split_range(size, parts(s), cap).target;
        } else {
          left(s) = Ordinal(best_split(s) & 0xffffffff);
        }
      });

  OrdinalView goes_left(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcb_goes_left"), n);
  Kokkos::parallel_for(
      "fgdd::partition::rcb_mark_left", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal p) {
        const Ordinal s = segment(p);
        // Every row of s sits once in s's range of the cut axis's list: one write per row.
        goes_left(sorted.axis[cut_axis(s)](p)) = p - begin(s) < left(s) ? 1 : 0;
      });

  OrdinalView left_before(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcb_left_before"), n);
  for (int a = 0; a < d; ++a) {
    const OrdinalView order = sorted.axis[a];
    const OrdinalView split = spare.axis[a];
    Kokkos::parallel_scan(
        "fgdd::partition::rcb_count_left", Policy(space, 0, n),
        KOKKOS_LAMBDA(const Ordinal p, Offset& partial, const bool final) {
          if (final) left_before(p) = Ordinal(partial);
          partial += Offset(goes_left(order(p)));
        });
    // Stable: rows keep their relative order on each side, so the list stays sorted.
    Kokkos::parallel_for(
        "fgdd::partition::rcb_split", Policy(space, 0, n), KOKKOS_LAMBDA(const Ordinal p) {
          const Ordinal s = segment(p);
          const Ordinal first = begin(s);
          const Ordinal lefts = left_before(p) - left_before(first);
          const Ordinal row = order(p);
          split(goes_left(row) ? first + lefts : first + left(s) + (p - first - lefts)) = row;
        });
    spare.axis[a] = order;
    lists.axis[a] = split;
  }
  return to_host_vector(left);
}

}  // namespace bisection

Ordinal bisection_num_parts(Ordinal num_block_rows, Ordinal max_block_rows) {
  if (max_block_rows < 1)
    throw InvalidInput("coordinate bisection: max_block_rows must be >= 1, got " +
                       std::to_string(max_block_rows));
  if (num_block_rows < 0)
    throw InvalidInput("coordinate bisection: num_block_rows must be >= 0, got " +
                       std::to_string(num_block_rows));
  return Ordinal((std::int64_t(num_block_rows) + max_block_rows - 1) / max_block_rows);
}

Labeling coordinate_bisection_labeling(const ExecSpace& space, const Coordinates& coordinates,
                                       Ordinal max_block_rows) {
  using namespace bisection;
  const Ordinal n = coordinates.num_points();
  const Ordinal num_parts = bisection_num_parts(n, max_block_rows);
  coordinates.validate(space, n);
  const PointView x = coordinates.points();
  const int d = coordinates.dimension();

  Labeling labeling;
  labeling.num_parts = num_parts;
  labeling.part_of_row = OrdinalView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcb_part_of_row"), n);
  labeling.order_key = OrdinalView(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcb_order_key"), n);
  if (n == 0) return labeling;

  // The last axis's list is the lexicographic order: the order key.
  AxisLists lists, spare;
  lists.axis[d - 1] = sorted_by(space, x, along(d - 1, d));
  const auto order_key = labeling.order_key;
  const auto lexicographic = lists.axis[d - 1];
  Kokkos::parallel_for(
      "fgdd::partition::rcb_order_key", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal p) { order_key(lexicographic(p)) = p; });

  std::vector<Segment> segments{{0, n, num_parts}};
  if (num_parts > 1) {
    for (int a = 0; a < d; ++a) {
      if (a != d - 1) lists.axis[a] = sorted_by(space, x, along(a, d));
      spare.axis[a] = OrdinalView(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "fgdd::partition::rcb_spare"), n);
    }
    for (;;) {
      bool done = true;
      for (const Segment& s : segments) done = done && s.parts == 1;
      if (done) break;
      const std::vector<Ordinal> left =
          cut_depth(space, x, depth_table(segments, n), max_block_rows, lists, spare);
      segments = next_depth(segments, left);
    }
  }

  // Every segment is now one part, numbered in position order.
  const DepthTable leaves = depth_table(segments, n);
  const auto begin = leaves.begin;
  const Ordinal count = leaves.count;
  const auto rows = lists.axis[d - 1];  // the one list sorted even for one part
  const auto part_of_row = labeling.part_of_row;
  Kokkos::parallel_for(
      "fgdd::partition::rcb_labels", Policy(space, 0, n),
      KOKKOS_LAMBDA(const Ordinal p) { part_of_row(rows(p)) = segment_of(begin, count, p); });
  return labeling;
}

}  // namespace fgdd::detail
