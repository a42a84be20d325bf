#include "trilinos/preconditioner_factory.hpp"

#include "trilinos/dd_preconditioner.hpp"

#include <Ifpack2_Factory.hpp>

#include <algorithm>
#include <cctype>

namespace fgdd::trilinos {

Teuchos::RCP<IfpackPreconditioner> create_preconditioner(const std::string& name,
                                                         const Teuchos::RCP<const RowMatrix>& A) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == fgdd_preconditioner_name) return Teuchos::rcp(new DdPreconditioner(A));
  return Ifpack2::Factory::create<RowMatrix>(name, A);
}

}  // namespace fgdd::trilinos
