// Collocation tableaus from their nodes (host, tiny): nodes are roots of Legendre combinations
// found by bracketing and bisection, the Butcher matrix solves the collocation conditions
// Σ_j a_ij c_j^(q−1) = c_i^q / q, q = 1..s.
#include "kron/stage_coefficients.hpp"

#include "core/errors.hpp"
#include "core/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

namespace fgdd {

void StageCoefficients::validate() const {
  if (stages < 1)
    throw InvalidInput("stage coefficients: stages must be at least 1, got " +
                       std::to_string(stages));
  const std::size_t expected = std::size_t(stages) * std::size_t(stages);
  if (A.size() != expected || B.size() != expected)
    throw InvalidInput("stage coefficients: A and B must hold " + std::to_string(expected) +
                       " values (" + std::to_string(stages) + "x" + std::to_string(stages) +
                       "), got " + std::to_string(A.size()) + " and " + std::to_string(B.size()));
  for (std::size_t e = 0; e < expected; ++e)
    if (!std::isfinite(A[e]) || !std::isfinite(B[e]))
      throw InvalidInput("stage coefficients: a non-finite value at row " +
                         std::to_string(e / stages) + ", column " + std::to_string(e % stages));
}

const char* to_string(IrkScheme scheme) noexcept {
  switch (scheme) {
    case IrkScheme::RadauIIA:
      return "radau-iia";
    case IrkScheme::Gauss:
      return "gauss";
  }
  return "unknown";
}

IrkScheme parse_irk_scheme(const std::string& name) {
  if (name == "radau" || name == "radau-iia") return IrkScheme::RadauIIA;
  if (name == "gauss") return IrkScheme::Gauss;
  throw InvalidInput("unknown Runge-Kutta scheme \"" + name + "\"; valid: radau, radau-iia, gauss");
}

namespace {

constexpr int max_generated_stages = 8;

void check_stages(int stages) {
  if (stages < 1 || stages > max_generated_stages)
    throw InvalidInput("collocation tableaus are generated for 1 to " +
                       std::to_string(max_generated_stages) + " stages, not " +
                       std::to_string(stages));
}

// P_n(x) by the three-term recurrence.
double legendre(int n, double x) {
  if (n == 0) return 1;
  double previous = 1, current = x;
  for (int k = 1; k < n; ++k) {
    const double next = ((2 * k + 1) * x * current - k * previous) / (k + 1);
    previous = current;
    current = next;
  }
  return current;
}

// Roots of f in (lo, hi), where f changes sign at each root (simple roots at least 1e-4 apart).
template <class F>
std::vector<double> bracketed_roots(const F& f, double lo, double hi) {
  constexpr int samples = 40000;
  std::vector<double> roots;
  double x0 = lo, f0 = f(lo);
  for (int i = 1; i <= samples; ++i) {
    const double x1 = lo + (hi - lo) * i / samples, f1 = f(x1);
    if ((f0 < 0) != (f1 < 0)) {
      double a = x0, b = x1, fa = f0;
      for (int it = 0; it < 200 && b - a > 1e-16; ++it) {
        const double m = 0.5 * (a + b), fm = f(m);
        if ((fm < 0) == (fa < 0)) {
          a = m;
          fa = fm;
        } else {
          b = m;
        }
      }
      roots.push_back(0.5 * (a + b));
    }
    x0 = x1;
    f0 = f1;
  }
  return roots;
}

// Solves the dense system G y = rhs (n×n row-major) by Gaussian elimination with partial
// pivoting.
std::vector<double> solve_dense(std::vector<double> G, std::vector<double> rhs) {
  const int n = int(rhs.size());
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < n; ++r)
      if (std::abs(G[r * n + col]) > std::abs(G[pivot * n + col])) pivot = r;
    if (pivot != col) {
      for (int c = 0; c < n; ++c) std::swap(G[col * n + c], G[pivot * n + c]);
      std::swap(rhs[col], rhs[pivot]);
    }
    for (int r = col + 1; r < n; ++r) {
      const double factor = G[r * n + col] / G[col * n + col];
      for (int c = col; c < n; ++c) G[r * n + c] -= factor * G[col * n + c];
      rhs[r] -= factor * rhs[col];
    }
  }
  std::vector<double> y(n);
  for (int r = n - 1; r >= 0; --r) {
    double sum = rhs[r];
    for (int c = r + 1; c < n; ++c) sum -= G[r * n + c] * y[c];
    y[r] = sum / G[r * n + r];
  }
  return y;
}

