// The one dispatch from a runtime block size to the compile-time fast paths (b = 1..4); B = 0
// stands for any other b, read at run time.
#pragma once

#include <type_traits>

namespace fgdd::detail {

// Calls f(std::integral_constant<int, B>{}) with B = b for b = 1..4, else B = 0, and returns
// what f returns.
template <class Functor>
decltype(auto) with_block_size(int b, Functor&& f) {
  switch (b) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    default:
      return f(std::integral_constant<int, 0>{});
  }
}

}  // namespace fgdd::detail
