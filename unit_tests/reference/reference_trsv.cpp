#include "reference/reference_trsv.hpp"

#include "reference/dense.hpp"

#include <cmath>

namespace fgdd::reference {

namespace {

// y += sign · a·x (aᵀ·x when transposed) for one b×b row-major block; |a|·x with magnitudes.
void multiply_add(const double* a, const double* x, double* y, int b, bool transposed, double sign,
                  bool magnitudes) {
  for (int r = 0; r < b; ++r)
    for (int c = 0; c < b; ++c) {
      const double coefficient = transposed ? a[c * b + r] : a[r * b + c];
      y[r] += sign * (magnitudes ? std::abs(coefficient) : coefficient) * x[c];
    }
}

bool in_triangle(Triangle triangle, Ordinal row, Ordinal column) {
  return triangle == Triangle::Lower ? column < row : column > row;
}

const double* pivot_block(const HostFactors& h, Ordinal i) {
  const int bb = h.F.b * h.F.b;
  for (Offset k = h.F.row_map[i]; k < h.F.row_map[i + 1]; ++k)
    if (h.F.col_ind[k] == i) return &h.F.values[k * bb];
  return nullptr;  // never: every factor row has its diagonal block
}

// x_i ← D_i⁻¹ x_i (D_i⁻ᵀ x_i), or |D_i⁻¹| x_i with magnitudes.
void apply_inverse_pivot(const HostFactors& h, Ordinal i, double* xi, bool transposed,
                         bool magnitudes) {
  const int b = h.F.b;
  std::vector<double> y(b, 0.0);
  multiply_add(&h.inv_diag[Offset(i) * b * b], xi, y.data(), b, transposed, 1.0, magnitudes);
  for (int c = 0; c < b; ++c) xi[c] = y[c];
}

// y_i += |D_i||D_i⁻¹||D_i| v_i (transposed: the transpose of that matrix), v ≥ 0.
void add_pivot_bound(const HostFactors& h, Ordinal i, const double* vi, double* yi,
                     bool transposed) {
  const int b = h.F.b;
  const double* d = pivot_block(h, i);
  const double* inverse = &h.inv_diag[Offset(i) * b * b];
  std::vector<double> t1(b, 0.0), t2(b, 0.0);
  multiply_add(d, vi, t1.data(), b, transposed, 1.0, true);
  multiply_add(inverse, t1.data(), t2.data(), b, transposed, 1.0, true);
  multiply_add(d, t2.data(), yi, b, transposed, 1.0, true);
}

std::vector<double> abs_of(const std::vector<double>& x) {
  std::vector<double> a(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) a[i] = std::abs(x[i]);
  return a;
}

// D·x (Dᵀ·x) with its bound.
ProductAndBound pivot_product(const HostFactors& h, const std::vector<double>& x, bool transposed) {
  const int b = h.F.b;
  ProductAndBound out{std::vector<double>(x.size(), 0.0), std::vector<double>(x.size(), 0.0)};
  const auto magnitude = abs_of(x);
  for (Ordinal i = 0; i < h.F.num_block_rows(); ++i) {
    const Offset at = Offset(i) * b;
    multiply_add(pivot_block(h, i), &x[at], &out.product[at], b, transposed, 1.0, false);
    add_pivot_bound(h, i, &magnitude[at], &out.bound[at], transposed);
  }
  return out;
}

}  // namespace

HostFactors host_factors(const SubdomainIlu0& factorization) {
  return HostFactors{to_host_csr(factorization.factors()), host_vector(factorization.inv_diag()),
                     factorization.form()};
}

std::vector<double> triangular_solve(const HostFactors& h, Triangle triangle, Diagonal diagonal,
                                     const std::vector<double>& r, bool transposed,
                                     bool magnitudes) {
  const HostBlockCsr& F = h.F;
  const int b = F.b, bb = b * b;
  const Ordinal n = F.num_block_rows();
  const double sign = magnitudes ? 1.0 : -1.0;
  std::vector<double> x = r;  // transposed: the running right-hand side, finished row by row
  // Rows in dependency order: T lower is solved top-down, Tᵀ of a lower T bottom-up.
  const bool ascending = (triangle == Triangle::Lower) != transposed;
  for (Ordinal t = 0; t < n; ++t) {
    const Ordinal i = ascending ? t : n - 1 - t;
    double* xi = &x[Offset(i) * b];
    if (!transposed) {
      for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k)
        if (in_triangle(triangle, i, F.col_ind[k]))
          multiply_add(&F.values[k * bb], &x[Offset(F.col_ind[k]) * b], xi, b, false, sign,
                       magnitudes);
      if (diagonal == Diagonal::Pivots) apply_inverse_pivot(h, i, xi, false, magnitudes);
    } else {
      // Row i of T holds column i of Tᵀ: finish x_i, then take it out of the rows it feeds.
      if (diagonal == Diagonal::Pivots) apply_inverse_pivot(h, i, xi, true, magnitudes);
      for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k)
        if (in_triangle(triangle, i, F.col_ind[k]))
          multiply_add(&F.values[k * bb], xi, &x[Offset(F.col_ind[k]) * b], b, true, sign,
                       magnitudes);
    }
  }
  return x;
}

