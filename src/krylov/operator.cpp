#include "krylov/operator.hpp"

#include "core/errors.hpp"
#include "core/spmv.hpp"

namespace fgdd {

void Operator::apply_transpose(const ExecSpace&, ConstVector, Vector) const {
  throw InvalidInput("operator '" + name() + "' has no transpose apply");
}

void MatrixOperator::apply(const ExecSpace& space, ConstVector x, Vector y) const {
  spmv(space, A_, x, y);
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
