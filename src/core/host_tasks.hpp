// Independent host tasks on the host execution space's threads, one task a chunk (Dynamic, so
// unequal tasks still fill the threads). An exception must not leave a parallel region: each
// task's is kept, and the first is rethrown once all have run. Serial runs them in order.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <exception>
#include <vector>

namespace fgdd::detail {

// Runs task(i) for i in [0, count).
template <class Task>
void run_host_tasks(const char* label, std::size_t count, Task task) {
  std::vector<std::exception_ptr> failed(count);
  Kokkos::parallel_for(
      label,
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
          0, count)
          .set_chunk_size(1),
      [&](std::size_t i) {
        try {
          task(i);
        } catch (...) {
          failed[i] = std::current_exception();
        }
      });
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace fgdd::detail
