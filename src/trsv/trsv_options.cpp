#include "trsv/trsv_options.hpp"

#include "core/errors.hpp"
#include "core/types.hpp"

namespace fgdd {

std::string to_string(TriangularKernel kernel) { return triangular_kernel_names.name(kernel); }
ApplyKernel resolve_auto(ApplyKernel kernel) {
  if (kernel != ApplyKernel::Auto) return kernel;
  return host_memory ? ApplyKernel::RowOrderFused : ApplyKernel::DagEcOrderedIlduFused;
}

std::string to_string(ApplyKernel kernel) { return apply_kernel_names.name(kernel); }

std::string to_string(FactorPrecision precision) { return factor_precision_names.name(precision); }

TriangularKernel parse_triangular_kernel(const std::string& name) {
  return triangular_kernel_names.parse(name);
}

ApplyKernel parse_apply_kernel(const std::string& name) { return apply_kernel_names.parse(name); }

}  // namespace fgdd
