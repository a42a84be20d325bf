// Items grouped into the rows of a CRS-like list in an order that does not depend on thread
// timing: slots are claimed with atomics, then each row is sorted by key. The partitioners use
// it wherever a parallel pass must hand out per-group lists (moves per destination part, rows
// per oversized part, leftover vertices per hub).
#pragma once

#include "core/kokkos_compat.hpp"
#include "core/types.hpp"

#include <string>

namespace fgdd::detail {

// The scatter pass of group_by_key (a functor: no device lambdas in headers, see types.hpp).
template <class GroupOf, class KeyOf, class ValueOf, class Keys, class Values>
struct GroupScatter {
  GroupOf group_of;
  KeyOf key_of;
  ValueOf value_of;
  Kokkos::View<Offset*, DeviceType> offsets, fill;
  Keys keys;
  Values values;

  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal i) const {
    const Ordinal group = group_of(i);
    if (group < 0) return;
    const Offset slot = offsets(group) + Kokkos::atomic_fetch_add(&fill(group), Offset(1));
    keys(slot) = key_of(i);
    values(slot) = value_of(i);
  }
};

// For every item i in [0, count) with group_of(i) >= 0: (key_of(i), value_of(i)) goes into row
// group_of(i) of (keys, values), whose rows start at offsets (the exclusive scan of how many
// items each group receives), and every row is then sorted by key. With keys distinct within a
// row the result is the same every run. label names the scatter kernel; fill (as long as
// offsets, all zero: a caller that zeroes it in a kernel of its own saves a launch) is work
// space. Nothing waits for space on GPUs.
template <class GroupOf, class KeyOf, class ValueOf, class Keys, class Values>
void group_by_key_into_zeroed_fill(const ExecSpace& space, const std::string& label, Ordinal count,
                                   const Kokkos::View<Offset*, DeviceType>& offsets,
                                   const Kokkos::View<Offset*, DeviceType>& fill,
                                   const GroupOf& group_of, const KeyOf& key_of,
                                   const ValueOf& value_of, const Keys& keys,
                                   const Values& values) {
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(space, 0, count),
                       GroupScatter<GroupOf, KeyOf, ValueOf, Keys, Values>{
                           group_of, key_of, value_of, offsets, fill, keys, values});
  sort_crs_rows_on(space, offsets, keys, values);
}

// The same with work space of its own.
template <class GroupOf, class KeyOf, class ValueOf, class Keys, class Values>
void group_by_key(const ExecSpace& space, const std::string& label, Ordinal count,
                  const Kokkos::View<Offset*, DeviceType>& offsets, const GroupOf& group_of,
                  const KeyOf& key_of, const ValueOf& value_of, const Keys& keys,
                  const Values& values) {
  const Kokkos::View<Offset*, DeviceType> fill(label + "_fill", offsets.extent(0));  // zeroed
  group_by_key_into_zeroed_fill(space, label, count, offsets, fill, group_of, key_of, value_of,
                                keys, values);
}

}  // namespace fgdd::detail
