// The RNN layer's JS entry points beyond creation (glint_layer_wrap): stacks
// of cell handles (JS cells among them) and a stateful RNN's states.
#include <emscripten.h>

#include "glint/layers.h"
#include "src/layers/recurrent.h"
#include "web/bindings/handles.h"

using namespace glint;
using namespace glint::web;

extern "C" {

/// StackedRNNCells holding these cell layers themselves (TF.js keeps the
/// cell objects: a JS cell's methods run in it).
EMSCRIPTEN_KEEPALIVE int32_t glint_layer_stack_cells(const int32_t* ids, int32_t n,
                                                     const char* argsJson) {
  return guarded(-1, [&] {
    std::vector<LayerPtr> cells;
    for (int32_t i = 0; i < n; ++i) cells.push_back(layerHandles().get(ids[i], "cell layer"));
    return layerHandles().put(
        layers::stackedRNNCells(cells, parseJson(argsJson, "layer arguments")));
  });
}

/// resetStates(states?) of a stateful RNN: n == 0 resets to zeros.
EMSCRIPTEN_KEEPALIVE int32_t glint_layer_reset_states(int32_t id, const int32_t* ids, int32_t n) {
  return guarded(-1, [&] {
    resetRnnStates(*layerHandles().get(id, "layer"), tensorsFrom(ids, n));
    return 0;
  });
}

/// 1 for a stateful RNN layer, else 0.
EMSCRIPTEN_KEEPALIVE int32_t glint_layer_is_stateful(int32_t id) {
  return guarded(-1, [&] { return isStatefulRnn(*layerHandles().get(id, "layer")) ? 1 : 0; });
}

/// The states a stateful RNN keeps (none before it is built).
EMSCRIPTEN_KEEPALIVE int32_t glint_layer_rnn_states(int32_t id, int32_t* out, int32_t maxOut) {
  return guarded(
      -1, [&] { return putTensors(rnnStates(*layerHandles().get(id, "layer")), out, maxOut); });
}

/// How many states an RNN layer's cell has.
EMSCRIPTEN_KEEPALIVE int32_t glint_layer_rnn_state_count(int32_t id) {
  return guarded(
      -1, [&] { return static_cast<int32_t>(rnnStateCount(*layerHandles().get(id, "layer"))); });
}

/// A new handle to an RNN layer's cell (the JS cell object's own layer for a JS cell).
EMSCRIPTEN_KEEPALIVE int32_t glint_layer_rnn_cell(int32_t id) {
  return guarded(-1, [&] { return layerHandles().put(rnnCell(*layerHandles().get(id, "layer"))); });
}

}  // extern "C"
