#pragma once
// JSON for configs (layers, optimizers, initializers) and the model format:
// nlohmann::json, ordered so saved files keep Keras's key order. Public
// headers take glint::Config (glint/config.h) and name Json through
// glint/json_fwd.h; include this to work with nlohmann values themselves.
#include <nlohmann/json.hpp>

#include "glint/json_fwd.h"
