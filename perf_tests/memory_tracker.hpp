// Live bytes of Kokkos allocations in fgdd's memory space and their peak per phase, with the
// labels that hold the peak, through the Kokkos Tools allocate / deallocate callbacks (the same
// in Kokkos 3.4 and 4.x; no tool library needed). Benchmarks only.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fgdd::bench {

struct LabelBytes {
  std::string label;  // the view's label ("(no label)" for an empty one)
  std::size_t bytes = 0;
};

// A phase's peak of live bytes and the labels that held it, largest first.
struct PhasePeak {
  std::size_t bytes = 0;
  std::vector<LabelBytes> labels;
};

// Counts only what is allocated while it lives: create it before the data a phase should count
// (the matrix included). At most one at a time; callbacks set before it (a tool library) still
// run, and are restored when it goes. Not for device code: allocations are host calls.
class PeakMemoryTracker {
 public:
  // Throws std::logic_error when another tracker is alive.
  PeakMemoryTracker();
  PeakMemoryTracker(const PeakMemoryTracker&) = delete;
  PeakMemoryTracker& operator=(const PeakMemoryTracker&) = delete;
  ~PeakMemoryTracker();

  // A new phase: its peak starts from the bytes live now.
  void start_phase();
  std::size_t live_bytes() const;
  std::size_t phase_peak_bytes() const;
  // The live bytes per label at the phase's (first) peak, largest first; labels repeated by
  // several allocations are summed.
  std::vector<LabelBytes> phase_peak_labels() const;
  PhasePeak phase_peak() const { return {phase_peak_bytes(), phase_peak_labels()}; }
};

}  // namespace fgdd::bench