std::vector<double> preconditioner_solve(const HostFactors& h, const std::vector<double>& r,
                                         bool transposed, bool magnitudes) {
  const int b = h.F.b;
  const auto solve = [&](Triangle triangle, Diagonal diagonal, const std::vector<double>& v) {
    return triangular_solve(h, triangle, diagonal, v, transposed, magnitudes);
  };
  // M⁻¹ = U⁻¹ D⁻¹ L⁻¹ (Ilu0: U⁻¹ L⁻¹ with D inside U); M⁻ᵀ = L⁻ᵀ D⁻ᵀ U⁻ᵀ.
  const Triangle first = transposed ? Triangle::Upper : Triangle::Lower;
  const Triangle second = transposed ? Triangle::Lower : Triangle::Upper;
  if (h.form == IluForm::Ilu0) {
    // The pivots belong to U, which is solved second (first when transposed).
    if (transposed) return solve(second, Diagonal::Unit, solve(first, Diagonal::Pivots, r));
    return solve(second, Diagonal::Pivots, solve(first, Diagonal::Unit, r));
  }
  std::vector<double> y = solve(first, Diagonal::Unit, r);
  for (Ordinal i = 0; i < h.F.num_block_rows(); ++i)
    apply_inverse_pivot(h, i, &y[Offset(i) * b], transposed, magnitudes);
  return solve(second, Diagonal::Unit, y);
}

ProductAndBound triangular_product(const HostFactors& h, Triangle triangle, Diagonal diagonal,
                                   const std::vector<double>& x, bool transposed) {
  const HostBlockCsr& F = h.F;
  const int b = F.b, bb = b * b;
  ProductAndBound out{std::vector<double>(x.size(), 0.0), std::vector<double>(x.size(), 0.0)};
  const auto magnitude = abs_of(x);
  for (Ordinal i = 0; i < F.num_block_rows(); ++i) {
    const Offset at = Offset(i) * b;
    for (Offset k = F.row_map[i]; k < F.row_map[i + 1]; ++k) {
      const Offset j = Offset(F.col_ind[k]) * b;
      if (!in_triangle(triangle, i, F.col_ind[k])) continue;
      // T_ij x_j into row i, or (Tᵀ)_ji x_i = T_ijᵀ x_i into row j.
      const Offset from = transposed ? at : j, to = transposed ? j : at;
      multiply_add(&F.values[k * bb], &x[from], &out.product[to], b, transposed, 1.0, false);
      multiply_add(&F.values[k * bb], &magnitude[from], &out.bound[to], b, transposed, 1.0, true);
    }
    if (diagonal == Diagonal::Unit) {
      for (int c = 0; c < b; ++c)
        out.product[at + c] += x[at + c], out.bound[at + c] += magnitude[at + c];
    } else {
      multiply_add(pivot_block(h, i), &x[at], &out.product[at], b, transposed, 1.0, false);
      add_pivot_bound(h, i, &magnitude[at], &out.bound[at], transposed);
    }
  }
  return out;
}

ProductAndBound preconditioner_product(const HostFactors& h, const std::vector<double>& z,
                                       bool transposed) {
  // The factors applied right to left: M z = L(D(U z)) or L(U z); Mᵀ z = Uᵀ(Dᵀ(Lᵀ z)) or
  // Uᵀ(Lᵀ z). Each stage maps the product on and, separately, the (nonnegative) bound.
  enum class Stage { Lower, Pivots, Upper, UpperWithPivots };
  std::vector<Stage> stages;
  const bool ilu = h.form == IluForm::Ilu0;
  if (transposed)
    stages = {Stage::Lower, Stage::Pivots, Stage::Upper};
  else
    stages = {Stage::Upper, Stage::Pivots, Stage::Lower};
  if (ilu) {
    stages.erase(stages.begin() + 1);
    for (auto& stage : stages)
      if (stage == Stage::Upper) stage = Stage::UpperWithPivots;
  }
  const auto apply = [&](Stage stage, const std::vector<double>& v) {
    switch (stage) {
      case Stage::Lower:
        return triangular_product(h, Triangle::Lower, Diagonal::Unit, v, transposed);
      case Stage::Upper:
        return triangular_product(h, Triangle::Upper, Diagonal::Unit, v, transposed);
      case Stage::UpperWithPivots:
        return triangular_product(h, Triangle::Upper, Diagonal::Pivots, v, transposed);
      case Stage::Pivots:
        break;
    }
    return pivot_product(h, v, transposed);
  };
  ProductAndBound out{z, abs_of(z)};
  for (const Stage stage : stages) {
    out.product = apply(stage, out.product).product;
    out.bound = apply(stage, out.bound).bound;
  }
  return out;
}

}  // namespace fgdd::reference
