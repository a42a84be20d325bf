// The Crout sweep of a level run over independent subtrees (independent_subtrees.hpp) on the
// host's threads: each subtree swept on its own principal submatrix, its parent adopting both
// children before its separator's steps, the root last. The factors are the same bits as one
// sweep in order, whatever the threads or the depth.
#pragma once

#include "multilevel/crout_sweep.hpp"

namespace fgdd::detail {

// Runs every step of root (a sweep over A, no step run yet) and returns the pivots shifted.
// root.options.subtree_depth: how many times subtrees are split (-1: enough for the host
// execution space's threads, 0: root.run_steps alone), none below min_subtree_rows.
Offset sweep_by_subtrees(CroutSweep& root);

}  // namespace fgdd::detail
