#include "libpai/plan_json.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "libpai/json_fields.h"
#include "libpai/json_writer.h"

// plan.json is written and read by the field tables of plan.h (libpai/fields.h): a Members
// visitor collects an object's members and writes them in key order, a PlanReader visitor
// reads them strictly in table order through JsonFields. Neither spells a field.

namespace pai {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------- writing
//
// Members are written in canonical (sorted) key order, which JsonWriter insists on; the
// tables list them in reading order.

// Where writing an object notes the offset at which a member named `key` would begin.
struct Mark {
  const char* key;
  std::size_t* at;
};

template <class T>
void write_object(JsonWriter& w, const T& object, const Mark* mark = nullptr);

template <class T, class Key>
std::vector<const T*> sorted_by(const std::vector<T>& items, Key key) {
  std::vector<const T*> out;
  out.reserve(items.size());
  for (const T& item : items) out.push_back(&item);
  std::sort(out.begin(), out.end(), [&](const T* a, const T* b) { return key(*a) < key(*b); });
  return out;
}

// One member's value: by its type, as plan.schema.json describes it.
template <class T>
void write_value(JsonWriter& w, const T& value) {
  using EnvVar = std::pair<std::string, std::string>;
  if constexpr (NamedEnum<T>) {
    w.value(to_string(value));
  } else if constexpr (HasFields<T>) {
    write_object(w, value);
  } else if constexpr (ListOfFields<T>) {
    w.begin_array();
    for (const auto& item : value) write_object(w, item);
    w.end_array();
  } else if constexpr (std::is_same_v<T, std::vector<EnvVar>>) {
    // Name -> value (env, nodeSelector), in key order whatever the plan's order.
    w.begin_object();
    for (const EnvVar* var :
         sorted_by(value, [](const EnvVar& v) -> const std::string& { return v.first; })) {
      w.member(var->first, var->second);
    }
    w.end_object();
  } else if constexpr (std::is_same_v<T, std::vector<PortRequest>>) {
    // A role's ports: label -> count.
    w.begin_object();
    for (const PortRequest* port :
         sorted_by(value, [](const PortRequest& p) -> const std::string& { return p.label; })) {
      w.member(port->label, port->count);
    }
    w.end_object();
  } else if constexpr (std::is_same_v<T, std::map<std::string, std::vector<int>>>) {
    // A placement's ports: label -> the ports.
    w.begin_object();
    for (const auto& [label, list] : value) w.member(label, list);
    w.end_object();
  } else {
    w.value(value);
  }
}

template <class T>
void write_erased(JsonWriter& w, const void* value) {
  write_value(w, *static_cast<const T*>(value));
}

// The members of one object, collected as its table lists them and written in key order.
class Members {
 public:
  template <class T, class... Options>
  void operator()(const char* key, const T& member, const Options&... options) {
    add(Member{key, &write_erased<T>, &member, parent_, present_ && field::written(options...)});
  }
  template <class Problem>
  void check(const char*, const Problem&) {}
  template <class Fn>
  void group(const char* key, const Fn& fn) {
    nest(key, present_, fn);
  }
  template <class Fn>
  void optional_group(const char* key, const bool& flag, const Fn& fn) {
    nest(key, present_ && flag, fn);
  }
  template <class Fn>
  void together(bool present, const Fn& fn) {
    const bool outer = present_;
    present_ = outer && present;
    fn(*this);
    present_ = outer;
  }
  template <class Fn>
  void read_if(bool, const Fn& fn) {
    fn(*this);
  }

  // Which members each object has, in key order: sorted[p + 1] lists the indexes of the
  // members of group p (-1: the object itself). The same for every object of one table.
  struct Order {
    std::vector<std::vector<int>> sorted;
    int members = 0;
  };

  // The key order of the members collected.
  Order order() const {
    Order order;
    order.members = count_;
    order.sorted.resize(count_ + 1);
    for (int i = 0; i < count_; ++i) order.sorted[members_[i].parent + 1].push_back(i);
    for (std::vector<int>& level : order.sorted) {
      std::sort(level.begin(), level.end(),
                [&](int a, int b) { return std::strcmp(members_[a].key, members_[b].key) < 0; });
    }
    return order;
  }

  // The object: its members in `order`, those of groups in nested objects.
  void write(JsonWriter& w, const Order& order, const Mark* mark) const {
    if (order.members != count_) throw std::logic_error("plan.json: a table changed its members");
    bool marked = false;
    write_object_at(w, order, -1, mark, &marked);
  }

