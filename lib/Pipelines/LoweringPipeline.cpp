//===- LoweringPipeline.cpp - The amp-lower-to-llvm pipeline --------------===//
//
// The one lowering of amp-opt's programs (func / arith / math / tensor /
// linalg / scf on static tensors) to the LLVM dialect, used by amp-run (in
// process, through buildAmpLowerToLLVMPipeline) and by
// scripts/lower-to-llvm.sh (through amp-opt --amp-lower-to-llvm). See
// docs/lowering.md.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Pipelines/Pipelines.h"
#include "amp/Transforms/HostVectorWidth.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

/// What the lowering's options switch on, resolved once.
struct LoweringStages {
  bool fast, runtime, parallel, donateState, blockConvs, expandBf16;
  bool widenBf16, widenF16, widenInTrainingSteps;
  unsigned threads;

  explicit LoweringStages(const AmpLowerToLLVMOptions &options)
      : fast(options.fast), runtime(options.runtime || options.fast),
        // fast implies parallel unless threads=1 asks for serial loops.
        parallel(options.parallel || (options.fast && options.threads != 1)),
        donateState(options.donateState), blockConvs(options.blockConvs),
        expandBf16(expandsBf16(options.bf16Conversions)),
        widenBf16(fast &&
                  widens(options.lowContractions, !hostHasBf16Conversions())),
        widenF16(fast && widens(options.lowContractions, true)),
        // auto: not in training steps, where it was measured slower.
        widenInTrainingSteps(options.lowContractions ==
                             LowContractionsOption::Widen),
        threads(options.threads) {}

  /// Whether the inputs of a 16-bit type the host has no dot products for
  /// (`noDotProducts`) are widened in the IR.
  static bool widens(LowContractionsOption option, bool noDotProducts) {
    switch (option) {
    case LowContractionsOption::Library:
      return false;
    case LowContractionsOption::Widen:
      return true;
    case LowContractionsOption::Auto:
      return noDotProducts;
    }
    llvm_unreachable("unknown low-contractions value");
  }

  /// Without AVX512_BF16 LLVM rounds f32 to bf16 with a __truncsfbf2 call
  /// per element (scalarizing vector code); upstream's integer expansion
  /// vectorizes. With it, vcvtneps2bf16 is one instruction.
  static bool expandsBf16(Bf16ConversionsOption option) {
    switch (option) {
    case Bf16ConversionsOption::Native:
      return false;
    case Bf16ConversionsOption::Expand:
      return true;
    case Bf16ConversionsOption::Auto:
      return !hostHasBf16Conversions();
    }
    llvm_unreachable("unknown bf16-conversions value");
  }
};

} // namespace

