#pragma once
// The host side of a problem (its inputs and double reference in host memory), built on first
// use. A problem only GPU points use never builds it: their inputs are generated and their
// reference computed on the device. Host memory then holds the largest problem a CPU point (or a
// GPU point whose device has no room for its reference) needs, not every problem seen.
#include <memory>
#include <mutex>

namespace runner::kernels {

template <typename Data>
class LazyHostData {
 public:
  // `make()` returns the Data; it runs once (again after it threw).
  template <typename Make>
  const Data& get(Make&& make) const {
    std::call_once(once_, [&] { data_ = std::make_unique<Data>(make()); });
    return *data_;
  }

 private:
  mutable std::once_flag once_;
  mutable std::unique_ptr<Data> data_;
};

}  // namespace runner::kernels
