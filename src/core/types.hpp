// The few fixed types fgdd is built on (STYLE.md: double values, int ordinals, no type explosion).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>

// Device lambdas (KOKKOS_LAMBDA) live only in functions defined in one .cpp file, never in inline
// or templated code in a header: nvcc gives each translation unit its own hidden helper for an
// extended lambda, and when the linker keeps another unit's copy of an inline function the
// helper it calls may be null (seen as a jump to address 0). Headers use functors.
namespace fgdd {

using Scalar = double;
using Ordinal = int;
// size_t matches KokkosSparse::CrsMatrix's default row map, so its matrices can be shared
// without a copy, and allows more than 2^31 entries on one GPU.
using Offset = std::size_t;

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using DeviceType = Kokkos::Device<ExecSpace, MemSpace>;
// True on CPU backends (the host reads the default memory space), false on GPUs: the defaults
// that differ between the two test it.
inline constexpr bool host_memory =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;

// A vector on the device.
using Vector = Kokkos::View<Scalar*, DeviceType>;
using ConstVector = Kokkos::View<const Scalar*, DeviceType>;

}  // namespace fgdd