/// Tensors. arith / math ops on whole tensors (AMP's casts) become
/// linalg.generic; the fast variant then fuses chains of elementwise
/// generics into one loop nest, so that no buffer is allocated between
/// them, folds splat constants into the bodies, and lets contractions read
/// transposed operands in place.
static void addTensorStages(OpPassManager &pm, const LoweringStages &on) {
  pm.addPass(createConvertElementwiseToLinalgPass());
  // math.fpowi (torch-mlir's `x ** 2`, in layer norms' and losses'
  // gradients) becomes multiplications where the exponent is a constant
  // and powf elsewhere (upstream's expansion): the LLVM dialect's powi
  // takes a scalar exponent, so a vectorized fpowi (fast's
  // amp-vectorize-elementwise) had no lowering.
  math::MathExpandOpsPassOptions expandPowi;
  expandPowi.opMnemonics = {"fpowi"};
  pm.addPass(math::createMathExpandOpsPass(expandPowi));
  if (on.fast) {
    // Convolutions of which only a slice is read compute that slice.
    pm.addPass(createShrinkSlicedConvsPass());
    // Per-sample weight gradients summed over the batch: one convolution.
    pm.addPass(createUngroupSummedConvsPass());
    // NCHW convolution chains keep oneDNN's blocked layout between the
    // library calls (amp-lower-to-runtime's nchw16c entry points).
    if (on.blockConvs)
      pm.addPass(createBlockConvsPass());
    // 16-bit inputs the library would widen call by call: widened here, so
    // that the extension fuses into their producers.
    if (on.widenBf16 || on.widenF16) {
      WidenRuntimeInputsPassOptions widen;
      widen.bf16 = on.widenBf16;
      widen.f16 = on.widenF16;
      widen.trainingSteps = on.widenInTrainingSteps;
      pm.addNestedPass<func::FuncOp>(createWidenRuntimeInputsPass(widen));
    }
    pm.addPass(createFuseElementwisePass());
    pm.addPass(createFoldTransposesIntoContractionsPass());
    pm.addPass(createCanonicalizerPass());
    // torch-mlir's backward re-expresses one value many times (the max-pool
    // indices are blocked once per window position); CSE keeps one. The
    // `linalg.fill`s it merges are split again per init right after.
    pm.addPass(createCSEPass());
    pm.addPass(createPrepareDestinationsPass());
  }
  // fast: long sums in blocks, after the fusion so that a fused producer
  // is summed in blocks too. (The reference pipeline stays upstream passes
  // only, its loops summing in one chain.)
  if (on.fast)
    pm.addNestedPass<func::FuncOp>(createSplitReductionsPass());
  if (on.donateState)
    pm.addNestedPass<func::FuncOp>(createUpdateStateInPlacePass());
  // fast: weight-shaped elementwise ops run one long loop instead of many
  // 3-long ones; transposes that move the contiguous dimension run in
  // blocks.
  if (on.fast) {
    pm.addNestedPass<func::FuncOp>(createCollapseContiguousDimsPass());
    pm.addPass(createOrderTransposeLoopsPass());
  }
  // parallel: every big loop nest that stays becomes one chunk per thread.
  if (on.parallel) {
    TileForThreadsPassOptions tile;
    tile.numThreads = on.threads;
    pm.addPass(createTileForThreadsPass(tile));
  }
}

