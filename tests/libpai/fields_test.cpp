#include "libpai/fields.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fields_test {

namespace {

struct Inner {
  int depth = 0;
  friend void fields(auto& v, pai::Like<Inner> auto& m) { v("depth", m.depth); }
};

struct Outer {
  std::string name;
  bool flag = false;
  int a = 0;
  int b = 0;
  Inner inner;
  std::vector<Inner> items;
  friend void fields(auto& v, pai::Like<Outer> auto& m) {
    v("name", m.name);
    v.check("name", [&] { return m.name.empty() ? "empty" : ""; });
    v.group("pair", [&](auto& g) {
      g("a", m.a);
      g("b", m.b);
    });
    v.optional_group("maybe", m.flag, [&](auto& g) { g("a2", m.a); });
    v.together(m.a != 0, [&](auto& t) {
      t("first", m.a, pai::field::optional);
      t("second", m.b);
    });
    v.read_if(m.flag, [&](auto& r) { r("only", m.b); });
    v("inner", m.inner);
    v("items", m.items, pai::field::present_if(!m.items.empty()));
  }
};

// Counts what a table hands a writer: members, and the members the options let it write.
struct CountingWriter {
  int members = 0;
  int written = 0;
  template <class T, class... Options>
  void operator()(const char*, const T&, const Options&... options) {
    ++members;
    if (pai::field::written(options...)) ++written;
  }
};

struct Plain {
  int x = 0;
};

}  // namespace

TEST_CASE("Keys lists one object's keys in table order - not those of nested objects") {
  Outer outer;
  pai::field::Keys keys;
  fields(keys, outer);
  std::vector<std::string> names(keys.keys().begin(), keys.keys().end());
  CHECK(names == std::vector<std::string>{"name", "pair", "maybe", "first", "second", "only",
                                          "inner", "items"});
  const auto pair = pai::keys_of([&](auto& g) {
    g("a", outer.a);
    g("b", outer.b);
  });
  CHECK(std::vector<std::string>(pair.begin(), pair.end()) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("present_if and optional say what may be absent and what is written") {
  CHECK(pai::field::may_be_absent<pai::field::PresentIf>);
  CHECK(pai::field::may_be_absent<int, pai::field::PresentIf>);
  CHECK_FALSE(pai::field::may_be_absent<int>);
  CHECK_FALSE(pai::field::may_be_absent<>);
  CHECK(pai::field::written());
  CHECK(pai::field::written(pai::field::optional));
  CHECK(pai::field::written(pai::field::present_if(true), 7));
  CHECK_FALSE(pai::field::written(pai::field::present_if(false)));
  CHECK_FALSE(pai::field::written(7, pai::field::present_if(true), pai::field::present_if(false)));

  CountingWriter writer;
  Inner item;
  writer("x", item, pai::field::present_if(false));
  writer("y", item);
  CHECK(writer.members == 2);
  CHECK(writer.written == 1);
}

TEST_CASE("get finds the first option of a type - OptionsAmong tells allowed ones") {
  struct Limit {
    int max;
  };
  CHECK(pai::field::get<Limit>(pai::field::optional, Limit{3}, Limit{4}).max == 3);
  CHECK(pai::field::has<Limit, int, Limit>);
  CHECK_FALSE(pai::field::has<Limit, int, long>);
  CHECK(pai::field::OptionsAmong<Limit>::all<Limit, pai::field::PresentIf>);
  CHECK(pai::field::OptionsAmong<>::all<pai::field::PresentIf>);
  CHECK(pai::field::OptionsAmong<>::all<>);
  CHECK_FALSE(pai::field::OptionsAmong<>::all<Limit>);
  CHECK_FALSE(pai::field::OptionsAmong<Limit>::all<Limit, int>);
}

TEST_CASE("HasFields and ListOfFields tell tables from plain types") {
  CHECK(pai::HasFields<Inner>);
  CHECK(pai::HasFields<Outer>);
  CHECK_FALSE(pai::HasFields<Plain>);
  CHECK_FALSE(pai::HasFields<int>);
  CHECK_FALSE(pai::HasFields<std::string>);
  CHECK(pai::ListOfFields<std::vector<Inner>>);
  CHECK_FALSE(pai::ListOfFields<std::vector<Plain>>);
  CHECK_FALSE(pai::ListOfFields<std::vector<int>>);
  CHECK_FALSE(pai::ListOfFields<Inner>);
  CHECK_FALSE(pai::ListOfFields<std::optional<Inner>>);
}

TEST_CASE("Like binds a table to the struct and its const") {
  CHECK(pai::Like<Inner, Inner>);
  CHECK(pai::Like<const Inner, Inner>);
  CHECK_FALSE(pai::Like<Outer, Inner>);
  CHECK_FALSE(pai::Like<Inner&, Inner>);
}

}  // namespace fields_test
