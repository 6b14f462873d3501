// Invalid options fail with a message that names the valid values.
// RUN: not amp-opt %s --amp-loss-scaling='mode=adaptive' 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: amp-opt: for the --mode option: unknown mode 'adaptive' (expected dynamic, static or none)
// RUN: not amp-opt %s --amp-loss-scaling='state=memory' 2>&1 | FileCheck %s --check-prefix=STATE
// STATE: amp-opt: for the --state option: unknown state 'memory' (expected args or globals)
// RUN: not amp-opt %s --amp-loss-scaling='init-scale=0' 2>&1 | FileCheck %s --check-prefix=INIT
// INIT: error: amp-loss-scaling: init-scale must be a finite f32 > 0 (got 0)
// RUN: not amp-opt %s --amp-loss-scaling='init-scale=-8' 2>&1 | FileCheck %s --check-prefix=INIT-NEG
// INIT-NEG: error: amp-loss-scaling: init-scale must be a finite f32 > 0 (got -8)
// RUN: not amp-opt %s --amp-loss-scaling='init-scale=1e39' 2>&1 | FileCheck %s --check-prefix=INIT-BIG
// INIT-BIG: error: amp-loss-scaling: init-scale must be a finite f32 > 0 (got 1e+39)
// RUN: not amp-opt %s --amp-loss-scaling='growth-factor=1' 2>&1 | FileCheck %s --check-prefix=GROWTH
// GROWTH: error: amp-loss-scaling: growth-factor must be > 1 (got 1)
// RUN: not amp-opt %s --amp-loss-scaling='backoff-factor=1' 2>&1 | FileCheck %s --check-prefix=BACKOFF
// BACKOFF: error: amp-loss-scaling: backoff-factor must be in (0, 1) (got 1)
// RUN: not amp-opt %s --amp-loss-scaling='backoff-factor=0' 2>&1 | FileCheck %s --check-prefix=BACKOFF0
// BACKOFF0: error: amp-loss-scaling: backoff-factor must be in (0, 1) (got 0)
// RUN: not amp-opt %s --amp-loss-scaling='growth-interval=0' 2>&1 | FileCheck %s --check-prefix=INTERVAL
// INTERVAL: error: amp-loss-scaling: growth-interval must be in [1, 2147483647] (got 0)
// RUN: not amp-opt %s --amp-loss-scaling='growth-interval=3000000000' 2>&1 | FileCheck %s --check-prefix=INTERVAL-BIG
// INTERVAL-BIG: error: amp-loss-scaling: growth-interval must be in [1, 2147483647] (got 3000000000)
// RUN: not amp-opt %s --amp-loss-scaling='min-scale=0' 2>&1 | FileCheck %s --check-prefix=MIN
// MIN: error: amp-loss-scaling: min-scale must be a finite f32 > 0 (got 0)
// RUN: not amp-opt %s --amp-loss-scaling='min-scale=1024 max-scale=512' 2>&1 | FileCheck %s --check-prefix=MINMAX
// MINMAX: error: amp-loss-scaling: min-scale (1024) must not exceed max-scale (512)
// Unknown option names are rejected by the pass-option parser.
// RUN: not amp-opt %s --amp-loss-scaling='scale=8' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: no such option scale
// The --amp pipeline passes its loss-scaling options through.
// RUN: not amp-opt %s --amp='loss-scaling=always' 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: amp-opt: for the --loss-scaling option: unknown loss-scaling 'always' (expected dynamic, static, none or auto)
// RUN: not amp-opt %s --amp='state=disk' 2>&1 | FileCheck %s --check-prefix=PIPELINE-STATE
// PIPELINE-STATE: amp-opt: for the --state option: unknown state 'disk' (expected args or globals)

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