 private:
  struct Member {
    const char* key;
    void (*write)(JsonWriter&, const void*);  // nullptr: a group, the parent of its members
    const void* value;
    int parent;    // the group it belongs to; -1: the object itself
    bool present;  // false: not written (field::present_if, an absent group)
  };
  // More than any table of plan.h has, groups' members included.
  static constexpr int kMaxMembers = 48;

  int add(const Member& member) {
    if (count_ == kMaxMembers) throw std::logic_error("plan.json: a table of over 48 members");
    members_[count_] = member;
    return count_++;
  }

  template <class Fn>
  void nest(const char* key, bool present, const Fn& fn) {
    const int group = add(Member{key, nullptr, nullptr, parent_, present});
    const int outer_parent = parent_;
    const bool outer_present = present_;
    parent_ = group;
    present_ = present;
    fn(*this);
    parent_ = outer_parent;
    present_ = outer_present;
  }

  void write_object_at(JsonWriter& w, const Order& order, int parent, const Mark* mark,
                       bool* marked) const {
    w.begin_object();
    for (int index : order.sorted[parent + 1]) {
      const Member& member = members_[index];
      if (!member.present) continue;
      if (mark && !*marked && std::strcmp(member.key, mark->key) > 0) {
        *mark->at = w.size();
        *marked = true;
      }
      w.key(member.key);
      if (member.write) {
        member.write(w, member.value);
      } else {
        write_object_at(w, order, index, nullptr, marked);
      }
    }
    if (mark && !*marked) *mark->at = w.size();
    w.end_object();
  }

  std::array<Member, kMaxMembers> members_;
  int count_ = 0;
  int parent_ = -1;
  bool present_ = true;
};

template <class T>
void write_object(JsonWriter& w, const T& object, const Mark* mark) {
  Members members;
  fields(members, object);
  // A table collects the same members in the same order every time: sorted once.
  static const Members::Order order = members.order();
  members.write(w, order, mark);
}

// The canonical text of the plan without its hash (no trailing newline), and in
// `*hash_at` the offset where the "hash" member belongs in key order.
std::string canonical_plan(const Plan& plan, std::size_t* hash_at) {
  std::string out;
  out.reserve(1024 + plan.placements.size() * 400 + plan.hosts.size() * 80);
  JsonWriter w(out);
  const Mark hash{"hash", hash_at};
  write_object(w, plan, &hash);
  return out;
}

// The plan's text with the hash member that `seal` makes of its canonical text.
template <class Seal>
std::string sealed_json(const Plan& plan, Seal seal) {
  std::size_t hash_at = 0;
  std::string text = canonical_plan(plan, &hash_at);
  text.insert(hash_at, ",\n  \"hash\": \"" + seal(text) + "\"");
  text += '\n';
  return text;
}

// ---------------------------------------------------------------- reading

// The canonical text `text` was sealed over, if `text` is exactly what plan_to_json writes
// for a seal of `seal`: the canonical text with the hash member spliced in. Checking the text
// itself rather than a re-serialization of the parsed document makes any edit count,
// reformatting included, and keeps loading a 10,000-node plan cheap.
std::optional<std::string> sealed_text(const std::string& text, const std::string& seal) {
  const std::string member = ",\n  \"hash\": \"" + seal + "\"";
  std::size_t at = text.find(member);
  if (at == std::string::npos || text.empty() || text.back() != '\n') return std::nullopt;
  std::string canonical = text.substr(0, at);
  canonical.append(text, at + member.size(), text.size() - 1 - (at + member.size()));
  return canonical;
}

// The roles read so far by name (the first of a name), for the placements' role.
class RoleNames {
 public:
  explicit RoleNames(const std::vector<Role>& roles) : roles_(roles) {}

  // The index of the role named `name`, or nullptr. Placements come after the roles, so the
  // index is built once, on the first placement.
  const int* find(const std::string& name) {
    for (; indexed_ < roles_.size(); ++indexed_) {
      index_.emplace(roles_[indexed_].name, static_cast<int>(indexed_));
    }
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &it->second;
  }

 private:
  const std::vector<Role>& roles_;
  std::size_t indexed_ = 0;
  std::unordered_map<std::string, int> index_;
};

// Reads the members of one object (its table's) strictly: a missing, mistyped or
// out-of-range member is a PlanError naming its path, in table order.
class PlanReader {
 public:
  PlanReader(const JsonFields& f, RoleNames& roles) : f_(f), roles_(roles) {}

  template <class T, class... Options>
  void operator()(const char* key, T& member, const Options&... options) {
    if constexpr (field::may_be_absent<Options...>) {
      if (!f_.raw().contains(key)) return;
    }
    read(key, member, options...);
  }

