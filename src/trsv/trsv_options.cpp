#include "trsv/trsv_options.hpp"

#include "core/errors.hpp"
#include "core/types.hpp"

#include <array>
#include <utility>

namespace fgdd {

namespace {

constexpr std::array<std::pair<TriangularKernel, const char*>, 6> triangular_names{{
    {TriangularKernel::SpinLoopLds, "spin_loop_lds"},
    {TriangularKernel::DagEcNoLds, "dag_ec_no_lds"},
    {TriangularKernel::DagEcLds, "dag_ec_lds"},
    {TriangularKernel::DagEcLdsUd, "dag_ec_lds_ud"},
    {TriangularKernel::DagVcLds, "dag_vc_lds"},
    {TriangularKernel::DagLanesLds, "dag_lanes_lds"},
}};

constexpr std::array<std::pair<ApplyKernel, const char*>, 5> apply_names{{
    {ApplyKernel::Auto, "auto"},
    {ApplyKernel::DagEcIldU0, "dag_ec_ILD_U0"},
    {ApplyKernel::DagVcIlduFused, "dag_vc_ILDU0_fused"},
    {ApplyKernel::DagEcIlduFused, "dag_ec_ILDU0_fused"},
    {ApplyKernel::DagLanesIlduFused, "dag_lanes_ILDU0_fused"},
}};

template <class Kernel, std::size_t N>
std::string name_of(const std::array<std::pair<Kernel, const char*>, N>& names, Kernel kernel) {
  for (const auto& [k, name] : names)
    if (k == kernel) return name;
  return "unknown";
}

template <class Kernel, std::size_t N>
Kernel parse(const std::array<std::pair<Kernel, const char*>, N>& names, const std::string& text,
             const char* what) {
  std::string valid;
  for (const auto& [k, name] : names) {
    if (text == name) return k;
    valid += valid.empty() ? name : std::string(", ") + name;
  }
  throw InvalidInput("unknown " + std::string(what) + " '" + text + "' (valid: " + valid + ")");
}

}  // namespace

std::string to_string(TriangularKernel kernel) { return name_of(triangular_names, kernel); }
ApplyKernel resolve_auto(ApplyKernel kernel) {
  if (kernel != ApplyKernel::Auto) return kernel;
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  return host ? ApplyKernel::DagVcIlduFused : ApplyKernel::DagEcIlduFused;
}

std::string to_string(ApplyKernel kernel) { return name_of(apply_names, kernel); }

TriangularKernel parse_triangular_kernel(const std::string& name) {
  return parse(triangular_names, name, "triangular solve kernel");
}

ApplyKernel parse_apply_kernel(const std::string& name) {
  return parse(apply_names, name, "preconditioner apply kernel");
}

}  // namespace fgdd
