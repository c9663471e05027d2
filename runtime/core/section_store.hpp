// One instance of each layer's settings struct, found by its type: the core
// stores them for Config without knowing them, so that each layer declares
// its own settings (and their keys) in its own folder. Copying a store
// copies every section.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace joule::core {

// A small dense number per settings type, given on first use.
std::size_t next_section_index() noexcept;
template <class S>
std::size_t section_index() noexcept {
  static const std::size_t index = next_section_index();
  return index;
}

class SectionStore {
 public:
  SectionStore() = default;
  SectionStore(const SectionStore& other) { *this = other; }
  SectionStore& operator=(const SectionStore& other) {
    if (this == &other) return *this;
    slots_.clear();
    for (const auto& s : other.slots_) slots_.push_back(s ? s->clone() : nullptr);
    return *this;
  }
  SectionStore(SectionStore&&) noexcept = default;
  SectionStore& operator=(SectionStore&&) noexcept = default;
  ~SectionStore() = default;

  // The section, created with its defaults on first use.
  template <class S>
  S& get() {
    const std::size_t i = section_index<S>();
    if (slots_.size() <= i) slots_.resize(i + 1);
    if (!slots_[i]) slots_[i] = std::make_unique<Holder<S>>();
    return static_cast<Holder<S>&>(*slots_[i]).value;
  }
  // The section, or its defaults when nothing set it.
  template <class S>
  const S& get() const {
    const std::size_t i = section_index<S>();
    if (i < slots_.size() && slots_[i]) return static_cast<const Holder<S>&>(*slots_[i]).value;
    static const S defaults{};
    return defaults;
  }

 private:
  struct Base {
    virtual ~Base() = default;
    virtual std::unique_ptr<Base> clone() const = 0;
  };
  template <class S>
  struct Holder final : Base {
    S value{};
    std::unique_ptr<Base> clone() const override { return std::make_unique<Holder>(*this); }
  };
  std::vector<std::unique_ptr<Base>> slots_;
};

}  // namespace joule::core