std::string lowercase(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::vector<double> collocation_nodes(IrkScheme scheme, int stages) {
  check_stages(stages);
  const int s = stages;
  std::vector<double> x;
  if (scheme == IrkScheme::Gauss) {
    x = bracketed_roots([s](double t) { return legendre(s, t); }, -1.0, 1.0);
  } else {
    // Right Radau: the roots of P_s − P_{s−1}, one of which is x = 1 exactly.
    x = bracketed_roots([s](double t) { return legendre(s, t) - legendre(s - 1, t); }, -1.0,
                        1.0 - 1e-9);
    x.push_back(1.0);
  }
  if (int(x.size()) != s)
    throw Error("collocation_nodes: found " + std::to_string(x.size()) + " of " +
                std::to_string(s) + " nodes for " + to_string(scheme));
  std::vector<double> c(s);
  for (int i = 0; i < s; ++i) c[i] = 0.5 * (x[i] + 1.0);
  if (scheme == IrkScheme::RadauIIA) c[s - 1] = 1.0;
  return c;
}

std::vector<double> butcher_matrix(IrkScheme scheme, int stages) {
  const std::vector<double> c = collocation_nodes(scheme, stages);
  const int s = stages;
  // Row i of A solves Σ_j a_ij c_j^q = c_i^(q+1) / (q+1), q = 0..s−1: Gᵀ-Vandermonde systems.
  std::vector<double> G(std::size_t(s) * s);
  for (int q = 0; q < s; ++q)
    for (int j = 0; j < s; ++j) G[q * s + j] = std::pow(c[j], q);
  std::vector<double> A(std::size_t(s) * s);
  for (int i = 0; i < s; ++i) {
    std::vector<double> rhs(s);
    for (int q = 0; q < s; ++q) rhs[q] = std::pow(c[i], q + 1) / (q + 1);
    const std::vector<double> row = solve_dense(G, rhs);
    std::copy(row.begin(), row.end(), A.begin() + std::size_t(i) * s);
  }
  return A;
}

StageCoefficients irk_stage_coefficients(IrkScheme scheme, int stages) {
  StageCoefficients c;
  c.stages = stages;
  c.B = butcher_matrix(scheme, stages);
  c.A.assign(std::size_t(stages) * stages, 0.0);
  for (int k = 0; k < stages; ++k) c.A[std::size_t(k) * stages + k] = 1.0;
  return c;
}

std::vector<double> read_dense_matrix_market(const std::string& path, int& size) {
  std::ifstream in(path);
  if (!in) throw FileError(path, 0, "cannot open");
  std::string banner;
  std::getline(in, banner);
  std::istringstream words(banner);
  std::string mark, object, format, field, symmetry;
  words >> mark >> object >> format >> field >> symmetry;
  if (lowercase(mark) != "%%matrixmarket" || lowercase(object) != "matrix")
    throw FileError(path, 1, "expected a '%%MatrixMarket matrix ...' banner");
  format = lowercase(format);
  if (format == "coordinate") {
    // Coefficient matrices may have zero diagonal entries (explicit stages).
    const HostMatrixArrays arrays = read_matrix_market_arrays(path, MatrixMarketRows::MayBeEmpty);
    const int n = arrays.num_block_rows;
    std::vector<double> dense(std::size_t(n) * n, 0.0);
    for (int i = 0; i < n; ++i)
      for (Offset k = arrays.row_map[i]; k < arrays.row_map[i + 1]; ++k)
        dense[std::size_t(i) * n + arrays.col_ind[k]] += arrays.values[k];
    size = n;
    return dense;
  }
  if (format != "array")
    throw FileError(path, 1, "unsupported format '" + format + "'; supported: array, coordinate");
  field = lowercase(field);
  if (field != "real" && field != "integer")
    throw FileError(path, 1,
                    "unsupported field '" + field +
                        "' for an array; supported: real, "
                        "integer");
  if (lowercase(symmetry) != "general")
    throw FileError(path, 1,
                    "unsupported symmetry '" + symmetry +
                        "' for an array; supported: "
                        "general");
  std::int64_t line_number = 1;
  std::string line;
  // The next line that is neither blank nor a comment, split into words.
  const auto next_words = [&](std::vector<std::string>& out) {
    while (std::getline(in, line)) {
      ++line_number;
      std::istringstream tokens(line);
      out.clear();
      for (std::string w; tokens >> w;) out.push_back(w);
      if (!out.empty() && out[0][0] != '%') return true;
    }
    return false;
  };
  const auto number = [&](const std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !std::isfinite(value))
      throw FileError(path, line_number, "bad number '" + text + "'");
    return value;
  };
  std::vector<std::string> w;
  if (!next_words(w) || w.size() != 2)
    throw FileError(path, line_number, "expected the size line 'rows columns'");
  const double rows = number(w[0]), columns = number(w[1]);
  if (rows != columns || rows < 1 || rows > 4096 || rows != std::floor(rows))
    throw FileError(path, line_number,
                    "expected a square matrix of 1 to 4096 rows, got " + w[0] + "x" + w[1]);
  const int n = int(rows);
  std::vector<double> dense(std::size_t(n) * n);
  for (std::size_t e = 0; e < dense.size(); ++e) {
    if (!next_words(w))
      throw FileError(
          path, line_number,
          "truncated: " + std::to_string(e) + " of " + std::to_string(dense.size()) + " values");
    if (w.size() != 1) throw FileError(path, line_number, "expected one value per line");
    // Column-major in the file.
    dense[(e % n) * n + e / n] = number(w[0]);
  }
  if (next_words(w)) throw FileError(path, line_number, "data after the announced values");
  size = n;
  return dense;
}

}  // namespace fgdd
