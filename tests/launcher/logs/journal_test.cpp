#include "launcher/logs/journal.h"

#include <catch2/catch.hpp>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "launcher/logs/journal_json.h"
#include "launcher/logs/journal_member_types.h"
#include "support/temp_dir.h"

namespace journal_test {

using namespace pai::launcher::journal;
using Json = nlohmann::json;

namespace {

template <class T>
T sample(const std::string& key);

// Sets every member of a table to a value of its own, told apart by the key: a reader that
// put a field into the wrong member, or dropped one, reads back something else.
class Filler {
 public:
  template <class T, class... Options>
  void operator()(const char* key, T& member, const Options&...) {
    member = sample<T>(key);
  }
  template <class Problem>
  void check(const char*, const Problem&) {}
};

template <class T>
T filled() {
  T value{};
  Filler filler;
  fields(filler, value);
  return value;
}

template <class T>
T sample(const std::string& key) {
  const std::size_t hash = std::hash<std::string>{}(key) % 1000;
  if constexpr (std::is_same_v<T, bool>) {
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(1 + hash);
  } else if constexpr (std::is_floating_point_v<T>) {
    return 0.5 + static_cast<double>(hash);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return key + " value \xc3\xa9\n";
  } else if constexpr (std::is_same_v<T, RawJson>) {
    return RawJson{"[{\"name\":\"" + key + "\",\"status\":\"passed\"}]"};
  } else if constexpr (IsOptional<T>::value) {
    return sample<typename T::value_type>(key);
  } else if constexpr (IsVector<T>::value) {
    return T{sample<typename T::value_type>(key), sample<typename T::value_type>(key + "+")};
  } else if constexpr (pai::HasFields<T>) {
    return filled<T>();
  } else {
    return T{{key, sample<typename T::mapped_type>(key)}};
  }
}

// The keys a writer writes for the table's current values.
class WrittenKeys {
 public:
  template <class T, class... Options>
  void operator()(const char* key, const T& member, const Options&... options) {
    if constexpr (IsOptional<T>::value) {
      if (!member) return;
    }
    if (pai::field::written(options...)) keys.insert(key);
  }
  template <class Problem>
  void check(const char*, const Problem&) {}
  std::set<std::string> keys;
};

std::set<std::string> keys_of(const Json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.insert(key);
  return keys;
}

// `fields` as format 1 wrote them: objects and arrays as their JSON text in a string.
Json as_format_1(Json fields) {
  for (auto& [key, value] : fields.items()) {
    if (value.is_object() || value.is_array()) value = value.dump();
  }
  return fields;
}

template <class E>
void check_round_trip() {
  INFO("event " << E::kName);
  const E event = filled<E>();
  const Json written = fields_json(event);
  WrittenKeys expected;
  fields(expected, event);
  CHECK(keys_of(written) == expected.keys);

  // Format 2: through a line and back.
  const std::string line = format_record(1'700'000'000'123, event);
  CHECK(line.find('\n') == line.size() - 1);
  ReadTally tally;
  const std::optional<Entry> entry = parse_record(line.substr(0, line.size() - 1), tally);
  REQUIRE(entry);
  CHECK(entry->unix_ms == 1'700'000'000'123);
  REQUIRE(std::holds_alternative<E>(entry->event));
  CHECK(fields_json(entry->event) == written);
  CHECK(tally == ReadTally{});

  // Format 1: nested values as their JSON text.
  const std::optional<Event> old = read_event(E::kName, as_format_1(written), tally);
  REQUIRE(old);
  CHECK(fields_json(*old) == written);
  CHECK(tally == ReadTally{});

  // Every field is optional to the reader: an empty object reads as the defaults.
  const std::optional<Event> empty = read_event(E::kName, Json::object(), tally);
  REQUIRE(empty);
  CHECK(*empty == Event{E{}});
  CHECK(tally == ReadTally{});
}

template <std::size_t... I>
void check_every_event(std::index_sequence<I...>) {
  (check_round_trip<std::variant_alternative_t<I, Event>>(), ...);
}

template <std::size_t... I>
std::vector<std::string> every_name(std::index_sequence<I...>) {
  return {std::variant_alternative_t<I, Event>::kName...};
}

// The variant holding its alternative number `i`, default-constructed.
template <std::size_t... I>
Event variant_at(std::size_t i, std::index_sequence<I...>) {
  Event out;
  ((i == I ? (out = std::variant_alternative_t<I, Event>{}, 0) : 0), ...);
  return out;
}
Event variant_at(std::size_t i) {
  return variant_at(i, std::make_index_sequence<std::variant_size_v<Event>>{});
}

std::optional<Entry> parse(const std::string& line, ReadTally& tally) {
  return parse_record(line, tally);
}

}  // namespace

TEST_CASE("every event is written with its fields and read back as written, in both formats") {
  check_every_event(std::make_index_sequence<std::variant_size_v<Event>>{});
}

TEST_CASE("every event has a name of its own and says what it records - no field is `time`") {
  const std::vector<std::string> names =
      every_name(std::make_index_sequence<std::variant_size_v<Event>>{});
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  for (std::size_t i = 0; i < std::variant_size_v<Event>; ++i) {
    const Event event = variant_at(i);
    std::visit(
        [](const auto& e) {
          INFO("event " << e.kName);
          CHECK(std::string(e.kAbout).size() > 10);
          // `time` and `event` are the line's own keys.
          pai::field::Keys keys;
          fields(keys, e);
          for (const char* key : keys.keys()) {
            CHECK(std::string(key) != "time");
            CHECK(std::string(key) != "event");
          }
        },
        event);
  }
}

TEST_CASE("a line is time, event, then the fields in table order, nested values as JSON") {
  CHECK(format_record(1'700'000'000'123, Exited{.instance = "worker-1",
                                                .local_rank = 0,
                                                .status = {1, 0},
                                                .retryable = true,
                                                .reason = "exit code 1",
                                                .stopping = false}) ==
        "{\"time\":\"2023-11-14T22:13:20.123Z\",\"event\":\"exited\",\"instance\":\"worker-1\","
        "\"localRank\":0,\"status\":{\"code\":1,\"signal\":0},\"retryable\":true,"
        "\"reason\":\"exit code 1\",\"stopping\":false}\n");
  // Optional fields are written when set; a node's restart has no signature.
  CHECK(format_record(0, Restart{.instance = "worker-0",
                                 .attempt = 1,
                                 .backoff_seconds = 2,
                                 .reason = "exit code 1"}) ==
        "{\"time\":\"1970-01-01T00:00:00.000Z\",\"event\":\"restart\",\"instance\":\"worker-0\","
        "\"attempt\":1,\"backoffSeconds\":2,\"reason\":\"exit code 1\"}\n");
  // present_if: a job-wide hang says so and has no `exiting`; a node's says nothing of it.
  CHECK(fields_json(Hang{.instance = "worker-0", .job_wide = true, .seconds = 60}) ==
        Json{{"instance", "worker-0"}, {"jobWide", true}, {"seconds", 60}});
  CHECK(fields_json(Hang{.instance = "worker-0", .seconds = 60, .exiting = true, .last_step = 7}) ==
        Json{{"instance", "worker-0"}, {"seconds", 60}, {"exiting", true}, {"lastStep", 7}});
}

TEST_CASE("invalid UTF-8 and newlines in fields cannot break the line") {
  CHECK(format_record(0, Notify{.instance = "w", .message = "a\nb\xff"}) ==
        "{\"time\":\"1970-01-01T00:00:00.000Z\",\"event\":\"notify\",\"instance\":\"w\","
        "\"message\":\"a\\nb\xef\xbf\xbd\"}\n");
  ReadTally tally;
  const auto entry = parse(
      "{\"time\":\"1970-01-01T00:00:00.000Z\",\"event\":\"notify\",\"message\":\"a\xff\"}", tally);
  REQUIRE(entry);
  CHECK(std::get<Notify>(entry->event).message == "a\xef\xbf\xbd");
}

TEST_CASE("the header names this format and the writer") {
  const Header header = current_header();
  CHECK(header.format == 2);
  CHECK(header.writer == "pai-launch " PAI_VERSION);
  CHECK(format_record(0, header) ==
        "{\"time\":\"1970-01-01T00:00:00.000Z\",\"event\":\"journal\",\"format\":2,"
        "\"writer\":\"pai-launch " PAI_VERSION "\"}\n");
}

TEST_CASE("journal times are read as the journal writes them") {
  CHECK(parse_time("2026-01-02T03:04:05.678Z") == 1767323045678);
  CHECK(parse_time(format_time(1767323045678)) == 1767323045678);
  CHECK(parse_time("1970-01-01T00:00:00.000Z") == 0);
  CHECK_FALSE(parse_time("2026-01-02 03:04:05.678Z"));
  CHECK_FALSE(parse_time("2026-13-02T03:04:05.678Z"));
  CHECK_FALSE(parse_time("2026-01-02T03:04:05Z"));
  CHECK_FALSE(parse_time(""));
}

TEST_CASE("lines that are no record are counted, never thrown on") {
  ReadTally tally;
  for (const char* line :
       {"", "not json", "[1,2]", "{\"event\":\"start\"}",
        "{\"time\":\"yesterday\",\"event\":\"x\"}",
        "{\"time\":\"2026-01-02T03:04:05.000Z\",\"event\":7}",
        "{\"time\":\"2026-01-02T03:04:05.000Z\",\"event\":\"sta",  // cut off mid-write
        "\xff\xfe garbage"}) {
    INFO(line);
    CHECK_FALSE(parse(line, tally));
  }
  CHECK(tally == ReadTally{.malformed = 8});
}

TEST_CASE("an event this version does not know is skipped and counted") {
  ReadTally tally;
  CHECK_FALSE(
      parse("{\"time\":\"2026-01-02T03:04:05.000Z\",\"event\":\"launched-rocket\"}", tally));
  CHECK(tally == ReadTally{.unknown = 1});
}

TEST_CASE("a field of the wrong type reads as its default and is counted") {
  ReadTally tally;
  const auto read = [&](const Json& fields) {
    const std::optional<Event> e = read_event(Exited::kName, fields, tally);
    REQUIRE(e);
    return std::get<Exited>(*e);
  };
  // A string for an int, an int for a bool, an array for a string.
  Exited e = read(
      {{"instance", Json::array({1})}, {"localRank", "one"}, {"stopping", 1}, {"reason", "kept"}});
  CHECK(e == Exited{.reason = "kept"});
  CHECK(tally == ReadTally{.mistyped = 3});
  // Inside a nested object: the object is read, its wrong field is not.
  tally = {};
  e = read({{"status", {{"code", "x"}, {"signal", 9}}}});
  CHECK(e.status == ExitStatus{0, 9});
  CHECK(tally == ReadTally{.mistyped = 1});
  // A nested object that is neither an object nor JSON text of one.
  tally = {};
  CHECK(read({{"status", "not json"}}).status == ExitStatus{});
  CHECK(read({{"status", 3}}).status == ExitStatus{});
  CHECK(tally == ReadTally{.mistyped = 2});
  // Out of range, fractional, huge: none is an int.
  tally = {};
  CHECK(read({{"localRank", 1LL << 40}}).local_rank == 0);
  CHECK(read({{"localRank", 1.5}}).local_rank == 0);
  CHECK(read({{"localRank", 18446744073709551615ULL}}).local_rank == 0);
  CHECK(tally == ReadTally{.mistyped = 3});
  // An integral number written as 3.0 is an int; null is as absent.
  tally = {};
  CHECK(read({{"localRank", 3.0}, {"reason", nullptr}}) == Exited{.local_rank = 3});
  CHECK(tally == ReadTally{});
}

TEST_CASE("a list keeps its items of the right type, and counts the others once") {
  ReadTally tally;
  const std::optional<Event> e = read_event(
      DiagnosisRestart::kName,
      Json{{"suspects", Json::array({"node-0", 7, "node-1", Json::object()})}, {"class", 3}},
      tally);
  REQUIRE(e);
  CHECK(std::get<DiagnosisRestart>(*e) == DiagnosisRestart{.suspects = {"node-0", "node-1"}});
  CHECK(tally == ReadTally{.mistyped = 2});
}

TEST_CASE("JSON the journal does not own is kept as its text, in either format") {
  ReadTally tally;
  const std::string checks = "[{\"name\":\"gpu\",\"status\":\"passed\"}]";
  for (const Json& value : {Json::parse(checks), Json(checks)}) {
    const std::optional<Event> e = read_event(Join::kName, Json{{"checks", value}}, tally);
    REQUIRE(e);
    CHECK(std::get<Join>(*e).checks.text == checks);
  }
  CHECK(tally == ReadTally{});
  CHECK(fields_json(Join{.checks = {checks}})["checks"] == Json::parse(checks));
}

TEST_CASE("journals of format 1 read into the same events as format 2 writes") {
  // tests/fixtures/journal-format1: a real run's journals, written before format 2.
  const std::string dir = std::string(PAI_SOURCE_DIR) + "/tests/fixtures/journal-format1/";
  std::size_t read = 0;
  for (const char* journal : {"coordinator", "worker-0", "worker-1", "spare-node-3"}) {
    INFO(journal);
    std::istringstream lines(pai::testing::slurp(dir + journal + "/events.jsonl"));
    for (std::string line; std::getline(lines, line);) {
      ReadTally tally;
      const std::optional<Entry> entry = parse(line, tally);
      INFO(line);
      REQUIRE(entry);
      CHECK(tally == ReadTally{});
      CHECK_FALSE(std::holds_alternative<Header>(entry->event));
      // Nothing is lost: the fields of format 2 are those of the line, nested values parsed.
      Json old = Json::parse(line);
      old.erase("time");
      old.erase("event");
      for (auto& [key, value] : old.items()) {
        if (value.is_string() && (value.get<std::string>().starts_with("{") ||
                                  value.get<std::string>().starts_with("["))) {
          value = Json::parse(value.get<std::string>());
        }
      }
      CHECK(fields_json(entry->event) == old);
      // Written in format 2 and read again: the same event.
      const std::string again = format_record(entry->unix_ms, entry->event);
      CHECK(parse(again.substr(0, again.size() - 1), tally) == entry);
      ++read;
    }
  }
  CHECK(read == 79);
}

TEST_CASE("a coordinator's record of format 1 reads its nested values") {
  ReadTally tally;
  const auto entry = parse(
      "{\"time\":\"2026-11-28T20:33:02.938Z\",\"event\":\"assignment\",\"instances\":\"[{"
      "\\\"address\\\":\\\"127.0.0.1\\\",\\\"instance\\\":\\\"worker-0\\\",\\\"node\\\":"
      "\\\"node-1\\\"}]\",\"master\":\"{\\\"address\\\":\\\"127.0.0.1\\\",\\\"host\\\":"
      "\\\"node-1\\\",\\\"port\\\":20001}\"}",
      tally);
  REQUIRE(entry);
  CHECK(entry->event == Event{Assignment{.instances = {{"worker-0", "node-1", "127.0.0.1"}},
                                         .master = {"node-1", "127.0.0.1", 20001}}});
  CHECK(tally == ReadTally{});
}

}  // namespace journal_test
