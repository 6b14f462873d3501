// mode=auto: the low type is what pays on the target (target-aware
// precision, docs/passes.md): bf16 where there are bf16 dot products, f16
// storage where a CPU only has F16C conversions and IREE compiles the
// output (emit=iree), f16 on a GPU with f16 Tensor Cores only, nothing
// (f32, no rewrite) where nothing pays. The
// CPU's features are given with cpu-features so that the test does not
// depend on the machine; without it, the host's are read.

// AVX512_BF16 (Zen 4 / Zen 5), or AMX: bf16.
// RUN: amp-opt %s --amp='mode=auto target=cpu cpu-features=avx512f,avx512bf16,f16c' | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp='mode=auto cpu-features=amx-bf16' | FileCheck %s --check-prefix=BF16
// BF16-LABEL: func.func @step
// BF16: arith.truncf %{{.+}} : tensor<64x64xf32> to tensor<64x64xbf16>
// BF16: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%{{.+}} : tensor<64x64xf32>)
// BF16-NOT: xf16>

// AVX2 + F16C only (Zen 1), or AVX-512 without AVX512_BF16: f16 storage
// for IREE; for amp-opt's own lowering, which widens 16-bit operands on
// every contraction, nothing pays.
// RUN: amp-opt %s --amp='mode=auto target=cpu cpu-features=avx2,fma,f16c emit=iree' | FileCheck %s --check-prefix=F16-IREE
// F16-IREE-LABEL: func.func @step
// F16-IREE: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x64xf16>, tensor<64x64xf16>) outs(%{{.+}} : tensor<64x64xf32>)
// With AVX-512 but no AVX512_BF16, IREE's f32 matmuls win: f32 there too.
// RUN: amp-opt %s --amp='mode=auto target=cpu cpu-features=avx512f,avx2,fma,f16c emit=iree' 2>&1 | FileCheck %s --check-prefix=AVX512-IREE
// AVX512-IREE: remark: amp-auto-mixed-precision: mode=auto target=cpu: f32, nothing rewritten (the CPU converts f16 (F16C) but has no low-precision arithmetic, and IREE's AVX-512 f32 matmuls outrun f16 storage there: nothing pays, the program stays f32)
// AVX512-IREE-NOT: xf16>
// RUN: amp-opt %s --amp='mode=auto target=cpu cpu-features=avx2,fma,f16c' 2>&1 | FileCheck %s --check-prefix=F16C-MLIR
// F16C-MLIR: remark: amp-auto-mixed-precision: mode=auto target=cpu: f32, nothing rewritten (the CPU converts f16 (F16C) but has no low-precision arithmetic, and amp-opt's lowering widens 16-bit operands to f32 on every contraction: nothing pays, the program stays f32 (emit=iree keeps f16 storage))
// F16C-MLIR-LABEL: func.func @step
// F16C-MLIR-NOT: truncf
// F16C-MLIR: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x64xf32>, tensor<64x64xf32>)
// F16-LABEL: func.func @step
// F16: arith.truncf %{{.+}} : tensor<64x64xf32> to tensor<64x64xf16>
// F16: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x64xf16>, tensor<64x64xf16>) outs(%{{.+}} : tensor<64x64xf32>)

// Neither: the program stays f32, the remark says why, and nothing is
// rewritten (the markers go, as in any --amp run).
// RUN: amp-opt %s --amp='mode=auto cpu-features=sse2' 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: remark: amp-auto-mixed-precision: mode=auto target=cpu: f32, nothing rewritten (the CPU has neither bf16 dot products nor F16C conversions: nothing pays, the program stays f32)
// NONE-LABEL: func.func @step
// NONE-NOT: truncf
// NONE-NOT: amp.grad_seed
// NONE: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x64xf32>, tensor<64x64xf32>)

// GPU presets: V100 has f16 Tensor Cores only, A100 / H100 bf16 ones too.
// RUN: amp-opt %s --amp='mode=auto target=v100' | FileCheck %s --check-prefix=F16
// RUN: amp-opt %s --amp='mode=auto target=h100' | FileCheck %s --check-prefix=BF16
// The choice and its reason, under explain (and stats).
// RUN: amp-opt %s --amp='mode=auto target=a100 explain=true' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WHY
// WHY: remark: amp-auto-mixed-precision: mode=auto target=a100: bf16 (a100 has bf16 Tensor Cores at the f16 rate: bf16, f32's range, no loss scaling needed)
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=auto cpu-features=f16c emit=iree' --mlir-pass-statistics -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PASS
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=auto cpu-features=f16c emit=iree explain=true' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PASS-WHY
// PASS-NOT: remark: amp-auto-mixed-precision: mode=auto
// PASS-WHY: remark: amp-auto-mixed-precision: mode=auto target=cpu: f16 (the CPU converts f16 (F16C) but has no low-precision arithmetic: f16 storage halves the bytes IREE's data-tiled matmuls read, the arithmetic stays f32)

// The host: whatever it has, the output verifies and its choice is one of
// the three.
// RUN: amp-opt %s --amp='mode=auto explain=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST
// HOST: remark: amp-auto-mixed-precision: mode=auto target=cpu: {{bf16|f16|f32, nothing rewritten}} (the host CPU

// Bad options: one line each, before any IR is touched.
// RUN: not amp-opt %s --amp='mode=auto target=tpu' 2>&1 | FileCheck %s --check-prefix=BAD-TARGET
// BAD-TARGET: amp-opt: for the --target option: unknown target 'tpu' (expected v100, a100, h100 or cpu)
// BAD-TARGET-NOT: func.func
// RUN: not amp-opt %s --amp-auto-mixed-precision='mode=bf16 cpu-features=f16c' 2>&1 | FileCheck %s --check-prefix=NOT-AUTO
// NOT-AUTO: error: amp-auto-mixed-precision: target and cpu-features choose the type of mode=auto (and target what emit=iree keeps f32); mode is 'bf16'
// RUN: not amp-opt %s --amp='mode=auto target=cpu summary=true' 2>&1 | FileCheck %s --check-prefix=CPU-REPORT
// CPU-REPORT: error: amp-report-write: the report's step-time estimate has GPU presets only (v100, a100 or h100); with mode=auto target=cpu, leave out report=, summary=true and dot=
// CPU-REPORT-NOT: func.func

func.func @step(%x: tensor<64x64xf32> {amp.role = "input"},
                %w: tensor<64x64xf32> {amp.role = "param"})
    -> (tensor<f32> {amp.role = "loss"}, tensor<64x64xf32> {amp.role = "grad"}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>)
      outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s0 = tensor.empty() : tensor<f32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%y : tensor<64x64xf32>) outs(%s1 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) {
      %t = arith.addf %a, %acc : f32
      linalg.yield %t : f32
    }
  %seed = amp.grad_seed %l : tensor<f32>
  %g = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>)
      outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %l, %g : tensor<f32>, tensor<64x64xf32>
}
