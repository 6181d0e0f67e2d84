#pragma once
// A backend whose buffers are plain host memory (reference and cpu share it;
// kernels reach the memory through glint::hostData<T>).
#include <string>

#include "glint/backend.h"

namespace glint {

class HostBackend : public Backend {
 public:
  HostBackend(std::string name, std::string description)
      : name_(std::move(name)), description_(std::move(description)) {}
  const std::string& name() const override { return name_; }
  void* allocate(size_t bytes) override;
  void write(void* handle, const void* src, size_t bytes) override;
  void read(void* handle, void* dst, size_t bytes) override;
  void release(void* handle, size_t bytes) override;
  int64_t bytesInUse() const override { return bytesInUse_; }
  std::string description() const override { return description_; }

 private:
  std::string name_;
  std::string description_;
  int64_t bytesInUse_ = 0;
};

}  // namespace glint
