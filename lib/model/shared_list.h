#pragma once

// A list of immutable items that several owners share: copying the list copies pointers, not
// items. Linkerd's policy controller serves the same authorizations and default routes to
// thousands of ports; holding them once keeps the model small (memory first touched is most of
// what a large repository costs beyond parsing). Reading is by `const T&`, as from a vector.
#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace pg::model {

template <typename T>
class SharedList {
  using Items = std::vector<std::shared_ptr<const T>>;

 public:
  using value_type = T;
  using size_type = std::size_t;

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;

    const_iterator() = default;
    explicit const_iterator(typename Items::const_iterator it) : it_(it) {}
    reference operator*() const { return **it_; }
    pointer operator->() const { return it_->get(); }
    reference operator[](difference_type n) const { return *it_[n]; }
    const_iterator& operator++() {
      ++it_;
      return *this;
    }
    const_iterator operator++(int) { return const_iterator(it_++); }
    const_iterator& operator--() {
      --it_;
      return *this;
    }
    const_iterator operator--(int) { return const_iterator(it_--); }
    const_iterator& operator+=(difference_type n) {
      it_ += n;
      return *this;
    }
    const_iterator& operator-=(difference_type n) {
      it_ -= n;
      return *this;
    }
    friend const_iterator operator+(const_iterator a, difference_type n) { return a += n; }
    friend const_iterator operator+(difference_type n, const_iterator a) { return a += n; }
    friend const_iterator operator-(const_iterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return a.it_ - b.it_;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.it_ == b.it_;
    }
    friend auto operator<=>(const const_iterator& a, const const_iterator& b) {
      return a.it_ <=> b.it_;
    }

   private:
    typename Items::const_iterator it_;
  };
  using iterator = const_iterator;

  SharedList() = default;
  SharedList(std::initializer_list<T> items) {
    items_.reserve(items.size());
    for (const T& item : items) push_back(item);
  }
  SharedList(std::vector<T> items) {  // NOLINT(google-explicit-constructor): a list of T
    items_.reserve(items.size());
    for (T& item : items) push_back(std::move(item));
  }

  void push_back(T item) { items_.push_back(std::make_shared<const T>(std::move(item))); }
  void push_back(std::shared_ptr<const T> item) { items_.push_back(std::move(item)); }
  // Every item of `other`, shared.
  void append(const SharedList& other) {
    items_.insert(items_.end(), other.items_.begin(), other.items_.end());
  }
  void reserve(std::size_t n) { items_.reserve(n); }
  void clear() { items_.clear(); }

  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const T& operator[](std::size_t i) const { return *items_[i]; }
  const T& front() const { return *items_.front(); }
  const T& back() const { return *items_.back(); }
  const_iterator begin() const { return const_iterator(items_.begin()); }
  const_iterator end() const { return const_iterator(items_.end()); }
  const std::shared_ptr<const T>& shared(std::size_t i) const { return items_[i]; }

  // Item `i` to change: replaced by a copy of its own, so that no other holder sees the
  // change. (Building a list and then pushing it is cheaper; this is for tests and rare edits.)
  T& edit(std::size_t i) {
    auto copy = std::make_shared<T>(*items_[i]);
    T& item = *copy;
    items_[i] = std::move(copy);
    return item;
  }
  void swap(std::size_t i, std::size_t j) { std::swap(items_[i], items_[j]); }

  // Stable sort by `less` over the items.
  template <typename Less>
  void sort(Less less) {
    std::stable_sort(items_.begin(), items_.end(),
                     [&](const std::shared_ptr<const T>& a, const std::shared_ptr<const T>& b) {
                       return less(*a, *b);
                     });
  }

 private:
  Items items_;
};

}  // namespace pg::model
