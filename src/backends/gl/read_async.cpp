#include "glint/backend.h"
#include "glint/error.h"
#include "glint/gl.h"
#include "src/backends/gl/gl_backend.h"

namespace glint::gl {

struct PendingRead::State {
  GlBackend* backend = nullptr;  // null: `host` already holds the bytes
  GlBackend::PendingRead read;
  std::vector<uint8_t> host;
};

PendingRead::PendingRead() = default;
PendingRead::~PendingRead() {
  // An uncollected read still owns a buffer and a fence.
  if (state_ && state_->backend) state_->backend->finishRead(state_->read, nullptr);
}
PendingRead::PendingRead(PendingRead&&) noexcept = default;
PendingRead& PendingRead::operator=(PendingRead&&) noexcept = default;

bool PendingRead::ready() {
  check(state_ != nullptr, "readAsync", "this read was already collected or never started");
  return !state_->backend || state_->backend->poll(state_->read);
}

std::vector<uint8_t> PendingRead::bytes() {
  check(state_ != nullptr, "readAsync", "this read was already collected or never started");
  std::unique_ptr<State> s = std::move(state_);
  if (s->backend) {
    s->host.resize(s->read.bytes);
    s->backend->finishRead(s->read, s->host.data());
  }
  return std::move(s->host);
}

PendingRead readAsync(const Tensor& t) {
  check(t.defined() && !t.isDisposed(), "readAsync", "the tensor is undefined or disposed");
  PendingRead p;
  p.state_ = std::make_unique<PendingRead::State>();
  t.impl()->storage->backend->restoreIfLost();
  Storage& storage = *t.impl()->storage;
  if (auto* gl = dynamic_cast<GlBackend*>(storage.backend)) {
    p.state_->backend = gl;
    p.state_->read = gl->startRead(*static_cast<Texture*>(storage.handle));
  } else {
    p.state_->host.resize(storage.bytes);
    if (storage.bytes) storage.backend->read(storage.handle, p.state_->host.data(), storage.bytes);
  }
  return p;
}

}  // namespace glint::gl
