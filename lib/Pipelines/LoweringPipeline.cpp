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
#include "amp/Transforms/BlockedConv.h"
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
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::amp {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#define GEN_PASS_DEF_EXPANDARITHPASS
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

/// The math functions amp-approximate-math rewrites (operation names).
static bool isApproximated(StringRef name) {
  return llvm::is_contained({"math.tanh", "math.exp", "math.expm1", "math.log",
                             "math.log1p", "math.log2", "math.erf"},
                            name);
}

namespace {

/// Fuses an elementwise linalg.generic producer whose result is also
/// returned into its linalg.generic consumer, the fused op yielding the
/// producer's result too (upstream's fuseElementwiseOps keeps it as an extra
/// result; its pattern only rewrites the consumer's use, and leaves the
/// producer for the other uses, which would compute it twice). An
/// optimizer's new momentum is such a result: returned, and read by the
/// weight update, which then computes it in the same loop instead of
/// reading it back (MLP step: 16 MB less traffic per 2048x2048 weight).
struct FuseReturnedProducer final : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern<linalg::GenericOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
      if (!producer || producer->hasOneUse() ||
          producer->getBlock() != consumer->getBlock())
        continue;
      // Every other use is a return of the consumer's block (after it).
      bool onlyReturned = llvm::all_of(producer->getUses(), [&](OpOperand &u) {
        return u.getOwner() == consumer.getOperation() ||
               (isa<func::ReturnOp>(u.getOwner()) &&
                u.getOwner()->getBlock() == consumer->getBlock());
      });
      if (!onlyReturned || !linalg::areElementwiseOpsFusable(&operand))
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        continue;
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }
};

/// True if every use of `v` is a tensor.extract (what a gather in a
/// linalg body reads), so that rewriting them leaves `v` dead.
static bool onlyExtracted(Value v) {
  return llvm::all_of(v.getUsers(), llvm::IsaPred<tensor::ExtractOp>);
}

/// Computes the element a `tensor.extract` reads from an elementwise linalg
/// op (a generic, a transpose) from the op's inputs, so that the op's
/// whole tensor is not materialized for a gather. torch-mlir's max-pool
/// indices read the padded input with tensor.extract inside their body; in
/// bf16 the painting widens that input first, and amp-block-convs moves
/// the widening into the blocked layout: an 8x64x114x114 f32 tensor for
/// resnet18's stem (27 MB), written and transposed once per step to be
/// compared with the maximum. Upstream's elementwise fusion goes through
/// indexing maps, which a body's tensor.extract is not. Only ops whose
/// every use is such an extract, with an identity output map,
/// projected-permutation input maps, no linalg.index and a body that does
/// not read its init.
struct ExtractFromElementwiseProducer final
    : public OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern<tensor::ExtractOp>::OpRewritePattern;

  static bool isFoldable(linalg::LinalgOp producer) {
    if (producer.getNumDpsInits() != 1 || producer.hasIndexSemantics() ||
        producer.getNumParallelLoops() != producer.getNumLoops() ||
        !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
             .isIdentity() ||
        producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)))
      return false;
    for (OpOperand *input : producer.getDpsInputOperands())
      if (!isa<RankedTensorType>(input->get().getType()) ||
          !producer.getMatchingIndexingMap(input).isProjectedPermutation())
        return false;
    return onlyExtracted(producer->getResult(0));
  }

  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    auto producer = extract.getTensor().getDefiningOp<linalg::LinalgOp>();
    if (!producer || !isFoldable(producer))
      return failure();
    Block *body = producer.getBlock();
    IRMapping mapping;
    for (OpOperand *input : producer.getDpsInputOperands()) {
      AffineMap map = producer.getMatchingIndexingMap(input);
      SmallVector<Value> indices;
      for (AffineExpr result : map.getResults())
        indices.push_back(
            extract.getIndices()[cast<AffineDimExpr>(result).getPosition()]);
      Value element = tensor::ExtractOp::create(rewriter, extract.getLoc(),
                                                input->get(), indices);
      mapping.map(producer.getMatchingBlockArgument(input), element);
    }
    for (Operation &op : body->without_terminator())
      rewriter.clone(op, mapping);
    Value yielded = body->getTerminator()->getOperand(0);
    rewriter.replaceOp(extract, mapping.lookupOrDefault(yielded));
    return success();
  }
};

/// extract(extract_slice(x)) -> extract(x) at offset + index * stride, and
/// extract(collapse_shape(x)) -> extract(x) at the delinearized index, when
/// the slice or collapse is only extracted from: the layout changes between
/// a widening and the gather that reads it (above).
struct ExtractThroughLayout final : public OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern<tensor::ExtractOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    Location loc = extract.getLoc();
    Value source = extract.getTensor();
    if (!onlyExtracted(source))
      return failure();
    auto constant = [&](int64_t c) {
      return arith::ConstantIndexOp::create(rewriter, loc, c).getResult();
    };
    SmallVector<Value> indices;
    if (auto slice = source.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (slice.getSourceType().getRank() != slice.getType().getRank() ||
          ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
          ShapedType::isDynamicShape(slice.getStaticStrides()))
        return failure();
      for (auto [index, offset, stride] :
           llvm::zip(extract.getIndices(), slice.getStaticOffsets(),
                     slice.getStaticStrides())) {
        Value i = index;
        if (stride != 1)
          i = arith::MulIOp::create(rewriter, loc, i, constant(stride));
        if (offset != 0)
          i = arith::AddIOp::create(rewriter, loc, i, constant(offset));
        indices.push_back(i);
      }
      rewriter.replaceOpWithNewOp<tensor::ExtractOp>(extract, slice.getSource(),
                                                     indices);
      return success();
    }
    auto collapse = source.getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse || !collapse.getSrcType().hasStaticShape())
      return failure();
    ArrayRef<int64_t> sizes = collapse.getSrcType().getShape();
    for (auto [index, group] :
         llvm::zip(extract.getIndices(), collapse.getReassociationIndices())) {
      SmallVector<Value> parts(group.size());
      Value rest = index;
      for (int64_t j = group.size() - 1; j > 0; --j) {
        Value size = constant(sizes[group[j]]);
        parts[j] = arith::RemUIOp::create(rewriter, loc, rest, size);
        rest = arith::DivUIOp::create(rewriter, loc, rest, size);
      }
      parts[0] = rest;
      llvm::append_range(indices, parts);
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(extract, collapse.getSrc(),
                                                   indices);
    return success();
  }
};

