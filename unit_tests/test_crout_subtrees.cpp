// The multilevel ILU's Crout sweep over independent subtrees (crout_subtrees.hpp): the splits
// share no entry, and the factors, couplings, Schur complement and shifts are the bits of one
// sweep in order at every depth, with deferral, dropping and shifted pivots; the coupling rows'
// chunks and their pending positions.
#include "catch_compat.hpp"
#include "multilevel/crout_ildu.hpp"
#include "multilevel/independent_subtrees.hpp"
#include "multilevel/pending_positions.hpp"
#include "multilevel/rows_in_chunks.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace fgdd;
using detail::HostCsr;

namespace {

// Nested dissection of an nx × ny grid by hand (no METIS needed): the longer side cut at its
// middle line, both halves first, the line last. order[new] = old (old = x + nx·y).
void dissect(Ordinal nx, Ordinal x0, Ordinal x1, Ordinal y0, Ordinal y1,
             std::vector<Ordinal>& order) {
  if ((x1 - x0) * (y1 - y0) <= 12 || (x1 - x0 < 3 && y1 - y0 < 3)) {
    for (Ordinal y = y0; y < y1; ++y)
      for (Ordinal x = x0; x < x1; ++x) order.push_back(x + nx * y);
    return;
  }
  if (x1 - x0 >= y1 - y0) {
    const Ordinal mid = (x0 + x1) / 2;
    dissect(nx, x0, mid, y0, y1, order);
    dissect(nx, mid + 1, x1, y0, y1, order);
    for (Ordinal y = y0; y < y1; ++y) order.push_back(mid + nx * y);
  } else {
    const Ordinal mid = (y0 + y1) / 2;
    dissect(nx, x0, x1, y0, mid, order);
    dissect(nx, x0, x1, mid + 1, y1, order);
    for (Ordinal x = x0; x < x1; ++x) order.push_back(x + nx * mid);
  }
}

// A nonsymmetric 9-point matrix on an nx × ny grid in `order`, random off-diagonals in [-1, 0.5)
// and the diagonal 4 + a random share; every zero_every-th diagonal is 0 (0: none), which forces
// deferred or shifted pivots.
HostCsr grid_matrix(Ordinal nx, Ordinal ny, const std::vector<Ordinal>& order, int zero_every,
                    unsigned seed) {
  const Ordinal n = nx * ny;
  std::vector<Ordinal> position(n);
  for (Ordinal q = 0; q < n; ++q) position[order[q]] = q;
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> off(-1.0, 0.5), share(0.0, 2.0);
  HostCsr A;
  A.cols = n;
  std::vector<std::pair<Ordinal, double>> row;
  for (Ordinal q = 0; q < n; ++q) {
    const Ordinal x = order[q] % nx, y = order[q] / nx;
    row.clear();
    for (Ordinal dy = -1; dy <= 1; ++dy)
      for (Ordinal dx = -1; dx <= 1; ++dx) {
        if (x + dx < 0 || x + dx >= nx || y + dy < 0 || y + dy >= ny) continue;
        const bool diagonal = dx == 0 && dy == 0;
        const double v = !diagonal                               ? off(engine)
                         : zero_every > 0 && q % zero_every == 0 ? 0.0
                                                                 : 4 + share(engine);
        row.emplace_back(position[x + dx + nx * (y + dy)], v);
      }
    std::sort(row.begin(), row.end());
    for (const auto& [c, v] : row) A.push(c, v);
    A.end_row();
  }
  return A;
}

HostCsr block_diagonal_chains(Ordinal chains, Ordinal length) {
  HostCsr A;
  A.cols = chains * length;
  for (Ordinal c = 0; c < chains; ++c)
    for (Ordinal i = 0; i < length; ++i) {
      if (i > 0) A.push(c * length + i - 1, -1.0);
      A.push(c * length + i, 3.0);
      if (i + 1 < length) A.push(c * length + i + 1, -1.5);
      A.end_row();
    }
  return A;
}

bool same(const HostCsr& a, const HostCsr& b) {
  return a.rows == b.rows && a.cols == b.cols && a.ptr == b.ptr && a.col == b.col && a.val == b.val;
}

}  // namespace

TEST_CASE("crout subtrees: the splits of a nested dissection order share no entry", "[mlilu]") {
  const Ordinal nx = 41, ny = 37;
  std::vector<Ordinal> order;
  dissect(nx, 0, nx, 0, ny, order);
  const HostCsr A = grid_matrix(nx, ny, order, 0, 3u);
  const HostCsr At = detail::transpose(A);
  const auto nodes = detail::independent_subtrees(A, At, 4, 16);
  REQUIRE(nodes.size() == 31);  // every node to depth 4 splits
  std::vector<int> owner(A.rows, -1);
  for (int id = 0; id < int(nodes.size()); ++id) {
    const auto& node = nodes[id];
    CAPTURE(id, node.begin, node.end, node.separator);
    for (Ordinal g = node.separator; g < node.end; ++g) owner[g] = id;
    if (node.children.empty()) {
      CHECK(node.separator == node.begin);
      continue;
    }
    REQUIRE(node.children.size() == 2);
    const auto& left = nodes[node.children[0]];
    const auto& right = nodes[node.children[1]];
    CHECK(left.begin == node.begin);
    CHECK(left.end == right.begin);
    CHECK(right.end == node.separator);
    CHECK(node.separator < node.end);  // a grid's halves meet: the separator holds rows
    // The two children share no entry.
    for (Ordinal i = left.begin; i < left.end; ++i)
      for (Offset e = A.ptr[i]; e < A.ptr[i + 1]; ++e)
        CHECK(!(A.col[e] >= right.begin && A.col[e] < right.end));
    for (Ordinal i = right.begin; i < right.end; ++i)
      for (Offset e = A.ptr[i]; e < A.ptr[i + 1]; ++e)
        CHECK(!(A.col[e] >= left.begin && A.col[e] < left.end));
  }
  CHECK(std::count(owner.begin(), owner.end(), -1) == 0);  // every position somebody's step

  SECTION("orders without splits give one node") {
    std::vector<Ordinal> natural(std::size_t(nx) * ny);
    std::iota(natural.begin(), natural.end(), Ordinal(0));
    const HostCsr B = grid_matrix(nx, ny, natural, 0, 3u);
    CHECK(detail::independent_subtrees(B, detail::transpose(B), 4, 16).size() == 1);
  }
  SECTION("disconnected blocks split without a separator") {
    const HostCsr C = block_diagonal_chains(4, 100);
    const auto split = detail::independent_subtrees(C, detail::transpose(C), 1, 16);
    REQUIRE(split.size() == 3);
    CHECK(split[0].separator == split[0].end);
  }
}