  template <class Problem>
  void check(const char* key, const Problem& problem) {
    const std::string text = problem();
    if (!text.empty()) f_.fail(f_.child(key), text);
  }

  template <class Fn>
  void group(const char* key, const Fn& fn) {
    const JsonFields object = f_.object(key);
    PlanReader reader(object, roles_);
    fn(reader);
    object.reject_unknown();
  }

  template <class Fn>
  void optional_group(const char* key, bool& flag, const Fn& fn) {
    if (!f_.raw().contains(key)) return;
    flag = true;
    group(key, fn);
  }

  template <class Fn>
  void together(bool, const Fn& fn) {
    for (const char* key : keys_of(fn)) {
      if (f_.raw().contains(key)) {
        fn(*this);
        return;
      }
    }
  }

  template <class Fn>
  void read_if(bool condition, const Fn& fn) {
    if (condition) fn(*this);
  }

  // The object `f` as T, then no member its table does not name.
  template <class T>
  static void read_object(const JsonFields& f, RoleNames& roles, T& object) {
    PlanReader reader(f, roles);
    fields(reader, object);
    f.reject_unknown();
  }

 private:
  template <class... Options>
  void read(const char* key, int& member, const Options&... options) {
    static_assert(field::OptionsAmong<AtLeast>::all<Options...>);
    int min = INT_MIN;
    if constexpr (field::has<AtLeast, Options...>) min = field::get<AtLeast>(options...).min;
    member = f_.integer(key, min);
  }

  template <class... Options>
  void read(const char* key, std::int64_t& member, const Options&... options) {
    static_assert(field::OptionsAmong<AtLeast, Seconds>::all<Options...>);
    if constexpr (field::has<Seconds, Options...>) {
      member = f_.seconds(key);
    } else {
      member = f_.int64(key);
    }
    if constexpr (field::has<AtLeast, Options...>) {
      const int min = field::get<AtLeast>(options...).min;
      if (member < min) f_.fail(f_.child(key), "expected at least " + std::to_string(min));
    }
  }

  template <class... Options>
  void read(const char* key, double& member, const Options&...) {
    static_assert(field::OptionsAmong<>::all<Options...>);
    member = f_.number(key);
  }

  template <class... Options>
  void read(const char* key, bool& member, const Options&...) {
    static_assert(field::OptionsAmong<>::all<Options...>);
    member = f_.boolean(key);
  }

  template <class... Options>
  void read(const char* key, std::string& member, const Options&...) {
    static_assert(field::OptionsAmong<>::all<Options...>);
    member = f_.string(key);
  }

  void read(const char* key, std::string& member, const NamesRole<int>& role) {
    member = f_.string(key);
    const int* index = roles_.find(member);
    if (!index) f_.fail(f_.child(key), "no role named \"" + member + "\"");
    role.index = *index;
  }

  template <NamedEnum Enum, class... Options>
  void read(const char* key, Enum& member, const Options&...) {
    static_assert(field::OptionsAmong<>::all<Options...>);
    member = f_.enumeration(key, enum_values<Enum>());
  }

  template <class... Options>
  void read(const char* key, std::vector<std::string>& member, const Options&...) {
    static_assert(field::OptionsAmong<>::all<Options...>);
    member = f_.strings(key);
  }

  template <HasFields T, class... Options>
  void read(const char* key, T& member, const Options&...) {
    static_assert(field::OptionsAmong<>::all<Options...>);
    read_object(f_.object(key), roles_, member);
  }

  template <HasFields T, class... Options>
  void read(const char* key, std::vector<T>& member, const Options&...) {
    static_assert(field::OptionsAmong<>::all<Options...>);
    const json& list = f_.array(key);
    member.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      read_object(JsonFields(list[i], f_.item(key, i), f_.file()), roles_, member.emplace_back());
    }
  }

  // Name -> string (a role's env, nodeSelector).
  void read(const char* key, std::vector<std::pair<std::string, std::string>>& member) {
    const JsonFields map = f_.object(key);
    for (const auto& [name, value] : map.raw().items()) {
      if (!value.is_string()) map.fail(map.child(name), "expected a string");
      member.emplace_back(name, value.get<std::string>());
    }
  }

  // A role's ports: label -> count, at least 1.
  void read(const char* key, std::vector<PortRequest>& member) {
    const JsonFields ports = f_.object(key);
    for (const auto& item : ports.raw().items()) {
      const std::string& label = item.key();
      member.push_back(
          PortRequest{label, ports.integer_at(
                                 item.value(), [&] { return ports.child(label); }, 1)});
    }
  }