/// Buffers, and the contractions on them to libamp_rt.
static void addBufferStages(OpPassManager &pm, const LoweringStages &on) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // An scf.for whose body computes a new tensor (not its iter_arg updated
  // in place) is valid IR: its yield gets a fresh buffer (and the ownership
  // deallocation frees the previous one) instead of an error.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  if (on.runtime) {
    LowerToRuntimePassOptions lowerOptions;
    lowerOptions.includeF32 = on.fast;
    pm.addPass(createLowerToRuntimePass(lowerOptions));
  }
  // parallel: bufferizing a chunk's tensor.parallel_insert_slice copies the
  // chunk onto itself (two equal subviews), and so does a slice insertion
  // of amp-prepare-destinations (fast); CSE makes them one value and the
  // canonicalizer then drops the self-copy.
  if (on.parallel || on.fast)
    pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  // Upstream's buildBufferDeallocationPipeline, with
  // amp-return-donated-buffers where it must run: after the simplification
  // (which leaves the clones of updated donated arguments returned and
  // retained by one bufferization.dealloc) and before the deallocs are
  // lowered to pointer comparisons that would read the clones too.
  pm.addPass(memref::createExpandReallocPass(
      memref::ExpandReallocPassOptions{/*emitDeallocs=*/false}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  if (on.donateState)
    pm.addNestedPass<func::FuncOp>(createReturnDonatedBuffersPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Ownership-based deallocation frees every temporary at the end of its
  // block, so a step's peak memory was the sum of all its temporaries; each
  // is freed right after its last use instead, and the allocator hands the
  // memory to the next one while it is still in cache.
  pm.addNestedPass<func::FuncOp>(
      bufferization::createOptimizeAllocationLivenessPass());
  // parallel: the copies bufferization made and the fills left whole run
  // one chunk per thread too.
  if (on.parallel) {
    TileForThreadsPassOptions tile;
    tile.numThreads = on.threads;
    tile.buffers = true;
    pm.addPass(createTileForThreadsPass(tile));
  }
}

/// Loops. parallel: the chunks of amp-tile-for-threads become OpenMP
/// work-sharing loops; the linalg ops inside each chunk stay serial loop
/// nests. expand-strided-metadata emits affine.apply for the offsets and
/// sizes of subviews and reshapes, so it runs before lower-affine.
static void addLoopStages(OpPassManager &pm, const LoweringStages &on) {
  if (on.parallel)
    pm.addPass(createForallToParallelLoopPass());
  // fast: elementwise loop nests become vector code here rather than
  // scalar loops that LLVM may vectorize only behind an overlap check.
  if (on.fast)
    pm.addNestedPass<func::FuncOp>(createVectorizeElementwisePass());
  pm.addPass(createConvertLinalgToLoopsPass());
  if (on.parallel) {
    pm.addPass(createConvertSCFToOpenMPPass());
    // Inlines the memref.alloca_scope that wraps each work-sharing loop's
    // body (nothing is alloca'd in it): an alloca_scope must stay one block,
    // which convert-scf-to-cf would break.
    pm.addPass(createCanonicalizerPass());
  }
  // fast: full-width vectors on the innermost loops (convert-scf-to-cf
  // keeps the hint on the back edge).
  if (on.fast)
    pm.addPass(createAnnotateVectorLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
}

static void addLLVMStages(OpPassManager &pm, const LoweringStages &on) {
  // Without bf16 conversion instructions, LLVM computes a bf16 add, max or
  // math op in f32 and rounds the result with a __truncsfbf2 call per
  // element. Upstream's emulations make those f32 ops between extf / truncf
  // here, and the expansion below turns the conversions into vector integer
  // code.
  if (on.expandBf16) {
    // f16 stays: F16C rounds in one instruction (and upstream's extension
    // leaves a fastmath attribute on the llvm.fpext it becomes).
    math::MathExtendToSupportedTypesOptions math;
    math.extraTypeStrs = {"f16"};
    pm.addPass(math::createMathExtendToSupportedTypes(math));
    arith::ArithEmulateUnsupportedFloatsOptions emulate;
    emulate.sourceTypeStrs = {"bf16"};
    pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  }
  // fast: min / max stay whole for the vectorizer (amp-expand-arith).
  if (on.fast) {
    pm.addPass(createApproximateMathPass());
    ExpandArithPassOptions expand;
    expand.includeBf16 = on.expandBf16;
    pm.addPass(createExpandArithPass(expand));
  } else {
    arith::ArithExpandOpsPassOptions expand;
    expand.includeBf16 = on.expandBf16;
    pm.addPass(arith::createArithExpandOpsPass(expand));
  }
  // fast: amp-vectorize-elementwise's vector loads, stores and broadcasts.
  if (on.fast)
    pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  if (on.parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // fast: the expanded roundings' bf16 vectors are stored as their i16
  // bits (LLVM scalarizes a stored <N x bfloat> without AVX512_BF16). The
  // reference pipeline stays upstream passes only.
  if (on.fast && on.expandBf16)
    pm.addPass(createStoreBf16BitsPass());
}

void mlir::amp::buildAmpLowerToLLVMPipeline(
    OpPassManager &pm, const AmpLowerToLLVMOptions &options) {
  LoweringStages on(options);
  addTensorStages(pm, on);
  addBufferStages(pm, on);
  addLoopStages(pm, on);
  addLLVMStages(pm, on);
}

void mlir::amp::registerAmpLoweringPipelines() {
  PassPipelineRegistration<AmpLowerToLLVMOptions>(
      "amp-lower-to-llvm",
      "Lower func / arith / math / tensor / linalg / scf on static tensors to "
      "the LLVM dialect (runtime: f16 / bf16 contractions call libamp_rt; "
      "fast: the pipeline of amp-run --fast, with fused loops that LLVM "
      "vectorizes and every contraction in libamp_rt)",
      buildAmpLowerToLLVMPipeline);
}