TEST_CASE("crout subtrees: every depth gives the bits of one sweep in order", "[mlilu]") {
  const std::string name =
      GENERATE("grid-nd", "grid-nd-zero-pivots", "grid-natural", "chains", "one-row");
  const double tau = GENERATE(0.0, 1e-2);
  const double kappa = GENERATE(1.5, 5.0, 1e30);
  const bool accept_all = GENERATE(false, true);
  CAPTURE(name, tau, kappa, accept_all);
  HostCsr A;
  if (name == "chains") {
    A = block_diagonal_chains(5, 61);
  } else if (name == "one-row") {
    A.cols = 1;
    A.push(0, 2.0);
    A.end_row();
  } else {
    const Ordinal nx = 33, ny = 29;
    std::vector<Ordinal> order;
    if (name == "grid-natural") {
      order.resize(std::size_t(nx) * ny);
      std::iota(order.begin(), order.end(), Ordinal(0));
    } else {
      dissect(nx, 0, nx, 0, ny, order);
    }
    A = grid_matrix(nx, ny, order, name == "grid-nd-zero-pivots" ? 7 : 0, 11u);
  }
  detail::CroutOptions options;
  options.drop_tolerance = tau;
  options.schur_drop = tau / 10;
  options.inverse_bound = kappa;
  options.accept_all = accept_all;
  options.min_subtree_rows = 8;
  options.subtree_depth = 0;
  const detail::CroutFactors one = detail::crout_ildu(A, options);
  if (name == "grid-nd-zero-pivots" && accept_all) CHECK(one.shifted > 0);
  if (name == "grid-nd" && kappa == 1.5 && !accept_all) CHECK(!one.deferred.empty());
  for (const int depth : {1, 2, 5, -1}) {
    CAPTURE(depth);
    options.subtree_depth = depth;
    const detail::CroutFactors f = detail::crout_ildu(A, options);
    CHECK(f.accepted == one.accepted);
    CHECK(f.deferred == one.deferred);
    CHECK(f.d == one.d);
    CHECK(same(f.L, one.L));
    CHECK(same(f.U, one.U));
    CHECK(same(f.LC, one.LC));
    CHECK(same(f.UF, one.UF));
    CHECK(same(f.S, one.S));
    CHECK(f.shifted == one.shifted);
  }
}

TEST_CASE("crout subtrees: rows built in chunks join into one loop's arrays", "[mlilu]") {
  const Ordinal count = GENERATE(0, 1, 7, 1000);
  CAPTURE(count);
  // Row r holds r % 5 entries at columns r, r + 3, ..., its values passed through the chunk's
  // scratch (the way the couplings use their accumulators).
  const auto make_row = [](Ordinal r, std::vector<double>& scratch, HostCsr& out) {
    scratch.assign(1, double(r));
    for (Ordinal k = 0; k < r % 5; ++k) out.push(r + 3 * k, scratch[0] + 0.25 * k);
    out.end_row();
  };
  const auto scratch = [] { return std::vector<double>(); };
  HostCsr expected;
  expected.cols = count + 12;
  std::vector<double> one;
  for (Ordinal r = 0; r < count; ++r) make_row(r, one, expected);
  CHECK(same(detail::rows_in_chunks(count, count + 12, scratch, make_row), expected));
}

TEST_CASE("pending positions come out in ascending order as larger ones are added", "[mlilu]") {
  // 10,000 positions span three summary words (4,096 positions each).
  const Ordinal n = 10000;
  std::mt19937 engine(5u);
  std::uniform_int_distribution<Ordinal> any(0, n - 1);
  detail::PendingPositions pending(n);
  std::vector<char> expected(n, 0);
  for (int k = 0; k < 300; ++k) {
    const Ordinal i = any(engine);
    pending.insert(i);
    expected[i] = 1;
  }
  for (const Ordinal edge : {0, 63, 64, 4095, 4096, 8191, 8192, n - 1}) {
    pending.insert(edge);
    expected[edge] = 1;
  }
  std::vector<Ordinal> taken;
  for (Ordinal p = pending.take_from(0); p >= 0; p = pending.take_from(p + 1)) {
    taken.push_back(p);
    // Fill past p, as an elimination adds it.
    if (p + 3000 < n && p % 7 == 0) {
      pending.insert(p + 3000);
      expected[p + 3000] = 1;
    }
  }
  std::vector<Ordinal> all;
  for (Ordinal i = 0; i < n; ++i)
    if (expected[i]) all.push_back(i);
  CHECK(taken == all);
  CHECK(pending.take_from(0) == -1);  // empty again
  CHECK(pending.take_from(n) == -1);
}
