#include "core/dense_block.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace fgdd;
using detail::invert_block;
using detail::PivotRule;

namespace {

struct Inverted {
  int result;
  double inv, pivot, smallest;
};

Inverted invert_scalar(double p, const PivotRule& rule) {
  double a = p, inv = -7, smallest = -7;
  const int result = invert_block(&a, &inv, 1, rule, smallest);
  return {result, inv, p, smallest};
}

// The same pivot as the first of diag(p, 1) (column 0 holds no other entry, so no row
// exchange), through the general b × b path: its first entry must equal the 1 × 1 case's.
Inverted invert_in_2x2(double p, const PivotRule& rule) {
  double a[4] = {p, 0, 0, 1}, inv[4] = {}, smallest = -7;
  const int result = invert_block(a, inv, 2, rule, smallest);
  return {result, inv[0], p, smallest};
}

}  // namespace

TEST_CASE("invert_block: a 1×1 block as the first pivot of a larger one", "[factor][dense]") {
  PivotRule rule;
  rule.tiny = 1e-12;
  const bool shift = GENERATE(false, true);
  rule.shift = shift;
  rule.absolute_shift = 1e-8;
  rule.relative_shift = 1.5;
  const double inf = std::numeric_limits<double>::infinity();
  const double p = GENERATE(4.0, -0.3, 1e-12, -1e-20, 0.0, 3e-300);
  CAPTURE(shift, p);
  const Inverted one = invert_scalar(p, rule), two = invert_in_2x2(p, rule);
  CHECK(one.result == two.result);
  CHECK(one.smallest == std::abs(p));
  if (one.result >= 0) {
    CHECK(one.inv == two.inv);
    CHECK(one.inv != 0);
  } else {
    CHECK(one.inv == 0);  // so nothing downstream turns into NaN
  }
  const bool tiny = !(std::abs(p) > rule.tiny);
  CHECK(one.result == (tiny ? (shift ? 1 : -1) : 0));
  if (tiny && shift) CHECK(one.inv == 1 / ((p < 0 ? -1e-8 : 1e-8) + 1.5 * p));
  if (!tiny) CHECK(one.inv == 1 / p);

  SECTION("NaN and Inf fail even with the shift on") {
    for (const double bad : {std::nan(""), inf, -inf}) {
      const Inverted failed = invert_scalar(bad, rule);
      CHECK(failed.result == -1);
      CHECK(failed.inv == 0);
    }
  }
}
