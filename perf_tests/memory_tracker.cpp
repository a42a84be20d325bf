#include "memory_tracker.hpp"

#include "core/types.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace fgdd::bench {

namespace {

namespace tools = Kokkos::Tools::Experimental;

struct Allocation {
  std::size_t bytes = 0;
  std::string label;
};

// The callbacks are plain function pointers, so the tracker's state is global.
struct TrackerState {
  std::mutex mutex;
  std::unordered_map<const void*, Allocation> live;
  std::map<std::string, std::size_t> live_by_label;
  std::size_t live_bytes = 0, peak_bytes = 0;
  // live_by_label at the peak, copied only when the peak is left (or asked for): a phase that
  // grows allocation by allocation would otherwise copy the map at every step.
  std::map<std::string, std::size_t> peak_by_label;
  bool peak_snapshot_stale = false;
  tools::EventSet previous;
};

TrackerState* state = nullptr;

bool in_tracked_space(const Kokkos::Tools::SpaceHandle& handle) {
  return std::strncmp(handle.name, MemSpace::name(), sizeof(handle.name)) == 0;
}

void on_allocate(const Kokkos::Tools::SpaceHandle handle, const char* label, const void* pointer,
                 const std::uint64_t bytes) {
  if (state->previous.allocate_data) state->previous.allocate_data(handle, label, pointer, bytes);
  if (!in_tracked_space(handle)) return;
  std::lock_guard<std::mutex> lock(state->mutex);
  Allocation allocation{std::size_t(bytes), label && *label ? label : "(no label)"};
  state->live_by_label[allocation.label] += allocation.bytes;
  state->live_bytes += allocation.bytes;
  state->live[pointer] = std::move(allocation);
  if (state->live_bytes > state->peak_bytes) {
    state->peak_bytes = state->live_bytes;
    state->peak_snapshot_stale = true;
  }
}

void on_deallocate(const Kokkos::Tools::SpaceHandle handle, const char* label, const void* pointer,
                   const std::uint64_t bytes) {
  if (state->previous.deallocate_data)
    state->previous.deallocate_data(handle, label, pointer, bytes);
  if (!in_tracked_space(handle)) return;
  std::lock_guard<std::mutex> lock(state->mutex);
  const auto found = state->live.find(pointer);
  if (found == state->live.end()) return;  // allocated before the tracker started
  if (state->peak_snapshot_stale) {
    state->peak_by_label = state->live_by_label;
    state->peak_snapshot_stale = false;
  }
  const Allocation& allocation = found->second;
  const auto by_label = state->live_by_label.find(allocation.label);
  by_label->second -= allocation.bytes;
  if (by_label->second == 0) state->live_by_label.erase(by_label);
  state->live_bytes -= allocation.bytes;
  state->live.erase(found);
}

}  // namespace

PeakMemoryTracker::PeakMemoryTracker() {
  if (state) throw std::logic_error("only one PeakMemoryTracker may be alive at a time");
  state = new TrackerState;
  state->previous = tools::get_callbacks();
  tools::set_allocate_data_callback(on_allocate);
  tools::set_deallocate_data_callback(on_deallocate);
}

PeakMemoryTracker::~PeakMemoryTracker() {
  tools::set_allocate_data_callback(state->previous.allocate_data);
  tools::set_deallocate_data_callback(state->previous.deallocate_data);
  delete state;
  state = nullptr;
}

void PeakMemoryTracker::start_phase() {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->peak_bytes = state->live_bytes;
  state->peak_by_label = state->live_by_label;
  state->peak_snapshot_stale = false;
}

std::size_t PeakMemoryTracker::live_bytes() const {
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->live_bytes;
}

std::size_t PeakMemoryTracker::phase_peak_bytes() const {
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->peak_bytes;
}

std::vector<LabelBytes> PeakMemoryTracker::phase_peak_labels() const {
  std::lock_guard<std::mutex> lock(state->mutex);
  if (state->peak_snapshot_stale) {  // the peak is now
    state->peak_by_label = state->live_by_label;
    state->peak_snapshot_stale = false;
  }
  std::vector<LabelBytes> labels;
  for (const auto& [label, bytes] : state->peak_by_label) labels.push_back({label, bytes});
  std::stable_sort(labels.begin(), labels.end(),
                   [](const LabelBytes& a, const LabelBytes& b) { return a.bytes > b.bytes; });
  return labels;
}

}  // namespace fgdd::bench