  // A placement's ports: label -> ports, each at least 0.
  void read(const char* key, std::map<std::string, std::vector<int>>& member) {
    const JsonFields ports = f_.object(key);
    for (const auto& item : ports.raw().items()) {
      const std::string& label = item.key();
      const auto& list = item.value();
      if (!list.is_array()) ports.fail(ports.child(label), "expected an array");
      std::vector<int>& out = member[label];
      out.reserve(list.size());
      for (std::size_t i = 0; i < list.size(); ++i) {
        auto path = [&] { return ports.child(label) + "[" + std::to_string(i) + "]"; };
        out.push_back(ports.integer_at(list[i], path, 0));
      }
    }
  }

  const JsonFields& f_;
  RoleNames& roles_;
};

// The plan's members ("hash" aside, which plan_from_json reads from `top` first).
Plan read_plan(const JsonFields& top) {
  Plan plan;
  RoleNames roles(plan.roles);
  PlanReader::read_object(top, roles, plan);
  return plan;
}

}  // namespace

std::string plan_to_json(const Plan& plan, std::string_view token) {
  std::string seal;
  return plan_to_json(plan, token, &seal);
}

std::string plan_to_json(const Plan& plan, std::string_view token, std::string* seal) {
  if (token.empty()) throw std::invalid_argument("plan_to_json: the job token is empty");
  return sealed_json(plan, [&](const std::string& canonical) {
    *seal = keyed_seal(canonical, token);
    return *seal;
  });
}

std::string plan_to_json_unkeyed(const Plan& plan) {
  return sealed_json(plan, [](const std::string& canonical) { return digest_seal(canonical); });
}

std::string plan_seal(const Plan& plan, std::string_view token) {
  if (token.empty()) throw std::invalid_argument("plan_seal: the job token is empty");
  std::size_t hash_at = 0;
  return keyed_seal(canonical_plan(plan, &hash_at), token);
}

std::string role_to_json(const Plan& plan, const Role& role, std::string_view seal) {
  const auto instances = std::count_if(plan.placements.begin(), plan.placements.end(),
                                       [&](const Placement& p) { return p.role == role.name; });
  std::string out;
  // As canonical_plan(): one allocation, not a dozen doublings (3 MB for 10,000 instances).
  out.reserve(1024 + static_cast<std::size_t>(instances) * 400);
  JsonWriter w(out);
  w.begin_object();
  w.key("placements");
  w.begin_array();
  for (const Placement& p : plan.placements) {
    if (p.role == role.name) write_object(w, p);
  }
  w.end_array();
  w.member("planHash", std::string(seal));
  w.key("role");
  write_object(w, role);
  w.end_object();
  out += '\n';
  return out;
}

Plan plan_from_json(const std::string& text, const std::string& file,
                    const std::optional<JobToken>& token) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    // parse_error for syntax, out_of_range for numbers beyond double (" 77773e3775").
    std::string message = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " tag; keep its line and column.
    if (auto close = message.find("] ");
        message.starts_with("[json.exception") && close != std::string::npos) {
      message.erase(0, close + 2);
    }
    throw PlanError(file + ": invalid JSON: " + message);
  }
  if (!document.is_object()) throw PlanError(file + ": expected a JSON object");
  JsonFields top(document, "", file);
  int version = top.integer("planVersion");
  if (version > kPlanVersion) {
    throw PlanError(file + ": planVersion " + std::to_string(version) +
                    " is newer than this pai-launch understands (" + std::to_string(kPlanVersion) +
                    "); upgrade pai-launch");
  }
  if (version < kMinPlanVersion) {
    throw PlanError(file + ": planVersion " + std::to_string(version) +
                    " is older than this pai-launch accepts (" + std::to_string(kMinPlanVersion) +
                    " or newer); recompile the job with pai-compile");
  }
  // Fields first, so a hand-edited plan learns which field is wrong, not just that the
  // seal no longer verifies.
  std::string seal = top.string("hash");
  Plan plan = read_plan(top);
  if (std::string problem = seal_problem(sealed_text(text, seal), seal, token); !problem.empty()) {
    throw PlanError(file + ": " + problem);
  }
  plan.seal = std::move(seal);
  return plan;
}

Plan load_plan_file(const std::string& path, const std::optional<JobToken>& token) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PlanError(path + ": cannot read the plan file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw PlanError(path + ": cannot read the plan file: " + std::strerror(errno));
  return plan_from_json(text.str(), path, token);
}

}  // namespace pai
