#pragma once
// A shared library opened on first use (dlopen), so that a command that never needs it does
// not load it, and a machine without it runs everything else. Its functions are defined in
// our own code with the header's signatures and forward to the library's
// (ATTNLAB_FORWARD_TO), so call sites use the library's API as if it were linked.
#include <dlfcn.h>

#include <mutex>
#include <string>
#include <utility>

#include "core/io/input_error.hpp"

namespace attnlab {

class LibraryOnDemand {
 public:
  // `needed_by`: what needs it, for the message; `hint`: where to find it, appended to the message.
  LibraryOnDemand(std::string soname, std::string needed_by, std::string hint = "")
      : soname_(std::move(soname)), needed_by_(std::move(needed_by)), hint_(std::move(hint)) {}

  // The library's own `name`, of the function type its header declares. Throws NoGpuError
  // when the library or the name is not there.
  template <class Function>
  Function* function(const char* name) const {
    void* address = ::dlsym(handle(), name);
    if (!address) throw NoGpuError(soname_ + " has no " + name);
    return reinterpret_cast<Function*>(address);
  }

 private:
  void* handle() const {
    std::call_once(opened_, [this] { handle_ = ::dlopen(soname_.c_str(), RTLD_NOW | RTLD_LOCAL); });
    if (!handle_) {
      const char* why = ::dlerror();
      throw NoGpuError("cannot load " + soname_ + ", which " + needed_by_ + " needs" +
                       (why ? ": " + std::string(why) : "") + hint_);
    }
    return handle_;
  }

  std::string soname_, needed_by_, hint_;
  mutable std::once_flag opened_;
  mutable void* handle_ = nullptr;
};

}  // namespace attnlab

// The body of a forwarding definition: the library's `name` of type `Function`, looked up once.
#define ATTNLAB_FORWARD_TO(library, Function, name, ...)             \
  static Function* const real = (library).function<Function>(#name); \
  return real(__VA_ARGS__)
