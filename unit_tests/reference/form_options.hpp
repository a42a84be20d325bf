// FactorOptions for one IluForm with every other field at its default: the tests' shorthand.
#pragma once

#include "factor/factor_options.hpp"

namespace fgdd::reference {

inline FactorOptions form_options(IluForm form) {
  FactorOptions options;
  options.form = form;
  return options;
}

}  // namespace fgdd::reference
