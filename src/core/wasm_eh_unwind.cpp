// The unwinder glue of WebAssembly exception handling, for the pthreads build
// only (compiled to nothing everywhere else).
//
// Why it exists: Debian pairs Emscripten 3.1.6 with clang 14. That Emscripten's
// libunwind declares the landing-pad context `__wasm_lpad_context` thread_local
// (its -mt library puts it in TLS), while clang 14's WasmEHPrepare addresses it
// as an ordinary global (R_WASM_MEMORY_ADDR relocations, checked with
// llvm-objdump -r). Landing pads then write one address and the personality
// routine reads another, so with -pthread -fwasm-exceptions no exception is
// caught by type: `try { throw 42; } catch (int) {...} catch (...) {...}` takes
// the catch (...). The pthreads build therefore used Emscripten's JS-based
// exceptions, where every call that may throw inside a function with a
// cleanup goes out to JavaScript and back (an `invoke_*` trampoline): 845 of
// them per one-sample predict of the standard cnn, which made one-thread
// predict in the pthreads build about 1.8x slower than in the single-thread
// build.
//
// Defined here, the context is the ordinary global clang 14 writes, and the
// linker takes these definitions before libunwind's (libglint comes first on
// the link line; an archive member is pulled only for undefined symbols).
//
// What it costs: one context for all threads, as in the single-thread build.
// Two threads inside a typed catch's landing pad at the same instant could
// read each other's entries. Glint itself never does that: the thread pool's
// tasks catch only with catch (...), which consults no personality routine;
// typed catches run on the thread that calls the API, and glint-ml (the
// package this build exists for) calls it from one thread. The pthreads
// WebAssembly library is not installed for C++ programs (cmake --install is
// native); one built from this tree that catches exceptions by type on two
// threads at the same instant must not rely on which handler is chosen.
#if defined(__EMSCRIPTEN_PTHREADS__) && defined(__wasm_exception_handling__)

#include <unwind.h>

#include <cstdint>

namespace {

/// The layout clang's landing pads write: they store the pad's index and its
/// LSDA, call _Unwind_CallPersonality, then read the selector.
struct LandingPadContext {
  uintptr_t lpadIndex;
  uintptr_t lsda;
  uintptr_t selector;
};

LandingPadContext& context(_Unwind_Context* c) { return *reinterpret_cast<LandingPadContext*>(c); }

}  // namespace

extern "C" {

LandingPadContext __wasm_lpad_context;

_Unwind_Reason_Code __gxx_personality_wasm0(int version, _Unwind_Action actions,
                                            uint64_t exceptionClass, _Unwind_Exception* exception,
                                            _Unwind_Context* context);

_Unwind_Reason_Code _Unwind_CallPersonality(void* exceptionPtr) {
  auto* exception = static_cast<_Unwind_Exception*>(exceptionPtr);
  __wasm_lpad_context.selector = 0;
  // WebAssembly unwinds in one phase: the personality routine only runs the
  // cleanup phase, which also picks the catch clause (the selector).
  return __gxx_personality_wasm0(1, _UA_CLEANUP_PHASE, exception->exception_class, exception,
                                 reinterpret_cast<_Unwind_Context*>(&__wasm_lpad_context));
}

_Unwind_Reason_Code _Unwind_RaiseException(_Unwind_Exception* exception) {
  __builtin_wasm_throw(0, exception);  // tag 0: C++ exceptions
}

void _Unwind_DeleteException(_Unwind_Exception* exception) {
  if (exception->exception_cleanup)
    exception->exception_cleanup(_URC_FOREIGN_EXCEPTION_CAUGHT, exception);
}

void _Unwind_SetGR(_Unwind_Context* c, int index, _Unwind_Word value) {
  if (index == 1) context(c).selector = value;  // the personality's only use
}

// The personality routine subtracts one and treats it as a 1-based call-site
// index, so the 0-based landing pad index comes back plus two.
_Unwind_Word _Unwind_GetIP(_Unwind_Context* c) { return context(c).lpadIndex + 2; }

void _Unwind_SetIP(_Unwind_Context*, _Unwind_Word) {}

void* _Unwind_GetLanguageSpecificData(_Unwind_Context* c) {
  return reinterpret_cast<void*>(context(c).lsda);
}

_Unwind_Ptr _Unwind_GetRegionStart(_Unwind_Context*) { return 0; }

}  // extern "C"

#endif
