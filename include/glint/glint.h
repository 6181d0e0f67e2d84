#pragma once
// Everything a Glint user needs.
#include "glint/autograd.h"
#include "glint/dtype.h"
#include "glint/engine.h"
#include "glint/error.h"
#include "glint/fused_ops.h"
#include "glint/ops.h"
#include "glint/rnn_ops.h"
#include "glint/shape.h"
#include "glint/tensor.h"