/// amp-fuse-elementwise: upstream's elementwise fusion without reshape
/// propagation, never into a named op.
struct FuseElementwisePass
    : public amp::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // Fuse a single-use producer into a linalg.generic consumer only: never
    // into a named contraction or convolution (amp-lower-to-runtime's ops),
    // and never the rounding of such an op's result, which the runtime call
    // absorbs: the library then writes the 16-bit result, and the consumer
    // reads half the bytes.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             isa<linalg::GenericOp>(fused->getOwner()) &&
             !fused->getOwner()->hasAttr(kBlockedConvAttrName) &&
             !amp::isRoundingOfLibraryResult(producer);
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    patterns.add<FuseReturnedProducer, ExtractFromElementwiseProducer,
                 ExtractThroughLayout>(context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(
            getOperation(), std::move(patterns),
            GreedyRewriteConfig().setUseTopDownTraversal())))
      return signalPassFailure();
  }
};

/// amp-approximate-math: upstream's polynomial approximations of the
/// functions isApproximated() names, in f32.
struct ApproximateMathPass
    : public amp::impl::ApproximateMathPassBase<ApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathF32ExpansionPatterns(patterns, isApproximated);
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

/// Whether amp-expand-arith leaves `op` to LLVM: a float min / max on f32
/// or f64 (scalars or vectors).
static bool isMinMaxLLVMVectorizes(Operation *op) {
  if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp>(op))
    return false;
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  return element.isF32() || element.isF64();
}

/// amp-expand-arith: upstream's arith expansions, except for the f32 / f64
/// min / max ops, which stay whole for LLVM's intrinsics.
struct ExpandArithPass
    : public amp::impl::ExpandArithPassBase<ExpandArithPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateArithExpandOpsPatterns(patterns);
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (op->getName().getDialectNamespace() ==
              arith::ArithDialect::getDialectNamespace() &&
          !isMinMaxLLVMVectorizes(op))
        ops.push_back(op);
    });
    // Only those ops: the expansions create nothing that needs expanding.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace

namespace {

/// What the lowering's options switch on, resolved once.
struct LoweringStages {
  bool fast, runtime, parallel, donateState, blockConvs;
  unsigned threads;

  explicit LoweringStages(const AmpLowerToLLVMOptions &options)
      : fast(options.fast), runtime(options.runtime || options.fast),
        // fast implies parallel unless threads=1 asks for serial loops.
        parallel(options.parallel || (options.fast && options.threads != 1)),
        donateState(options.donateState), blockConvs(options.blockConvs),
        threads(options.threads) {}
};

} // namespace

/// Tensors. arith / math ops on whole tensors (AMP's casts) become
/// linalg.generic; the fast variant then fuses chains of elementwise
/// generics into one loop nest, so that no buffer is allocated between
/// them, folds splat constants into the bodies, and lets contractions read
/// transposed operands in place.
static void addTensorStages(OpPassManager &pm, const LoweringStages &on) {
  pm.addPass(createConvertElementwiseToLinalgPass());
  if (on.fast) {
    // Convolutions of which only a slice is read compute that slice.
    pm.addPass(createShrinkSlicedConvsPass());
    // Per-sample weight gradients summed over the batch: one convolution.
    pm.addPass(createUngroupSummedConvsPass());
    // NCHW convolution chains keep oneDNN's blocked layout between the
    // library calls (amp-lower-to-runtime's nchw16c entry points).
    if (on.blockConvs)
      pm.addPass(createBlockConvsPass());
    pm.addPass(createFuseElementwisePass());
    pm.addPass(createFoldTransposesIntoContractionsPass());
    pm.addPass(createCanonicalizerPass());
    // torch-mlir's backward re-expresses one value many times (the max-pool
    // indices are blocked once per window position); CSE keeps one. The
    // `linalg.fill`s it merges are split again per init right after.
    pm.addPass(createCSEPass());
    pm.addPass(createPrepareDestinationsPass());
  }
  if (on.donateState)
    pm.addNestedPass<func::FuncOp>(createUpdateStateInPlacePass());
  // fast: weight-shaped elementwise ops run one long loop instead of many
  // 3-long ones; transposes that move the contiguous dimension run in
  // blocks.
  if (on.fast) {
    pm.addPass(createCollapseContiguousDimsPass());
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
  // fast: min / max stay whole for the vectorizer (amp-expand-arith).
  if (on.fast) {
    pm.addPass(createApproximateMathPass());
    pm.addPass(createExpandArithPass());
  } else {
    pm.addPass(arith::createArithExpandOpsPass());
  }
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
