#!/usr/bin/env bash
# Sets up, builds and runs amp-opt's default pipeline on the bundled MLP
# training step, printing the mixed-precision IR and the pass statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build=${AMP_BUILD_DIR:-build}
"$build/bin/amp-opt" examples/mlp_train_step.mlir --amp='stats=true'
