#include "core/device_arena.hpp"

#include <algorithm>

namespace fgdd::detail {

namespace {
// Enough for any element type and for coalesced access on GPUs.
constexpr std::size_t arena_alignment = 256;
}  // namespace

DeviceArena::DeviceArena(std::string label, std::size_t chunk_bytes)
    : label_(std::move(label)), chunk_bytes_(std::max(chunk_bytes, arena_alignment)) {}

char* DeviceArena::take_bytes(std::size_t bytes) {
  const std::size_t rounded = (bytes + arena_alignment - 1) / arena_alignment * arena_alignment;
  // A large request gets a chunk of its own and the open chunk stays open: a shared chunk is
  // closed only by a small request that does not fit its rest, so less than that is left unused.
  if (rounded >= chunk_bytes_) {
    chunks_.push_back(uninitialized_view<char>(label_, rounded));
    return chunks_.back().data();
  }
  if (open_ == nullptr || used_ + rounded > chunk_bytes_) {
    chunks_.push_back(uninitialized_view<char>(label_, chunk_bytes_));
    open_ = chunks_.back().data();
    used_ = 0;
  }
  char* start = open_ + used_;
  used_ += rounded;
  return start;
}

std::size_t DeviceArena::reserved_bytes() const {
  std::size_t bytes = 0;
  for (const auto& chunk : chunks_) bytes += chunk.extent(0);
  return bytes;
}

}  // namespace fgdd::detail
