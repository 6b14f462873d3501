//===- AnnotateVectorLoops.cpp - Full-width vectorization hints -----------===//
//
// amp-annotate-vector-loops: the loops that stay outside libamp_rt are
// vectorized by LLVM, whose cost model picks narrow vectors for big fused
// bodies and leaves f32 sums along the innermost dimension scalar. An
// explicit `llvm.loop.vectorize.width` on the innermost loops asks for the
// register width (and allows reassociating such sums).
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/HostVectorWidth.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/TargetParser/Host.h"

namespace mlir::amp {
#define GEN_PASS_DEF_ANNOTATEVECTORLOOPSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

unsigned mlir::amp::hostF32Lanes() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f"))
    return 16;
  if (features.lookup("avx2") || features.lookup("avx"))
    return 8;
  return 4;
}

bool mlir::amp::hostHasBf16Conversions() {
  return llvm::sys::getHostCPUFeatures().lookup("avx512bf16");
}

namespace {

struct AnnotateVectorLoopsPass
    : public amp::impl::AnnotateVectorLoopsPassBase<AnnotateVectorLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    unsigned lanes = width ? width : amp::hostF32Lanes();
    if (lanes < 2)
      return;
    MLIRContext *ctx = &getContext();
    auto vectorize = LLVM::LoopVectorizeAttr::get(
        ctx, /*disable=*/BoolAttr::get(ctx, false),
        /*predicateEnable=*/nullptr, /*scalableEnable=*/nullptr,
        /*width=*/IntegerAttr::get(IntegerType::get(ctx, 32), lanes),
        /*followupVectorized=*/nullptr, /*followupEpilogue=*/nullptr,
        /*followupAll=*/nullptr);
    auto annotation = LLVM::LoopAnnotationAttr::get(
        ctx, /*disableNonforced=*/nullptr, vectorize, /*interleave=*/nullptr,
        /*unroll=*/nullptr, /*unrollAndJam=*/nullptr, /*licm=*/nullptr,
        /*distribute=*/nullptr, /*pipeline=*/nullptr, /*peeled=*/nullptr,
        /*unswitch=*/nullptr, /*mustProgress=*/nullptr,
        /*isVectorized=*/nullptr, /*startLoc=*/nullptr, /*endLoc=*/nullptr,
        /*parallelAccesses=*/{});
    getOperation()->walk([&](scf::ForOp loop) {
      bool innermost = true;
      loop.getBody()->walk([&](scf::ForOp) { innermost = false; });
      // A loop that amp-vectorize-elementwise already made vector code:
      // LLVM cannot vectorize it again, and warns when asked to.
      bool vectorCode = loop.getBody()
                            ->walk([](Operation *op) {
                              return llvm::any_of(op->getResultTypes(),
                                                  llvm::IsaPred<VectorType>)
                                         ? WalkResult::interrupt()
                                         : WalkResult::advance();
                            })
                            .wasInterrupted();
      if (vectorCode)
        return;
      std::optional<llvm::APInt> trips = loop.getStaticTripCount();
      if (innermost && trips && trips->getSExtValue() >= lanes)
        // Under the name of llvm.br's own attribute: convert-scf-to-cf moves
        // the for op's attributes to its back-edge branch, and
        // convert-cf-to-llvm carries them onto the llvm.br, where this one
        // becomes the `!llvm.loop` metadata.
        loop->setAttr("loop_annotation", annotation);
    });
  }
};

} // namespace
