#include "krylov/operator.hpp"

#include "core/errors.hpp"
#include "core/spmv.hpp"
#include "krylov/vector_ops.hpp"

namespace fgdd {

std::array<double, 2> Operator::apply_dots(const ExecSpace& space, ConstVector x, Vector y,
                                           ConstVector w) const {
  apply(space, x, y);
  return detail::dots(space, w, y, y, y);
}

void Operator::apply_transpose(const ExecSpace&, ConstVector, Vector) const {
  throw InvalidInput("operator '" + name() + "' has no transpose apply");
}

void MatrixOperator::apply(const ExecSpace& space, ConstVector x, Vector y) const {
  spmv(space, A_, x, y);
}

std::array<double, 2> MatrixOperator::apply_dots(const ExecSpace& space, ConstVector x, Vector y,
                                                 ConstVector w) const {
  if constexpr (host_memory) return host_spmv_dots(space, A_, x, y, w);
  return Operator::apply_dots(space, x, y, w);
}

void MatrixOperator::apply_transpose(const ExecSpace& space, ConstVector x, Vector y) const {
  spmv_transpose(space, A_, x, y);
}

void check_vector_size(const Operator& A, Offset length, const std::string& name) {
  if (length != A.num_rows())
    throw DimensionMismatch("vector " + name + " has length " + std::to_string(length) +
                            " but the operator has " + std::to_string(A.num_rows()) + " rows");
}

}  // namespace fgdd
