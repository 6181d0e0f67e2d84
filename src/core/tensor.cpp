#include "glint/tensor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <sstream>

#include "glint/backend.h"
#include "glint/engine.h"
#include "glint/error.h"
#include "src/core/engine_state.h"

namespace glint {

static std::atomic<int64_t> gNextTensorId{1};

static int64_t nextTensorId() { return gNextTensorId++; }

int64_t tensorIdWatermark() { return gNextTensorId.load(); }

TensorImpl::TensorImpl(Shape s, DType d, std::shared_ptr<Storage> st)
    : id(nextTensorId()), shape(std::move(s)), dtype(d), storage(std::move(st)) {
  if (storage) Engine::get().numTensors += 1;
}

TensorImpl::~TensorImpl() {
  if (storage) Engine::get().numTensors -= 1;
}

static const TensorImpl& live(const std::shared_ptr<TensorImpl>& impl, const char* what) {
  check(impl != nullptr, what, "the tensor is undefined (default-constructed handle)");
  return *impl;
}

const Shape& Tensor::shape() const { return live(impl_, "shape").shape; }
DType Tensor::dtype() const { return live(impl_, "dtype").dtype; }
int64_t Tensor::id() const { return live(impl_, "id").id; }

int64_t Tensor::dim(int axis) const { return shape()[normalizeAxis("dim", "axis", axis, rank())]; }

void Tensor::dispose() const {
  if (!impl_ || !impl_->storage) return;
  check(!impl_->isVariable || impl_->tapeRefs == 0, "dispose",
        "a variable cannot be disposed while a gradient tape uses it");
  impl_->storage.reset();
  Engine::get().numTensors -= 1;
}

bool Tensor::isDisposed() const { return impl_ && !impl_->storage; }

std::string Tensor::backendName() const {
  check(defined() && !isDisposed(), "backendName", "the tensor is undefined or disposed");
  return impl_->storage->backend->name();
}

static void readBytes(const Tensor& t, void* dst, const char* op) {
  check(t.defined(), op, "the tensor is undefined");
  if (t.isDisposed()) fail(op, "tensor ", shapeToString(t.shape()), " was disposed");
  t.impl()->storage->backend->restoreIfLost();
  readStorage(t, dst);
}

void readStorage(const Tensor& t, void* dst) {
  const Storage& s = *t.impl()->storage;
  try {
    if (s.bytes) s.backend->read(s.handle, dst, s.bytes);
  } catch (const HostReadPending& e) {
    if (e.tensor()) throw;
    throw HostReadPending(e.what(), t.implPtr());  // the backend knew only the buffer
  }
}

template <class T>
std::vector<T> Tensor::data() const {
  check(defined(), "data", "the tensor is undefined");
  if (DTypeOf<T>::value != dtype())
    fail("data", "requested ", dtypeName(DTypeOf<T>::value), " values from a ", dtypeName(dtype()),
         " tensor ", shapeToString(shape()));
  std::vector<T> out(static_cast<size_t>(size()));
  readBytes(*this, out.data(), "data");
  return out;
}
template std::vector<float> Tensor::data<float>() const;
template std::vector<int32_t> Tensor::data<int32_t>() const;
template std::vector<uint8_t> Tensor::data<uint8_t>() const;

std::vector<float> Tensor::toFloats() const {
  switch (dtype()) {
    case DType::float32:
      return data<float>();
    case DType::int32: {
      auto v = data<int32_t>();
      return std::vector<float>(v.begin(), v.end());
    }
    case DType::boolean: {
      auto v = data<uint8_t>();
      return std::vector<float>(v.begin(), v.end());
    }
  }
  return {};
}

float Tensor::item() const {
  if (size() != 1)
    fail("item", "expected a tensor with one element, got shape ", shapeToString(shape()));
  return toFloats()[0];
}

std::string Tensor::toString() const {
  if (!defined()) return "Tensor(undefined)";
  std::ostringstream os;
  os << "Tensor " << dtypeName(dtype()) << " " << shapeToString(shape());
  if (isDisposed()) return os.str() + " (disposed)";
  std::vector<float> v = toFloats();
  const size_t limit = 64;
  os << " [";
  for (size_t i = 0; i < v.size() && i < limit; ++i) os << (i ? ", " : "") << v[i];
  if (v.size() > limit) os << ", ... (" << v.size() << " values)";
  os << "]";
  return os.str();
}

// ---- Variable -------------------------------------------------------------

void Variable::assign(const Tensor& value) const {
  check(defined() && impl()->isVariable, "assign", "the target is not a variable");
  check(value.defined() && !value.isDisposed(), "assign", "the value is undefined or disposed");
  if (!(value.shape() == shape() && value.dtype() == dtype()))
    fail("assign", "variable '", name(), "' is ", dtypeName(dtype()), " ", shapeToString(shape()),
         ", the value is ", dtypeName(value.dtype()), " ", shapeToString(value.shape()),
         ": expected the same shape and dtype");
  if (!impl()->storage) Engine::get().numTensors += 1;  // assigning revives a disposed variable
  // Tensors are immutable, so sharing the value's buffer is safe.
  impl()->storage = value.impl()->storage;
  impl()->storage->backend->variableChanged(implPtr());
}

bool Variable::trainable() const { return impl()->trainable; }
void Variable::setTrainable(bool t) const { impl()->trainable = t; }
const std::string& Variable::name() const { return impl()->name; }

Variable variable(const Tensor& initial, bool trainable, const std::string& name) {
  check(initial.defined() && !initial.isDisposed(), "variable",
        "the initial value is undefined or disposed");
  static std::atomic<int64_t> counter{0};
  auto impl =
      std::make_shared<TensorImpl>(initial.shape(), initial.dtype(), initial.impl()->storage);
  impl->isVariable = true;
  impl->trainable = trainable;
  impl->name = name.empty() ? "Variable_" + std::to_string(counter++) : name;
  impl->storage->backend->variableChanged(impl);
  Engine& e = Engine::get();
  {
    std::lock_guard<std::mutex> lock(e.variablesMutex);
    if (e.variables.size() >= e.variablesPruneAt) {
      e.variables.erase(
          std::remove_if(e.variables.begin(), e.variables.end(),
                         [](const std::weak_ptr<TensorImpl>& w) { return w.expired(); }),
          e.variables.end());
      e.variablesPruneAt = std::max<size_t>(64, 2 * e.variables.size());
    }
    e.variables.push_back(impl);
  }
  return Variable(std::move(impl));
}

int64_t disposeVariables() {
  Engine& e = Engine::get();
  std::vector<std::shared_ptr<TensorImpl>> live;
  {
    std::lock_guard<std::mutex> lock(e.variablesMutex);
    for (const auto& w : e.variables)
      if (auto impl = w.lock()) live.push_back(std::move(impl));
    e.variables.clear();
  }
  for (const auto& impl : live)
    check(impl->tapeRefs == 0, "disposeVariables", "variable '", impl->name,
          "' is in use by a gradient tape: dispose variables outside gradient functions");
  int64_t n = 0;
  for (const auto& impl : live) {
    if (!impl->storage) continue;
    Variable(impl).dispose();
    ++n;
  }
  return n;
}

// ---- Creation ---------------------------------------------------------------

Tensor fromBytes(const void* data, const Shape& shape, DType dtype) {
  for (int64_t d : shape)
    if (d < 0) fail("tensor", "shape ", shapeToString(shape), " has a negative dimension");
  Engine& e = Engine::get();
  Backend& b = e.active();
  size_t bytes = static_cast<size_t>(shapeSize(shape)) * byteSize(dtype);
  void* handle = b.allocate(bytes);
  if (bytes) b.write(handle, data, bytes);
  return e.makeTensor(shape, dtype, std::make_shared<Storage>(&b, handle, bytes));
}

template <class T>
static Tensor fromVector(const std::vector<T>& values, const Shape& shape) {
  for (int64_t d : shape)
    if (d < 0) fail("tensor", "shape ", shapeToString(shape), " has a negative dimension");
  if (static_cast<int64_t>(values.size()) != shapeSize(shape))
    fail("tensor", "got ", values.size(), " values for shape ", shapeToString(shape),
         ", which needs ", shapeSize(shape));
  return fromBytes(values.data(), shape, DTypeOf<T>::value);
}

Tensor tensor(const std::vector<float>& values, const Shape& shape) {
  return fromVector(values, shape);
}
Tensor tensorInt(const std::vector<int32_t>& values, const Shape& shape) {
  return fromVector(values, shape);
}
Tensor tensorBool(const std::vector<uint8_t>& values, const Shape& shape) {
  std::vector<uint8_t> normalized(values.size());
  for (size_t i = 0; i < values.size(); ++i) normalized[i] = values[i] ? 1 : 0;
  return fromVector(normalized, shape);
}
Tensor tensor1d(const std::vector<float>& values) {
  return fromVector(values, {static_cast<int64_t>(values.size())});
}

Tensor scalar(float value, DType dtype) {
  switch (dtype) {
    case DType::float32:
      return fromVector(std::vector<float>{value}, {});
    case DType::int32:
      return fromVector(std::vector<int32_t>{static_cast<int32_t>(value)}, {});
    case DType::boolean:
      return fromVector(std::vector<uint8_t>{value != 0.0f}, {});
  }
  return Tensor();
}

}  // namespace glint
