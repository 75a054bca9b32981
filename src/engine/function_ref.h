// FunctionRef — a non-owning reference to a callable, for callbacks that do not outlive the
// call: a parameter that takes any lambda without a template or a std::function's allocation.
//
//   void forEachKey(FunctionRef<void(std::string_view)> visit);
//   forEachKey([&](std::string_view key) { keys.emplace_back(key); });
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace fdb::engine {

template <typename Signature>
class FunctionRef;
template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
           std::is_invocable_r_v<R, F&, Args...>)
      FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): used like a function parameter
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
        }) {}
  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace fdb::engine
