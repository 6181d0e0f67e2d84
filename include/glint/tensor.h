#pragma once
// Tensor: an immutable value (shape, dtype, data owned by one backend).
// Tensors are reference-counted handles: copying a Tensor copies the handle;
// the last handle frees the buffer. dispose() frees it early (the JS API's
// tensor.dispose()); using a disposed tensor throws glint::Error.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glint/dtype.h"
#include "glint/shape.h"

namespace glint {

struct Storage;  // a backend buffer; see glint/backend.h

/// The shared state behind Tensor handles. Backends reach `storage`.
struct TensorImpl {
  TensorImpl(Shape shape, DType dtype, std::shared_ptr<Storage> storage);
  ~TensorImpl();
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  const int64_t id;
  Shape shape;
  DType dtype;
  std::shared_ptr<Storage> storage;  // null once disposed
  bool isVariable = false;
  bool trainable = false;
  std::string name;
  bool kept = false;  // keep(): never disposed by a scope
  int tapeRefs = 0;   // > 0 while an active gradient tape saved this tensor
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  /// False for a default-constructed (empty) handle.
  bool defined() const { return impl_ != nullptr; }
  const Shape& shape() const;
  DType dtype() const;
  int rank() const { return static_cast<int>(shape().size()); }
  int64_t size() const { return shapeSize(shape()); }
  /// Size of one dimension; negative axes count from the end.
  int64_t dim(int axis) const;
  /// Unique per tensor for the life of the process.
  int64_t id() const;

  /// Frees the data now. Later use of this tensor (through any handle) throws.
  void dispose() const;
  bool isDisposed() const;
  /// Name of the backend that holds the data now.
  std::string backendName() const;

  /// Synchronous read-back (the JS API's dataSync). T must match dtype().
  template <class T>
  std::vector<T> data() const;
  /// Every element converted to float, whatever the dtype.
  std::vector<float> toFloats() const;
  /// The single value of a one-element tensor, as float.
  float item() const;
  /// "Tensor float32 [2,2] [[1, 2], [3, 4]]" (elided when large).
  std::string toString() const;

  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& implPtr() const { return impl_; }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

/// A mutable tensor (weights, optimizer state); `assign` replaces its value
/// in place. Variables are never disposed by tidy().
class Variable : public Tensor {
 public:
  Variable() = default;
  explicit Variable(std::shared_ptr<TensorImpl> impl) : Tensor(std::move(impl)) {}
  /// New value of the same shape and dtype.
  void assign(const Tensor& value) const;
  bool trainable() const;
  void setTrainable(bool trainable) const;
  const std::string& name() const;
};

/// Copies `initial` into a new variable. An empty name gets a unique one.
Variable variable(const Tensor& initial, bool trainable = true, const std::string& name = "");

/// Tensors from host data; values.size() must equal the shape's size.
Tensor tensor(const std::vector<float>& values, const Shape& shape);
Tensor tensorInt(const std::vector<int32_t>& values, const Shape& shape);
Tensor tensorBool(const std::vector<uint8_t>& values, const Shape& shape);
/// A 1-D float tensor.
Tensor tensor1d(const std::vector<float>& values);
Tensor scalar(float value, DType dtype = DType::float32);
/// Raw bytes in the dtype's storage layout.
Tensor fromBytes(const void* data, const Shape& shape, DType dtype);

extern template std::vector<float> Tensor::data<float>() const;
extern template std::vector<int32_t> Tensor::data<int32_t>() const;
extern template std::vector<uint8_t> Tensor::data<uint8_t>() const;

}  // namespace glint
