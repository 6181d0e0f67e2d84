#pragma once
// Everything a Glint user needs: tensors, ops, autograd, models and layers,
// training, data and saving. Not here: glint/json.h (nlohmann's JSON, seconds
// of compile time; include it to read or build nlohmann values), glint/gl.h
// (the gl backend's extras, linked only in builds that have that backend), and
// glint/backend.h and glint/attrs.h (for backend and kernel authors).
#include "glint/activations.h"
#include "glint/autograd.h"
#include "glint/config.h"
#include "glint/data.h"
#include "glint/dtype.h"
#include "glint/engine.h"
#include "glint/error.h"
#include "glint/fit_run.h"
#include "glint/fused_ops.h"
#include "glint/initializers.h"
#include "glint/io.h"
#include "glint/layers.h"
#include "glint/losses.h"
#include "glint/metrics.h"
#include "glint/model.h"
#include "glint/ops.h"
#include "glint/optim.h"
#include "glint/optim_ops.h"
#include "glint/profile.h"
#include "glint/regularizers.h"
#include "glint/rnn_ops.h"
#include "glint/shape.h"
#include "glint/standard_models.h"
#include "glint/tensor.h"
